"""The records that settle or revoke a ruling (a decision, an appeal, a correction) are found
through indexes that hold those records alone (migration 0016): every lookup names an event,
never a null, so the nulls of every other ruling need no index entry. Each database is asked
its plan of the read side's lookups (PostgreSQL with sequential scans off: its tables here
are too small for an index to pay), and the indexes are asked what they hold."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa

from sudya.adapters.db import models as m
from sudya.app import appeals, readback, recording
from sudya.app.ledger import Ledger

SETTLING_INDEXES = ("ix_ruling_series_id_resolves", "ix_ruling_series_id_revokes")


def _settled_across_tournaments(ledger: Ledger) -> tuple[int, int]:
    """A clan series whose first stage's rulings are decided and corrected in the second."""
    sid = ledger.create_series(name="Клановый", rulebook="clan-championship")
    t1 = ledger.create_tournament(series=sid, name="Этап 1", date=dt.date(2026, 3, 1))
    t2 = ledger.create_tournament(series=sid, name="Этап 2", date=dt.date(2026, 3, 10))
    for t in (t1, t2):
        ledger.add_player(tournament=t, handle="veda")
        ledger.add_judge(tournament=t, handle="mt", role="tournament-master")
    ledger.record(tournament=t1, infraction="interference", player="veda", event_id="w1")
    ledger.record(tournament=t1, infraction="hoops", player="veda", event_id="h1")  # pending
    ledger.decide(tournament=t2, of="h1", judge="mt", sanctions=[{"kind": "team-dq"}])
    ledger.correct(tournament=t2, of="w1", judge="mt")
    return t1, t2


def test_the_settling_records_are_found_through_indexes_of_them_alone(
        ledger: Ledger, db_engine: sa.Engine) -> None:
    t1, _t2 = _settled_across_tournaments(ledger)
    lookups: list[tuple[str, Any]] = []

    def seen(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        where = statement.split("WHERE", 1)[-1]
        if "ruling.revokes" in where or "ruling.resolves" in where:
            lookups.append((statement, parameters))

    sa.event.listen(db_engine, "before_cursor_execute", seen)
    try:
        with ledger.factory() as s:
            rulings = readback.tournament_rulings(s, s.get(m.Tournament, t1))
            appealable = appeals.appealable(s, t1)
            w1 = s.scalar(sa.select(m.Event).where(m.Event.tournament_id == t1,
                                                   m.Event.ext_id == "w1"))
            assert w1 is not None
            undone = recording._undone(s, w1)
    finally:
        sa.event.remove(db_engine, "before_cursor_execute", seen)
    # what the lookups found: h1 decided, w1 corrected, both in the next tournament
    assert [r.pending for r in rulings if r.event == "h1"] == [False]
    assert not any(a.get("event") == "w1" for a in appealable)
    assert undone
    plans = []
    with db_engine.begin() as conn:
        for statement, parameters in lookups:
            if conn.dialect.name == "sqlite":
                explain = f"EXPLAIN QUERY PLAN {statement}"
            else:
                conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # this transaction
                explain = f"EXPLAIN {statement}"
            plans.append(" ".join(str(row[-1] if conn.dialect.name == "sqlite" else row[0])
                                  for row in conn.exec_driver_sql(explain, parameters)))
    # the appealable rulings' and the undo's lookups by the event revoked use the index
    revoking = [plan for (statement, _p), plan in zip(lookups, plans, strict=True)
                if "ruling.resolves" not in statement]
    assert len(revoking) == 2, lookups
    assert all("ix_ruling_series_id_revokes" in plan for plan in revoking), revoking


def test_the_indexes_hold_only_the_rulings_that_name_an_event(ledger: Ledger,
                                                              db_engine: sa.Engine) -> None:
    """Each index is made WHERE its column IS NOT NULL (the models and the migration agree:
    test_ledger_migrations compares them)."""
    with db_engine.connect() as conn:
        for index, column in zip(SETTLING_INDEXES, ("resolves", "revokes"), strict=True):
            if conn.dialect.name == "sqlite":
                made = conn.exec_driver_sql(
                    "SELECT sql FROM sqlite_master WHERE name = ?", (index,)).scalar()
            else:
                made = conn.exec_driver_sql(
                    "SELECT indexdef FROM pg_indexes WHERE indexname = %s", (index,)).scalar()
            assert made is not None, index
            plain = made.lower().replace("(", "").replace(")", "")
            assert f"where {column} is not null" in plain, made
