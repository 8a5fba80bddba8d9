"""Setting a tournament up through the JSON API (sudya.edges.web.api_setup): what the set-up
pages and the CLI send, as commands to the application's core.

The demo's tournament 1 is «Берсерк» (glavsud its head judge and organiser, sudya its floor
judge, schet its scorekeeper) of the series «Кубок «Берсерк»». Beside it the owner sets up a
second series with its own tournament, organised by glavb. Only an organiser sets a
tournament up: the floor judge and the other tournament's organiser are refused (403) on
every write, a bad body is 422 naming the field, and a refused request changes nothing.
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
from sudya.app.queries import find_tournament, tournament_summary
from sudya.domain import commands as c
from sudya.domain.plan import Plan

API = "/api/v1"
BERSERK = 1
SERIES = "Кубок «Берсерк»"  # the demo's series of tournament 1
OWNER = Actor(name="owner", owner=True)
PASSWORD = "other-cup-password"
# what a set-up can change (not the sessions, which signing in makes)
TABLES = ("series", "tournament", "person", "team", "entry", "staff", "event", "app_user",
          "assignment", "password_code", "pairing", "round_bye")
Auth = Callable[[str], dict[str, str]]


def state(ledger: Ledger) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of what a set-up can change."""
    with ledger.db.connect() as conn:
        return {t: sorted((tuple(row) for row in conn.execute(sa.text(f"SELECT * FROM {t}"))),
                          key=repr) for t in TABLES}


def handles(ledger: Ledger, tid: int) -> set[str]:
    with ledger.factory() as s:
        return {p.handle for p in tournament_summary(s, tid).players}


def plan_of(ledger: Ledger, tid: int) -> Plan:
    with ledger.factory() as s:
        t = find_tournament(s, tournament=tid)
    assert t is not None
    return t.plan


def refused(r: Any, status: int, code: str | None = None) -> None:
    assert r.status_code == status, r.text
    if code is not None:
        assert code in [item["type"] for item in r.json()["detail"]], r.text


def names(r: Any) -> list[list[str | int]]:
    """Where each item of a 422 points: `body` (or `path`), then the field's path."""
    assert r.status_code == 422, r.text
    return [item["loc"] for item in r.json()["detail"]]


def named(r: Any, where: list[str | int]) -> bool:
    """A 422 names the field at `where` (a union's branch may follow it)."""
    return any(loc[:len(where)] == where for loc in names(r))


def upload(client: TestClient, tid: int, headers: dict[str, str], text: str,
           dry_run: bool = False, kind: str = "players") -> Any:
    return client.post(f"{API}/tournaments/{tid}/roster", headers=headers,
                       data={"kind": kind, "dry_run": "true" if dry_run else "false"},
                       files={"file": ("players.csv", text.encode("utf-8"), "text/csv")})


@pytest.fixture
def other(app: FastAPI) -> int:
    """A second series and its tournament, organised by the account glavb; its id."""
    sudya = app.state.sudya
    series = sudya.handle(c.CreateSeries(name="Второй кубок", rulebook="berserk"), OWNER)
    tid: int = sudya.handle(c.CreateTournament(series=series, name="Осенний этап",
                                               date=dt.date.today(), level="professional"),
                            OWNER)
    for handle in ("pb1", "pb2"):
        sudya.handle(c.AddPlayer(handle=handle), OWNER, tid)
    sudya.handle(c.AddUser(username="glavb", password=PASSWORD, roles=[(tid, "organiser")]),
                 OWNER)
    return tid


@pytest.fixture
def login(client: TestClient, auth: Auth) -> Auth:
    """Bearer headers for a demo user, or for glavb."""
    def headers(username: str) -> dict[str, str]:
        if username != "glavb":
            return auth(username)
        r = client.post(f"{API}/login", json={"username": username, "password": PASSWORD})
        assert r.status_code == 200, r.text
        return {"Authorization": f"Bearer {r.json()['token']}"}

    return headers


# ---------------------------------------------------------------------- the organiser
@pytest.mark.postgresql
def test_an_organiser_sets_a_tournament_up_and_pairs_its_first_round(
        app: FastAPI, client: TestClient, auth: Auth, ledger: Ledger) -> None:
    head = auth("glavsud")
    r = client.post(f"{API}/tournaments", headers=head, json={
        "series": SERIES, "name": "Этап 2", "date": "2026-12-20", "level": "amateur",
        "plan": {"rounds": 3, "pairing": "swiss"}})
    assert r.status_code == 200, r.text
    tid = r.json()["id"]
    assert r.json() == {"id": tid, "name": "Этап 2"}
    assert plan_of(ledger, tid) == Plan(rounds=3, pairing="swiss")
    mine = client.get(f"{API}/tournaments/{tid}", headers=head).json()
    assert (mine["series"], mine["level"], mine["roles"]) == (SERIES, "amateur", ["organiser"])

    plan = {"rounds": 4, "pairing": "swiss", "win": 3, "draw": 1, "loss": 0,
            "tiebreakers": ["omw", "gw"], "top_cut": 4}
    r = client.put(f"{API}/tournaments/{tid}/plan", headers=head, json=plan)
    assert r.status_code == 200, r.text
    assert r.json() == {**plan, "self_report": False}
    assert plan_of(ledger, tid) == Plan.model_validate(plan)

    for handle, name in (("ann", "Анна Белова"), ("bob", "Борис Белов")):
        r = client.post(f"{API}/tournaments/{tid}/players", headers=head,
                        json={"handle": handle, "name": name, "table": 1})
        assert r.status_code == 200, r.text
        assert r.json() == {"handle": handle, "name": name, "team": None}
    r = client.post(f"{API}/tournaments/{tid}/players", headers=head, json={"handle": "Cat"})
    assert r.json() == {"handle": "cat", "name": "cat", "team": None}  # its one spelling
    assert handles(ledger, tid) == {"ann", "bob", "cat"}

    # the list: its preview stores nothing, then every row
    roster = "Ник;Имя;Стол\ndan;Дан Дымов;2\neve;Ева Ёлкина;3\nfox;Фома Лисов;3\n"
    r = upload(client, tid, head, roster, dry_run=True)
    assert r.status_code == 200, r.text
    preview = r.json()
    assert (preview["kind"], preview["count"], preview["imported"]) == ("players", 3, False)
    assert [(row["line"], row["handle"], row["name"], row["table"])
            for row in preview["rows"]] == [(2, "dan", "Дан Дымов", 2),
                                            (3, "eve", "Ева Ёлкина", 3),
                                            (4, "fox", "Фома Лисов", 3)]
    assert preview["problems"] == []
    assert handles(ledger, tid) == {"ann", "bob", "cat"}
    r = upload(client, tid, head, roster)
    assert r.status_code == 200, r.text
    assert (r.json()["imported"], r.json()["count"]) == (True, 3)
    players = {"ann", "bob", "cat", "dan", "eve", "fox"}
    assert handles(ledger, tid) == players

    # a list with a bad row: its preview names the line, the import adds nothing
    bad = "handle,name,table\ngus,Гусь,4\nhal,Хал,сорок\n"
    r = upload(client, tid, head, bad, dry_run=True)
    assert r.status_code == 200, r.text
    assert [(p["line"], p["field"]) for p in r.json()["problems"]] == [(3, "table")]
    before = state(ledger)
    r = upload(client, tid, head, bad)
    assert names(r) == [["body", "file", 3, "table"]]
    [item] = r.json()["detail"]
    assert item["params"]["line"] == 3 and item["msg"].startswith("line 3: ")
    assert state(ledger) == before and "gus" not in handles(ledger, tid)

    # round 1 by Swiss: six players, three tables, no bye
    r = client.post(f"{API}/tournaments/{tid}/pairings/swiss", headers=head,
                    json={"round": 1})
    assert r.status_code == 200, r.text
    paired = r.json()
    assert paired["round"] == 1 and paired.get("bye") is None
    assert [t["table"] for t in paired["tables"]] == [1, 2, 3]
    assert {p for t in paired["tables"] for p in (t["a"], t["b"])} == players
    shown = client.get(f"{API}/tournaments/{tid}/pairings?round=1", headers=head)
    assert shown.status_code == 200, shown.text

    r = client.post(f"{API}/tournaments/{tid}/drops", headers=head,
                    json={"player": "fox", "after": 1})
    assert r.status_code == 200, r.text
    assert r.json() == {"player": "fox", "after": 1, "dropped": {"fox": 1}}

    # a scorekeeper invited: a code, shown once, sets the password
    r = client.post(f"{API}/tournaments/{tid}/staff", headers=head,
                    json={"username": "kira", "display_name": "Кира Счётова",
                          "role": "scorekeeper"})
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    invited = r.json()
    assert invited["username"] == "kira" and len(invited["code"]) == 14
    sudya = app.state.sudya
    sudya.use_code(code=invited["code"], password="kira-first-pass",
                   throttle=app.state.throttle, address="test")
    kira = client.post(f"{API}/login", json={"username": "kira",
                                              "password": "kira-first-pass"})
    assert kira.status_code == 200, kira.text
    token = {"Authorization": f"Bearer {kira.json()['token']}"}
    assert client.get(f"{API}/tournaments/{tid}", headers=token).json()["roles"] == [
        "scorekeeper"]

    r = client.post(f"{API}/tournaments/{tid}/staff/kira/roles", headers=head,
                    json={"role": "player"})
    assert r.status_code == 200, r.text
    assert r.json() == {"username": "kira", "roles": ["player", "scorekeeper"]}
    r = client.delete(f"{API}/tournaments/{tid}/staff/kira/roles/player", headers=head)
    assert r.status_code == 200, r.text
    assert r.json() == {"username": "kira", "roles": ["scorekeeper"]}

    # kira forgot the password: a new code; the old password works until it is used
    r = client.post(f"{API}/tournaments/{tid}/staff/kira/reset", headers=head)
    assert r.status_code == 200, r.text
    assert r.headers["cache-control"] == "no-store"
    reset = r.json()
    assert reset["username"] == "kira" and reset["code"] != invited["code"]
    assert client.post(f"{API}/login", json={"username": "kira",
                                             "password": "kira-first-pass"}).status_code == 200
    sudya.use_code(code=reset["code"], password="kira-second-pass",
                   throttle=app.state.throttle, address="test")
    assert client.post(f"{API}/login", json={"username": "kira",
                                             "password": "kira-second-pass"}).status_code == 200


def test_the_top_cut_is_paired_with_the_plans_size(client: TestClient, auth: Auth,
                                                   ledger: Ledger) -> None:
    head = auth("glavsud")
    r = client.post(f"{API}/tournaments/{BERSERK}/pairings/cut", headers=head,
                    json={"round": 3})
    assert names(r) == [["body", "size"]]  # the demo's plan has no top cut
    plan = {"rounds": 2, "pairing": "swiss", "top_cut": 4}
    assert client.put(f"{API}/tournaments/{BERSERK}/plan", headers=head,
                      json=plan).status_code == 200
    r = client.post(f"{API}/tournaments/{BERSERK}/pairings/cut", headers=head,
                    json={"round": 3})
    assert r.status_code == 200, r.text
    cut = r.json()
    assert cut["round"] == 3 and len(cut["tables"]) == 2
    assert len({p for t in cut["tables"] for p in (t["a"], t["b"])}) == 4
    r = client.post(f"{API}/tournaments/{BERSERK}/pairings/cut", headers=head,
                    json={"round": 3, "size": 2})
    assert r.status_code == 200 and len(r.json()["tables"]) == 1


def test_a_cookie_session_sends_its_csrf_header(
        signed_in: Callable[[str], TestClient], ledger: Ledger) -> None:
    head = signed_in("glavsud")
    before = state(ledger)
    roster = "handle,name\nzed,Зед\n"
    for send in (
            lambda h: head.post(f"{API}/tournaments/{BERSERK}/players", headers=h,
                                json={"handle": "zed"}),
            lambda h: head.post(f"{API}/tournaments/{BERSERK}/roster", headers=h,
                                data={"kind": "players"},
                                files={"file": ("p.csv", roster.encode())})):
        refused(send({}), 403, "csrf.expired")
        assert state(ledger) == before
    csrf = {"X-CSRF-Token": head.get(f"{API}/me").json()["csrf_token"]}
    r = head.post(f"{API}/tournaments/{BERSERK}/roster", headers=csrf,
                  data={"kind": "players"}, files={"file": ("p.csv", roster.encode())})
    assert r.status_code == 200 and r.json()["imported"], r.text
    assert "zed" in handles(ledger, BERSERK)


# ---------------------------------------------------------------------- refusals
def writes(tid: int, series: int | str, player: str = "boris"
           ) -> list[tuple[str, str, dict[str, Any] | None, str]]:
    """Every set-up write to tournament `tid` of `series` about its `player` (method, path,
    JSON body, the code a caller without the right role gets); the upload is sent apart."""
    base = f"{API}/tournaments/{tid}"
    return [
        ("post", f"{API}/tournaments", {"series": series, "name": "Чужой этап",
                                        "date": "2026-12-20", "level": "amateur"},
         "access.organise"),
        ("put", f"{base}/plan", {"rounds": 5, "pairing": "swiss"}, "access.manage"),
        ("post", f"{base}/players", {"handle": "intruder"}, "access.manage"),
        ("post", f"{base}/pairings/swiss", {"round": 3}, "access.pairings"),
        ("post", f"{base}/pairings/cut", {"round": 3, "size": 2}, "access.pairings"),
        ("post", f"{base}/drops", {"player": player, "after": 2}, "access.manage"),
        ("post", f"{base}/staff", {"username": "mole", "role": "organiser"}, "access.manage"),
        ("post", f"{base}/staff/schet/roles", {"role": "organiser"}, "access.manage"),
        ("delete", f"{base}/staff/schet/roles/scorekeeper", None, "access.manage"),
        ("post", f"{base}/staff/schet/reset", None, "access.manage"),
    ]


@pytest.mark.parametrize("username", ["sudya", "glavb"])
def test_only_the_organiser_sets_the_tournament_up(
        client: TestClient, login: Auth, ledger: Ledger, other: int, username: str) -> None:
    """The floor judge of tournament 1, and the organiser of another tournament, may set up
    nothing in tournament 1 (nor a new tournament of its series)."""
    headers = login(username)
    before = state(ledger)
    for method, path, body, code in writes(BERSERK, SERIES):
        refused(client.request(method, path, headers=headers, json=body), 403, code)
    roster = "handle,name\nintruder,Чужой\n"
    for dry_run in (True, False):
        refused(upload(client, BERSERK, headers, roster, dry_run=dry_run), 403,
                "access.manage")
    assert state(ledger) == before


def test_an_organiser_sets_up_only_their_own_tournament(
        client: TestClient, login: Auth, ledger: Ledger, other: int) -> None:
    """Tournament 1's organiser has no role in the other tournament, nor in its series."""
    headers = login("glavsud")
    before = state(ledger)
    for method, path, body, code in writes(other, "Второй кубок", "pb1"):
        refused(client.request(method, path, headers=headers, json=body), 403, code)
    refused(upload(client, other, headers, "handle\nintruder\n"), 403, "access.manage")
    assert state(ledger) == before


def test_nothing_is_set_up_without_signing_in(client: TestClient, ledger: Ledger) -> None:
    before = state(ledger)
    for method, path, body, _code in writes(BERSERK, SERIES):
        refused(client.request(method, path, json=body), 401)
    refused(upload(client, BERSERK, {}, "handle\nintruder\n"), 401)
    assert state(ledger) == before


def test_a_bad_body_is_422_naming_the_field(client: TestClient, auth: Auth,
                                            ledger: Ledger) -> None:
    head = auth("glavsud")
    base = f"{API}/tournaments/{BERSERK}"
    new = {"series": SERIES, "name": "Этап 2", "date": "2026-12-20", "level": "amateur"}
    before = state(ledger)
    for method, path, body, where in (
            ("post", f"{API}/tournaments", {**new, "date": "завтра"}, ["body", "date"]),
            ("post", f"{API}/tournaments", {**new, "date": 0}, ["body", "date"]),
            ("post", f"{API}/tournaments", {**new, "series": 0}, ["body", "series"]),
            ("post", f"{API}/tournaments", {**new, "level": "galactic"}, ["body", "level"]),
            ("post", f"{API}/tournaments", {**new, "plan": {"rounds": 0}},
             ["body", "plan", "rounds"]),
            ("post", f"{API}/tournaments", {**new, "colour": "red"}, ["body", "colour"]),
            ("put", f"{base}/plan", {"pairing": "random"}, ["body", "pairing"]),
            ("put", f"{base}/plan", {"tiebreakers": ["luck"]}, ["body", "tiebreakers"]),
            ("put", f"{base}/plan", {"top_cut": 3}, ["body", "top_cut"]),
            ("put", f"{base}/plan", {"top_cut": False}, ["body", "top_cut"]),
            ("put", f"{base}/plan", {"rounds": "3"}, ["body", "rounds"]),
            ("post", f"{base}/players", {"handle": ""}, ["body", "handle"]),
            ("post", f"{base}/players", {"handle": "zed", "table": 0}, ["body", "table"]),
            ("post", f"{base}/players", {"handle": "zed", "nick": "z"}, ["body", "nick"]),
            ("post", f"{base}/pairings/swiss", {"round": 0}, ["body", "round"]),
            ("post", f"{base}/pairings/swiss", {"round": "3"}, ["body", "round"]),
            # round 1 has its results: it is not paired again
            ("post", f"{base}/pairings/swiss", {"round": 1}, ["body", "round"]),
            ("post", f"{base}/pairings/cut", {"round": 3, "size": 3}, ["body", "size"]),
            ("post", f"{base}/pairings/cut", {"round": 3, "size": True}, ["body", "size"]),
            ("post", f"{base}/drops", {"player": "boris"}, ["body", "after"]),
            ("post", f"{base}/drops", {"player": "nobody", "after": 1}, ["body", "player"]),
            ("post", f"{base}/staff", {"username": "mole", "role": "head-judge"},
             ["body", "role"]),
            ("post", f"{base}/staff", {"username": "schet"}, ["body", "username"]),
            ("post", f"{base}/staff/schet/roles", {"role": "king"}, ["body", "role"]),
            ("delete", f"{base}/staff/schet/roles/king", None, ["path", "role"]),
            ("delete", f"{base}/staff/schet/roles/player", None, ["body", "role"]),
            ("post", f"{base}/staff/nobody/reset", None, ["body", "username"])):
        r = client.request(method, path, headers=head, json=body)
        assert named(r, where), (path, body, r.text)
    for data, file, where in (
            ({"kind": "goblins"}, b"handle\nzed\n", ["body", "kind"]),
            ({"kind": "players", "dry_run": "maybe"}, b"handle\nzed\n", ["body", "dry_run"]),
            ({"kind": "players"}, None, ["body", "file"]),
            ({"kind": "players"}, b"   \n", ["body", "file"])):
        files = {"file": ("p.csv", file)} if file is not None else None
        r = client.post(f"{base}/roster", headers=head, data=data, files=files)
        assert named(r, where), (data, r.text)
    refused(client.post(f"{API}/tournaments/9999/players", headers=head,
                        json={"handle": "zed"}), 404, "tournament.unknown")
    assert state(ledger) == before
