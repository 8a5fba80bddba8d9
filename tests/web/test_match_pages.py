"""The end of a match from the web app (one table, or the whole round) with the stacking
rulings it makes, and the head judge's corrections of rulings: each a new record in the
ledger, nothing changed.

Expected rulings come from ../shared/spec/regulations.md §1.3 (berserk, 002 «Сложение
пенальти»): three penalties of one rank for three different infractions give the next rank at
the end of the match — three warnings give a game loss (with its warning).
The demo (sudya.app.demo), tournament 1 — «Берсерк», professional: round 1 alisa 2-1
boris, vera 1-1 gleb, dasha 0-2 egor; boris's slow play (e13, floor judge sudya); glavsud
the head judge, sudya a floor judge, schet the scorekeeper, igrok the player alisa.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from web_testkit import csrf_of, main_of

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger

SignIn = Callable[[str], TestClient]
WARNINGS = ("procedure.significant", "conduct.minor", "procedure.wrong-opponent")


def events(ledger: Ledger) -> int:
    with ledger.factory() as s:
        return int(s.scalar(select(func.count()).select_from(m.Event)) or 0)


def three_warnings(ledger: Ledger, player: str) -> None:
    for infraction in WARNINGS:
        ledger.record(tournament=1, infraction=infraction, player=player, judge="sudya",
                      round=1)


def stacking_rulings(ledger: Ledger, event: str) -> list[tuple[str, list[str]]]:
    with ledger.factory() as s:
        rows = s.scalars(select(m.Ruling).join(m.Event, m.Event.id == m.Ruling.event_id)
                         .where(m.Event.ext_id == event, m.Ruling.cause == "stacking"))
        return [(r.subject, sorted(x.kind for x in r.sanctions)) for r in rows]


@pytest.mark.postgresql
def test_end_of_one_tables_match_gives_its_stacking_penalty(signed_in: SignIn,
                                                           ledger: Ledger) -> None:
    three_warnings(ledger, "alisa")
    three_warnings(ledger, "dasha")
    judge = signed_in("sudya")
    page = main_of(judge.get("/t/1/match?round=1").text)
    assert page.one("h1").text() == "Конец матча · Тур 1"
    buttons = [b.text() for b in page.all("button")]
    assert "Конец матча: Алиса Смирнова — Борис Петров" in buttons
    assert "Конец тура 1 для всех игроков" in buttons
    token = csrf_of(judge, "/t/1/match?round=1")
    before = events(ledger)
    r = judge.post("/t/1/match/end", data={"csrf": token, "key": "k-end-1", "round": "1",
                                           "player_a": "alisa", "player_b": "boris"},
                   follow_redirects=False)
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert location.startswith("/t/1/match?round=1&ended=e")
    ended = location.rsplit("=", 1)[1]
    assert events(ledger) == before + 1
    # only the table's players were checked: alisa's three warnings, not dasha's
    assert stacking_rulings(ledger, ended) == [("alisa", ["game-loss", "warning"])]
    shown = main_of(judge.get(location).text).one("section", id="ended")
    assert "Конец матча записан: Алиса Смирнова — Борис Петров" in shown.text()
    [line] = shown.all("li", cls="ruling")
    assert line.one("strong").text() == "alisa"
    assert [s.text() for s in line.all("span", cls="sanction")] == [
        "Поражение в партии", "Предупреждение"]
    # the table's match shows as ended; the round's end checks everyone else
    after = main_of(judge.get("/t/1/match?round=1").text)
    assert "Конец матча: Алиса Смирнова — Борис Петров" not in [
        b.text() for b in after.all("button")]
    r = judge.post("/t/1/match/end", data={"csrf": token, "key": "k-end-2", "round": "1",
                                           "scope": "round"}, follow_redirects=False)
    assert r.status_code == 303
    whole = r.headers["location"].rsplit("=", 1)[1]
    assert stacking_rulings(ledger, whole) == [("dasha", ["game-loss", "warning"])]
    with ledger.factory() as s:
        payloads = [e.payload for e in s.scalars(select(m.Event).where(
            m.Event.ext_id.in_([ended, whole])).order_by(m.Event.seq))]
    assert payloads == [{"round": 1, "players": ["alisa", "boris"]}, {"round": 1}]


def test_end_of_match_with_no_stacking_and_bad_input(signed_in: SignIn,
                                                     ledger: Ledger) -> None:
    judge = signed_in("sudya")
    token = csrf_of(judge, "/t/1/match")
    before = events(ledger)
    r = judge.post("/t/1/match/end", data={"csrf": token, "key": "k-end-3", "round": "1",
                                           "player_a": "alisa", "player_b": "alisa"})
    assert r.status_code == 422
    assert main_of(r.text).one("p", id="player_b-error").text() == "Выберите другого игрока."
    r = judge.post("/t/1/match/end", data={"csrf": token, "key": "k-end-4", "round": "1",
                                           "player_a": "alisa", "player_b": "nobody"})
    assert r.status_code == 422
    assert "nobody" in main_of(r.text).one("p", id="player_b-error").text()
    assert events(ledger) == before
    r = judge.post("/t/1/match/end", data={"csrf": token, "key": "k-end-5", "round": "1",
                                           "player_a": "vera", "player_b": "gleb"})
    assert r.status_code == 200  # followed to the page
    assert "Сложение пенальти не дало новых наказаний." in r.text
    assert events(ledger) == before + 1


def test_end_of_match_needs_a_judge(signed_in: SignIn) -> None:
    keeper = signed_in("schet")
    assert keeper.get("/t/1/match").status_code == 403
    player = signed_in("igrok")
    assert player.get("/t/1/match").status_code == 403


@pytest.mark.postgresql
def test_the_head_judge_corrects_a_ruling_from_the_web(signed_in: SignIn,
                                                       ledger: Ledger) -> None:
    judge = signed_in("glavsud")
    listed = main_of(judge.get("/t/1/corrections").text)
    link = listed.one("a", href="/t/1/corrections/e13")
    assert link.text() == "исправить"
    form = judge.get("/t/1/corrections/e13")
    assert form.status_code == 200 and "Замедленный темп игры" in form.text
    assert 'name="score"' not in form.text
    token = csrf_of(judge, "/t/1/corrections/e13")
    before = events(ledger)
    r = judge.post("/t/1/corrections/e13", data={"csrf": token, "key": "k-fix-r0",
                                                 "kind": "ruling", "reason": " "})
    assert r.status_code == 422 and events(ledger) == before
    r = judge.post("/t/1/corrections/e13", data={
        "csrf": token, "key": "k-fix-r1", "kind": "ruling",
        "reason": "записали не тому игроку"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    by = r.headers["location"].rsplit("=", 1)[1]
    assert r.headers["location"] == f"/t/1/corrections?corrected=e13&by={by}"
    assert events(ledger) == before + 1
    with ledger.factory() as s:
        correction = s.scalar(select(m.Ruling).join(m.Event, m.Event.id == m.Ruling.event_id)
                              .where(m.Event.ext_id == by))
        assert correction is not None
        assert (correction.cause, correction.revokes, correction.subject) == (
            "correction", "e13", "boris")
        # append-only: the corrected ruling is still there, its sanction revoked by a new row
        slow = s.scalar(select(m.Ruling).join(m.Event, m.Event.id == m.Ruling.event_id)
                        .where(m.Event.ext_id == "e13"))
        assert slow is not None and slow.cause != "correction"
        assert s.scalar(select(func.count()).select_from(m.Revocation)) >= 1
    done = main_of(judge.get(r.headers["location"]).text)
    assert done.one("p", cls="notice").text().startswith("Исправлено: e13")
    assert not done.all("a", href="/t/1/corrections/e13")  # corrected: not offered again
    record = judge.get("/t/1/people/boris").text
    assert "state-revoked" in record
    assert judge.get("/t/1/corrections/e13").status_code == 404


def test_a_player_may_not_correct(signed_in: SignIn) -> None:
    player = signed_in("igrok")
    assert player.get("/t/1/corrections").status_code == 403
    assert player.get("/t/1/corrections/e13").status_code == 403


def test_the_dashboard_leads_to_the_end_of_match_and_to_corrections(signed_in: SignIn
                                                                    ) -> None:
    head = main_of(signed_in("glavsud").get("/t/1").text)
    assert head.one("a", href="/t/1/match").text() == "Конец матча"
    assert head.one("a", href="/t/1/corrections").text() == "Исправления"
    latest = head.after("Последние решения")
    slow = next(li for li in latest.all("li", cls="ruling") if "e13" in li.text())
    assert slow.one("a", href="/t/1/corrections/e13").text() == "исправить"
    for user in ("igrok", "schet"):
        page = signed_in(user).get("/t/1").text
        assert "/t/1/match" not in page and "/t/1/corrections" not in page


def test_the_round_s_tables_come_from_its_pairings(signed_in: SignIn, ledger: Ledger) -> None:
    """The demo's berserk round 2 is paired (table 1 alisa — egor …) with no result yet; the
    team wargame's round 2 pairs two teams: its table's end checks their players."""
    judge = signed_in("sudya")
    page = main_of(judge.get("/t/1/match").text)  # the current round: the latest paired
    assert page.one("h1").text() == "Конец матча · Тур 2"
    cards = [c.one("p").text() for c in page.all("div", cls="match")]
    assert cards == ["Стол 1 · Алиса Смирнова — Егор Лебедев",
                     "Стол 2 · Вера Кузнецова — Борис Петров",
                     "Стол 3 · Глеб Орлов — Дарья Волкова"]
    head = signed_in("glavsud")
    teams = main_of(head.get("/t/3/match?round=2").text)
    [card] = teams.all("div", cls="match")
    assert card.one("p").text().startswith("Стол 1 · ")
    form = card.one("form")
    sides = [form.one("input", name=n).attrs["value"] for n in ("player_a", "player_b")]
    assert sides == ["volki", "medvedi"]
    token = csrf_of(head, "/t/3/match?round=2")
    r = head.post("/t/3/match/end", data={"csrf": token, "key": "k-end-t", "round": "2",
                                          "player_a": "volki", "player_b": "medvedi"},
                  follow_redirects=False)
    assert r.status_code == 303, r.text
    ended = main_of(head.get(r.headers["location"]).text)
    assert "Конец матча записан: Волки — " in ended.one("section", id="ended").text()
