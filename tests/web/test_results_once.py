"""A result is entered once: a second result for the same pair and round is refused (the
API 409, the form's message beside the field), nothing is stored; a wrong result is corrected
— from the web app too — and the right score entered in its place, in one transaction.

The demo (sudya.app.demo), tournament 1 — «Берсерк»: round 1 results alisa 2-1 boris,
vera 1-1 gleb, dasha 0-2 egor (match points 3/1/0); glavsud is the head judge, schet the
scorekeeper. Tournament 2 — the clan championship, an annulled fight's extra fight.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from web_testkit import csrf_of, main_of, table_rows

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger, LedgerError

API = "/api/v1"
SignIn = Callable[[str], TestClient]



def stored(ledger: Ledger) -> tuple[int, int]:
    """(events, results) in the ledger."""
    with ledger.factory() as s:
        return (int(s.scalar(select(func.count()).select_from(m.Event)) or 0),
                int(s.scalar(select(func.count()).select_from(m.Result)) or 0))


def result_event(ledger: Ledger, a: str, b: str, round_: int = 1) -> str:
    with ledger.factory() as s:
        return str(s.scalar(select(m.Event.ext_id).join(m.Result, m.Result.event_id == m.Event.id)
                            .where(m.Result.player_a == a, m.Result.player_b == b,
                                   m.Result.round == round_)))


def alisa_and_boris(client: TestClient) -> tuple[dict[str, Any], dict[str, Any]]:
    players = client.get(f"{API}/tournaments/1/standings").json()["players"]
    return players["alisa"], players["boris"]


@pytest.mark.postgresql
def test_a_second_result_for_the_pair_and_round_is_refused(client: TestClient, auth: Any,
                                                           ledger: Ledger) -> None:
    before = stored(ledger)
    first = result_event(ledger, "alisa", "boris")
    for players, score in ((["alisa", "boris"], "2-1"), (["boris", "alisa"], "0-2")):
        r = client.post(f"{API}/tournaments/1/results", headers=auth("schet"),
                        json={"round": 1, "players": players, "score": score})
        assert r.status_code == 409, r.text
        [problem] = r.json()["detail"]
        assert problem["type"] == "result.entered"
        assert problem["loc"] == ["body", "players"]
        assert problem["params"]["event"] == first
        assert "уже записан" in problem["msg"] and first in problem["msg"]
    assert stored(ledger) == before  # nothing stored
    alisa, boris = alisa_and_boris(client)
    assert (alisa["matches"], alisa["match_points"], boris["matches"]) == (1, 3, 1)
    # the same pair in another round is another match
    r = client.post(f"{API}/tournaments/1/results", headers=auth("schet"),
                    json={"round": 2, "players": ["boris", "alisa"], "score": "1-1"})
    assert r.status_code == 200, r.text
    assert alisa_and_boris(client)[0]["matches"] == 2
    # and the ledger refuses it for every caller, the CSV import and the CLI too
    with pytest.raises(LedgerError) as refused:
        ledger.record_result(tournament=1, players=("alisa", "boris"), score=(1, 0), round=2)
    assert (refused.value.code, refused.value.field) == ("result.entered", "players")


def test_the_form_shows_the_refusal_beside_the_players(signed_in: SignIn,
                                                       ledger: Ledger) -> None:
    keeper = signed_in("schet")
    before = stored(ledger)
    token = csrf_of(keeper, "/t/1/results")
    r = keeper.post("/t/1/results", data={"csrf": token, "key": "k-dup", "round": "1",
                                          "player_a": "boris", "player_b": "alisa",
                                          "score": "1-2"})
    assert r.status_code == 422
    first = result_event(ledger, "alisa", "boris")
    error = main_of(r.text).one("p", cls="error", id="player_a-error").text()
    assert error.startswith("результат пары alisa — boris в туре 1 уже записан"), error
    assert first in error and "исправляют" in error
    assert 'aria-describedby="player_a-error"' in r.text
    assert stored(ledger) == before
    # the same under htmx: the form comes back with the message (422 is swapped in)
    r = keeper.post("/t/1/results", headers={"HX-Request": "true"},
                    data={"csrf": token, "key": "k-dup-2", "round": "1",
                          "player_a": "alisa", "player_b": "boris", "score": "2-1"})
    assert r.status_code == 422 and "уже записан" in r.text
    assert stored(ledger) == before


@pytest.mark.postgresql
def test_the_head_judge_corrects_a_result_from_the_web(signed_in: SignIn, client: TestClient,
                                                       auth: Any, ledger: Ledger) -> None:
    judge = signed_in("glavsud")
    first = result_event(ledger, "alisa", "boris")
    page = main_of(judge.get("/t/1/results").text)
    link = page.one("a", href=f"/t/1/corrections/{first}")
    assert link.text() == "исправить"
    form = judge.get(f"/t/1/corrections/{first}")
    assert form.status_code == 200
    assert 'name="score"' in form.text and "alisa — boris" in form.text
    token = csrf_of(judge, f"/t/1/corrections/{first}")
    before = stored(ledger)
    r = judge.post(f"/t/1/corrections/{first}", data={"csrf": token, "key": "k-fix-0",
                                                      "kind": "result", "reason": "",
                                                      "score": "1-2"})
    assert r.status_code == 422
    assert main_of(r.text).one("p", id="reason-error").text() == \
        "Напишите, почему запись исправляется."
    assert stored(ledger) == before
    form_data = {"csrf": token, "key": "k-fix-1", "kind": "result",
                 "reason": "счёт записан наоборот", "score": "1-2"}
    r = judge.post(f"/t/1/corrections/{first}", data=form_data, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"].startswith(f"/t/1/corrections?corrected={first}&by=e")
    # a correction and the right result: two events, one new result row, nothing changed
    assert stored(ledger) == (before[0] + 2, before[1] + 1)
    again = judge.post(f"/t/1/corrections/{first}", data=form_data, follow_redirects=False)
    assert again.status_code == 303  # the same form sent twice: recorded once
    assert stored(ledger) == (before[0] + 2, before[1] + 1)
    alisa, boris = alisa_and_boris(client)
    assert (alisa["matches"], alisa["losses"], alisa["match_points"]) == (1, 1, 0)
    assert (boris["matches"], boris["wins"], boris["match_points"]) == (1, 1, 3)
    rows = table_rows(main_of(judge.get("/t/1/results").text).after("Внесённые результаты"))
    by_pair = [row for row in rows if row[1].startswith("alisa — boris")]
    assert [row[2] for row in by_pair] == ["1:2", "2:1"]  # the newest first
    assert "исправлено" in by_pair[1][1] and "счёт записан наоборот" in by_pair[1][1]
    # the right result counts now: a second one is refused again
    r = client.post(f"{API}/tournaments/1/results", headers=auth("schet"),
                    json={"round": 1, "players": ["alisa", "boris"], "score": "2-1"})
    assert r.status_code == 409
    # a corrected result cannot be corrected again
    assert judge.get(f"/t/1/corrections/{first}").status_code == 404


def test_a_correction_without_a_new_score_lets_the_result_be_entered_again(
        signed_in: SignIn, ledger: Ledger, client: TestClient) -> None:
    judge = signed_in("glavsud")
    first = result_event(ledger, "vera", "gleb")
    token = csrf_of(judge, f"/t/1/corrections/{first}")
    r = judge.post(f"/t/1/corrections/{first}", data={
        "csrf": token, "key": "k-fix-2", "kind": "result", "reason": "не тот стол"},
        follow_redirects=False)
    assert r.status_code == 303
    players = client.get(f"{API}/tournaments/1/standings").json()["players"]
    assert players["vera"]["matches"] == 0 and players["gleb"]["matches"] == 0
    ledger.record_result(tournament=1, players=("vera", "gleb"), score=(2, 0), round=1)
    players = client.get(f"{API}/tournaments/1/standings").json()["players"]
    assert players["vera"]["wins"] == 1


def test_only_a_judge_who_decides_corrects(signed_in: SignIn, ledger: Ledger) -> None:
    first = result_event(ledger, "alisa", "boris")
    keeper = signed_in("schet")
    assert keeper.get(f"/t/1/corrections/{first}").status_code == 403
    assert keeper.get("/t/1/corrections").status_code == 403
    assert f"/t/1/corrections/{first}" not in keeper.get("/t/1/results").text


def test_an_annulled_fights_extra_fight_is_not_a_second_result(ledger: Ledger) -> None:
    """003 «Аннулирование боя и назначение дополнительного»: the extra fight is recorded as
    a later result of the same round (clan championship; the demo's tournament 2)."""
    ledger.record(tournament=2, infraction="fight.unauthorised-start", player="grom", round=2)
    ledger.record(tournament=2, infraction="fight.unauthorised-start", player="grom", round=2)
    ledger.record_result(tournament=2, players=("grom", "lis"), score=(1, 0), round=2)
    with ledger.factory() as s:
        annulled = s.scalar(select(func.count()).select_from(m.SanctionRow)
                            .where(m.SanctionRow.kind == "fight-annulled"))
    assert annulled == 1
    ledger.record_result(tournament=2, players=("lis", "grom"), score=(1, 0), round=2)
    with pytest.raises(LedgerError) as refused:  # the extra fight counts: a third is refused
        ledger.record_result(tournament=2, players=("grom", "lis"), score=(0, 1), round=2)
    assert refused.value.code == "result.entered"


def many_results(ledger: Ledger, n: int, prefix: str) -> int:
    """`n` more results of vera and gleb in tournament 1 (rounds 100 on, events PREFIX-i), in
    one transaction; how many results the tournament has now."""
    from sudya.app.queries import result_count

    with ledger.writing(tournament=1) as s:
        for i in range(n):
            ledger.record_result(tournament=1, players=("vera", "gleb"), score=(2, i % 2),
                                 round=100 + i, event_id=f"{prefix}-{i}", session=s)
    with ledger.factory() as s:
        return result_count(s, tournament=1)


def test_the_results_list_comes_a_page_at_a_time(signed_in: SignIn, ledger: Ledger) -> None:
    """A large open tournament enters thousands of results: the list shows the newest 100
    a page at a time."""
    total = many_results(ledger, 150, "many")
    assert 150 < total <= 200
    keeper = signed_in("schet")
    first = main_of(keeper.get("/t/1/results").text)
    rows = table_rows(first.after("Внесённые результаты"))
    assert len(rows) == 100 and rows[0][0] == "249"  # the newest first
    assert f"Страница 1 из 2 · результаты 1–100 из {total}" in first.text()
    assert "Раньше →" in first.text() and "← Новее" not in first.text()
    last = main_of(keeper.get("/t/1/results?page=9").text)  # past the last page: the last
    assert len(table_rows(last.after("Внесённые результаты"))) == total - 100
    assert f"Страница 2 из 2 · результаты 101–{total} из {total}" in last.text()
    assert "← Новее" in last.text() and "Раньше →" not in last.text()


def test_the_corrections_page_offers_the_newest_results(signed_in: SignIn,
                                                         ledger: Ledger) -> None:
    """The corrections page lists the newest 50 results, says how many there are and leads to
    the results list (a page at a time, each result with its «исправить») for the older ones;
    an older result is still corrected from its own page."""
    total = many_results(ledger, 60, "old")
    head = signed_in("glavsud")
    page = main_of(head.get("/t/1/corrections").text)
    listed = [a.attrs["href"] for a in page.all("a") if "/corrections/old-" in
              a.attrs.get("href", "")]
    assert len(listed) == 50 and listed[0] == "/t/1/corrections/old-59"  # the newest first
    assert f"Последние 50 из {total} результатов." in page.text()
    assert page.one("a", href="/t/1/results").text() == "Все результаты"
    assert head.get("/t/1/corrections/old-0").status_code == 200  # not listed, correctable
