"""Recording rate through the service layer, as a ratio to raw database commits in the same run;
WAL pages and (with `--instructions`) CPU instructions per ruling.

The application's write path is called as the edges call it: `Sudya.handle(RecordInfraction(…),
actor, tournament, key=…)` (sudya.app.core: the judge's permission and scope checked, then the
series' turn, the engine state cached, the event, its rulings and sanctions inserted), by a
floor judge on the tournament's staff list (as the CLI's `--by`), each ruling with its own
idempotency key, as the web app sends. The baseline is what the database itself can do at the
same durability: raw sqlite3 (no SQLAlchemy) committing one small row per transaction into a
file beside the ledger's, in WAL with the ledger's `synchronous` setting
(sudya.adapters.db.session.SQLITE_SYNCHRONOUS) and BEGIN IMMEDIATE, as the ledger's writers
do; on PostgreSQL, raw psycopg committing one row per transaction. It also compares the rate
after a long history with the rate on a fresh series (≈1 means the work per ruling does not
grow with the history).

On SQLite it also measures:
- the WAL pages a ruling writes: the WAL emptied (`PRAGMA wal_checkpoint(TRUNCATE)`), then
  `--wal` rulings recorded (few enough to stay under the WAL's 1000-page automatic
  checkpoint), then the frames in the WAL (`PRAGMA wal_checkpoint(PASSIVE)`'s log count)
  divided by them; the same for the raw one-row commits;
- the database's own share of a ruling: every statement the ledger sent for its rulings run
  again by raw sqlite3 on a copy of the file taken just before, at the same durability: the
  ledger's prepared statements with the values it bound (so sqlite3 parses each once, as it
  does for the ledger), the rest (BEGIN IMMEDIATE, COMMIT, the checks' reads) as traced. That
  replay is the fastest the ledger could go with no Python at all.

`--instructions` counts CPU instructions per ruling with valgrind (`--tool=cachegrind
--cache-sim=no`; Debian's package valgrind): three child processes make the same fresh series
and record the same warm-up rulings, then one stops, one records `--count` rulings and one
makes `--count` raw one-row commits; the differences, per ruling and per commit. Counted, not
timed: the machine's load does not move it (about two minutes).

    python bench/record.py [--history 3000] [--n 300] [--wal 30] [--db URL]
                           [--instructions [--count 100]]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from throwaway import database

from sudya.adapters.db import prepared
from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import SQLITE_SYNCHRONOUS, make_engine, normalise_url
from sudya.app.core import Actor, Sudya
from sudya.app.ledger import Ledger
from sudya.domain import commands as c

INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]
OWNER = Actor("bench", owner=True)  # sets the series up
JUDGE = "bench-judge"  # records: a floor judge on each tournament's staff list
PLAYERS = 200


class Baseline:
    """Raw commits, one small row each, at the ledger's durability."""

    def __init__(self, url: str, file: str = "baseline.db") -> None:
        self.i = 0
        if url.startswith("sqlite:///"):  # a file beside the ledger's
            self.path = Path(url.removeprefix("sqlite:///")).with_name(file)
            self.sqlite = sqlite3.connect(self.path, isolation_level=None)
            self.sqlite.execute("PRAGMA journal_mode=WAL")
            self.sqlite.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
            self.sqlite.execute("CREATE TABLE bench_row (id INTEGER PRIMARY KEY, payload TEXT)")
            self.what = f"raw sqlite3 commits (WAL, synchronous={SQLITE_SYNCHRONOUS})"
            return
        import psycopg

        raw = sa.engine.make_url(normalise_url(url)).set(drivername="postgresql")
        self.pg = psycopg.connect(raw.render_as_string(hide_password=False))
        self.pg.execute("CREATE TEMPORARY TABLE bench_row (id BIGSERIAL PRIMARY KEY, "
                        "payload TEXT)")
        self.pg.commit()
        self.what = "raw psycopg commits"

    def commit(self, n: int) -> None:
        for _ in range(n):
            self.i += 1
            if hasattr(self, "sqlite"):
                self.sqlite.execute("BEGIN IMMEDIATE")
                self.sqlite.execute("INSERT INTO bench_row (payload) VALUES (?)",
                                    (f"row {self.i}",))
                self.sqlite.execute("COMMIT")
            else:
                self.pg.execute("INSERT INTO bench_row (payload) VALUES (%s)",
                                (f"row {self.i}",))
                self.pg.commit()

    def seconds(self, n: int) -> float:
        start = time.perf_counter()
        self.commit(n)
        return time.perf_counter() - start


class Floor:
    """The ledger's own statements, traced as the ledger sends them, run again by raw sqlite3
    on a copy of the file taken before them (SQLite only)."""

    def __init__(self, engine: sa.Engine, url: str) -> None:
        self.path = Path(url.removeprefix("sqlite:///"))
        self.statements: list[tuple[str, Any]] | None = None  # tracing while a list
        self.bound: tuple[str, Any] | None = None  # what a prepared statement is about to run
        event.listen(engine, "connect", self._connected)
        parameters = prepared._Compiled.parameters

        def bound(compiled: prepared._Compiled, values: Any) -> Any:
            params = parameters(compiled, values)
            self.bound = (compiled.sql, params)
            return params

        prepared._Compiled.parameters = bound  # type: ignore[method-assign]

    def _connected(self, dbapi: sqlite3.Connection, _record: object) -> None:
        dbapi.set_trace_callback(self._traced)

    def _traced(self, sql: str) -> None:
        """Each statement as sqlite3 runs it: a prepared one as the ledger bound it."""
        bound, self.bound = self.bound, None
        if self.statements is not None:
            self.statements.append(bound or (sql, ()))

    def start(self) -> None:
        """Copy the ledger's file as it is now, then trace what the ledger sends."""
        copy = self.path.with_name("floor.db")
        copy.unlink(missing_ok=True)
        with sqlite3.connect(self.path) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
        self.copy = copy
        self.statements = []

    def seconds(self) -> float:
        """Run what was traced since `start` on the copy, as the ledger's connections do."""
        statements, self.statements = self.statements or [], None
        db = sqlite3.connect(self.copy, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
        db.execute("PRAGMA foreign_keys=ON")
        start = time.perf_counter()
        for sql, params in statements:
            db.execute(sql, params).fetchall()
        took = time.perf_counter() - start
        db.close()
        return took


def series(app: Sudya, name: str, players: int) -> int:
    """A berserk series `name` with one tournament, its floor judge and `players` players."""
    app.handle(c.CreateSeries(name=name, rulebook="berserk"), OWNER)
    tid = int(app.handle(c.CreateTournament(series=name, name="T1", date=dt.date(2026, 3, 1),
                                            level="professional"), OWNER))
    app.handle(c.AddJudge(handle=JUDGE, role="floor-judge"), OWNER, tid)
    for i in range(players):
        app.handle(c.AddPlayer(handle=f"{name}-p{i}"), OWNER, tid)
    return tid


def record(app: Sudya, tid: int, name: str, players: int, n: int, rng: random.Random) -> None:
    """`n` rulings, each as the edges send one: the command, the judge, a key of its own."""
    for i in range(n):
        cmd = c.RecordInfraction(infraction=rng.choice(INFRACTIONS), judge=JUDGE,
                                 player=f"{name}-p{rng.randrange(players)}", round=1 + i % 9)
        app.handle(cmd, Actor(JUDGE), tid, key=uuid.uuid4().hex)


def record_seconds(app: Sudya, tid: int, name: str, players: int, n: int,
                   rng: random.Random) -> float:
    start = time.perf_counter()
    record(app, tid, name, players, n, rng)
    return time.perf_counter() - start


def wal_frames(path: Path, work: Any) -> int:
    """The WAL frames (pages) `work()` writes into the SQLite database at `path`: the WAL
    emptied before, its frames counted after."""
    db = sqlite3.connect(path, isolation_level=None, timeout=30)
    try:
        busy, _log, _done = db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        if busy:
            raise SystemExit(f"{path}: the WAL could not be emptied (a reader holds it)")
        work()
        busy, log, _done = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        return int(log)
    finally:
        db.close()


# ---------------------------------------------------------------------- instructions
CHILD_MODES = ("setup", "record", "raw")


def child(mode: str, folder: str, n: int) -> None:
    """Under valgrind: the same fresh series and warm-up, then `mode`'s work."""
    url = f"sqlite:///{Path(folder) / f'child-{mode}.db'}"
    engine = make_engine(url)
    upgrade(engine)
    app = Sudya(Ledger(engine))
    tid = series(app, "fresh", 50)
    raw = Baseline(url, f"baseline-{mode}.db")
    rng = random.Random(7)
    record(app, tid, "fresh", 50, 20, rng)
    raw.commit(20)
    if mode == "record":
        record(app, tid, "fresh", 50, n, rng)
    elif mode == "raw":
        raw.commit(n)
    engine.dispose()


def instructions(n: int) -> tuple[float, float]:
    """Instructions per ruling and per raw commit (cachegrind, three children at once)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        runs = {}
        for mode in CHILD_MODES:
            out = Path(tmp) / f"cachegrind.{mode}"
            runs[mode] = (out, subprocess.Popen(
                ["valgrind", "--tool=cachegrind", "--cache-sim=no",
                 f"--cachegrind-out-file={out}", sys.executable, __file__, "--child", mode,
                 tmp, str(n)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                text=True))
        counts = {}
        for mode, (out, proc) in runs.items():
            _stdout, stderr = proc.communicate()
            if proc.returncode != 0:
                raise SystemExit(f"bench/record.py --child {mode} under valgrind failed:\n"
                                 f"{stderr[-3000:]}")
            summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
            assert summary is not None, stderr[-2000:]
            counts[mode] = int(summary.group(1))
    return ((counts["record"] - counts["setup"]) / n, (counts["raw"] - counts["setup"]) / n)


# ---------------------------------------------------------------------- the timed run
def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--history", type=int, default=3000)
    parser.add_argument("--n", type=int, default=300, help="timed rulings (and commits)")
    parser.add_argument("--wal", type=int, default=30, help="rulings for the WAL pages")
    parser.add_argument("--db", default=None)
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions per ruling too (valgrind)")
    parser.add_argument("--count", type=int, default=100,
                        help="rulings counted by valgrind with --instructions")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child[0], args.child[1], int(args.child[2]))
        return
    with tempfile.TemporaryDirectory() as tmp, database(args.db, Path(tmp), "record") as url:
        measure(url, args.history, args.n, args.wal,
                args.count if args.instructions else None)


def measure(url: str, history: int, n: int, wal: int, count: int | None) -> None:
    engine = make_engine(url)
    # before the first connection: each one is traced, and each prepared statement's values
    # kept for the trace (two calls a statement that do nothing else when not tracing: some
    # 3 µs of a ruling's 900, on the ledger's side of the ratio)
    sqlite = url.startswith("sqlite:///")
    floor = Floor(engine, url) if sqlite else None
    upgrade(engine)
    app = Sudya(Ledger(engine))
    rng = random.Random(7)
    raw = Baseline(url)
    fresh_tid = series(app, "fresh", PLAYERS)
    long_tid = series(app, "long", PLAYERS)
    record(app, long_tid, "long", PLAYERS, history, rng)
    # interleaved in rounds, so that a disk or a neighbour slowing down for a while weighs
    # on the baseline and the ledger alike
    took = {"raw": 0.0, "fresh": 0.0, "long": 0.0, "floor": 0.0}
    rounds = 10
    for r in range(rounds):
        k = n // rounds + (r < n % rounds)
        took["raw"] += raw.seconds(k)
        if floor is not None:
            floor.start()
        took["fresh"] += record_seconds(app, fresh_tid, "fresh", PLAYERS, k, rng)
        if floor is not None:
            took["floor"] += floor.seconds()
        took["long"] += record_seconds(app, long_tid, "long", PLAYERS, k, rng)
    commits, fresh, long = (n / took[k] for k in ("raw", "fresh", "long"))
    print(f"Record through Sudya.handle, {dt.date.today()}")
    print(f"{raw.what}: {commits:,.0f}/s; rulings: {fresh:,.0f}/s fresh, "
          f"{long:,.0f}/s after {history:,} events")
    print(f"rulings / raw commit rate = {fresh / commits:.2f}; "
          f"after a long history / fresh = {long / fresh:.2f}")
    pages = None
    if floor is not None:
        own = n / took["floor"]
        print(f"raw sqlite3 running the ledger's own statements: {own:,.0f} rulings/s "
              f"= {own / commits:.2f} x raw commits (the most the ledger could reach); "
              f"rulings / that = {fresh / own:.2f}")
        path = Path(url.removeprefix("sqlite:///"))
        pages = wal_frames(path, lambda: record(app, fresh_tid, "fresh", PLAYERS, wal,
                                                rng)) / wal
        raw_pages = wal_frames(raw.path, lambda: raw.commit(wal)) / wal
        print(f"WAL pages per ruling: {pages:.1f} (a raw one-row commit: {raw_pages:.1f}), "
              f"over {wal} of each")
    engine.dispose()
    per_ruling = None
    if count is not None:
        if not sqlite:
            print("instructions: counted on SQLite only (the children make their own files)")
        per_ruling, per_commit = instructions(count)
        print(f"instructions per ruling (valgrind, {count} after 20 uncounted, a fresh series "
              f"of 50 players): {per_ruling:,.0f}; per raw one-row commit {per_commit:,.0f} "
              f"(= {per_ruling / per_commit:.1f}x)")
    wal_text = f"{pages:.1f} WAL pages" if pages is not None else "— WAL pages (SQLite only)"
    ins_text = (f"{per_ruling / 1000:,.0f} k instructions" if per_ruling is not None
                else "— instructions (--instructions)")
    print(f"RECORD: {fresh / commits:.2f} x raw commits; {wal_text}; {ins_text} per ruling "
          f"(goal 0.6; 4; 600 k)")


if __name__ == "__main__":
    main()
