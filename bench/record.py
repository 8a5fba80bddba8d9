"""Recording rate through the ledger, as a ratio to the database's own commit rate.

The baseline is the same SQLite file committing one small row per transaction (what the
database itself can do); the ledger records a ruling per transaction through the service
layer (serialised per series, engine state cached, event + rulings + sanctions inserted).
It also compares the rate after a long history with the rate on a fresh series (≈1 means
the work per ruling does not grow with the history).

    python bench/record.py [--history 3000] [--n 300] [--db URL]
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import tempfile
import time

import sqlalchemy as sa

from sudya.db.migrate import upgrade
from sudya.db.session import make_engine
from sudya.services.ledger import Actor, Ledger

INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]


def baseline(engine: sa.Engine, n: int) -> float:
    meta = sa.MetaData()
    table = sa.Table("bench_row", meta, sa.Column("id", sa.Integer, primary_key=True),
                     sa.Column("payload", sa.String(200)))
    meta.create_all(engine)
    start = time.perf_counter()
    for i in range(n):
        with engine.begin() as conn:
            conn.execute(table.insert().values(payload=f"row {i}"))
    return n / (time.perf_counter() - start)


def series(ledger: Ledger, name: str, players: int) -> int:
    actor = Actor("bench")
    ledger.create_series(name=name, rulebook="berserk", actor=actor)
    tid = ledger.create_tournament(series=name, name="T1", date=dt.date(2026, 3, 1),
                                   level="professional", actor=actor)
    for i in range(players):
        ledger.add_player(tournament=tid, handle=f"{name}-p{i}", actor=actor)
    return tid


def record_rate(ledger: Ledger, tid: int, name: str, players: int, n: int,
                rng: random.Random) -> float:
    actor = Actor("bench")
    start = time.perf_counter()
    for i in range(n):
        ledger.record(tournament=tid, infraction=rng.choice(INFRACTIONS),
                      player=f"{name}-p{rng.randrange(players)}", round=1 + i % 9,
                      actor=actor)
    return n / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--history", type=int, default=3000)
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--db", default=None)
    args = parser.parse_args()
    url = args.db or f"sqlite:///{tempfile.mkdtemp()}/bench.db"
    engine = make_engine(url)
    upgrade(engine)
    ledger = Ledger(engine)
    rng = random.Random(7)
    commits = baseline(engine, args.n)
    fresh_tid = series(ledger, "fresh", 200)
    fresh = record_rate(ledger, fresh_tid, "fresh", 200, args.n, rng)
    long_tid = series(ledger, "long", 200)
    record_rate(ledger, long_tid, "long", 200, args.history, rng)
    long = record_rate(ledger, long_tid, "long", 200, args.n, rng)
    print(f"database commits: {commits:,.0f}/s; ledger rulings: {fresh:,.0f}/s fresh, "
          f"{long:,.0f}/s after {args.history:,} events")
    print(f"ledger / commit rate = {fresh / commits:.2f}; "
          f"after a long history / fresh = {long / fresh:.2f}")


if __name__ == "__main__":
    main()
