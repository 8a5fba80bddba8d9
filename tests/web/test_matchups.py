"""Issue 36: the captains' matchups of a team round, entered by a judge and checked — each
player once, both teams complete (the smaller one when the other has a reserve), the
defender where the format has one — shown on the pairings page, and fixed once a game of
the table has its result."""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.team_rounds import round_games
from sudya.domain import commands as c

SignIn = Callable[[str], TestClient]
OWNER = Actor(name="owner", owner=True)
NORTH = ["n1", "n2", "n3"]
SOUTH = ["s1", "s2", "s3", "s4"]  # a reserve: three games at the table


def team_event(app: FastAPI) -> int:
    sudya = app.state.sudya
    tid: int = sudya.handle(c.CreateTournament(
        series="Командный", name="Кубок", date=dt.date(2026, 12, 20),
        new_series_rulebook="team-wargame"), OWNER)
    for team, members in (("north", NORTH), ("south", SOUTH), ("east", ["e1", "e2", "e3"])):
        sudya.handle(c.AddTeam(handle=team, name=team.title(), members=members), OWNER, tid)
    sudya.handle(c.ImportPairings(round=1, text="table,team_a,team_b\n1,north,south\n"),
                 OWNER, tid)
    sudya.handle(c.AddUser(username="sekretar", password=PASSWORD,
                           roles=[(tid, "scorekeeper")]), OWNER)
    return tid


def send(client: TestClient, tid: int, games: list[tuple[str, str, str]],
         table: int = 1) -> tuple[int, str]:
    data = {"csrf": csrf_of(client, f"/t/{tid}/pairings"), "round": "1",
            "table": str(table), "count": str(len(games))}
    for n, (a, b, d) in enumerate(games):
        data |= {f"a{n}": a, f"b{n}": b, f"defender{n}": d}
    r = client.post(f"/t/{tid}/matchups", data=data, follow_redirects=False)
    return r.status_code, html.unescape(r.text)


def test_matchups_entered_checked_and_shown(app: FastAPI, signed_in: SignIn,
                                            ledger: Ledger) -> None:
    tid = team_event(app)
    judge = signed_in("sekretar")
    form = html.unescape(judge.get(f"/t/{tid}/matchups?round=1&table=1").text)
    assert form.count("<fieldset") == 3 and "Защитник" in form
    # a player twice: refused beside that game's field, nothing stored
    status, page = send(judge, tid, [("n1", "s1", ""), ("n1", "s2", ""), ("n3", "s3", "")])
    assert status == 422 and 'id="a1-error"' in page and "уже играет" in page
    # a player of the other team
    status, page = send(judge, tid, [("n1", "s1", ""), ("s2", "s2", ""), ("n3", "s3", "")])
    assert status == 422 and 'id="a1-error"' in page and "не играет за команду" in page
    # incomplete: two games where three are needed
    status, page = send(judge, tid, [("n1", "s1", ""), ("n2", "s2", "")])
    assert status == 422 and "нужно партий: 3, указано: 2; не сыграют: n3" in page
    with ledger.factory() as s:
        assert round_games(s, tournament=tid, round=1) == {}
    # right: the reserve s4 sits out; the defenders as the captains matched them
    games = [("n2", "s3", "a"), ("n1", "s1", "b"), ("n3", "s2", "")]
    assert send(judge, tid, games)[0] == 303
    with ledger.factory() as s:
        stored = round_games(s, tournament=tid, round=1)[1]
    assert [(g.game, g.a, g.b, g.defender) for g in stored] == [
        (1, "n2", "s3", "a"), (2, "n1", "s1", "b"), (3, "n3", "s2", None)]
    page = html.unescape(judge.get(f"/t/{tid}/pairings?round=1").text)
    assert "n2 — s3 <span class=\"muted\">(защитник: n2)</span>" in page
    # entered again before any result: replaced as a whole
    assert send(judge, tid, [("n1", "s3", ""), ("n2", "s1", ""), ("n3", "s4", "")])[0] == 303
    app.state.sudya.handle(c.RecordResult(players=("n1", "s3"), score=(12, 8), round=1),
                           OWNER, tid)
    status, page = send(judge, tid, games)
    assert status == 422 and "матчапы больше не меняются" in page


def test_only_a_team_table_has_matchups_and_only_staff_enter_them(
        app: FastAPI, signed_in: SignIn) -> None:
    tid = team_event(app)
    judge = signed_in("sekretar")
    assert judge.get(f"/t/{tid}/matchups?round=1&table=2").status_code == 404
    assert judge.get(f"/t/{tid}/matchups?round=x&table=1").status_code == 404
    other = signed_in("sudya")  # a judge of another tournament
    r = other.post(f"/t/{tid}/matchups", data={
        "csrf": csrf_of(other, "/t/1"), "round": "1", "table": "1", "count": "3",
        "a0": "n1", "b0": "s1", "a1": "n2", "b1": "s2", "a2": "n3", "b2": "s3"})
    assert r.status_code == 403


def test_the_api_sets_a_tables_games(app: FastAPI, auth: Callable[[str], dict[str, str]],
                                     client: TestClient) -> None:
    tid = team_event(app)
    body = {"round": 1, "table": 1, "games": [
        {"a": "n1", "b": "s2", "defender": "b"}, {"a": "n2", "b": "s1"},
        {"a": "n3", "b": "s3"}]}
    r = client.put(f"/api/v1/tournaments/{tid}/matchups", json=body,
                   headers=auth("sekretar"))
    assert r.status_code == 200, r.text
    assert [g["b"] for g in r.json()["games"]] == ["s2", "s1", "s3"]
    body["games"] = body["games"][:2]
    r = client.put(f"/api/v1/tournaments/{tid}/matchups", json=body,
                   headers=auth("sekretar"))
    assert r.status_code == 422 and "games" in r.text
    r = client.put(f"/api/v1/tournaments/{tid}/matchups", json=body, headers=auth("sudya"))
    assert r.status_code == 403
