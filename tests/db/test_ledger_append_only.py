"""The ledger is append-only on SQLite and PostgreSQL: the database refuses UPDATE and DELETE
on records; an overturned appeal or a correction adds rows and leaves the originals as they
were; every row says who wrote it, when, and within which request."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
import sqlalchemy as sa
from ledger_testkit import SLOW, scenario_of, setup_berserk, snapshot
from sqlalchemy import select

from sudya.adapters.db import models as m
from sudya.adapters.db.append_only import APPEND_ONLY
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.readback import series_json
from sudya.app.scenario import replay

RECORDS = ("event", "ruling", "sanction", "revocation", "result")
# and the statements about a disqualification (tests/db/test_statements.py)


def test_the_protected_tables_are_the_records() -> None:
    assert set(m.APPEND_ONLY_TABLES) == {*RECORDS, "statement"}
    assert set(APPEND_ONLY) == set(m.APPEND_ONLY_TABLES)  # the triggers' list, the models'


def kept(before: dict[str, list[Any]], after: dict[str, list[Any]],
         mutable: tuple[str, ...] = ("series",)) -> None:
    """Every row that was there is still there, unchanged (series.last_seq may move)."""
    for table, rows in before.items():
        if table in mutable:
            continue
        missing = [r for r in rows if r not in after[table]]
        assert missing == [], table


def test_the_database_refuses_update_and_delete(ledger: Ledger, db_engine: sa.Engine,
                                                berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg", event_id="s1")
    ledger.appeal(tournament=tid, of="s1", outcome="overturned", judge="anna")
    ledger.record_result(tournament=tid, players=("alice", "bob"), score=(2, 1), round=1)
    before = snapshot(db_engine)
    for table in RECORDS:
        assert before[table], f"{table} has no row to protect"

    statements = [
        "UPDATE {t} SET created_by = 'mallory'",
        "UPDATE {t} SET request_id = NULL WHERE id = (SELECT max(id) FROM {t})",
        "DELETE FROM {t} WHERE id = (SELECT max(id) FROM {t})",
        "DELETE FROM {t}",
    ]
    for table in RECORDS:
        for sql in statements:
            with pytest.raises(sa.exc.DBAPIError) as err, db_engine.begin() as conn:
                conn.execute(sa.text(sql.format(t=table)))
            assert "append-only" in str(err.value), (table, sql)

    # the ORM is no way round it either
    with (pytest.raises(sa.exc.DBAPIError, match="append-only"), ledger.factory() as s,
          s.begin()):
        row = s.scalars(select(m.Ruling)).first()
        assert row is not None
        row.cause = "none"
    assert snapshot(db_engine) == before

    # and the ledger still works
    assert ledger.record(tournament=tid, infraction=SLOW, player="bob")[0].cause == "table"


def test_an_overturned_appeal_adds_records(ledger: Ledger, db_engine: sa.Engine,
                                           berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    first = ledger.record(tournament=tid, infraction="cheating.fraud", player="carol",
                          judge="oleg", round=1, event_id="f1")
    assert [s.kind for s in first[0].sanctions] == [
        "disqualification-without-prizes", "match-loss", "warning"]
    before = snapshot(db_engine)

    appeal = Actor(name="anna", request_id="req-appeal-1")
    out = ledger.appeal(tournament=tid, of="f1", outcome="overturned", judge="anna",
                        event_id="a1", actor=appeal)
    assert [(r.cause, r.revokes, r.sanctions) for r in out] == [("appeal", "f1", [])]

    after = snapshot(db_engine)
    kept(before, after)
    for table in ("event", "ruling", "revocation"):
        assert len(after[table]) > len(before[table]), table
    assert len(after["sanction"]) == len(before["sanction"])

    with ledger.factory() as s:
        original = s.scalars(select(m.Ruling).where(m.Ruling.event_ext_id == "f1")).one()
        assert original.cause == "table"
        kinds = {sn.id: sn.kind for sn in original.sanctions}
        assert sorted(kinds.values()) == sorted(
            ["disqualification-without-prizes", "match-loss", "warning"])
        revoking = s.scalars(select(m.Ruling).where(m.Ruling.event_ext_id == "a1")).one()
        assert (revoking.cause, revoking.revokes) == ("appeal", "f1")
        revocations = list(s.scalars(select(m.Revocation)))
        assert {r.sanction_id for r in revocations} == set(kinds)
        assert {r.ruling_id for r in revocations} == {revoking.id}
        assert {(r.created_by, r.request_id) for r in revocations} == {
            ("anna", "req-appeal-1")}
        data = series_json(s, sid)

    f1 = next(r for r in data["rulings"] if r["event"] == "f1")
    assert [x["kind"] for x in f1["sanctions"]] == [
        "disqualification-without-prizes", "match-loss", "warning"]
    assert data["subjects"]["carol"] == {"status": "active", "sanctions": {}, "points": 0,
                                         "ore": 0}
    assert data == replay(scenario_of(db_engine, sid))
    # the overturned ruling no longer counts: carol's next fraud is a first offence
    again = ledger.record(tournament=tid, infraction="cheating.fraud", player="carol",
                          judge="oleg", round=2)
    assert again[0].cause == "table"


def test_a_correction_adds_records(ledger: Ledger, db_engine: sa.Engine,
                                   berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="alice", judge="oleg",
                  event_id="m1")
    before = snapshot(db_engine)
    fix = Actor(name="anna", request_id="req-fix")
    out = ledger.correct(tournament=tid, of="m1", judge="anna", reason="wrong player",
                         event_id="c1", actor=fix)
    assert [(r.cause, r.subject, r.revokes) for r in out] == [("correction", "alice", "m1")]
    kept(before, snapshot(db_engine))

    with ledger.factory() as s:
        original = s.scalars(select(m.Ruling).where(m.Ruling.event_ext_id == "m1")).one()
        assert (original.cause, [sn.kind for sn in original.sanctions]) == (
            "table", ["warning"])
        correcting = s.scalars(select(m.Ruling).where(m.Ruling.event_ext_id == "c1")).one()
        # reasons are stored as codes with their parameters, not prose
        assert {"code": "correction.made-because", "params": {"reason": "wrong player"},
                "source": ""} in correcting.notes
        rev = s.scalars(select(m.Revocation)).one()
        assert (rev.sanction_id, rev.ruling_id) == (original.sanctions[0].id, correcting.id)
        assert (rev.created_by, rev.request_id) == ("anna", "req-fix")
        data = series_json(s, sid)
    assert data["subjects"]["alice"]["sanctions"] == {}

    # correcting it again: nothing left to correct, nothing written
    before = snapshot(db_engine)
    with pytest.raises(LedgerError) as err:
        ledger.correct(tournament=tid, of="m1", reason="twice")
    assert err.value.field == "of"
    assert snapshot(db_engine) == before
    # the corrected warning does not make alice's next slow play a repeat
    assert ledger.record(tournament=tid, infraction=SLOW, player="alice")[0].cause == "table"


def _utc(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo else value.replace(tzinfo=dt.UTC)


def test_every_row_says_who_when_and_which_request(ledger: Ledger,
                                                   db_engine: sa.Engine) -> None:
    start = dt.datetime.now(dt.UTC) - dt.timedelta(seconds=5)
    actors = {key: Actor(name=f"user-{key}", request_id=f"req-{key}")
              for key in ("setup", "team", "record", "appeal", "result", "end")}
    sid, tid = setup_berserk(ledger, actor=actors["setup"])
    ledger.add_team(tournament=tid, handle="wolves", members=["alice", "dan"],
                    actor=actors["team"])
    ledger.record(tournament=tid, infraction="cheating.fraud", player="bob", judge="oleg",
                  event_id="f1", actor=actors["record"])
    ledger.appeal(tournament=tid, of="f1", outcome="overturned", judge="anna",
                  event_id="a1", actor=actors["appeal"])
    ledger.record_result(tournament=tid, players=("alice", "bob"), score=(2, 1),
                         event_id="r1", actor=actors["result"])
    ledger.end_match(tournament=tid, round=1, event_id="m1", actor=actors["end"])
    end = dt.datetime.now(dt.UTC) + dt.timedelta(seconds=5)

    pairs = {(a.name, a.request_id) for a in actors.values()}
    audited = (m.Series, m.Tournament, m.Person, m.Team, m.Entry, m.Staff, m.Event,
               m.Ruling, m.SanctionRow, m.Revocation, m.Result)
    with ledger.factory() as s:
        for model in audited:
            rows = list(s.scalars(select(model)))
            assert rows, model.__tablename__
            for row in rows:
                assert (row.created_by, row.request_id) in pairs, model.__tablename__
                assert row.created_at is not None
                assert start <= _utc(row.created_at) <= end, model.__tablename__

        def who(model: Any, *where: Any) -> set[tuple[str, str | None]]:
            return {(r.created_by, r.request_id) for r in s.scalars(select(model).where(*where))}

        def of(key: str) -> set[tuple[str, str | None]]:
            return {(actors[key].name, actors[key].request_id)}

        assert who(m.Series) == of("setup")
        assert who(m.Person, m.Person.handle == "dan") == of("team")
        assert who(m.Team) == of("team")
        assert who(m.Event, m.Event.ext_id == "f1") == of("record")
        assert who(m.Ruling, m.Ruling.event_ext_id == "f1") == of("record")
        assert who(m.SanctionRow, m.SanctionRow.ruling_id.in_(
            select(m.Ruling.id).where(m.Ruling.event_ext_id == "f1"))) == of("record")
        assert who(m.Event, m.Event.ext_id == "a1") == of("appeal")
        assert who(m.Ruling, m.Ruling.event_ext_id == "a1") == of("appeal")
        assert who(m.Revocation) == of("appeal")
        assert who(m.Result) == of("result")
        assert who(m.Event, m.Event.ext_id == "m1") == of("end")
    assert sid
