"""The JSON API over the demo database (SQLite, and PostgreSQL for the tests marked so),
through real HTTP requests."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from ruamel.yaml import YAML

import sudya
from sudya.errors import ScenarioError
from sudya.services.ledger import Ledger
from sudya.web import demo

SCENARIOS = Path(__file__).resolve().parents[3] / "shared" / "scenarios"
API = "/api/v1"
TOURNAMENT = {"berserk": 1, "clan": 2, "wargame": 3}  # the demo's, in the order it builds them


@pytest.fixture()
def auth(client: TestClient) -> Callable[[str], dict[str, str]]:
    """Bearer headers for a demo user (one login per user per test)."""
    tokens: dict[str, str] = {}

    def headers(username: str) -> dict[str, str]:
        if username not in tokens:
            r = client.post(f"{API}/login", json={"username": username,
                                                  "password": demo.PASSWORD})
            assert r.status_code == 200, r.text
            tokens[username] = r.json()["token"]
        return {"Authorization": f"Bearer {tokens[username]}"}

    return headers


def count(ledger: Ledger, table: str, where: str = "1=1", **params: Any) -> int:
    with ledger.db.connect() as conn:
        n = conn.scalar(sa.text(f"SELECT count(*) FROM {table} WHERE {where}"), params)
    return int(n or 0)


def rows(ledger: Ledger) -> tuple[int, int, int, int]:
    return (count(ledger, "event"), count(ledger, "ruling"), count(ledger, "sanction"),
            count(ledger, "revocation"))


def fields(response: Any) -> list[str]:
    """The field names a 422 points at."""
    return [".".join(str(p) for p in item["loc"][1:]) for item in response.json()["detail"]]


def scenario_json(path: Path) -> dict[str, Any]:
    """A scenario file as the JSON body a client sends (dates as ISO strings)."""
    loaded = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    body: dict[str, Any] = json.loads(json.dumps(loaded, default=str))
    return body


# ---------------------------------------------------------------------- sessions
@pytest.mark.postgresql
def test_login_gives_a_bearer_token_and_logout_revokes_it(client: TestClient) -> None:
    r = client.post(f"{API}/login", json={"username": "glavsud", "password": demo.PASSWORD})
    assert r.status_code == 200
    headers = {"Authorization": f"Bearer {r.json()['token']}"}
    assert client.get(f"{API}/me", headers=headers).json()["username"] == "glavsud"
    assert client.get(f"{API}/tournaments/1", headers=headers).status_code == 200

    assert client.post(f"{API}/logout", headers=headers).status_code == 204
    assert client.get(f"{API}/me", headers=headers).status_code == 401
    assert client.get(f"{API}/tournaments/1", headers=headers).status_code == 401


def test_wrong_password_is_401_naming_the_password(client: TestClient) -> None:
    r = client.post(f"{API}/login", json={"username": "glavsud", "password": "nope-nope"})
    assert r.status_code == 401
    assert fields(r) == ["password"]


@pytest.mark.postgresql
def test_anonymous_writes_are_401_and_store_nothing(client: TestClient, ledger: Ledger) -> None:
    before = rows(ledger)
    writes = {
        "infractions": {"infraction": "gameplay.slow-play", "player": "alisa"},
        "end-of-match": {"round": 1},
        "appeals": {"of": "e13", "outcome": "overturned"},
        "decisions": {"of": "e7", "sanctions": [{"kind": "fighter-dq"}]},
        "corrections": {"of": "e13"},
        "results": {"players": ["alisa", "vera"], "score": "2-0"},
    }
    for path, body in writes.items():
        r = client.post(f"{API}/tournaments/1/{path}", json=body)
        assert r.status_code == 401, path
    assert client.post(f"{API}/logout").status_code == 401
    for path in ("1", "1/pending", "1/people/alisa"):
        assert client.get(f"{API}/tournaments/{path}").status_code == 401, path
    assert rows(ledger) == before


@pytest.mark.postgresql
def test_public_reads_need_no_session(client: TestClient) -> None:
    assert client.get(f"{API}/tournaments").json()[0]["id"] in TOURNAMENT.values()
    assert "alisa" in client.get(f"{API}/tournaments/1/standings").json()["players"]
    books = client.get(f"{API}/rulebooks").json()
    assert books and client.get(f"{API}/rulebooks/{books[0]['id']}").status_code == 200
    assert client.get(f"{API}/rulebooks/nope").status_code == 404
    assert client.get(f"{API}/tournaments/999/standings").status_code == 404


# ---------------------------------------------------------------------- CSRF
def test_cookie_session_needs_the_csrf_header(client: TestClient, auth: Any,
                                              ledger: Ledger) -> None:
    token = auth("sudya")["Authorization"].split()[1]
    client.cookies.set("sudya_session", token)
    body = {"infraction": "gameplay.slow-play", "player": "alisa"}
    before = rows(ledger)

    r = client.post(f"{API}/tournaments/1/infractions", json=body)
    assert r.status_code == 403
    assert rows(ledger) == before
    r = client.post(f"{API}/tournaments/1/infractions", json=body,
                    headers={"X-CSRF-Token": "0" * 64})
    assert r.status_code == 403

    csrf = client.get(f"{API}/me").json()["csrf_token"]
    r = client.post(f"{API}/tournaments/1/infractions", json=body,
                    headers={"X-CSRF-Token": csrf})
    assert r.status_code == 200, r.text
    assert rows(ledger)[0] == before[0] + 1
    # logout is a state change too
    assert client.post(f"{API}/logout").status_code == 403
    assert client.post(f"{API}/logout", headers={"X-CSRF-Token": csrf}).status_code == 204
    assert client.get(f"{API}/me").status_code == 401


# ---------------------------------------------------------------------- recording
@pytest.mark.postgresql
def test_preview_stores_nothing_and_record_stores_the_same_rulings(
        client: TestClient, auth: Any, ledger: Ledger) -> None:
    body = {"infraction": "gameplay.slow-play", "player": "alisa", "round": 2}
    before = rows(ledger)
    r = client.post(f"{API}/tournaments/1/infractions", headers=auth("sudya"),
                    json={**body, "preview": True})
    assert r.status_code == 200, r.text
    preview = r.json()
    assert preview["preview"] is True and preview["event"] is None
    assert [s["kind"] for s in preview["rulings"][0]["sanctions"]] == ["warning"]
    assert rows(ledger) == before

    r = client.post(f"{API}/tournaments/1/infractions", headers=auth("sudya"), json=body)
    assert r.status_code == 200, r.text
    recorded = r.json()
    assert recorded["preview"] is False
    event = recorded["event"]
    assert [x["event"] for x in recorded["rulings"]] == [event]
    strip = [{k: v for k, v in x.items() if k != "event"} for x in recorded["rulings"]]
    assert strip == [{k: v for k, v in x.items() if k != "event"} for x in preview["rulings"]]
    assert rows(ledger)[:2] == (before[0] + 1, before[1] + 1)
    assert count(ledger, "event", "ext_id = :e AND created_by = 'sudya'", e=event) == 1
    listed = client.get(f"{API}/tournaments/1", headers=auth("sudya")).json()["rulings"]
    assert any(x["event"] == event and x["subject"] == "alisa" for x in listed)


@pytest.mark.postgresql
def test_idempotent_retry_returns_the_first_rulings_and_records_once(
        client: TestClient, auth: Any, ledger: Ledger) -> None:
    body = {"infraction": "gameplay.slow-play", "player": "gleb", "idempotency_key": "tab-7"}
    first = client.post(f"{API}/tournaments/1/infractions", headers=auth("sudya"), json=body)
    again = client.post(f"{API}/tournaments/1/infractions", headers=auth("sudya"), json=body)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert count(ledger, "event", "idempotency_key = 'tab-7'") == 1
    assert count(ledger, "ruling", "subject = 'gleb' AND infraction = 'gameplay.slow-play'") == 1

    # the same key for another action is a mistake, not a retry
    r = client.post(f"{API}/tournaments/1/end-of-match", headers=auth("sudya"),
                    json={"round": 1, "idempotency_key": "tab-7"})
    assert r.status_code == 422 and fields(r) == ["idempotency_key"]
    r = client.post(f"{API}/tournaments/1/infractions", headers=auth("glavsud"), json=body)
    assert r.status_code == 422 and fields(r) == ["idempotency_key"]


@pytest.mark.parametrize(("body", "field"), [
    ({"infraction": "gameplay.slow-play", "player": "nobody"}, "player"),
    ({"infraction": "no.such-thing", "player": "alisa"}, "infraction"),
    ({"infraction": "gameplay.slow-play", "player": "alisa", "round": "third"}, "round"),
    ({"infraction": "gameplay.slow-play", "player": "alisa", "colour": "red"}, "colour"),
    ({"infraction": "gameplay.missed-trigger", "player": "vera",
      "details": {"both_could_control": "yes"}}, "details.both_could_control"),
])
def test_a_wrong_field_is_422_naming_it(client: TestClient, auth: Any, ledger: Ledger,
                                        body: dict[str, Any], field: str) -> None:
    before = rows(ledger)
    r = client.post(f"{API}/tournaments/1/infractions", headers=auth("sudya"), json=body)
    assert r.status_code == 422, r.text
    assert field in fields(r)
    assert rows(ledger) == before


def test_a_junior_judge_may_not_rule(client: TestClient, auth: Any, ledger: Ledger) -> None:
    before = rows(ledger)
    body = {"infraction": "petty-cheating", "player": "nina"}
    for preview in (True, False):
        r = client.post(f"{API}/tournaments/{TOURNAMENT['wargame']}/infractions",
                        headers=auth("mladshiy"), json={**body, "preview": preview})
        assert r.status_code == 403
    # a user with no role in the tournament may not either
    r = client.post(f"{API}/tournaments/{TOURNAMENT['berserk']}/infractions",
                    headers=auth("master"), json={"infraction": "gameplay.slow-play",
                                                  "player": "alisa"})
    assert r.status_code == 403
    assert rows(ledger) == before


@pytest.mark.postgresql
def test_end_of_match_and_correction(client: TestClient, auth: Any, ledger: Ledger) -> None:
    r = client.post(f"{API}/tournaments/1/end-of-match", headers=auth("sudya"),
                    json={"round": 1})
    assert r.status_code == 200, r.text
    assert r.json()["event"]
    r = client.post(f"{API}/tournaments/1/corrections", headers=auth("glavsud"),
                    json={"of": "e15", "reason": "wrong player"})
    assert r.status_code == 200, r.text
    assert [x["cause"] for x in r.json()["rulings"]] == ["correction"]
    record = client.get(f"{API}/tournaments/1/people/egor", headers=auth("glavsud")).json()
    assert [s["state"] for s in record[0]["sanctions"]] == ["revoked"]
    r = client.post(f"{API}/tournaments/1/corrections", headers=auth("glavsud"),
                    json={"of": "e15"})
    assert r.status_code == 422 and fields(r) == ["of"]


@pytest.mark.postgresql
def test_results_by_scorekeeper_not_by_player(client: TestClient, auth: Any,
                                              ledger: Ledger) -> None:
    body = {"round": 2, "players": ["alisa", "vera"], "score": "2-1"}
    r = client.post(f"{API}/tournaments/1/results", headers=auth("igrok"), json=body)
    assert r.status_code == 403
    r = client.post(f"{API}/tournaments/1/results", headers=auth("schet"), json=body)
    assert r.status_code == 200, r.text
    assert count(ledger, "result", "player_a = 'alisa' AND player_b = 'vera' AND round = 2") == 1
    standings = client.get(f"{API}/tournaments/1/standings").json()
    assert standings["players"]["alisa"]["wins"] == 2
    r = client.post(f"{API}/tournaments/1/results", headers=auth("schet"),
                    json={**body, "score": "two-one"})
    assert r.status_code == 422 and fields(r) == ["score"]


# ---------------------------------------------------------------------- records
@pytest.mark.postgresql
def test_a_player_sees_only_their_own_record(client: TestClient, auth: Any) -> None:
    r = client.get(f"{API}/tournaments/1/people/boris", headers=auth("igrok"))
    assert r.status_code == 403
    r = client.get(f"{API}/tournaments/1/people/alisa", headers=auth("igrok"))
    assert r.status_code == 200 and r.json() == []
    # in the tournament view a player sees rulings about themselves only
    view = client.get(f"{API}/tournaments/1", headers=auth("igrok")).json()
    assert view["roles"] == ["player"] and view["rulings"] == []
    assert client.get(f"{API}/tournaments/1/people/boris",
                      headers=auth("sudya")).status_code == 200
    assert client.get(f"{API}/tournaments/1/people/nobody",
                      headers=auth("sudya")).status_code == 404


# ---------------------------------------------------------------------- appeals, decisions
@pytest.mark.postgresql
def test_appeal_is_for_the_head_judge(client: TestClient, auth: Any, ledger: Ledger) -> None:
    body = {"of": "e13", "outcome": "overturned"}  # boris's slow play, ruled by a floor judge
    before = rows(ledger)
    r = client.post(f"{API}/tournaments/1/appeals", headers=auth("sudya"), json=body)
    assert r.status_code == 403
    assert rows(ledger) == before

    r = client.post(f"{API}/tournaments/1/appeals", headers=auth("glavsud"), json=body)
    assert r.status_code == 200, r.text
    assert r.json()["rulings"][0]["revokes"] == "e13"
    record = client.get(f"{API}/tournaments/1/people/boris", headers=auth("glavsud")).json()
    slow = [e for e in record if e["event"] == "e13"]
    assert [s["state"] for s in slow[0]["sanctions"]] == ["revoked"]
    # the decision on appeal is final
    r = client.post(f"{API}/tournaments/1/appeals", headers=auth("glavsud"), json=body)
    assert r.status_code == 422 and fields(r) == ["of"]


@pytest.mark.postgresql
def test_decision_on_the_aggravated_ruling(client: TestClient, auth: Any, ledger: Ledger) -> None:
    clan = TOURNAMENT["clan"]
    pending = client.get(f"{API}/tournaments/{clan}/pending", headers=auth("master")).json()
    (hoops,) = [p for p in pending if p["infraction"] == "hoops" and p["subject"] == "veda"]
    assert hoops["aggravated"] is True
    table = [{"kind": o["kind"]} for o in hoops["offered"]]

    before = rows(ledger)
    r = client.post(f"{API}/tournaments/{clan}/decisions", headers=auth("master"),
                    json={"of": hoops["event"], "sanctions": table})
    assert r.status_code == 422
    assert fields(r) == ["sanctions"]
    assert "stricter" in r.json()["detail"][0]["msg"]
    assert rows(ledger) == before

    stricter = [*table, {"kind": "warning"}]
    r = client.post(f"{API}/tournaments/{clan}/decisions", headers=auth("master"),
                    json={"of": hoops["event"], "sanctions": stricter})
    assert r.status_code == 200, r.text
    (decided,) = r.json()["rulings"]
    assert decided["cause"] == "decision" and decided["resolves"] == hoops["event"]
    assert [s["kind"] for s in decided["sanctions"] if not s.get("attached")] == \
        [s["kind"] for s in stricter]
    assert client.get(f"{API}/tournaments/{clan}/pending",
                      headers=auth("master")).json() == []


@pytest.mark.postgresql
def test_decision_on_a_judges_range(client: TestClient, auth: Any, ledger: Ledger) -> None:
    wargame = TOURNAMENT["wargame"]
    pending = client.get(f"{API}/tournaments/{wargame}/pending",
                         headers=auth("glavsud")).json()
    (olga,) = [p for p in pending if p["subject"] == "olga"]
    r = client.post(f"{API}/tournaments/{wargame}/decisions", headers=auth("mladshiy"),
                    json={"of": olga["event"], "choice": "min"})
    assert r.status_code == 403
    r = client.post(f"{API}/tournaments/{wargame}/decisions", headers=auth("glavsud"),
                    json={"of": olga["event"], "choice": {"points": -30}})
    assert r.status_code == 422 and fields(r) == ["choice"]
    r = client.post(f"{API}/tournaments/{wargame}/decisions", headers=auth("glavsud"),
                    json={"of": olga["event"], "choice": {"points": -12}})
    assert r.status_code == 200, r.text
    kinds = {s["kind"]: s.get("amount") for s in r.json()["rulings"][0]["sanctions"]}
    assert kinds["points"] == -12 and "yellow-card" in kinds


def test_dates_a_validity_window_cannot_count_from_are_refused(
        client: TestClient, auth: Any, ledger: Ledger) -> None:
    before = rows(ledger)
    r = client.post(f"{API}/tournaments/{TOURNAMENT['clan']}/infractions",
                    headers=auth("master"),
                    json={"infraction": "elixirs.forbidden-combat", "player": "rys",
                          "details": {"between_stages": True,
                                      "next_tournament": "9999-12-31"}})
    assert r.status_code == 422 and fields(r) == ["details.next_tournament"]
    r = client.post(f"{API}/tournaments/{TOURNAMENT['clan']}/infractions",
                    headers=auth("master"),
                    json={"infraction": "elixirs.forbidden-combat", "player": "rys",
                          "date": "9999-12-31"})
    assert r.status_code == 422 and fields(r) == ["date"]
    assert rows(ledger) == before


# ---------------------------------------------------------------------- replay
@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIOS.glob("*.yaml")))
def test_replay_equals_the_python_api(client: TestClient, name: str) -> None:
    scenario = scenario_json(SCENARIOS / f"{name}.yaml")
    r = client.post(f"{API}/replay", json=scenario)
    assert r.status_code == 200, r.text
    assert r.json() == json.loads(json.dumps(sudya.replay(scenario)))


def test_replay_of_a_wrong_scenario_is_422_with_the_message(client: TestClient) -> None:
    scenario = scenario_json(SCENARIOS / "berserk-basics.yaml")
    scenario["events"][0]["player"] = "nobody"
    with pytest.raises(ScenarioError) as expected:
        sudya.replay(scenario)
    r = client.post(f"{API}/replay", json=scenario)
    assert r.status_code == 422
    assert r.json() == {"detail": str(expected.value)}
    assert "player" in str(expected.value)

    for body in ([1, 2], "berserk", 7, None):
        r = client.post(f"{API}/replay", json=body)
        assert r.status_code == 422 and isinstance(r.json()["detail"], str), body
    r = client.post(f"{API}/replay", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422
    # the HTTP API reads no files from the server
    r = client.post(f"{API}/replay", json={**scenario, "rulebook": "/etc/passwd.yaml"})
    assert r.status_code == 422 and r.json()["detail"].startswith("rulebook:")
