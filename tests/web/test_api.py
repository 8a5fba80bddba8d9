"""The JSON API over the demo database (SQLite, and PostgreSQL for the tests marked so),
through real HTTP requests.

Expected rulings are written by hand from ../shared/spec/regulations.md (the section is
cited beside each), never taken from the engine. They are compared on the fields the
contract names (scenarios.md: event, subject, infraction, cause, sanctions, pending), so a
field added to the API's rulings changes nothing here.

The demo (sudya.app.demo), tournament 1 — «Берсерк», professional: results alisa 2-1 boris,
vera 1-1 gleb, dasha 0-2 egor; boris's slow play (e13, floor judge sudya), vera's missed
trigger that gleb could control too (e14), egor's careless deck list (e15, head judge
glavsud). 2 — the clan championship: veda's forbidden elixir (e6), then hoops while that
warning is valid (e7), grom's undeclared attack at level 12 with 2 attacks (e8); grom beat
lis. 3 — the team wargame: ivan 12-8 olga, petr 5-15 nina; ivan's disruptive behaviour (e9),
petr's petty cheating (e10), olga's serious cheating (e11, the judge's range).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from ruamel.yaml import YAML

import sudya
from sudya.app import demo
from sudya.app.ledger import Ledger
from sudya.domain.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT.parent / "shared" / "scenarios"
DEMO_SCENARIO = ROOT / "src" / "sudya" / "app" / "demo" / "berserk-demo.yaml"
API = "/api/v1"
TOURNAMENT = {"berserk": 1, "clan": 2, "wargame": 3}  # the demo's, in the order it builds them
SANCTION_FIELDS = ("kind", "amount", "score", "subject", "valid_until", "attached")



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


def sanction(kind: str, **fields: Any) -> dict[str, Any]:
    """A sanction as the contract writes it: {"kind": …} and only the fields that apply."""
    return {"kind": kind, **fields}


ATTACHED = {"attached": True}


def ruling(event: str, subject: str, infraction: str | None, cause: str,
           *sanctions: dict[str, Any], pending: bool = False) -> dict[str, Any]:
    return {"event": event, "subject": subject, "infraction": infraction, "cause": cause,
            "sanctions": list(sanctions), "pending": pending}


def contract(rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rulings reduced to the fields the contract names (scenarios.md «Output»)."""
    return [{"event": r["event"], "subject": r["subject"], "infraction": r["infraction"],
             "cause": r["cause"], "pending": r.get("pending", False),
             "sanctions": [{k: s[k] for k in SANCTION_FIELDS
                            if k in s and not (k == "attached" and s[k] is False)}
                           for s in r["sanctions"]]}
            for r in rulings]


def two_months_after(day: dt.date) -> dt.date:
    """003 §2.3: valid for 2 months, to the same day inclusive (2026-03-01 → 2026-05-01);
    a day the month lacks is its last day."""
    month0 = day.month + 1
    year, month = day.year + month0 // 12, month0 % 12 + 1
    for last in (day.day, 30, 29, 28):
        try:
            return dt.date(year, month, last)
        except ValueError:
            continue
    raise AssertionError(day)


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
    standings = client.get(f"{API}/tournaments/1/standings").json()["players"]
    # 3 for a match won, 1 drawn, 0 lost; cautions and warnings change no score (002)
    assert {p: row["match_points"] for p, row in standings.items()} == {
        "alisa": 3, "egor": 3, "vera": 1, "gleb": 1, "boris": 0, "dasha": 0}
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
    # alisa's first slow play at professional: a warning (000 §7.5, [amateur] [prof, highest])
    assert contract(preview["rulings"]) == [
        ruling(preview["rulings"][0]["event"], "alisa", "gameplay.slow-play", "table",
               sanction("warning"))]
    assert rows(ledger) == before

    r = client.post(f"{API}/tournaments/1/infractions", headers=auth("sudya"), json=body)
    assert r.status_code == 200, r.text
    recorded = r.json()
    assert recorded["preview"] is False
    event = recorded["event"]
    assert contract(recorded["rulings"]) == [
        ruling(event, "alisa", "gameplay.slow-play", "table", sanction("warning"))]
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
    assert r.status_code == 409 and fields(r) == ["idempotency_key"]
    r = client.post(f"{API}/tournaments/1/infractions", headers=auth("glavsud"), json=body)
    assert r.status_code == 409 and fields(r) == ["idempotency_key"]


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
    # 002 «Сложение пенальти»: nobody holds three penalties of one rank (boris a warning;
    # vera, gleb and egor one caution each), so the end of the match upgrades nothing
    assert r.json()["rulings"] == []
    r = client.post(f"{API}/tournaments/1/corrections", headers=auth("glavsud"),
                    json={"of": "e15", "reason": "wrong player"})
    assert r.status_code == 200, r.text
    assert [(x["subject"], x["cause"], x.get("revokes")) for x in r.json()["rulings"]] == [
        ("egor", "correction", "e15")]
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
    standings = client.get(f"{API}/tournaments/1/standings").json()["players"]
    assert (standings["alisa"]["wins"], standings["alisa"]["match_points"]) == (2, 6)
    assert (standings["vera"]["losses"], standings["vera"]["match_points"]) == (1, 1)
    assert standings["alisa"]["place"] == 1
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


@pytest.mark.postgresql
def test_the_demo_tournaments_hold_what_the_regulations_give(client: TestClient,
                                                             auth: Any) -> None:
    until = two_months_after(dt.date.today()).isoformat()  # the demo is dated today
    expected = {
        "berserk": [
            # professional: slow play a warning (000 §7.5); a missed trigger both could
            # control, a caution each (000 §7.1); a careless deck list, a caution (002 §1.4)
            ruling("e13", "boris", "gameplay.slow-play", "table", sanction("warning")),
            ruling("e14", "vera", "gameplay.missed-trigger", "table", sanction("caution")),
            ruling("e14", "gleb", "gameplay.missed-trigger", "table", sanction("caution")),
            ruling("e15", "egor", "deck.careless-decklist", "table", sanction("caution"))],
        "clan": [
            ruling("e6", "veda", "elixirs.forbidden-combat", "table",
                   sanction("warning", valid_until=until)),
            # §2.3: veda holds a valid warning, so the college owes a stricter sanction
            ruling("e7", "veda", "hoops", "aggravation", pending=True),
            # §2.3 penal labour by formula: level × attacks = 12 × 2, never expiring
            ruling("e8", "grom", "attack.undeclared-on-participant", "table",
                   sanction("penal-labour", amount=24, valid_until=None))],
        "wargame": [
            ruling("e9", "ivan", "disruptive-behaviour", "table", sanction("warning")),
            ruling("e10", "petr", "petty-cheating", "table", sanction("warning")),
            # §3.2: two warnings in one team are its yellow card
            ruling("e10", "volki", None, "conversion", sanction("yellow-card")),
            # §3.3: the judge's range, not chosen yet
            ruling("e11", "olga", "serious-cheating", "table", pending=True)],
    }
    for key, rulings in expected.items():
        view = client.get(f"{API}/tournaments/{TOURNAMENT[key]}", headers=auth("glavsud"))
        assert view.status_code == 200, view.text
        assert contract(view.json()["rulings"]) == rulings, key


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
    # 003 §2.3 aggregation: veda's warning (e6) is valid, so her hoops (e7) wait for the
    # college, with no sanctions yet; the only pending ruling of the tournament
    assert contract(pending) == [ruling("e7", "veda", "hoops", "aggravation", pending=True)]
    (hoops,) = pending
    assert hoops["aggravated"] is True
    # what the table gives for hoops (§2.2), the floor the college must exceed
    assert sorted(o["kind"] for o in hoops["offered"]) == ["fighter-dq", "technical-defeat"]
    table = [{"kind": "fighter-dq"}, {"kind": "technical-defeat"}]

    before = rows(ledger)
    r = client.post(f"{API}/tournaments/{clan}/decisions", headers=auth("master"),
                    json={"of": hoops["event"], "sanctions": table})
    assert r.status_code == 422
    assert fields(r) == ["sanctions"]
    assert "не строже табличного" in r.json()["detail"][0]["msg"]  # Russian by default
    english = client.post(f"{API}/tournaments/{clan}/decisions?lang=en", headers=auth("master"),
                          json={"of": hoops["event"], "sanctions": table})
    assert "stricter" in english.json()["detail"][0]["msg"]
    assert rows(ledger) == before

    stricter = [*table, {"kind": "warning"}]
    r = client.post(f"{API}/tournaments/{clan}/decisions", headers=auth("master"),
                    json={"of": hoops["event"], "sanctions": stricter})
    assert r.status_code == 200, r.text
    (decided,) = r.json()["rulings"]
    assert decided["resolves"] == "e7"
    # valid 2 months from this tournament (the demo's is today's); the technical defeat
    # lands on veda's team (§2.1 «Who bears a sanction»)
    until = two_months_after(dt.date.today()).isoformat()
    assert contract([decided]) == [ruling(
        decided["event"], "veda", "hoops", "decision",  # the decision's own event
        sanction("fighter-dq", valid_until=until),
        sanction("technical-defeat", subject="sever", valid_until=until),
        sanction("warning", valid_until=until))]
    assert client.get(f"{API}/tournaments/{clan}/pending",
                      headers=auth("master")).json() == []


@pytest.mark.postgresql
def test_decision_on_a_judges_range(client: TestClient, auth: Any, ledger: Ledger) -> None:
    wargame = TOURNAMENT["wargame"]
    pending = client.get(f"{API}/tournaments/{wargame}/pending",
                         headers=auth("glavsud")).json()
    # 004: serious cheating is the judge's choice within a range, so it waits for them
    assert contract(pending) == [ruling("e11", "olga", "serious-cheating", "table",
                                        pending=True)]
    (olga,) = pending
    ends = {o["choice"]: [(s["kind"], s.get("amount") or s.get("score"))
                          for s in o["sanctions"] if not s.get("attached")]
            for o in olga["offered"] if isinstance(o["choice"], str)}
    assert ends == {"min": [("points", -10), ("yellow-card", None)],
                    "max": [("game-result", "0-20"), ("red-card", None)]}
    r = client.post(f"{API}/tournaments/{wargame}/decisions", headers=auth("mladshiy"),
                    json={"of": olga["event"], "choice": "min"})
    assert r.status_code == 403
    r = client.post(f"{API}/tournaments/{wargame}/decisions", headers=auth("glavsud"),
                    json={"of": olga["event"], "choice": {"points": -30}})
    assert r.status_code == 422 and fields(r) == ["choice"]
    r = client.post(f"{API}/tournaments/{wargame}/decisions", headers=auth("glavsud"),
                    json={"of": olga["event"], "choice": {"points": -12}})
    assert r.status_code == 200, r.text
    (decided,) = r.json()["rulings"]
    # a deduction of 12 with the yellow card, which is the team's (004, §3.2)
    assert contract([decided]) == [ruling(
        decided["event"], "olga", "serious-cheating", "decision",
        sanction("points", amount=-12), sanction("yellow-card", subject="medvedi"))]


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
def _replayed() -> dict[str, tuple[Path, list[dict[str, Any]], dict[str, dict[str, Any]]]]:
    """Each scenario, the rulings the regulations give and the subjects after them."""
    def subject(sanctions: dict[str, int] | None = None, status: str = "active",
                points: int = 0, ore: int = 0) -> dict[str, Any]:
        """scenarios.md «subjects»: how many of each kind, and the sums of points and ore."""
        return {"status": status, "sanctions": sanctions or {}, "points": points, "ore": ore}

    return {
        # professional, deck lists used
        "berserk-basics": (SCENARIOS / "berserk-basics.yaml", [
            # 002 §1.1: game loss at professional; a game loss always comes with a warning
            ruling("e1", "alice", "deck.invalid-decklist", "table",
                   sanction("game-loss"), sanction("warning", **ATTACHED)),
            # 000 §7.1: both could control the trigger, so both get a caution
            ruling("e2", "bob", "gameplay.missed-trigger", "table", sanction("caution")),
            ruling("e2", "alice", "gameplay.missed-trigger", "table", sanction("caution")),
            # 000 §7.5: warning at professional; again: one rank above the last (002)
            ruling("e3", "bob", "gameplay.slow-play", "table", sanction("warning")),
            ruling("e4", "bob", "gameplay.slow-play", "repeat",
                   sanction("game-loss"), sanction("warning", **ATTACHED)),
        ], {"alice": subject({"game-loss": 1, "warning": 1, "caution": 1}),
            "bob": subject({"caution": 1, "warning": 2, "game-loss": 1})}),
        # amateur: cards and procedure rows give cautions
        "berserk-stacking": (SCENARIOS / "berserk-stacking.yaml", [
            ruling("c1", "carol", "cards.drawing-extra", "table", sanction("caution")),
            ruling("c2", "carol", "cards.looking-at-extra", "table", sanction("caution")),
            ruling("c3", "carol", "procedure.minor", "table", sanction("caution")),
            # three of a kind for three infractions: one rank up at the end of the match
            ruling("m1", "carol", None, "stacking", sanction("warning")),
            # critical unsporting conduct at amateur; what it comes with, transitively
            ruling("c4", "dan", "conduct.severe", "table",
                   sanction("disqualification-without-prizes"),
                   sanction("match-loss", **ATTACHED), sanction("warning", **ATTACHED)),
            # disqualified: recorded, no further penalty
            ruling("c5", "dan", "procedure.minor", "none"),
        ], {"carol": subject({"caution": 3, "warning": 1}),
            "dan": subject({"disqualification-without-prizes": 1, "match-loss": 1,
                            "warning": 1}, status="disqualified")}),
        "clan-basics": (SCENARIOS / "clan-basics.yaml", [
            # §2.3 penal labour by formula: level × attacks = 10 × 2; it never expires
            ruling("a1", "grom", "attack.undeclared-on-participant", "table",
                   sanction("penal-labour", amount=20, valid_until=None)),
            # a first forbidden elixir: a warning, valid 2026-03-01 → 2026-05-01
            ruling("a2", "veda", "elixirs.forbidden-combat", "table",
                   sanction("warning", valid_until="2026-05-01")),
            # recidivism (the first never expires): 10 × (2 earlier + 1 now)
            ruling("a3", "grom", "attack.undeclared-on-participant", "repeat",
                   sanction("penal-labour", amount=30, valid_until=None)),
        ], {"grom": subject({"penal-labour": 2}, ore=20 + 30), "veda": subject({"warning": 1}),
            "lis": subject(), "north": subject(), "south": subject()}),
        "wargame-cards": (SCENARIOS / "wargame-cards.yaml", [
            ruling("w1", "ivan", "disruptive-behaviour", "table", sanction("warning")),
            ruling("w2", "petr", "petty-cheating", "table", sanction("warning")),
            # §3.2: the team's two warnings are a yellow card
            ruling("w2", "wolves", None, "conversion", sanction("yellow-card")),
            # §3.3 the second time: a yellow card (the team's) and −5 points
            ruling("w3", "ivan", "disruptive-behaviour", "repeat",
                   sanction("yellow-card", subject="wolves"), sanction("points", amount=-5)),
            # two yellow cards are a red card, which takes 5 points off the team
            ruling("w3", "wolves", None, "conversion",
                   sanction("red-card"), sanction("points", amount=-5, **ATTACHED)),
            # a red-list model: red card (the team's, with its −5) and removal of the model
            ruling("w4", "olga", "red-list-model", "table",
                   sanction("red-card", subject="bears"),
                   sanction("points", amount=-5, subject="bears", **ATTACHED),
                   sanction("removal")),
        ], {"ivan": subject({"warning": 1, "points": 1}, points=-5),
            "petr": subject({"warning": 1}), "olga": subject({"removal": 1}),
            "nina": subject(),
            # counted by each sanction's own subject: the cards and the red card's −5
            "wolves": subject({"yellow-card": 2, "red-card": 1, "points": 1}, points=-5),
            "bears": subject({"red-card": 1, "points": 1}, points=-5)}),
        # the scenario `sudya demo` replays: professional, anna an official head judge
        "berserk-demo": (DEMO_SCENARIO, [
            ruling("d1", "alisa", "deck.invalid-decklist", "table",
                   sanction("game-loss"), sanction("warning", **ATTACHED)),
            ruling("d2", "boris", "gameplay.missed-trigger", "table", sanction("caution")),
            ruling("d2", "alisa", "gameplay.missed-trigger", "table", sanction("caution")),
            ruling("d3", "boris", "gameplay.slow-play", "table", sanction("warning")),
            # App. 2 merged cells: cautions at professional for these three
            ruling("d4", "vera", "cards.drawing-extra", "table", sanction("caution")),
            ruling("d5", "vera", "cards.looking-at-extra", "table", sanction("caution")),
            ruling("d6", "vera", "procedure.minor", "table", sanction("caution")),
            # only vera holds three of a kind (alisa's warning is attached: it never counts)
            ruling("m1", "vera", None, "stacking", sanction("warning")),
            ruling("d7", "boris", "gameplay.slow-play", "repeat",
                   sanction("game-loss"), sanction("warning", **ATTACHED)),
            # a suspension by an official head judge at professional, with all it carries
            ruling("d8", "gleb", "conduct.severe", "table", sanction("suspension"),
                   sanction("disqualification-without-prizes", **ATTACHED),
                   sanction("match-loss", **ATTACHED), sanction("warning", **ATTACHED)),
        ], {"alisa": subject({"game-loss": 1, "warning": 1, "caution": 1}),
            "boris": subject({"caution": 1, "warning": 2, "game-loss": 1}),
            "vera": subject({"caution": 3, "warning": 1}),
            # a suspension outranks the disqualification it carries
            "gleb": subject({"suspension": 1, "disqualification-without-prizes": 1,
                             "match-loss": 1, "warning": 1}, status="suspended")}),
    }


REPLAYED = _replayed()


def test_every_shared_scenario_has_its_expectation_here() -> None:
    shared = {p.stem for p in SCENARIOS.glob("*.yaml")}
    assert shared and shared == {n for n, (p, _, _) in REPLAYED.items() if p.parent == SCENARIOS}


@pytest.mark.parametrize("name", sorted(REPLAYED))
def test_replay_gives_what_the_regulations_say(client: TestClient, name: str) -> None:
    path, rulings, subjects = REPLAYED[name]
    r = client.post(f"{API}/replay", json=scenario_json(path))
    assert r.status_code == 200, r.text
    assert contract(r.json()["rulings"]) == rulings
    assert r.json()["subjects"] == subjects


def test_replay_of_a_wrong_scenario_is_422_with_the_message(client: TestClient) -> None:
    scenario = scenario_json(SCENARIOS / "berserk-basics.yaml")
    scenario["events"][0]["player"] = "nobody"
    r = client.post(f"{API}/replay", json=scenario)
    assert r.status_code == 422
    # one line naming the event and the field (scenarios.md «Running it»)
    message = r.json()["detail"]
    assert isinstance(message, str) and "\n" not in message
    assert "e1" in message and "player" in message and "nobody" in message
    with pytest.raises(ScenarioError) as python:  # the same message as the Python API's
        sudya.replay(scenario)
    assert str(python.value) == message

    for body in ([1, 2], "berserk", 7, None):
        r = client.post(f"{API}/replay", json=body)
        assert r.status_code == 422 and isinstance(r.json()["detail"], str), body
    r = client.post(f"{API}/replay", content=b"{not json",
                    headers={"content-type": "application/json"})
    assert r.status_code == 422
    # the HTTP API reads no files from the server
    r = client.post(f"{API}/replay", json={**scenario, "rulebook": "/etc/passwd.yaml"})
    assert r.status_code == 422 and r.json()["detail"].startswith("rulebook:")


def test_refusals_of_who_is_asking_have_codes(client: TestClient) -> None:
    """Issue 38: a 401 of the API is shaped as every refusal — where, the message, a stable
    code in `type` (never the English sentence), and the code in `Sudya-Code`."""
    r = client.get(f"{API}/me")
    assert r.status_code == 401
    [item] = r.json()["detail"]
    assert item["type"] == "auth.sign-in-first" and r.headers["sudya-code"] == item["type"]
    r = client.post(f"{API}/login", json={"username": "glavsud", "password": "nope-nope"})
    [item] = r.json()["detail"]
    assert (r.status_code, item["type"]) == (401, "auth.wrong-password")
    assert " " not in item["type"]
