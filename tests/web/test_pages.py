"""The judges' pages over HTTP: each page renders in Russian, roles and CSRF are checked on
every route, decisions and appeals go through the ledger, errors appear beside the field.

Demo tournaments (sudya.web.demo): 1 — «Берсерк» (glavsud head judge + organiser, sudya
floor judge, igrok is the player alisa, schet scorekeeper); 2 — the clan championship
(master and glavsud tournament masters; veda's hoops ruling e7 waits for the college);
3 — the team wargame (glavsud head judge, sudya senior judge, mladshiy junior judge; olga's
serious cheating e11 waits for the judge's choice).
"""

from __future__ import annotations

import html
import io
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from web_testkit import csrf_of

from sudya.db import models as m
from sudya.services.ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]
SignIn = Callable[[str], TestClient]


def count(ledger: Ledger, model: type[m.Base], *where: object) -> int:
    with ledger.factory() as s:
        return int(s.scalar(select(func.count()).select_from(model).where(*where)) or 0)


def error_beside(page: str, error_id: str) -> str:
    """The error shown in `<p class="error" id=error_id>`, which a field points to."""
    assert f'aria-describedby="{error_id}"' in page, f"no field points to {error_id}"
    assert 'aria-invalid="true"' in page
    match = re.search(rf'<p class="error" id="{re.escape(error_id)}"[^>]*>(.*?)</p>', page,
                      re.S)
    assert match, f"no error paragraph {error_id}"
    return html.unescape(match.group(1))


def still_pending(ledger: Ledger, event: str) -> bool:
    with ledger.factory() as s:
        return s.scalar(select(m.Ruling.id).where(m.Ruling.resolves == event)) is None


# ---------------------------------------------------------------------- every page renders
PAGES = [
    ("glavsud", "/t/1", "Последние решения"),
    ("glavsud", "/t/1", "Замедленный темп игры"),  # names, not ids, on the dashboard
    ("glavsud", "/t/3", "Серьёзное жульничество"),
    ("glavsud", "/t/3/pending", "На усмотрение судьи в пределах таблицы"),
    ("master", "/t/2/pending", "Совокупность: решает коллегия"),
    ("glavsud", "/t/1/appeals", "Решения, которые можно обжаловать"),
    ("igrok", "/t/1/appeals", "Апелляции"),
    ("glavsud", "/t/3/teams/volki", "Жёлтая карточка"),
    ("schet", "/t/1/results", "Внесённые результаты"),
    ("glavsud", "/t/1/rounds", "Начать тур сейчас"),
    ("glavsud", "/t/1/people/boris", "Предупреждение"),
    ("igrok", "/t/1/people/alisa", "История"),
    ("-", "/t/1/clock", "Тур ещё не начался."),
    ("-", "/rulebooks", "Регламенты"),
    ("-", "/rulebooks/berserk", "Пропущенные срабатывающие особенности"),
    ("-", "/t/1/standings", "Положение"),
]


@pytest.mark.parametrize(("user", "url", "text"), PAGES)
def test_page_renders_in_russian(user: str, url: str, text: str, client: TestClient,
                                 signed_in: SignIn) -> None:
    browser = client if user == "-" else signed_in(user)
    page = browser.get(url)
    assert page.status_code == 200, page.text
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert text in page.text
    assert "Traceback" not in page.text


@pytest.mark.parametrize("url", ["/t/1", "/t/3/pending", "/t/1/appeals", "/t/3/teams/volki",
                                 "/t/1/results", "/t/1/rounds", "/t/1/people/boris"])
def test_anonymous_is_sent_to_sign_in(url: str, client: TestClient) -> None:
    r = client.get(url, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/login?next={url}"


# ---------------------------------------------------------------------- roles
def test_junior_judge_may_neither_record_nor_decide(signed_in: SignIn, ledger: Ledger) -> None:
    junior = signed_in("mladshiy")
    assert junior.get("/t/3").status_code == 200
    assert junior.get("/t/3/record").status_code == 403
    assert junior.get("/t/3/pending").status_code == 403
    token = csrf_of(junior, "/t/3")
    r = junior.post("/t/3/pending/decide", data={"csrf": token, "of": "e11", "choice": "min"})
    assert r.status_code == 403
    r = junior.post("/t/3/record/confirm", data={"csrf": token, "infraction": "petty-cheating",
                                                  "player": "ivan"})
    assert r.status_code == 403
    assert still_pending(ledger, "e11")
    assert "Записать нарушение" not in junior.get("/t/3").text


def test_player_sees_only_their_own_record(signed_in: SignIn) -> None:
    player = signed_in("igrok")
    assert player.get("/t/1/people/alisa").status_code == 200
    other = player.get("/t/1/people/boris")
    assert other.status_code == 403
    assert "Игроки видят только свою историю" in other.text or "только" in other.text
    for url in ("/t/1/pending", "/t/1/results", "/t/1/rounds", "/t/1/record"):
        assert player.get(url).status_code == 403, url
    assert player.get("/t/1/standings").status_code == 200
    assert player.get("/rulebooks/berserk").status_code == 200
    assert player.get("/t/2").status_code == 403  # no role in the clan championship
    dashboard = player.get("/t/1").text
    assert "boris" not in dashboard  # other players' rulings are not listed


def test_team_record_is_for_staff(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    page = head.get("/t/3/teams/volki")
    assert page.status_code == 200
    assert "ivan" in page.text and "petr" in page.text
    assert "превращение карточек" in page.text  # two warnings became the team's yellow card
    assert head.get("/t/3/teams/nobody").status_code == 404


# ---------------------------------------------------------------------- CSRF
@pytest.mark.parametrize(("user", "url", "data"), [
    ("glavsud", "/t/3/pending/decide", {"of": "e11", "choice": "min"}),
    ("glavsud", "/t/1/appeals/file", {"event": "e13", "appellant": "boris"}),
    ("glavsud", "/t/1/appeals/decide", {"of": "e13", "outcome": "upheld"}),
    ("schet", "/t/1/results", {"round": "2", "player_a": "alisa", "player_b": "vera",
                               "score": "2-0"}),
    ("glavsud", "/t/1/rounds/start", {"round": "2", "minutes": "50"}),
])
def test_state_changing_requests_need_the_csrf_token(user: str, url: str,
                                                     data: dict[str, str], signed_in: SignIn,
                                                     ledger: Ledger) -> None:
    browser = signed_in(user)
    before = [count(ledger, t) for t in (m.Event, m.AppealRequest, m.RoundClock)]
    for token in (None, "0" * 64):
        form = dict(data) if token is None else {**data, "csrf": token}
        r = browser.post(url, data=form, follow_redirects=False)
        assert r.status_code == 403, r.text
        assert "Форма устарела" in r.text
    assert [count(ledger, t) for t in (m.Event, m.AppealRequest, m.RoundClock)] == before


# ---------------------------------------------------------------------- pending decisions
def test_judge_decides_a_range_once(signed_in: SignIn, ledger: Ledger) -> None:
    senior = signed_in("sudya")
    page = senior.get("/t/3/pending").text
    key = re.search(r'name="key" value="([0-9a-f]+)"', page)
    assert key
    form = {"csrf": csrf_of(senior, "/t/3/pending"), "key": key.group(1), "of": "e11",
            "choice": "min"}
    r = senior.post("/t/3/pending/decide", data=form, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/t/3/pending?decided=e11"
    again = senior.post("/t/3/pending/decide", data=form, follow_redirects=False)
    assert again.status_code == 303  # the double submit is not an error…
    assert count(ledger, m.Ruling, m.Ruling.resolves == "e11") == 1  # …and not stored twice
    with ledger.factory() as s:
        decision = s.scalar(select(m.Ruling).where(m.Ruling.resolves == "e11"))
        assert decision is not None and decision.judge == "sudya"
        assert sorted(sn.kind for sn in decision.sanctions) == ["points", "yellow-card"]
    after = senior.get("/t/3/pending?decided=e11").text
    assert "Решение записано" in after
    assert 'id="pending-e11-olga"' not in after
    # a stale form (another tab, another judge): refused at the top of the page, whose
    # whole <main> htmx replaces, since the ruling's form is gone
    stale = senior.post("/t/3/pending/decide", headers={"HX-Request": "true"},
                        data={**form, "key": "k-stale", "choice": "max"})
    assert stale.status_code == 422
    assert '<p class="error" role="alert">По этому нарушению решение уже принято.</p>' \
        in stale.text
    assert stale.headers["HX-Retarget"] == "main"
    assert count(ledger, m.Ruling, m.Ruling.resolves == "e11") == 1


def test_range_choice_out_of_range_is_refused_beside_the_field(signed_in: SignIn,
                                                               ledger: Ledger) -> None:
    head = signed_in("glavsud")
    r = head.post("/t/3/pending/decide", data={
        "csrf": csrf_of(head, "/t/3/pending"), "key": "k-range-1", "of": "e11",
        "choice": "points", "choice_points": "30"})
    assert r.status_code == 422
    assert "вне диапазона" in error_beside(r.text, "pending-e11-olga-choice-error")
    assert still_pending(ledger, "e11")
    r = head.post("/t/3/pending/decide", data={
        "csrf": csrf_of(head, "/t/3/pending"), "key": "k-range-2", "of": "e11"})
    assert r.status_code == 422
    assert error_beside(r.text, "pending-e11-olga-choice-error") == "Выберите один из вариантов."


def test_college_decides_aggravation_only_when_stricter(signed_in: SignIn,
                                                        ledger: Ledger) -> None:
    master = signed_in("master")
    token = csrf_of(master, "/t/2/pending")
    # exactly what the table offers is not stricter: the engine refuses
    r = master.post("/t/2/pending/decide", data={
        "csrf": token, "key": "k-agg-1", "of": "e7",
        "sanction": ["fighter-dq", "technical-defeat"]})
    assert r.status_code == 422
    message = error_beside(r.text, "pending-e7-veda-sanctions-error")
    assert "Не строже табличного" in message
    assert "Дисквалификация бойца без права замены" in message  # names, not ids
    assert still_pending(ledger, "e7")
    # penal labour needs its amount, asked for beside the same field
    r = master.post("/t/2/pending/decide", data={
        "csrf": token, "key": "k-agg-2", "of": "e7", "sanction": ["penal-labour"]})
    assert r.status_code == 422
    assert "укажите объём" in error_beside(r.text, "pending-e7-veda-sanctions-error")
    # a team disqualification is stricter
    r = master.post("/t/2/pending/decide", data={
        "csrf": token, "key": "k-agg-3", "of": "e7", "sanction": ["team-dq"]},
        follow_redirects=False)
    assert r.status_code == 303
    assert not still_pending(ledger, "e7")
    assert "Нет решений, ожидающих коллегию." in master.get("/t/2/pending").text


def test_htmx_decision_redirects_the_whole_page(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    r = head.post("/t/3/pending/decide", headers={"HX-Request": "true"}, data={
        "csrf": csrf_of(head, "/t/3/pending"), "key": "k-htmx", "of": "e11", "choice": "max"})
    assert r.status_code == 204
    assert r.headers["HX-Redirect"] == "/t/3/pending?decided=e11"


# ---------------------------------------------------------------------- appeals
def test_player_appeals_and_head_judge_overturns(signed_in: SignIn, ledger: Ledger) -> None:
    ledger.record(tournament=1, infraction="gameplay.slow-play", player="alisa",
                  judge="sudya", round=2, event_id="slow-alisa")
    player = signed_in("igrok")
    appeals = player.get("/t/1/appeals").text
    assert 'id="file-slow-alisa-alisa"' in appeals
    assert 'id="file-e13-boris"' not in appeals  # someone else's ruling
    token = csrf_of(player, "/t/1/appeals")
    r = player.post("/t/1/appeals/file", data={"csrf": token, "key": "k-file-1",
                                               "event": "e13", "appellant": "boris"})
    assert r.status_code == 403
    form = {"csrf": token, "key": "k-file-2", "event": "slow-alisa", "appellant": "alisa",
            "reason": "Соперник сам просил подождать"}
    r = player.post("/t/1/appeals/file", data=form, follow_redirects=False)
    assert r.status_code == 303
    assert player.post("/t/1/appeals/file", data=form, follow_redirects=False).status_code == 303
    assert count(ledger, m.AppealRequest) == 1  # the double submit filed it once
    assert "ждёт главного судью" in player.get("/t/1/people/alisa").text

    # a floor judge may not decide it
    floor = signed_in("sudya")
    r = floor.post("/t/1/appeals/decide", data={
        "csrf": csrf_of(floor, "/t/1/appeals"), "of": "slow-alisa", "outcome": "overturned"})
    assert r.status_code == 403
    # the head judge must choose an outcome…
    head = signed_in("glavsud")
    token = csrf_of(head, "/t/1/appeals")
    r = head.post("/t/1/appeals/decide", data={"csrf": token, "key": "k-dec-0",
                                               "of": "slow-alisa", "back": "appeals"})
    assert r.status_code == 422
    assert error_beside(r.text, "appeal-slow-alisa-outcome-error") == \
        "Выберите решение по апелляции."
    # …and overturns the ruling
    r = head.post("/t/1/appeals/decide", data={"csrf": token, "key": "k-dec-1",
                                               "of": "slow-alisa", "outcome": "overturned",
                                               "back": "appeals"}, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/t/1/appeals?appealed=slow-alisa"
    record = player.get("/t/1/people/alisa").text
    assert "апелляция: решение отменено" in record
    assert "state-revoked" in record  # the warning no longer counts
    assert "отменено: наказания больше не учитываются" in record  # the request's outcome
    decided = head.get("/t/1/appeals").text
    assert "Решённые апелляции" in decided and "slow-alisa" in decided
    # decided once: a second decision is refused
    r = head.post("/t/1/appeals/decide", data={"csrf": token, "key": "k-dec-2",
                                               "of": "slow-alisa", "outcome": "upheld"})
    assert r.status_code == 422
    assert "уже есть решение" in r.text


def test_head_judges_rulings_are_final(signed_in: SignIn, ledger: Ledger) -> None:
    head = signed_in("glavsud")
    page = head.get("/t/1/appeals").text
    assert 'id="file-e15-egor"' not in page  # glavsud's own ruling: final
    assert "Окончательные решения" in page
    r = head.post("/t/1/appeals/file", data={"csrf": csrf_of(head, "/t/1/appeals"),
                                             "key": "k-final", "event": "e15",
                                             "appellant": "egor"})
    assert r.status_code == 422
    assert "окончательны" in r.text
    assert count(ledger, m.AppealRequest) == 0


def test_frivolous_appeal_with_the_head_judges_choice(signed_in: SignIn,
                                                      ledger: Ledger) -> None:
    head = signed_in("glavsud")
    token = csrf_of(head, "/t/3/appeals")
    r = head.post("/t/3/appeals/file", data={"csrf": token, "key": "k-fa",
                                             "event": "e9", "appellant": "ivan"},
                  follow_redirects=False)
    assert r.status_code == 303
    pending = head.get("/t/3/pending").text
    assert 'id="appeal-e9"' in pending  # the pending page lists it for the head judge
    r = head.post("/t/3/appeals/decide", data={
        "csrf": token, "key": "k-fb", "of": "e9", "outcome": "frivolous",
        "choice": "yellow-card", "back": "pending"}, follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == "/t/3/pending?appealed=e9"
    record = head.get("/t/3/people/ivan").text
    assert "апелляция признана необоснованной" in record


# ---------------------------------------------------------------------- results
def test_results_entry(signed_in: SignIn, ledger: Ledger) -> None:
    keeper = signed_in("schet")
    before = count(ledger, m.Result)
    token = csrf_of(keeper, "/t/1/results")
    r = keeper.post("/t/1/results", data={"csrf": token, "key": "k-res-1", "round": "2",
                                          "player_a": "alisa", "player_b": "vera",
                                          "score": "два-один"})
    assert r.status_code == 422
    assert "двумя числами" in error_beside(r.text, "score-error")
    assert 'value="два-один"' in r.text  # what was typed is kept
    r = keeper.post("/t/1/results", data={"csrf": token, "key": "k-res-2", "round": "x",
                                          "player_a": "alisa", "player_b": "alisa",
                                          "score": "2-0"})
    assert r.status_code == 422
    assert error_beside(r.text, "round-error") == "Целое число."
    assert error_beside(r.text, "player_b-error") == "Выберите другого игрока."
    assert count(ledger, m.Result) == before  # nothing stored
    form = {"csrf": token, "key": "k-res-3", "round": "2", "player_a": "alisa",
            "player_b": "vera", "score": "2-0"}
    r = keeper.post("/t/1/results", data=form, follow_redirects=False)
    assert r.status_code == 303
    assert keeper.post("/t/1/results", data=form, follow_redirects=False).status_code == 303
    assert count(ledger, m.Result) == before + 1
    page = keeper.get("/t/1/results?entered=1").text
    assert "Результат записан." in page and "2:0" in page


# ---------------------------------------------------------------------- the round clock
def test_organiser_starts_a_round_and_the_clock_counts_it(signed_in: SignIn,
                                                          client: TestClient,
                                                          ledger: Ledger) -> None:
    head = signed_in("glavsud")
    token = csrf_of(head, "/t/1/rounds")
    r = head.post("/t/1/rounds/start", data={"csrf": token, "key": "k-r", "round": "2",
                                             "minutes": "0"})
    assert r.status_code == 422
    assert "от 1 до" in error_beside(r.text, "minutes-error")
    form = {"csrf": token, "key": "k-r2", "round": "2", "minutes": "45"}
    assert head.post("/t/1/rounds/start", data=form,
                     follow_redirects=False).status_code == 303
    assert head.post("/t/1/rounds/start", data=form,
                     follow_redirects=False).status_code == 303
    assert count(ledger, m.RoundClock) == 1  # started once
    assert "Тур 2" in head.get("/t/1").text
    clock = client.get("/t/1/clock")  # the projector needs no session
    assert clock.status_code == 200
    page = clock.text
    assert '<meta http-equiv="refresh" content="30">' in page
    assert "Тур 2" in page and "data-ends=" in page
    assert re.search(r'id="time"[^>]*>(45:00|44:5\d)<', page)
    assert not re.search(r'(src|href)="(https?:)?//', page)  # nothing from elsewhere
    schet = signed_in("schet")
    assert schet.post("/t/1/rounds/start", data={**form, "key": "k-r3"}).status_code == 403


# ---------------------------------------------------------------------- the rulebook browser
def test_rulebook_browser_in_russian_and_english(client: TestClient) -> None:
    ru = client.get("/rulebooks/berserk?level=highest").text
    assert "Пропущенные срабатывающие особенности" in ru
    assert 'aria-current="page">Высший<' in ru
    assert "Расхождение источников" in ru and "Толкование" in ru
    assert "Главный судья" in ru and "решения окончательны" in ru
    assert "Замечания линтера" in ru and "толкование:" in ru  # lint notes in Russian
    en = client.get("/rulebooks/berserk?lang=en").text
    assert "Missed trigger" in en and "Linter notes" in en
    assert "interpretation:" in en
    assert client.get("/rulebooks/nonsense").status_code == 404
    assert client.get("/rulebooks/..%2Fetc").status_code == 404


# ---------------------------------------------------------------------- the catalogue
def test_every_message_has_a_russian_translation(tmp_path: Path) -> None:
    catalogue = ROOT / "src" / "sudya" / "locale" / "ru.po"
    with catalogue.open("rb") as f:
        ru = read_po(f, locale="ru")
    pot = tmp_path / "messages.pot"
    subprocess.run([sys.executable, "-m", "babel.messages.frontend", "extract", "-F",
                    "babel.cfg", "-o", str(pot), "--no-location", "."],
                   cwd=ROOT, check=True, capture_output=True)
    missing = []
    for msg in read_po(io.BytesIO(pot.read_bytes())):
        if not msg.id:
            continue
        have = ru.get(msg.id)
        strings = have.string if have is not None else ""
        if not strings or (isinstance(strings, tuple) and not all(strings)):
            missing.append(msg.id)
    assert missing == []


def test_preview_gives_the_rulebooks_own_russian_reasons(
        signed_in: Callable[[str], TestClient]) -> None:
    """The engine writes its notes in English; the preview shows the rulebook's Russian."""
    client = signed_in("sudya")
    csrf = csrf_of(client, "/t/1/record?infraction=gameplay.missed-trigger&player=boris")
    preview = client.post("/t/1/record/preview", data={
        "csrf": csrf, "infraction": "gameplay.missed-trigger", "player": "boris",
        "details.optional": "true"})
    assert preview.status_code == 200
    assert "Опциональные срабатывающие особенности не попадают под этот пункт" in preview.text
    assert "Optional triggers are not penalised" not in preview.text


def test_the_organiser_registers_people_and_others_may_not(
        signed_in: Callable[[str], TestClient]) -> None:
    organiser = signed_in("glavsud")  # organiser of every demo tournament
    page = organiser.get("/t/1/people")
    assert page.status_code == 200 and "Добавить игрока" in page.text
    csrf = csrf_of(organiser, "/t/1/people")
    added = organiser.post("/t/1/people", data={"csrf": csrf, "form": "player",
                                                "handle": "zhenya", "table": "4"},
                           follow_redirects=False)
    assert added.status_code == 303
    assert "zhenya" in organiser.get("/t/1/people").text
    again = organiser.post("/t/1/people", data={"csrf": csrf, "form": "player",
                                                "handle": "zhenya"})
    assert again.status_code == 422 and 'id="player-handle-error"' in again.text
    bad_table = organiser.post("/t/1/people", data={"csrf": csrf, "form": "player",
                                                    "handle": "yana", "table": "x"})
    assert bad_table.status_code == 422 and 'id="player-table-error"' in bad_table.text
    judge = organiser.post("/t/1/people", data={"csrf": csrf, "form": "judge",
                                                "handle": "nikita", "role": "floor-judge"},
                           follow_redirects=False)
    assert judge.status_code == 303
    no_csrf = organiser.post("/t/1/people", data={"form": "player", "handle": "x1"})
    assert no_csrf.status_code == 403
    floor_judge = signed_in("sudya")
    assert floor_judge.get("/t/1/people").status_code == 403
