"""A tournament's staff write in their own tournament only, through the JSON API.

The demo's tournament 1 is «Берсерк» (glavsud its head judge and organiser, sudya its floor
judge, schet its scorekeeper). Beside it the owner sets up a second Berserk series with its
own tournament, staff (glavb the head judge, sudyab the floor judge) and players, and a
ruling there. Tournament 1's staff may not overturn, correct or decide that ruling, rule on
that tournament's players or enter their results — neither through tournament 1's URLs (the
command names what is not of tournament 1: 422 naming the field) nor through the other
tournament's (no role there: 403) — and nothing is stored. The core decides it
(sudya.app.access), the API only sends the command.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sudya.app.common import Actor
from sudya.app.ledger import Ledger
from sudya.domain import commands as c

API = "/api/v1"
BERSERK = 1
OWNER = Actor(name="owner", owner=True)
PASSWORD = "other-cup-password"
OTHER_EVENT = "other-slow"  # the other tournament's ruling (an id tournament 1 has not)
TABLES = ("event", "ruling", "sanction", "result", "revocation")
Auth = Callable[[str], dict[str, str]]


def rows(ledger: Ledger) -> dict[str, int]:
    """How many rows each table of the ledger's records holds."""
    with ledger.db.connect() as conn:
        return {t: int(conn.scalar(sa.select(sa.func.count()).select_from(sa.table(t))) or 0)
                for t in TABLES}


@pytest.fixture
def other(app: FastAPI) -> int:
    """A second Berserk series and its tournament, with staff and players of its own and a
    ruling of its floor judge (event OTHER_EVENT); the tournament's id."""
    sudya = app.state.sudya
    series = sudya.handle(c.CreateSeries(name="Второй кубок «Берсерк»", rulebook="berserk"),
                          OWNER)
    tid: int = sudya.handle(c.CreateTournament(series=series, name="Осенний этап",
                                               date=dt.date.today(), level="professional"),
                            OWNER)
    for handle in ("pb1", "pb2"):
        sudya.handle(c.AddPlayer(handle=handle), OWNER, tid)
    sudya.handle(c.AddJudge(handle="glavb", role="head-judge", official=True), OWNER, tid)
    sudya.handle(c.AddJudge(handle="sudyab", role="floor-judge"), OWNER, tid)
    sudya.handle(c.AddUser(username="glavb", password=PASSWORD, roles=[(tid, "organiser")]),
                 OWNER)
    sudya.handle(c.AddUser(username="sudyab", password=PASSWORD), OWNER)
    sudya.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="pb1",
                                    judge="sudyab", round=1), OWNER, tid,
                 event_id=OTHER_EVENT)
    return tid


@pytest.fixture
def login(client: TestClient, auth: Auth) -> Auth:
    """Bearer headers for a demo user, or for the other tournament's staff."""
    def headers(username: str) -> dict[str, str]:
        if username not in ("glavb", "sudyab"):
            return auth(username)
        r = client.post(f"{API}/login", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200, r.text
        return {"Authorization": f"Bearer {r.json()['token']}"}

    return headers


def refused(r: Any, status: int, code: str, field: str | None = None) -> None:
    """A refusal of `status` with its code, naming `field` (`body` then its path)."""
    assert r.status_code == status, r.text
    [item] = r.json()["detail"]
    assert item["type"] == code, item
    if field is not None:
        assert item["loc"] == ["body", *field.split(".")], item


@pytest.mark.postgresql
def test_the_head_judge_may_not_overturn_correct_or_decide_another_tournaments_ruling(
        client: TestClient, login: Auth, ledger: Ledger, other: int) -> None:
    head = login("glavsud")
    before = rows(ledger)
    # through tournament 1: the event is none of its own (nor of its series): no ruling of
    # tournament 1 to answer
    for path, body, code in (
            ("appeals", {"of": OTHER_EVENT, "outcome": "overturned"},
             "event.nothing-to-appeal"),
            ("corrections", {"of": OTHER_EVENT, "reason": "not ours"},
             "event.nothing-to-correct"),
            ("decisions", {"of": OTHER_EVENT, "choice": "min"}, "event.no-ruling")):
        refused(client.post(f"{API}/tournaments/{BERSERK}/{path}", headers=head, json=body),
                422, code, "of")
    # through the other tournament: tournament 1's head judge holds no role there
    for path, body, code in (
            ("appeals", {"of": OTHER_EVENT, "outcome": "overturned"}, "access.hear-appeals"),
            ("corrections", {"of": OTHER_EVENT}, "access.decide"),
            ("decisions", {"of": OTHER_EVENT, "choice": "min"}, "access.decide")):
        refused(client.post(f"{API}/tournaments/{other}/{path}", headers=head, json=body),
                403, code)
    # nor in the name of the other tournament's head judge, in their own tournament
    refused(client.post(f"{API}/tournaments/{BERSERK}/appeals", headers=head,
                        json={"of": "e13", "outcome": "overturned", "judge": "glavb"}),
            422, "scope.judge-not-you", "judge")
    assert rows(ledger) == before
    # the ruling still stands: its own head judge overturns it, in its own tournament
    r = client.post(f"{API}/tournaments/{other}/appeals", headers=login("glavb"),
                    json={"of": OTHER_EVENT, "outcome": "overturned"})
    assert r.status_code == 200, r.text
    assert [x["revokes"] for x in r.json()["rulings"]] == [OTHER_EVENT]


@pytest.mark.postgresql
def test_the_floor_judge_may_not_rule_on_another_tournaments_player(
        client: TestClient, login: Auth, ledger: Ledger, other: int) -> None:
    judge = login("sudya")
    before = rows(ledger)
    body = {"infraction": "gameplay.slow-play", "player": "pb1", "round": 2}
    for preview in (True, False):  # not even a preview
        refused(client.post(f"{API}/tournaments/{BERSERK}/infractions", headers=judge,
                            json={**body, "preview": preview}),
                422, "scope.not-entered", "player")
    refused(client.post(f"{API}/tournaments/{BERSERK}/infractions", headers=judge,
                        json={**body, "player": "alisa", "judge": "sudyab"}),
            422, "scope.judge-not-you", "judge")
    refused(client.post(f"{API}/tournaments/{other}/infractions", headers=judge, json=body),
            403, "access.rule")
    refused(client.post(f"{API}/tournaments/{BERSERK}/end-of-match", headers=judge,
                        json={"round": 2, "players": ["alisa", "pb1"]}),
            422, "scope.not-entered", "players.1")
    assert rows(ledger) == before
    # their own player, in their own tournament, is ruled on
    r = client.post(f"{API}/tournaments/{BERSERK}/infractions", headers=judge,
                    json={**body, "player": "alisa"})
    assert r.status_code == 200, r.text
    assert rows(ledger)["ruling"] == before["ruling"] + 1


@pytest.mark.postgresql
def test_a_result_naming_another_tournaments_player_is_refused(
        client: TestClient, login: Auth, ledger: Ledger, other: int) -> None:
    before = rows(ledger)
    for user in ("schet", "glavsud"):  # the scorekeeper; the organiser
        refused(client.post(f"{API}/tournaments/{BERSERK}/results", headers=login(user),
                            json={"round": 2, "players": ["alisa", "pb1"], "score": "2-0"}),
                422, "scope.not-entered", "players.1")
        refused(client.post(f"{API}/tournaments/{other}/results", headers=login(user),
                            json={"round": 2, "players": ["pb1", "pb2"], "score": "2-0"}),
                403, "access.results")
    assert rows(ledger) == before


@pytest.mark.postgresql
def test_an_event_of_an_earlier_tournament_of_the_series_is_settled_there(
        client: TestClient, login: Auth, ledger: Ledger, app: FastAPI, other: int) -> None:
    """A tournament's staff name no event of another tournament of their own series either:
    the other series' next tournament, where glavb is head judge again, may not overturn
    the earlier tournament's ruling."""
    sudya = app.state.sudya
    series = sudya.read(lambda s: s.scalar(sa.text(
        "SELECT series_id FROM tournament WHERE id = :t"), {"t": other}))
    later: int = sudya.handle(c.CreateTournament(series=series, name="Зимний этап",
                                                 date=dt.date.today(), level="professional"),
                              OWNER)
    sudya.handle(c.AddJudge(handle="glavb", role="head-judge", official=True), OWNER, later)
    before = rows(ledger)
    refused(client.post(f"{API}/tournaments/{later}/appeals", headers=login("glavb"),
                        json={"of": OTHER_EVENT, "outcome": "overturned"}),
            422, "scope.other-tournament", "of")
    assert rows(ledger) == before
