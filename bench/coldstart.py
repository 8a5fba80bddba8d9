"""Cold start: the first ruling recorded on a long series after a restart, as a ratio to a
warm one in the same run.

Builds a berserk series of `--events` events in a SQLite file (or a new PostgreSQL database
with `--db`) through the service layer: tournaments of 2,000 players, a tournament a week,
infractions recorded in batches; then stores the engine's snapshot, as a server does when it
shuts down (services.snapshots). Then, in a fresh process each (a restart: no engine in
memory), records one infraction through `Sudya.handle` (the write path the edges call) and
times it: once starting from the snapshot, once with snapshots off (every event replayed);
then records more in the same process (warm: the engine is cached). Prints both (with the
CPU time the restarted process spent on the first record, steadier than the seconds on a
machine other work shares), the ratio of each to a warm record, and a last line
`COLDSTART: X s (goal 2 s)` (from the snapshot).

A restarted server also finds the rulebooks it loaded before in the compiled rulebook cache
(rulebooks.loader.cache_dir); the first process of a run writes it if it is not there yet, so
the restart from the snapshot always reads it. `SUDYA_RULEBOOK_CACHE=off` measures without.

    python bench/coldstart.py [--events 100000] [--db postgresql+psycopg://…/postgres]
                              [--keep FILE]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from throwaway import database

INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]
PLAYERS = 2000
PER_TOURNAMENT = 10_000  # infractions of one tournament (plus its 2,000 entries)
START = dt.date(2026, 1, 10)
KEY = b"bench-coldstart-key-0123456789ab"  # signs the snapshot (a server's: Settings)


def build(url: str, events: int) -> int:
    """A berserk series of about `events` events; returns its last tournament's id."""
    from sudya.adapters.db.migrate import upgrade
    from sudya.adapters.db.session import make_engine
    from sudya.app.ledger import Actor, Ledger
    from sudya.domain.commands import RecordInfraction

    engine = make_engine(url)
    upgrade(engine)
    ledger = Ledger(engine, snapshot_key=KEY)
    actor = Actor("bench")
    series = ledger.create_series(name="season", rulebook="berserk", actor=actor)
    rng = random.Random(7)
    players = [f"p{i:04}" for i in range(PLAYERS)]
    stored, week, tid = 0, 0, 0
    while stored < events:
        tid = ledger.create_tournament(series=series, name=f"Этап {week + 1}",
                                       date=START + dt.timedelta(days=7 * week),
                                       level="professional", actor=actor)
        with ledger.writing(tournament=tid) as s:
            for handle in players:
                ledger.add_player(tournament=tid, handle=handle, actor=actor, session=s)
        stored += PLAYERS + 1
        left = min(PER_TOURNAMENT, max(0, events - stored))
        for start in range(0, left, 2000):  # batches of 2,000 (one transaction each)
            with ledger.writing(tournament=tid) as s:
                for i in range(start, min(left, start + 2000)):
                    cmd = RecordInfraction(infraction=rng.choice(INFRACTIONS),
                                           player=rng.choice(players), round=1 + i % 9)
                    ledger.execute(tid, cmd, actor=actor, session=s)
        stored += left
        week += 1
        print(f"  built {stored:,} events", file=sys.stderr, flush=True)
    ledger.save_snapshots()  # as the server does when it stops
    engine.dispose()
    return tid


def first_records(url: str, tid: int, warm: int, snapshots: bool) -> dict[str, float]:
    """In this (fresh) process: the first record's time, then the mean of `warm` more."""
    from sudya.adapters.db.session import make_engine
    from sudya.app.core import Actor, Sudya
    from sudya.app.ledger import Ledger
    from sudya.domain.commands import RecordInfraction

    ledger = Ledger(make_engine(url), snapshot_key=KEY if snapshots else None)
    app = Sudya(ledger)  # the application's write path, as the edges call it
    actor = Actor("bench", owner=True)
    start, cpu = time.perf_counter(), time.process_time()
    app.handle(RecordInfraction(infraction="procedure.minor", player="p0001", round=9),
               actor, tid)
    cold, cpu = time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    for i in range(warm):
        app.handle(RecordInfraction(infraction="procedure.minor", player=f"p{i + 2:04}",
                                    round=9), actor, tid)
    return {"cold": cold, "cpu": cpu, "warm": (time.perf_counter() - start) / warm,
            "replayed": ledger.projection.last_replayed}


def kept(path: Path, workdir: Path, events: int) -> int:
    """The series built once into `path` (and its tournament id beside it), copied to
    `workdir` for this run (a run adds events and a snapshot)."""
    marker = path.with_suffix(".tid")
    if not (path.exists() and marker.exists()
            and marker.read_text().split()[1:] == [str(events)]):
        path.unlink(missing_ok=True)
        tid = build(f"sqlite:///{path}", events)
        marker.write_text(f"{tid} {events}")
    shutil.copy(path, workdir / "season.db")
    tid = int(marker.read_text().split()[0])
    # a snapshot made by another version of the code is not used: make this version's
    from sudya.adapters.db.session import make_engine
    from sudya.app.ledger import Ledger

    engine = make_engine(f"sqlite:///{workdir / 'season.db'}")
    ledger = Ledger(engine, snapshot_key=KEY)
    with ledger.writing(tournament=tid):
        pass  # builds the series' engine (from its snapshot if that is this version's)
    ledger.save_snapshots()
    engine.dispose()
    return tid


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--warm", type=int, default=50, help="warm records after the first")
    parser.add_argument("--db", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument("--keep", type=Path, default=None,
                        help="SQLite: build into this file once and reuse it on later runs")
    parser.add_argument("--measure", nargs=3, metavar=("URL", "TID", "SNAPSHOTS"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # the restarted process
        url, tid, snaps = args.measure
        print(json.dumps(first_records(url, int(tid), args.warm, snaps == "on")))
        return
    with tempfile.TemporaryDirectory() as tmp, database(args.db, Path(tmp), "cold") as url:
        start = time.perf_counter()
        if args.keep is not None and args.db is None:
            tid = kept(args.keep, Path(tmp), args.events)
            url = f"sqlite:///{Path(tmp) / 'season.db'}"
        else:
            tid = build(url, args.events)
        built = time.perf_counter() - start
        runs = {}
        for snaps in ("off", "on"):  # off first: the snapshot is then as the build left it
            out = subprocess.run([sys.executable, __file__, "--warm", str(args.warm),
                                  "--measure", url, str(tid), snaps], check=True,
                                 capture_output=True, text=True).stdout
            runs[snaps] = json.loads(out.splitlines()[-1])
    kind = "PostgreSQL" if args.db else "SQLite"
    print(f"Cold start, berserk, {args.events:,} events, {kind} (built in {built:.0f} s), "
          f"{dt.date.today()}")
    for snaps, what in (("off", "every event replayed"), ("on", "from the snapshot")):
        t = runs[snaps]
        print(f"  first record after a restart, {what}: {t['cold']:.2f} s, CPU {t['cpu']:.2f} s "
              f"({t['replayed']:,} events replayed; {t['cold'] / t['warm']:.0f} × a warm "
              f"record, {t['warm'] * 1000:.1f} ms)")
    print(f"COLDSTART: {runs['on']['cold']:.2f} s (goal 2 s)")


if __name__ == "__main__":
    main()
