"""Statements about a disqualification (issue «Reports on paper»), on a real SQLite file and a
real PostgreSQL: stored and listed in order with who typed each and when; refused on an
event that disqualified no one, an unknown event and bad fields (nothing stored); the
database refuses UPDATE and DELETE; `sudya audit verify` finds a statement changed behind
Sudya's back; and the migration from 0010 adds the table, chained and append-only."""

from __future__ import annotations

from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from ledger_testkit import SLOW, counts

from sudya.adapters.db import migrate
from sudya.adapters.db import models as m
from sudya.adapters.db.append_only import drop_triggers
from sudya.adapters.db.migrate import upgrade
from sudya.app import audit
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.statements import add_statement, dq_events, statements_of
from sudya.domain.commands import MAX_STATEMENT, CommandError, decode_statement

DQ = "cheating.fraud"  # a disqualification without prizes (with a match loss) in berserk
SUSPENSION = "cheating.bribery"  # at the professional level


def _history(ledger: Ledger, tid: int) -> None:
    ledger.record(tournament=tid, infraction=SLOW, player="bob", event_id="slow", judge="oleg")
    ledger.record(tournament=tid, infraction=DQ, player="alice", event_id="dq", judge="anna")
    ledger.record(tournament=tid, infraction=SUSPENSION, player="carol", event_id="susp",
                  judge="anna")


def say(ledger: Ledger, tid: int, who: str = "oleg", **fields: Any):  # type: ignore[no-untyped-def]
    raw = {"tournament": tid, "event": "dq", "role": "witness", "author": "Carol",
           "text": "I saw the offer.", **fields}
    return add_statement(ledger, decode_statement(raw), Actor(name=who))


def test_statements_are_stored_and_listed_in_order(ledger: Ledger,
                                                   berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    _history(ledger, tid)
    with ledger.factory() as s:
        dq, susp = dq_events(s, tournament=tid)
    assert (dq.event, dq.subjects, dq.status, dq.statements) == ("dq", ["alice"],
                                                                 "disqualified", 0)
    assert dq.kinds == ["disqualification-without-prizes"]  # not the match loss with it
    assert (susp.event, susp.subjects, susp.status) == ("susp", ["carol"], "suspended")
    own = say(ledger, tid, role="player", author="", text="I did not offer anything.\nHonest.")
    assert own.author == "alice" and own.written_by == "oleg"  # the subject by default
    witness = say(ledger, tid)
    head = say(ledger, tid, who="anna", role="head-judge", author="",
               text="Alice offered Bob 100 roubles to concede.", rule_cited="002 §3.2",
               decision="Дисквалификация без призов")
    with ledger.factory() as s:
        listed = statements_of(s, tournament=tid, event="dq")
        dq, _susp = dq_events(s, tournament=tid)
        assert statements_of(s, tournament=tid, event="slow") == []
        row_id = s.scalar(sa.select(m.Event.id).where(m.Event.ext_id == "dq"))
        assert statements_of(s, tournament=tid, event=row_id) == listed  # by its row id
        assert statements_of(s, tournament=tid + 1, event="dq") == []
    assert listed == [own, witness, head]
    assert [st.role for st in listed] == ["player", "witness", "head-judge"]
    assert listed[0].text == "I did not offer anything.\nHonest."
    assert (head.author, head.rule_cited, head.decision) == (
        "anna", "002 §3.2", "Дисквалификация без призов")
    assert listed[0].written_at <= listed[2].written_at and listed[0].written_at.tzinfo
    assert (dq.statements, dq.head_judge) == (3, True)
    # the chain takes them in: the series still verifies, every row counted
    [result] = audit.verify(ledger, keep=False)
    assert result.ok, result.problems
    # and an event recorded after them chains on from the last statement
    ledger.record(tournament=tid, infraction=SLOW, player="carol", judge="oleg")
    say(ledger, tid, text="A second look: it was 200.")
    [result] = audit.verify(ledger, keep=False)
    assert result.ok, result.problems
    assert result.records == sum(v for k, v in counts(ledger.db).items() if k in (
        "event", "ruling", "sanction", "revocation", "result", "statement"))


def test_a_double_tap_stores_one_statement(ledger: Ledger, berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    _history(ledger, tid)
    first = say(ledger, tid, idempotency_key="k1")
    assert say(ledger, tid, idempotency_key="k1") == first
    with pytest.raises(LedgerError) as err:
        say(ledger, tid, idempotency_key="k1", text="something else")
    assert err.value.code == "key.reused"
    with ledger.factory() as s:
        assert len(statements_of(s, tournament=tid, event="dq")) == 1


BAD = [  # (fields, the code, the field it names)
    ({"event": "slow"}, "statement.not-a-dq", "event"),
    ({"event": "nope"}, "statement.unknown-event", "event"),
    ({"text": "   "}, "value.required", "text"),
    ({"text": "x" * (MAX_STATEMENT + 1)}, "text.too-long", "text"),
    ({"text": "a\x00b"}, "text.control-characters", "text"),
    ({"role": "judge"}, "value.not-one-of", "role"),
    ({"author": ""}, "value.required", "author"),
    ({"author": "a\nb"}, "text.control-characters", "author"),
    ({"rule_cited": "002"}, "statement.head-judge-only", "rule_cited"),
    ({"decision": "DQ"}, "statement.head-judge-only", "decision"),
    ({"role": "head-judge", "decision": "DQ"}, "value.required", "rule_cited"),
    ({"role": "head-judge", "rule_cited": "002 §3.2"}, "value.required", "decision"),
    ({"tournament": 999}, "tournament.unknown", "tournament"),
    ({"colour": "red"}, "field.unknown", "colour"),
]


def test_bad_input_is_refused_naming_the_field(ledger: Ledger,
                                               berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    _history(ledger, tid)
    before = counts(ledger.db)
    for fields, code, field in BAD:  # one database for all: each is refused up front
        with pytest.raises((LedgerError, CommandError)) as err:
            say(ledger, tid, **fields)
        assert (err.value.code, err.value.field) == (code, field), fields
        assert str(err.value)  # rendered from the catalogue
    assert counts(ledger.db) == before


def test_the_database_refuses_update_and_delete(ledger: Ledger, db_engine: sa.Engine,
                                                berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    _history(ledger, tid)
    say(ledger, tid)
    for sql in ("UPDATE statement SET text = 'nothing happened'", "DELETE FROM statement"):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), db_engine.begin() as conn:
            conn.execute(sa.text(sql))
    with ledger.factory() as s:
        assert [st.text for st in statements_of(s, tournament=tid, event="dq")] == [
            "I saw the offer."]


def test_audit_verify_finds_a_statement_changed_behind_sudyas_back(
        ledger: Ledger, db_engine: sa.Engine, berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    _history(ledger, tid)
    say(ledger, tid)
    say(ledger, tid, author="Dasha", text="I saw nothing.")
    with db_engine.begin() as conn:  # an attacker with the database: triggers dropped
        drop_triggers(conn)
        conn.execute(sa.text("UPDATE statement SET text = 'Nothing happened.' "
                             "WHERE author = 'Carol'"))
    [result] = audit.verify(ledger, keep=False)
    first = result.problems[0]
    assert (first.code, first.params["table"], first.params["event"]) == (
        "audit.changed", "statement", "dq")
    assert "заявление события dq" in audit_text(first)


def audit_text(problem: audit.Problem) -> str:
    from sudya.i18n.messages import render

    return render(problem.code, problem.params, "ru")


def test_the_migration_from_0010_adds_the_table(db_engine: sa.Engine) -> None:
    ledger = Ledger(db_engine)
    from ledger_testkit import setup_berserk

    _sid, tid = setup_berserk(ledger)
    _history(ledger, tid)
    cfg = migrate._config()
    with db_engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0010")
    assert "statement" not in sa.inspect(db_engine).get_table_names()
    upgrade(db_engine)
    ledger = Ledger(db_engine)
    say(ledger, tid)
    [result] = audit.verify(ledger, keep=False)
    assert result.ok, result.problems
    with pytest.raises(sa.exc.DBAPIError, match="append-only"), db_engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM statement"))
