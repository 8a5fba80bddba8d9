"""Importing players, teams and results from CSV on SQLite and PostgreSQL: every row or none.
A file with a bad row is rejected with the line of every bad row and leaves the database
exactly as it was; the ledger keeps working afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from ledger_testkit import SLOW, events, scenario_of, snapshot

from sudya.adapters.db.session import WRITE
from sudya.app.imports import ImportRejected, import_csv
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.queries import tournament_standings, tournament_summary
from sudya.app.readback import series_json
from sudya.app.scenario import replay
from sudya.domain.errors import SudyaError

ACTOR = Actor(name="importer", request_id="req-import")


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_players_teams_and_results_are_imported(ledger: Ledger, tmp_path: Path,
                                                berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ticks: list[tuple[int, int]] = []
    teams = write(tmp_path / "teams.csv",
                  "handle,name,members\nwolves,Wolves,dan;erin\nbears,Bears,\n")
    assert import_csv(ledger, "teams", teams, tournament=tid, actor=ACTOR,
                      progress=lambda done, total: ticks.append((done, total))) == 2
    assert ticks == [(1, 2), (2, 2)]
    players = write(tmp_path / "players.csv",
                    "\ufeffhandle,name,team,table\nfrank,Frank Castle,bears,4\ngina,,,\n")
    assert import_csv(ledger, "players", players, tournament=tid, actor=ACTOR) == 2
    results = write(tmp_path / "results.csv",
                    "round,player_a,player_b,score\n1,alice,bob,2-1\n1,dan,frank,0-2\n")
    assert import_csv(ledger, "results", results, tournament=tid, actor=ACTOR) == 2

    with ledger.factory() as s:
        summary = tournament_summary(s, tid)
        table = tournament_standings(s, tid)
        data = series_json(s, sid)
    assert {p.handle: p.team for p in summary.players} == {
        "alice": None, "bob": None, "carol": None, "dan": "wolves", "erin": "wolves",
        "frank": "bears", "gina": None}
    assert summary.teams == {"wolves": ["dan", "erin"], "bears": ["frank"]}
    assert set(data["subjects"]) >= {"dan", "erin", "frank", "gina", "wolves", "bears"}
    # the stored results score as the same results replayed
    expected = replay(scenario_of(ledger.db, sid))
    assert data == expected
    assert table == expected["standings"]
    placed = list(table["players"])
    assert placed.index("alice") < placed.index("bob")
    assert placed.index("frank") < placed.index("dan")
    # imported players are on the roster the engine rules with
    assert ledger.record(tournament=tid, infraction=SLOW, player="gina")[0].cause == "table"


BAD_FILES = {
    "unknown team": ("players", "handle,name,team\nhank,,\nivy,,nope\njill,,\n", [3]),
    "bad score": ("results", "round,player_a,player_b,score\n1,alice,bob,2-1\n"
                             "2,alice,carol,2:1\n3,bob,carol,1-0\n", [3]),
    "bad round": ("results", "round,player_a,player_b,score\n1,alice,bob,2-1\n"
                             "one,alice,carol,2-1\n", [3]),
    "unknown player": ("results", "round,player_a,player_b,score\n1,alice,bob,2-1\n"
                                  "1,alice,zed,2-1\n", [3]),
    "duplicate handle": ("players", "handle,name\nhank,Hank\nivy,Ivy\nhank,Hank again\n"
                                    "bob,Bob\n", [4, 5]),
    "row with missing cells": ("results", "round,player_a,player_b,score\n"
                                          "1,alice,bob,2-1\n1,alice\n", [3]),
    "empty handle": ("players", "handle,name\nhank,Hank\n,Nobody\n", [3]),
    "team member plays for another team": (
        "teams", "handle,members\nwolves,hank;ivy\nbears,ivy\n", [3]),
}


def test_a_file_with_bad_rows_changes_nothing(ledger: Ledger, db_engine: sa.Engine,
                                              tmp_path: Path,
                                              berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob")  # the cache is warm
    before = snapshot(db_engine)
    last = max(e.seq for e in events(db_engine, sid))
    for case, (kind, text, lines) in BAD_FILES.items():
        path = write(tmp_path / f"{kind}.csv", text)
        with pytest.raises(ImportRejected) as err:
            import_csv(ledger, kind, path, tournament=tid, actor=ACTOR)
        rejected = err.value.rejected
        assert [int(r.split(":")[0].removeprefix("line ")) for r in rejected] == lines, (
            case, rejected)
        assert "nothing was imported" in str(err.value)
        assert snapshot(db_engine) == before, case

    # a missing column is refused before any row is read, naming the column
    path = write(tmp_path / "results.csv", "round,player_a,player_b\n1,alice,bob\n")
    with pytest.raises(SudyaError, match="score"):
        import_csv(ledger, "results", path, tournament=tid, actor=ACTOR)
    path = write(tmp_path / "players.csv", "name,team\nHank,\n")
    with pytest.raises(SudyaError, match="handle"):
        import_csv(ledger, "players", path, tournament=tid, actor=ACTOR)
    assert snapshot(db_engine) == before

    # the ledger is not left with a stale engine: what was rolled back does not exist…
    with pytest.raises(LedgerError, match="unknown player 'hank'"):
        ledger.record(tournament=tid, infraction=SLOW, player="hank")
    # … and the next record is numbered and ruled as if no import had been tried
    out = ledger.record(tournament=tid, infraction=SLOW, player="bob")
    assert (out[0].cause, out[0].event) == ("repeat", f"e{last + 1}")
    fresh = Ledger(db_engine)
    assert [r.cause for r in fresh.preview(tournament=tid, infraction=SLOW, player="bob")] \
        == [r.cause for r in ledger.preview(tournament=tid, infraction=SLOW, player="bob")]


def test_a_failed_import_leaves_no_phantom_in_the_engine(ledger: Ledger,
                                                         db_engine: sa.Engine, tmp_path: Path,
                                                         berserk: tuple[int, int]) -> None:
    """The rows that went in before the bad one were applied to the cached engine; after the
    rollback they must be gone from it even when other writers have since stored as many
    events (so that the sequence numbers alone cannot tell)."""
    _sid, tid = berserk
    bad = write(tmp_path / "bad.csv", "handle,team\nhank,\nivy,nope\njill,\n")
    with pytest.raises(ImportRejected):
        import_csv(ledger, "players", bad, tournament=tid, actor=ACTOR)
    other = Ledger(db_engine)
    other.record(tournament=tid, infraction=SLOW, player="alice")
    other.record(tournament=tid, infraction=SLOW, player="carol")
    for ghost in ("hank", "jill"):
        with pytest.raises(LedgerError, match=f"unknown player '{ghost}'"):
            ledger.record(tournament=tid, infraction=SLOW, player=ghost)
    assert ledger.record(tournament=tid, infraction=SLOW, player="alice")[0].cause == "repeat"

    good = write(tmp_path / "good.csv", "handle,team\nhank,\nivy,\n")
    assert import_csv(ledger, "players", good, tournament=tid, actor=ACTOR) == 2
    assert ledger.record(tournament=tid, infraction=SLOW, player="ivy")[0].cause == "table"
    with ledger.factory() as s:
        handles = tournament_summary(s, tid).handles()
    assert handles == ["alice", "bob", "carol", "hank", "ivy"]


HUGE = "99999999999999999999"  # more than any INTEGER column holds (SQLite or PostgreSQL)


def test_a_row_the_database_refuses_is_a_rejected_row(ledger: Ledger, db_engine: sa.Engine,
                                                       tmp_path: Path,
                                                       berserk: tuple[int, int]) -> None:
    _sid, tid = berserk
    before = snapshot(db_engine)
    path = write(tmp_path / "players.csv", f"handle,table\nhank,\njill,{HUGE}\n")
    with pytest.raises(ImportRejected) as err:
        import_csv(ledger, "players", path, tournament=tid, actor=ACTOR)
    assert [r.split(":")[0] for r in err.value.rejected] == ["line 3"]
    assert snapshot(db_engine) == before


def test_an_import_aborted_by_the_database_leaves_no_phantom(ledger: Ledger, db_url: str,
                                                             db_engine: sa.Engine,
                                                             tmp_path: Path,
                                                             berserk: tuple[int, int]) -> None:
    """Every row passes and is applied to the cached engine; then the database itself ends
    the transaction at COMMIT: PostgreSQL's server terminates the connection (what a DBA, a
    failover or a crashed backend does), SQLite interrupts the COMMIT. The import raises the
    database's error, nothing of the batch is stored, and the engine keeps no phantom of it
    even after other writers have stored as many events (so that sequence numbers cannot
    tell)."""
    _sid, tid = berserk
    before = snapshot(db_engine)
    writing: list[Any] = []  # the DBAPI connection of each writing transaction
    stopped: list[str] = []

    def grab(conn: sa.Connection) -> None:
        if conn.get_execution_options().get(WRITE):
            writing.append(conn.connection.dbapi_connection)

    def stop_the_commit(done: int, total: int) -> None:  # called after each row
        if done < total:
            return
        dbapi = writing[-1]
        if db_url.startswith("postgresql"):
            with db_engine.connect() as admin:  # (waiting up to 10 s for the backend to go)
                if admin.scalar(sa.text("SELECT pg_terminate_backend(:pid, 10000)"),
                                {"pid": dbapi.info.backend_pid}):
                    stopped.append("terminated")
            return
        statements: list[str] = []

        def interrupt() -> int:  # SQLite calls it between steps; non-zero stops the statement
            if statements[-1:] == ["COMMIT"] and not stopped:
                stopped.append("COMMIT")
                return 1
            return 0

        dbapi.set_trace_callback(statements.append)
        dbapi.set_progress_handler(interrupt, 1)

    path = write(tmp_path / "players.csv", "handle,name,table\nhank,Hank,3\njill,Jill,4\n")
    sa.event.listen(db_engine, "begin", grab)
    try:
        with pytest.raises(sa.exc.OperationalError) as err:
            import_csv(ledger, "players", path, tournament=tid, actor=ACTOR,
                       progress=stop_the_commit)
    finally:
        sa.event.remove(db_engine, "begin", grab)
        if not db_url.startswith("postgresql"):
            for dbapi in writing:
                dbapi.set_progress_handler(None, 0)
                dbapi.set_trace_callback(None)
    if db_url.startswith("postgresql"):
        assert (stopped, type(err.value.orig).__name__) == (["terminated"], "AdminShutdown")
    else:
        assert (stopped, str(err.value.orig)) == (["COMMIT"], "interrupted")
    assert snapshot(db_engine) == before

    other = Ledger(db_engine)
    other.record(tournament=tid, infraction=SLOW, player="alice")
    other.record(tournament=tid, infraction=SLOW, player="carol")
    for ghost in ("hank", "jill"):
        with pytest.raises(LedgerError, match=f"unknown player '{ghost}'"):
            ledger.record(tournament=tid, infraction=SLOW, player=ghost)
    assert ledger.record(tournament=tid, infraction=SLOW, player="alice")[0].cause == "repeat"
    # the same file goes in whole once the database lets it
    assert import_csv(ledger, "players", path, tournament=tid, actor=ACTOR) == 2
    assert ledger.record(tournament=tid, infraction=SLOW, player="jill")[0].cause == "table"
