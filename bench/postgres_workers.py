"""PostgreSQL: the recording rate of 4 worker processes, on 4 series and on one, as a ratio to one
worker in the same run.

Each worker is a process of its own with its own engine, pool and engine cache, as each of
`sudya serve --workers N`'s processes is, and records rulings through the service layer
(`Sudya.handle(RecordInfraction(…), judge, tournament, key=…)`, as bench/record.py) for
`--seconds`, all starting at the same moment. Three set-ups take turns, in `--rounds` rounds
(the order reversed every other round, so a slow minute of the machine weighs on all alike):
- one worker on one series: the baseline;
- 4 workers, each on a series of its own: nothing shared but the database server (goal: 3×
  the baseline's rate);
- 4 workers on the same series: each ruling waits for the series' turn and reads back what
  the other processes stored since its last (goal: no slower than one worker, 1×).

Without `--db` a throwaway PostgreSQL cluster is started by scripts/postgres.sh (Debian's
postgresql, installed if missing; fsync off, as for the tests) and stopped at the end; with
`--db` naming a server, a throwaway database is made there and dropped. The workers, the
server and this script share the machine's cores (printed).

    python bench/postgres_workers.py [--seconds 5] [--rounds 2] [--workers 4] [--db URL]
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import multiprocessing as mp
import os
import random
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from throwaway import database

ROOT = Path(__file__).resolve().parent.parent
INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]
JUDGE = "bench-judge"
PLAYERS = 100


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[tuple[str, str]]:
    """(the server's URL, what it is): the one named, or a throwaway cluster."""
    if url is not None:
        yield url, "the server named"
        return
    folder = tempfile.mkdtemp(prefix="sudya-bench-pg-")
    script = str(ROOT / "scripts" / "postgres.sh")
    try:
        started = subprocess.run([script, "start", folder], capture_output=True, text=True)
        if started.returncode != 0:
            raise SystemExit(f"scripts/postgres.sh start failed ({started.returncode}):\n"
                             f"{started.stderr[-3000:]}")
        yield started.stdout.strip().splitlines()[-1], "a throwaway cluster (fsync=off)"
    finally:
        subprocess.run([script, "stop", folder], check=False)
        subprocess.run(["rm", "-rf", folder], check=False)


def set_up(url: str, series: int) -> list[int]:
    """`series` berserk series of one tournament each, with a floor judge and players."""
    from sudya.adapters.db.migrate import upgrade
    from sudya.adapters.db.session import make_engine
    from sudya.app.core import Actor, Sudya
    from sudya.app.ledger import Ledger
    from sudya.domain import commands as c

    engine = make_engine(url)
    upgrade(engine)
    app = Sudya(Ledger(engine))
    owner = Actor("bench", owner=True)
    tids = []
    for k in range(series):
        name = f"w{k}"
        app.handle(c.CreateSeries(name=name, rulebook="berserk"), owner)
        tid = int(app.handle(c.CreateTournament(series=name, name="T1", date=dt.date(2026, 3, 1),
                                                level="professional"), owner))
        app.handle(c.AddJudge(handle=JUDGE, role="floor-judge"), owner, tid)
        for i in range(PLAYERS):
            app.handle(c.AddPlayer(handle=f"p{i}"), owner, tid)
        tids.append(tid)
    engine.dispose()
    return tids


def worker(index: int, url: str, tasks: Any, results: Any) -> None:
    """A worker process: for each task (tournament, start, seconds), a few rulings to warm
    up, then as many as it can from `start` for `seconds`; its count to `results`."""
    from sudya.adapters.db.session import make_engine
    from sudya.app.core import Actor, Sudya
    from sudya.app.ledger import Ledger
    from sudya.domain import commands as c

    app = Sudya(Ledger(make_engine(url)))
    rng = random.Random(index)

    def one(tid: int, i: int) -> None:
        cmd = c.RecordInfraction(infraction=rng.choice(INFRACTIONS), judge=JUDGE,
                                 player=f"p{rng.randrange(PLAYERS)}", round=1 + i % 9)
        app.handle(cmd, Actor(JUDGE), tid, key=uuid.uuid4().hex)

    while (task := tasks.get()) is not None:
        tid, start, seconds = task
        errors: list[str] = []
        for i in range(3):
            one(tid, i)
        time.sleep(max(0.0, start - time.time()))
        began = time.perf_counter()
        end = began + seconds
        done = 0
        while time.perf_counter() < end:
            try:
                one(tid, done)
                done += 1
            except Exception as exc:  # counted and shown, never hidden
                errors.append(f"{type(exc).__name__}: {exc}"[:200])
        results.put((index, done, time.perf_counter() - began, errors))


@dataclass
class Setup:
    name: str
    assign: list[int]  # a series for each busy worker
    rulings: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.rulings / self.seconds if self.seconds else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="each set-up, each round")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--db", default=None,
                        help="a PostgreSQL server (default: a throwaway cluster)")
    args = parser.parse_args()
    n = args.workers
    with postgres(args.db) as (server, what), \
            tempfile.TemporaryDirectory() as tmp, database(server, Path(tmp), "workers") as url:
        if not url.startswith("postgresql"):
            raise SystemExit("bench/postgres_workers.py is for PostgreSQL only")
        tids = set_up(url, n)
        setups = [Setup("1 worker, 1 series", [0]),
                  Setup(f"{n} workers, {n} series", list(range(n))),
                  Setup(f"{n} workers, 1 series", [0] * n)]
        ctx = mp.get_context("spawn")
        results = ctx.Queue()
        queues = [ctx.Queue() for _ in range(n)]
        procs = [ctx.Process(target=worker, args=(i, url, queues[i], results), daemon=True)
                 for i in range(n)]
        for p in procs:
            p.start()
        try:
            for r in range(args.rounds):
                for setup in setups if r % 2 == 0 else list(reversed(setups)):
                    start = time.time() + 3.0  # every worker warmed up by then
                    for i, series in enumerate(setup.assign):
                        queues[i].put((tids[series], start, args.seconds))
                    took = 0.0
                    for _ in setup.assign:
                        _i, done, seconds, errors = results.get(timeout=args.seconds + 300)
                        setup.rulings += done
                        took = max(took, seconds)
                        setup.errors += errors
                    setup.seconds += took
        finally:
            for q in queues:
                q.put(None)
            for p in procs:
                p.join(30)
                if p.is_alive():
                    p.terminate()
    one = setups[0].rate
    print(f"PostgreSQL, {what}: worker processes recording through Sudya.handle, "
          f"{args.rounds} × {args.seconds:g} s per set-up, {os.cpu_count()} cores, "
          f"{dt.date.today()}")
    print(f"{'set-up':<22} {'rulings/s':>9} {'per worker':>10} {'errors':>6} "
          f"{'x one worker':>12}")
    for s in setups:
        print(f"{s.name:<22} {s.rate:>9,.0f} {s.rate / len(s.assign):>10,.0f} "
              f"{len(s.errors):>6} {s.rate / one if one else float('nan'):>12.2f}")
        for error in sorted(set(s.errors))[:3]:
            print(f"  error: {error}")
    many, shared = (s.rate / one if one else float("nan") for s in setups[1:])
    print(f"PG-WORKERS: {many:.2f}x on {n} series, {shared:.2f}x on one series, "
          f"{n} workers over one (goal 3 and 1)")


if __name__ == "__main__":
    main()
