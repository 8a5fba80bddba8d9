"""Issue 36: a Swiss tournament run in Sudya — round 1 paired from the registered players,
results entered, round 2 paired from the standings (no rematch, the bye to the lowest-placed
who has had none, a dropped player never paired), a round paired again only until its first
result, and the round on paper (by table, by name, result slips; page and PDF)."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.queries import tournament_standings
from sudya.app.swiss_rounds import byes
from sudya.domain import commands as c
from sudya.domain.plan import Plan

SignIn = Callable[[str], TestClient]
OWNER = Actor(name="owner", owner=True)
PLAYERS = [f"pl{i:02d}" for i in range(9)]  # odd: a bye each round


def swiss(app: FastAPI, level: str = "amateur") -> int:
    """A Swiss berserk tournament of nine players, organised by the account «org»."""
    sudya = app.state.sudya
    tid: int = sudya.handle(c.CreateTournament(
        series="Швейцарка", name="Тур 1", date=dt.date(2026, 12, 20), level=level,
        new_series_rulebook="berserk", plan=Plan(rounds=3, pairing="swiss")), OWNER)
    for i, p in enumerate(PLAYERS):
        sudya.handle(c.AddPlayer(handle=p, name=f"Игрок {chr(0x410 + i)}"), OWNER, tid)
    sudya.handle(c.AddUser(username="org", password=PASSWORD, roles=[(tid, "organiser")]),
                 OWNER)
    return tid


def pair(client: TestClient, tid: int, round: int) -> tuple[int, str]:
    r = client.post(f"/t/{tid}/pairings/swiss", data={
        "csrf": csrf_of(client, f"/t/{tid}/pairings"), "round": str(round)})
    return r.status_code, html.unescape(r.text)


def tables(ledger: Ledger, tid: int, round: int) -> list[tuple[str, str]]:
    from sqlalchemy import select

    from sudya.adapters.db import models as m

    with ledger.factory() as s:
        return [(p.player_a, p.player_b) for p in s.scalars(
            select(m.Pairing).where(m.Pairing.tournament_id == tid, m.Pairing.round == round)
            .order_by(m.Pairing.table_no))]


def test_a_swiss_event_round_after_round(app: FastAPI, signed_in: SignIn,
                                         ledger: Ledger) -> None:
    tid = swiss(app)
    org = signed_in("org")
    status, page = pair(org, tid, 1)
    assert status == 200 and "Пары тура 1 составлены: столов — 4." in page
    first = tables(ledger, tid, 1)
    with ledger.factory() as s:
        had = byes(s, tid)
    assert len(first) == 4 and sum(len(r) for r in had.values()) == 1
    seated = {p for pair_ in first for p in pair_} | set(had)
    assert seated == set(PLAYERS)
    [bye] = had
    with ledger.factory() as s:  # a bye is a match won 2-0, counted as soon as it is given
        line = tournament_standings(s, tid)["players"][bye]
    assert (line["match_points"], line["wins"], line["games_won"]) == (3, 1, 2)
    # re-paired before any result: the same seed, the same round
    assert pair(org, tid, 1)[0] == 200 and tables(ledger, tid, 1) == first
    sudya = app.state.sudya
    a, b = first[0]
    sudya.handle(c.RecordResult(players=(a, b), score=(2, 0), round=1), OWNER, tid)
    status, page = pair(org, tid, 1)
    assert status == 422 and "уже есть результаты" in page
    for x, y in first[1:]:
        sudya.handle(c.RecordResult(players=(x, y), score=(2, 1), round=1), OWNER, tid)
    dropper = first[1][1]
    sudya.handle(c.DropPlayer(player=dropper, after=1), OWNER, tid)
    status, page = pair(org, tid, 2)
    assert status == 200, page
    second = tables(ledger, tid, 2)
    met = {frozenset(p) for p in first}
    assert not met & {frozenset(p) for p in second}  # no rematch
    assert dropper not in {p for pair_ in second for p in pair_}
    with ledger.factory() as s:
        had = byes(s, tid)
    assert all(len(rounds) == 1 for rounds in had.values())  # nobody has two byes
    assert len(second) == 4  # eight still playing: no bye this round
    # the round on paper
    for part in ("tables", "names", "slips"):
        sheet = org.get(f"/t/{tid}/round/{part}?round=2")
        assert sheet.status_code == 200, sheet.text
    names = html.unescape(org.get(f"/t/{tid}/round/names?round=2").text)
    assert re.search(r"Голова цепочки хешей серии: <code>[0-9a-f]{64}@\d+</code>", names)
    listed = re.findall(r"<tr><td>(Игрок .) <span", names)
    assert listed == sorted(listed) and len(listed) == 8
    pdf = org.get(f"/t/{tid}/round/slips.pdf?round=2")
    assert pdf.status_code == 200 and pdf.content.startswith(b"%PDF")


def test_only_who_pairs_pairs(app: FastAPI, signed_in: SignIn) -> None:
    tid = swiss(app)
    judge = signed_in("sudya")  # a judge of another tournament
    r = judge.post(f"/t/{tid}/pairings/swiss", data={
        "csrf": csrf_of(judge, "/t/1"), "round": "1"})
    assert r.status_code == 403


def test_a_player_dropped_and_entered_again_from_the_people_page(
        app: FastAPI, signed_in: SignIn, ledger: Ledger) -> None:
    tid = swiss(app)
    org = signed_in("org")

    def send(**fields: str) -> int:
        return org.post(f"/t/{tid}/people/drop", data={
            "csrf": csrf_of(org, f"/t/{tid}/people"), **fields},
            follow_redirects=False).status_code

    assert send(player="pl03", after="0") == 303
    page = html.unescape(org.get(f"/t/{tid}/people").text)
    assert "Выбывшие игроки" in page and "после тура 0" in page
    assert pair(org, tid, 1)[0] == 200
    assert "pl03" not in {p for pair_ in tables(ledger, tid, 1) for p in pair_}
    assert send(player="nobody", after="1") == 422
    assert send(player="pl03", after="") == 422  # the round is asked for
    assert send(player="pl03", back="1") == 303
    assert "после тура 0" not in html.unescape(org.get(f"/t/{tid}/people").text)


def test_a_table_card_opens_its_result_form(app: FastAPI, signed_in: SignIn,
                                            ledger: Ledger) -> None:
    tid = swiss(app)
    org = signed_in("org")
    assert pair(org, tid, 1)[0] == 200
    a, b = tables(ledger, tid, 1)[0]
    board = html.unescape(org.get(f"/t/{tid}").text)
    link = f"/t/{tid}/results?round=1&a={a}&b={b}"
    assert link in board
    form = html.unescape(org.get(link).text)
    assert f'<option value="{a}" selected>' in form and f'<option value="{b}" selected>' in form


def test_the_top_cut_pairs_the_best_of_the_standings(app: FastAPI, signed_in: SignIn,
                                                     ledger: Ledger) -> None:
    tid = swiss(app)
    sudya = app.state.sudya
    sudya.handle(c.SetPlan(plan=Plan(rounds=1, pairing="swiss", top_cut=4)), OWNER, tid)
    org = signed_in("org")
    assert pair(org, tid, 1)[0] == 200
    for a, b in tables(ledger, tid, 1):
        sudya.handle(c.RecordResult(players=(a, b), score=(2, 0), round=1), OWNER, tid)
    with ledger.factory() as s:
        ranked = list(tournament_standings(s, tid)["players"])
    r = org.post(f"/t/{tid}/pairings/cut", data={
        "csrf": csrf_of(org, f"/t/{tid}/pairings"), "round": "2"})
    assert r.status_code == 200, r.text
    assert tables(ledger, tid, 2) == [(ranked[0], ranked[3]), (ranked[1], ranked[2])]


def test_a_match_loss_enters_the_tables_result(app: FastAPI, signed_in: SignIn,
                                               ledger: Ledger) -> None:
    """A penalty match loss at a table with no result: the table counts as lost 2-0, the
    pairings page says so, the next round pairs from it; overturned, the result is gone."""
    tid = swiss(app, level="professional")
    org = signed_in("org")
    assert pair(org, tid, 1)[0] == 200
    (a, b), *others = tables(ledger, tid, 1)
    sudya = app.state.sudya
    done = sudya.handle(c.RecordInfraction(infraction="conduct.major", player=a, round=1),
                        OWNER, tid)
    with ledger.factory() as s:
        rows = tournament_standings(s, tid)["players"]
    assert (rows[a]["losses"], rows[a]["games_lost"]) == (1, 2)
    assert (rows[b]["match_points"], rows[b]["wins"], rows[b]["games_won"]) == (3, 1, 2)
    page = html.unescape(org.get(f"/t/{tid}/pairings?round=1").text)
    assert "0:2" in page and "поражение в матче по пенальти: Игрок" in page
    assert page.count("внести результат") == len(others)
    x, y = others[0]
    sudya.handle(c.RecordResult(players=(x, y), score=(2, 1), round=1), OWNER, tid)
    assert "2:1" in html.unescape(org.get(f"/t/{tid}/pairings?round=1").text)
    for x, y in others[1:]:
        sudya.handle(c.RecordResult(players=(x, y), score=(2, 1), round=1), OWNER, tid)
    assert pair(org, tid, 2)[0] == 200
    assert frozenset((a, b)) not in {frozenset(p) for p in tables(ledger, tid, 2)}
    # the ruling corrected away (a mistake): the table has no result again
    sudya.handle(c.Correct(of=done.event, reason="не тот игрок", ), OWNER, tid)
    with ledger.factory() as s:
        rows = tournament_standings(s, tid)["players"]
    assert rows[a]["losses"] == rows[b]["wins"] == 0
