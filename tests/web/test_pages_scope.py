"""A tournament's staff write in their tournament only, through the HTML forms too.

A second «Берсерк» series has a tournament of its own, its own players (zoya, yakov), head
judge and organiser (drugoy); tournament 1's staff (glavsud: head judge and organiser, sudya:
floor judge, schet: scorekeeper) send the forms of /t/1 naming that tournament's player or
event, each with the CSRF token of the page. The core (`Sudya.handle`, app.access) refuses
each: the page answers 4xx with the refusal shown, and nothing is stored. The other way, the
other tournament's organiser is no one in tournament 1: the 403 page.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlalchemy import func, select
from web_testkit import csrf_of, main_of, record_form

from sudya.adapters.db import models as m
from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.queries import tournament_summary
from sudya.domain import commands as c
from sudya.domain.rulebook import loader
from sudya.edges.web import forms, preview_token

SignIn = Callable[[str], TestClient]
BERSERK = 1
TABLES = (m.Event, m.Ruling, m.SanctionRow, m.Result, m.AppealRequest)
SLOW, RESULT = "other-slow-zoya", "other-result"  # the other tournament's events


@pytest.fixture
def other(app: FastAPI) -> int:
    """The second berserk series' tournament, set up by the owner through the core: two
    players, a head judge who is also its organiser (an account), a ruling and a result."""
    sudya = app.state.sudya
    owner = Actor(name="owner", owner=True)
    sudya.handle(c.CreateSeries(name="Кубок «Берсерк» — Восток", rulebook="berserk"), owner)
    tid: int = sudya.handle(c.CreateTournament(
        series="Кубок «Берсерк» — Восток", name="Восток, этап 1", date=dt.date.today(),
        level="professional"), owner)
    for handle, name in (("zoya", "Зоя Восточная"), ("yakov", "Яков Дальний")):
        sudya.handle(c.AddPlayer(handle=handle, name=name), owner, tid)
    sudya.handle(c.AddJudge(handle="drugoy", role="head-judge", official=True), owner, tid)
    sudya.handle(c.AddUser(username="drugoy", password=PASSWORD, display_name="Другой Судья",
                           roles=[(tid, "organiser")]), owner)
    sudya.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="zoya",
                                    judge="drugoy", round=1), owner, tid, event_id=SLOW)
    sudya.handle(c.RecordResult(players=("zoya", "yakov"), score=(2, 0), round=1), owner, tid,
                 event_id=RESULT)
    return tid


def stored(ledger: Ledger) -> list[int]:
    """How many events, rulings, sanctions, results and appeal requests are stored."""
    with ledger.factory() as s:
        return [int(s.scalar(select(func.count()).select_from(t)) or 0) for t in TABLES]


def refusal(page: str, error_id: str | None = None) -> str:
    """The refusal the page shows: beside its field (`error_id`), or in the page's alert."""
    main = main_of(page)
    if error_id is not None:
        return main.one("p", cls="error", id=error_id).text()
    return " ".join(p.text() for p in main.all("p", role="alert"))


def test_an_infraction_on_another_tournament_s_player_is_refused(
        signed_in: SignIn, app: FastAPI, ledger: Ledger, other: int) -> None:
    judge = signed_in("sudya")
    form = record_form(judge, f"/t/{BERSERK}/record?infraction=gameplay.slow-play"
                              f"&player=boris")
    before = stored(ledger)
    wrong = {**form, "player": "zoya", "preview_token": ""}
    for step in ("preview", "confirm"):
        r = judge.post(f"/t/{BERSERK}/record/{step}", data=wrong)
        assert r.status_code == 422, (step, r.text[:300])
        assert refusal(r.text, "player-error") == "«zoya» не участвует в турнире «Этап 1»"
    # even with the token a preview would have given (the app's secret is known here): the
    # core refuses what the page sends
    book = loader.load("berserk")
    parsed, errors = forms.parse(book, app.state.sudya.read(tournament_summary, BERSERK),
                                 wrong)
    assert errors == {}  # the form itself is in order: only the player is not of tournament 1
    cmd = c.decode("infraction", {**parsed, "judge": "sudya"})
    forged = preview_token.token(app.state.secret, BERSERK, "sudya", cmd)
    r = judge.post(f"/t/{BERSERK}/record/confirm", data={**wrong, "preview_token": forged})
    assert r.status_code == 422, r.text[:300]
    assert refusal(r.text, "player-error") == "«zoya» не участвует в турнире «Этап 1»"
    # a deck finding recorded in one step is refused the same way (the page's own list)
    head = signed_in("glavsud")
    r = head.post(f"/t/{BERSERK}/decks/record", data={
        "csrf": csrf_of(head, f"/t/{BERSERK}/decks"), "player": "zoya",
        "infraction": "deck.invalid-decklist", "item": "д"})
    assert r.status_code == 422 and "Выберите игрока." in main_of(r.text).text()
    assert stored(ledger) == before


def test_another_tournament_s_event_is_neither_decided_nor_corrected_nor_appealed(
        signed_in: SignIn, ledger: Ledger, other: int) -> None:
    head = signed_in("glavsud")  # the head judge and organiser of tournament 1
    before = stored(ledger)
    token = csrf_of(head, f"/t/{BERSERK}/pending")
    r = head.post(f"/t/{BERSERK}/pending/decide", data={
        "csrf": token, "key": "k-scope-1", "of": SLOW, "choice": "warning"})
    assert r.status_code == 422
    assert refusal(r.text) == f"нет решения по событию «{SLOW}»"
    # a correction names the event: tournament 1's series has no such event
    for kind, url in (("ruling", SLOW), ("result", RESULT)):
        r = head.post(f"/t/{BERSERK}/corrections/{url}", data={
            "csrf": token, "key": f"k-scope-{kind}", "kind": kind,
            "reason": "не тот турнир"})
        assert r.status_code == 422, (kind, r.text[:300])
        assert refusal(r.text) == f"нет действующего решения по событию «{url}», которое "\
                                  "можно исправить"
    # an appeal filed for the other tournament's player, and a decision on it
    r = head.post(f"/t/{BERSERK}/appeals/file", data={
        "csrf": token, "key": "k-scope-file", "event": SLOW, "appellant": "zoya"})
    assert r.status_code == 422, r.text[:300]
    assert refusal(r.text) == f"нет решения по событию «{SLOW}», которое можно обжаловать"
    r = head.post(f"/t/{BERSERK}/appeals/decide", data={
        "csrf": token, "key": "k-scope-appeal", "of": SLOW, "outcome": "overturned",
        "back": "appeals"})
    assert r.status_code == 422
    assert "никто не обжаловал" in refusal(r.text)
    assert stored(ledger) == before


def test_a_result_naming_another_tournament_s_player_is_refused(
        signed_in: SignIn, ledger: Ledger, other: int) -> None:
    keeper = signed_in("schet")
    token = csrf_of(keeper, f"/t/{BERSERK}/results")
    before = stored(ledger)
    for a, b, error_id, who in (("zoya", "yakov", "player_a-error", "zoya"),
                                ("alisa", "yakov", "player_b-error", "yakov")):
        r = keeper.post(f"/t/{BERSERK}/results", data={
            "csrf": token, "key": f"k-scope-{a}", "round": "2", "player_a": a,
            "player_b": b, "score": "2-0"})
        assert r.status_code == 422, r.text[:300]
        assert refusal(r.text, error_id) == f"«{who}» не участвует в турнире «Этап 1»"
    # nor does the end of a match name them
    judge = signed_in("sudya")
    r = judge.post(f"/t/{BERSERK}/match/end", data={
        "csrf": csrf_of(judge, f"/t/{BERSERK}/match"), "key": "k-scope-end", "round": "2",
        "player_a": "alisa", "player_b": "zoya"})
    assert r.status_code == 422
    assert "«zoya» не участвует в турнире «Этап 1»" in refusal(r.text, "player_b-error")
    assert stored(ledger) == before


def test_the_other_tournament_s_staff_write_nothing_in_tournament_1(
        signed_in: SignIn, ledger: Ledger, other: int) -> None:
    drugoy = signed_in("drugoy")
    assert drugoy.get(f"/t/{other}").status_code == 200  # their own tournament
    assert drugoy.get(f"/t/{BERSERK}").status_code == 403
    token = csrf_of(drugoy, f"/t/{other}")
    before = stored(ledger)
    for url, data in ((f"/t/{BERSERK}/results", {"round": "2", "player_a": "alisa",
                                                  "player_b": "egor", "score": "2-0"}),
                      (f"/t/{BERSERK}/record/confirm", {"infraction": "gameplay.slow-play",
                                                         "player": "boris"}),
                      (f"/t/{BERSERK}/corrections/e1", {"kind": "ruling",
                                                        "reason": "чужой турнир"})):
        r = drugoy.post(url, data={"csrf": token, **data})
        assert r.status_code == 403, (url, r.text[:300])
        assert "Этап 1" in main_of(r.text).text()  # the core's refusal names the tournament
    assert stored(ledger) == before
    # their own forms still work: a ruling in their own tournament, in their own name
    form = record_form(drugoy, f"/t/{other}/record?infraction=gameplay.slow-play"
                               f"&player=yakov")
    done = drugoy.post(f"/t/{other}/record/confirm", data=form, follow_redirects=False)
    assert done.status_code == 303, done.text[:300]
    assert stored(ledger)[0] == before[0] + 1


def test_in_one_series_each_tournament_settles_its_own_events(
        app: FastAPI, signed_in: SignIn, ledger: Ledger, other: int) -> None:
    """The next tournament of the other series: its staff (drugoy, the organiser and head
    judge there too) neither correct nor appeal the earlier tournament's event from its
    pages, and write nothing more into the earlier tournament, no longer the current one."""
    sudya = app.state.sudya
    owner = Actor(name="owner", owner=True)
    nxt: int = sudya.handle(c.CreateTournament(
        series="Кубок «Берсерк» — Восток", name="Восток, этап 2", date=dt.date.today(),
        level="professional"), owner)
    for handle in ("zoya", "yakov"):
        sudya.handle(c.AddPlayer(handle=handle), owner, nxt)
    sudya.handle(c.AddJudge(handle="drugoy", role="head-judge", official=True), owner, nxt)
    sudya.handle(c.AssignRole(username="drugoy", role="organiser"), owner, nxt)
    drugoy = signed_in("drugoy")
    token = csrf_of(drugoy, f"/t/{nxt}")
    before = stored(ledger)
    elsewhere = (f"событие «{SLOW}» — из другого турнира серии: решать о нём можно только "
                 f"в его турнире, не в «Восток, этап 2»")
    # (a decision may settle a ruling an earlier tournament left pending, 003: the core sends
    # it to the engine, which finds nothing pending there)
    r = drugoy.post(f"/t/{nxt}/pending/decide", data={
        "csrf": token, "key": "k-next-1", "of": SLOW, "choice": "warning"})
    assert r.status_code == 422
    assert refusal(r.text) == f"решение по событию «{SLOW}» не ожидает решения"
    r = drugoy.post(f"/t/{nxt}/corrections/{SLOW}", data={
        "csrf": token, "key": "k-next-2", "kind": "ruling", "reason": "не тот турнир"})
    assert r.status_code == 422 and refusal(r.text) == elsewhere
    r = drugoy.post(f"/t/{nxt}/corrections/{RESULT}", data={
        "csrf": token, "key": "k-next-3", "kind": "result", "reason": "не тот турнир"})
    assert r.status_code == 422
    assert refusal(r.text) == elsewhere.replace(SLOW, RESULT)
    r = drugoy.post(f"/t/{nxt}/appeals/file", data={
        "csrf": token, "key": "k-next-4", "event": SLOW, "appellant": "zoya"})
    assert r.status_code == 422 and refusal(r.text) == elsewhere
    # the earlier tournament is no longer the series' current one: nothing more is recorded
    r = drugoy.post(f"/t/{other}/results", data={
        "csrf": token, "key": "k-next-5", "round": "2", "player_a": "yakov",
        "player_b": "zoya", "score": "1-0"})
    assert r.status_code == 422
    assert "«Восток, этап 1» уже не текущий в своей серии" in main_of(r.text).text()
    assert stored(ledger) == before
