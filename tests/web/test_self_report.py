"""Issue 36: players report their own results where the tournament's plan lets them, and the
opponent confirms — then the result is entered as a scorekeeper would enter it — or
disputes, and a judge enters it. A player only reports their own match; the reporter cannot
confirm; a tournament without the setting refuses; the pairings page shows what waits."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from test_swiss_pages import tables
from web_testkit import csrf_of

from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.queries import tournament_standings
from sudya.domain import commands as c
from sudya.domain.plan import Plan

SignIn = Callable[[str], TestClient]
OWNER = Actor(name="owner", owner=True)
PLAYERS = ["ada", "bob", "cy", "dee"]


def event(app: FastAPI, self_report: bool = True) -> int:
    sudya = app.state.sudya
    tid: int = sudya.handle(c.CreateTournament(
        series="Клуб", name="Пятница", date=dt.date(2026, 12, 18), level="amateur",
        new_series_rulebook="berserk",
        plan=Plan(rounds=3, pairing="swiss", self_report=self_report)), OWNER)
    for p in PLAYERS:
        sudya.handle(c.AddPlayer(handle=p, name=p.title()), OWNER, tid)
        sudya.handle(c.AddUser(username=f"u{p}", password=PASSWORD, person=p,
                               roles=[(tid, "player")]), OWNER)
    sudya.handle(c.AddUser(username="org", password=PASSWORD, roles=[(tid, "organiser")]),
                 OWNER)
    sudya.handle(c.PairRound(round=1), OWNER, tid)
    return tid


def post(client: TestClient, tid: int, **fields: str) -> tuple[int, str]:
    r = client.post(f"/t/{tid}/my-match", data={
        "csrf": csrf_of(client, f"/t/{tid}/my-match"), "round": "1", **fields},
        follow_redirects=True)
    return r.status_code, html.unescape(r.text)


def test_a_result_reported_and_confirmed(app: FastAPI, signed_in: SignIn,
                                         ledger: Ledger) -> None:
    tid = event(app)
    (a, b), (x, y) = tables(ledger, tid, 1)
    first, second = signed_in(f"u{a}"), signed_in(f"u{b}")
    assert "Мой матч" in html.unescape(first.get(f"/t/{tid}").text)
    page = html.unescape(first.get(f"/t/{tid}/my-match").text)
    assert f"Соперник: {b.title()}" in page and "Стол 1" in page
    assert post(first, tid, score="abc")[0] == 422
    status, page = post(first, tid, score="2-1")
    assert status == 200 and "ждём подтверждения соперника" in page
    # the reporter cannot confirm their own report
    status, page = post(first, tid, answer="agree")
    assert status == 422 and "подтверждает соперник" in page
    page = html.unescape(second.get(f"/t/{tid}/my-match").text)
    assert "Соперник сообщил 1:2 (ваши партии первыми)" in page
    org = signed_in("org")
    assert f"счёт 2:1 от {a.title()} ждёт подтверждения" in html.unescape(
        org.get(f"/t/{tid}/pairings?round=1").text)
    status, page = post(second, tid, answer="agree")
    assert status == 200 and "Подтверждено: результат внесён." in page
    assert "Результат внесён: 1:2" in page
    with ledger.factory() as s:
        rows = tournament_standings(s, tid)["players"]
    assert (rows[a]["wins"], rows[b]["losses"], rows[a]["games_won"]) == (1, 1, 2)
    # reported again after it is entered: refused, nothing changes
    status, page = post(first, tid, score="2-0")
    assert status == 422 and "уже внесён" in page and "Результат внесён: 2:1" in page
    # the other table: disputed, then the judge enters it
    third, fourth = signed_in(f"u{x}"), signed_in(f"u{y}")
    post(third, tid, score="2-0")
    status, page = post(fourth, tid, answer="dispute")
    assert "Оспорено: результат внесёт судья." in page
    assert "соперник оспорил" in html.unescape(org.get(f"/t/{tid}/pairings?round=1").text)
    app.state.sudya.handle(c.RecordResult(players=(x, y), score=(1, 2), round=1), OWNER, tid)
    assert "Результат внесён: 2:1" in html.unescape(fourth.get(f"/t/{tid}/my-match").text)


def test_without_the_setting_players_do_not_report(app: FastAPI, signed_in: SignIn,
                                                   ledger: Ledger) -> None:
    tid = event(app, self_report=False)
    (a, _b), _other = tables(ledger, tid, 1)
    player = signed_in(f"u{a}")
    assert "Мой матч" not in html.unescape(player.get(f"/t/{tid}").text)
    status, page = post(player, tid, score="2-1")
    assert status == 422 and "результаты вносят судьи и секретарь" in page
    # nor does anyone who is not a player of the tournament
    org = signed_in("org")
    app.state.sudya.handle(c.SetPlan(plan=Plan(pairing="swiss", self_report=True)), OWNER, tid)
    status, page = post(org, tid, score="2-1")
    assert status == 422
