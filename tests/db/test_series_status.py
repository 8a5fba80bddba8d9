"""Erratum E7 on the read side: a disqualification «с турнира/чемпионата» of one tournament
keeps its bearer out of the rest of the series, so a later tournament's subjects (the team and
people pages) show them disqualified, not «участвует»; a DQ «с турнира» and an overturned one
end with their tournament."""

from __future__ import annotations

import datetime as dt
from typing import Any

import sqlalchemy as sa

from sudya.app.ledger import Ledger
from sudya.app.queries import tournament_subjects


def test_a_series_disqualification_shows_in_the_next_tournament(ledger: Ledger) -> None:
    sid = ledger.create_series(name="Клановый", rulebook="clan-championship")
    t1 = ledger.create_tournament(series=sid, name="Этап 1", date=dt.date(2026, 3, 1))
    for p in ("a", "b", "c", "d"):
        ledger.add_player(tournament=t1, handle=p)
    ledger.add_judge(tournament=t1, handle="mt", role="tournament-master")
    ledger.record(tournament=t1, infraction="invisibility", player="a", event_id="e1")
    ledger.record(tournament=t1, infraction="elixirs.forbidden-combat", player="b")
    ledger.record(tournament=t1, infraction="elixirs.forbidden-combat", player="b")
    ledger.record(tournament=t1, infraction="attack.on-organizer", player="c", event_id="c1")
    ledger.appeal(tournament=t1, of="c1", judge="mt", outcome="overturned")
    t2 = ledger.create_tournament(series=sid, name="Этап 2", date=dt.date(2026, 4, 10))
    for p in ("a", "b", "c", "d"):
        ledger.add_player(tournament=t2, handle=p)
    with ledger.factory() as s:
        first = tournament_subjects(s, tournament=t1)
        later = tournament_subjects(s, tournament=t2)
    assert {p: first[p].status for p in "abcd"} == {
        "a": "disqualified", "b": "disqualified", "c": "active", "d": "active"}
    assert {p: later[p].status for p in "abcd"} == {
        "a": "disqualified", "b": "active", "c": "active", "d": "active"}
    assert later["a"].sanctions == {}  # the status carries, not the sanction


def test_the_carried_statuses_are_read_through_the_partial_index(
        ledger: Ledger, db_engine: sa.Engine) -> None:
    """The sanctions that keep their bearer out of the series are found in an index of
    those alone (migration 0015). The query writes its scope into the SQL: PostgreSQL's
    generic plan of a prepared statement (psycopg prepares one after five runs) cannot use an
    index `WHERE scope = 'series'` for a scope bound as a parameter, which may be anything.
    Each database is asked its plan (PostgreSQL with sequential scans off: its tables here
    are too small for an index to pay)."""
    sid = ledger.create_series(name="Клановый", rulebook="clan-championship")
    t1 = ledger.create_tournament(series=sid, name="Этап 1", date=dt.date(2026, 3, 1))
    t2 = ledger.create_tournament(series=sid, name="Этап 2", date=dt.date(2026, 4, 10))
    for t in (t1, t2):
        ledger.add_player(tournament=t, handle="a")
    ledger.record(tournament=t1, infraction="invisibility", player="a")
    scope_queries: list[tuple[str, Any]] = []

    def seen(_conn: Any, _cursor: Any, statement: str, parameters: Any, *_rest: Any) -> None:
        if "WHERE sanction.scope" in statement:
            scope_queries.append((statement, parameters))

    sa.event.listen(db_engine, "before_cursor_execute", seen)
    try:
        with ledger.factory() as s:
            assert tournament_subjects(s, tournament=t2)["a"].status == "disqualified"
    finally:
        sa.event.remove(db_engine, "before_cursor_execute", seen)
    [(statement, parameters)] = scope_queries
    assert "sanction.scope = 'series'" in statement
    with db_engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            explain = f"EXPLAIN QUERY PLAN {statement}"
        else:
            conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # this transaction only
            explain = f"EXPLAIN {statement}"
        plan = " ".join(str(row[-1]) for row in conn.exec_driver_sql(explain, parameters))
    assert "ix_sanction_series_scope" in plan, plan
