"""The ledger's use cases on SQLite and PostgreSQL: a clan championship's aggravation and
decision, a person's history across series with valid/expired marks, exports, previews and
refusals that write nothing."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json

import pytest
import sqlalchemy as sa
from ledger_testkit import SLOW, scenario_of, setup_berserk, snapshot

from sudya.app.exports import CSV_COLUMNS, export_csv, export_json
from sudya.app.ledger import Ledger, LedgerError
from sudya.app.queries import person_history, tournament_summary
from sudya.app.readback import series_json
from sudya.app.scenario import replay

DQ_DECISION = [{"kind": "fighter-dq"}, {"kind": "technical-defeat"},
               {"kind": "reduce-fighters", "amount": 1}]


def clan_league(ledger: Ledger) -> tuple[int, int]:
    sid = ledger.create_series(name="Clan League", rulebook="clan-championship")
    tid = ledger.create_tournament(series=sid, name="Spring", date=dt.date(2026, 3, 1))
    ledger.add_team(tournament=tid, handle="north", members=["veda"])
    ledger.add_team(tournament=tid, handle="south", members=["lis"])
    ledger.add_judge(tournament=tid, handle="mt", role="tournament-master")
    return sid, tid


def test_aggravation_is_pending_until_the_college_decides(ledger: Ledger,
                                                          db_engine: sa.Engine) -> None:
    sid, tid = clan_league(ledger)
    w1 = ledger.record(tournament=tid, infraction="elixirs.forbidden-combat", player="veda",
                       event_id="w1")
    assert [(s.kind, s.valid_until) for s in w1[0].sanctions] == [
        ("warning", dt.date(2026, 5, 1))]
    h1 = ledger.record(tournament=tid, infraction="hoops", player="veda", event_id="h1")
    assert [(r.cause, r.pending, r.sanctions) for r in h1] == [("aggravation", True, [])]
    assert h1[0].offered
    with ledger.factory() as s:
        pending = next(r for r in series_json(s, sid)["rulings"] if r["event"] == "h1")
    assert pending["pending"] is True and "resolved_by" not in pending

    before = snapshot(db_engine)
    with pytest.raises(LedgerError) as err:  # not stricter than the table: refused
        ledger.decide(tournament=tid, of="h1", judge="mt", sanctions=[{"kind": "warning"}])
    assert err.value.field
    assert snapshot(db_engine) == before

    d1 = ledger.decide(tournament=tid, of="h1", judge="mt", sanctions=DQ_DECISION,
                       event_id="d1")
    assert [(r.cause, r.resolves) for r in d1] == [("decision", "h1")]
    assert [(s.kind, s.subject) for s in d1[0].sanctions] == [
        ("fighter-dq", "veda"), ("technical-defeat", "north"), ("reduce-fighters", "north")]
    with ledger.factory() as s:
        data = series_json(s, sid)
    h1_read = next(r for r in data["rulings"] if r["event"] == "h1")
    assert (h1_read["pending"], h1_read["resolved_by"]) == (False, "d1")
    assert data["subjects"]["veda"]["status"] == "disqualified"
    assert data == replay(scenario_of(db_engine, sid))
    with pytest.raises(LedgerError):  # decided once: a second decision is refused
        ledger.decide(tournament=tid, of="h1", judge="mt", sanctions=DQ_DECISION)


def test_a_persons_history_across_series_and_tournaments(ledger: Ledger) -> None:
    clan, spring = clan_league(ledger)
    ledger.record(tournament=spring, infraction="elixirs.forbidden-combat", player="veda",
                  event_id="w1")
    summer = ledger.create_tournament(series=clan, name="Summer", date=dt.date(2026, 6, 15))
    ledger.add_team(tournament=summer, handle="north", members=["veda"])
    ledger.record(tournament=summer, infraction="deceiving-official", player="veda",
                  choice={"amount": 40}, event_id="d1")
    _bsid, cup = setup_berserk(ledger, players=("veda", "bob"))
    ledger.record(tournament=cup, infraction=SLOW, player="veda", event_id="s1")
    ledger.record(tournament=cup, infraction=SLOW, player="bob", event_id="s2")

    with ledger.factory() as s:
        # the read side answers typed views; compared here as their JSON
        april = [e.as_json() for e in person_history(s, "veda", dt.date(2026, 4, 30))]
        may = [e.as_json() for e in person_history(s, "veda", dt.date(2026, 5, 2))]
    where = [(e["series"], e["tournament"], e["event"]) for e in april]
    assert where == [("Clan League", "Spring", "w1"), ("Clan League", "Summer", "d1"),
                     ("Berserk Cup", "Day 1", "s1")]
    assert "s2" not in {e["event"] for e in april}  # bob's record is not hers

    def marks(history: list[dict], event: str) -> list[tuple[str, str | None, str]]:
        entry = next(e for e in history if e["event"] == event)
        return [(x["kind"], x["valid_until"], x["state"]) for x in entry["sanctions"]]

    assert marks(april, "w1") == [("warning", "2026-05-01", "valid")]
    assert marks(may, "w1") == [("warning", "2026-05-01", "expired")]
    assert marks(april, "d1") == marks(may, "d1") == [
        ("penal-labour", None, "valid")]  # never expires
    assert april[1]["sanctions"][0]["amount"] == 40
    assert [x[0] for x in marks(may, "s1")] == ["warning"]
    with ledger.factory() as s, pytest.raises(LedgerError) as err:
        person_history(s, "nobody", dt.date(2026, 5, 1))
    assert err.value.field == "person"


def test_history_marks_revoked_sanctions(ledger: Ledger, berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg", event_id="s1")
    ledger.appeal(tournament=tid, of="s1", outcome="overturned", judge="anna", event_id="a1")
    with ledger.factory() as s:
        history = [e.as_json() for e in person_history(s, "bob", dt.date(2026, 3, 1))]
    assert [(e["event"], e["cause"]) for e in history] == [("s1", "table"), ("a1", "appeal")]
    assert [x["state"] for x in history[0]["sanctions"]] == ["revoked"]


def test_exports_are_the_stored_rulings(ledger: Ledger, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction="gameplay.missed-trigger", player="bob",
                  details={"opponent": "alice", "both_could_control": True}, event_id="t1")
    ledger.record(tournament=tid, infraction="cheating.fraud", player="carol", judge="oleg",
                  event_id="f1")
    ledger.appeal(tournament=tid, of="f1", outcome="overturned", judge="anna", event_id="a1")
    ledger.record_result(tournament=tid, players=("alice", "bob"), score=(2, 0), round=1)
    with ledger.factory() as s:
        data = series_json(s, sid)
        exported = json.loads(export_json(s, "Berserk Cup"))
        rows = list(csv.DictReader(io.StringIO(export_csv(s, "Berserk Cup"))))
        with pytest.raises(LedgerError):
            export_json(s, "No such series")
    assert {k: v for k, v in exported.items() if k not in ("series", "tournaments")} == data
    assert exported["series"] == {"name": "Berserk Cup", "rulebook": "berserk"}
    assert [(t["id"], t["name"], t["date"], t["level"]) for t in exported["tournaments"]] == [
        (tid, "Day 1", "2026-03-01", "professional")]
    assert list(rows[0]) == CSV_COLUMNS
    # one row per sanction, one for a ruling without any
    assert len(rows) == sum(max(1, len(r["sanctions"])) for r in data["rulings"])
    fraud = [r for r in rows if r["event"] == "f1"]
    assert [r["sanction"] for r in fraud] == [
        "disqualification-without-prizes", "match-loss", "warning"]
    assert {r["revoked"] for r in fraud} == {"True"}
    assert {(r["subject"], r["sanction"], r["revoked"]) for r in rows if r["event"] == "t1"} \
        == {("bob", "caution", "False"), ("alice", "caution", "False")}
    assert [r["cause"] for r in rows if r["event"] == "a1"] == ["appeal"]


def test_previews_and_refusals_write_nothing(ledger: Ledger, db_engine: sa.Engine,
                                             berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob", event_id="s1")
    before = snapshot(db_engine)
    assert [r.cause for r in ledger.preview(tournament=tid, infraction=SLOW,
                                            player="bob")] == ["repeat"]
    refusals = {
        "tournament": lambda: ledger.record(tournament=999, infraction=SLOW, player="bob"),
        "player": lambda: ledger.record(tournament=tid, infraction=SLOW, player="zed"),
        "infraction": lambda: ledger.record(tournament=tid, infraction="no.such",
                                            player="bob"),
        "judge": lambda: ledger.record(tournament=tid, infraction=SLOW, player="bob",
                                       judge="nobody"),
        "event_id": lambda: ledger.record(tournament=tid, infraction=SLOW, player="bob",
                                          event_id="s1"),
        "role": lambda: ledger.add_judge(tournament=tid, handle="zz", role="king"),
        "outcome": lambda: ledger.appeal(tournament=tid, of="s1", outcome="maybe"),
        "of": lambda: ledger.appeal(tournament=tid, of="nope", outcome="upheld"),
        "level": lambda: ledger.create_tournament(series="Berserk Cup", name="Day 2",
                                                  date=dt.date(2026, 3, 2), level="bogus"),
        "name": lambda: ledger.create_series(name="Berserk Cup", rulebook="berserk"),
        "rulebook": lambda: ledger.create_series(name="Other", rulebook="no-such-book"),
        "handle": lambda: ledger.add_player(tournament=tid, handle="bob"),
        "team": lambda: ledger.add_player(tournament=tid, handle="newbie", team="nope"),
    }
    for field, call in refusals.items():
        with pytest.raises(LedgerError) as err:
            call()
        assert err.value.field == field, (field, str(err.value))
        assert str(err.value).startswith(f"{field}: ")
        assert snapshot(db_engine) == before, field
    # after all that, the next record is the one that would have come anyway
    out = ledger.record(tournament=tid, infraction=SLOW, player="bob")
    assert out[0].cause == "repeat"
    with ledger.factory() as s:
        assert tournament_summary(s, tid).handles() == [
            "alice", "bob", "carol"]
