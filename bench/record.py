"""Recording rate through the ledger, as a ratio to raw database commits in the same run.

The baseline is what the database itself can do at the same durability: raw sqlite3 (no
SQLAlchemy) committing one small row per transaction into a file beside the ledger's, in WAL
with the ledger's `synchronous` setting (sudya.adapters.db.session.SQLITE_SYNCHRONOUS) and BEGIN
IMMEDIATE, as the ledger's writers do; on PostgreSQL, raw psycopg committing one row per
transaction. The ledger records one ruling per transaction through the service layer
(`Ledger.record`: the series' turn, the engine state cached, the event, its rulings and
sanctions inserted). It also compares the rate after a long history with the rate on a fresh
series (≈1 means the work per ruling does not grow with the history).

On SQLite it also measures the database's own share of a ruling: every statement the ledger
sent for its rulings run again by raw sqlite3 on a copy of the file taken just before, at the
same durability: the ledger's prepared statements with the values it bound (so sqlite3 parses
each once, as it does for the ledger), the rest (BEGIN IMMEDIATE, COMMIT) as traced. A ruling
is a transaction of several rows and their index entries, not one small row: that replay is
the fastest the ledger could go with no Python at all, and shows how much of the gap to
one-row commits is the database's work.

    python bench/record.py [--history 3000] [--n 300] [--db URL]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import sqlite3
import tempfile
import time
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event
from throwaway import database

from sudya.adapters.db import prepared
from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import SQLITE_SYNCHRONOUS, make_engine, normalise_url
from sudya.app.ledger import Actor, Ledger

INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]


class Baseline:
    """Raw commits, one small row each, at the ledger's durability."""

    def __init__(self, url: str) -> None:
        self.i = 0
        if url.startswith("sqlite:///"):
            path = Path(url.removeprefix("sqlite:///")).with_name("baseline.db")
            self.sqlite = sqlite3.connect(path, isolation_level=None)
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

    def seconds(self, n: int) -> float:
        start = time.perf_counter()
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


def series(ledger: Ledger, name: str, players: int) -> int:
    actor = Actor("bench")
    ledger.create_series(name=name, rulebook="berserk", actor=actor)
    tid = ledger.create_tournament(series=name, name="T1", date=dt.date(2026, 3, 1),
                                   level="professional", actor=actor)
    for i in range(players):
        ledger.add_player(tournament=tid, handle=f"{name}-p{i}", actor=actor)
    return tid


def record_seconds(ledger: Ledger, tid: int, name: str, players: int, n: int,
                   rng: random.Random) -> float:
    actor = Actor("bench")
    start = time.perf_counter()
    for i in range(n):
        ledger.record(tournament=tid, infraction=rng.choice(INFRACTIONS),
                      player=f"{name}-p{rng.randrange(players)}", round=1 + i % 9,
                      actor=actor)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--history", type=int, default=3000)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, database(args.db, Path(tmp), "record") as url:
        measure(url, args.history, args.n)


def measure(url: str, history: int, n: int) -> None:
    engine = make_engine(url)
    # before the first connection: each one is traced, and each prepared statement's values
    # kept for the trace (two calls a statement that do nothing else when not tracing: some
    # 3 µs of a ruling's 900, on the ledger's side of the ratio)
    floor = Floor(engine, url) if url.startswith("sqlite:///") else None
    upgrade(engine)
    ledger = Ledger(engine)
    rng = random.Random(7)
    raw = Baseline(url)
    fresh_tid = series(ledger, "fresh", 200)
    long_tid = series(ledger, "long", 200)
    record_seconds(ledger, long_tid, "long", 200, history, rng)
    # interleaved in rounds, so that a disk or a neighbour slowing down for a while weighs
    # on the baseline and the ledger alike
    took = {"raw": 0.0, "fresh": 0.0, "long": 0.0, "floor": 0.0}
    rounds = 10
    for r in range(rounds):
        k = n // rounds + (r < n % rounds)
        took["raw"] += raw.seconds(k)
        if floor is not None:
            floor.start()
        took["fresh"] += record_seconds(ledger, fresh_tid, "fresh", 200, k, rng)
        if floor is not None:
            took["floor"] += floor.seconds()
        took["long"] += record_seconds(ledger, long_tid, "long", 200, k, rng)
    commits, fresh, long = (n / took[k] for k in ("raw", "fresh", "long"))
    print(f"{raw.what}: {commits:,.0f}/s; ledger rulings: {fresh:,.0f}/s fresh, "
          f"{long:,.0f}/s after {history:,} events")
    print(f"ledger / raw commit rate = {fresh / commits:.2f}; "
          f"after a long history / fresh = {long / fresh:.2f}")
    if floor is not None:
        own = n / took["floor"]
        print(f"raw sqlite3 running the ledger's own statements: {own:,.0f} rulings/s "
              f"= {own / commits:.2f} x raw commits (the most the ledger could reach); "
              f"ledger / that = {fresh / own:.2f}")
    print(f"RECORD: {fresh / commits:.2f} x raw commits (goal 0.5)")
    engine.dispose()


if __name__ == "__main__":
    main()
