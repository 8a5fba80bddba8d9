"""Instructions per ruling of a season's replay, full history against history reset every 1,000
events: the work per ruling, counted by valgrind (deterministic: the same count on a busy
machine or a quiet one), where bench/replay.py times it.

bench/replay.py's «full history / history reset» is a ratio of seconds. A full history makes
more rulings (a team's accumulation and cards that convert count what is still valid across
the resets' boundaries), and its indexes are larger than the caches: both make it slower
without any walk over the history. This benchmark tells them apart. Each season (bench/
replay.py's) is made once and pickled; then four child processes run under
`valgrind --tool=cachegrind --cache-sim=no`: one only loads the events (the baseline every
other count is taken from), one replays them with the full history, one with a new engine
every 1,000 events, and one that makes every new engine twice, whose extra instructions are
the making of the engines (which bench/replay.py leaves out of its timing, and this one
subtracts). Printed per rulebook: instructions per event and per ruling of the two replays,
and their ratios. Needs valgrind (Debian's package `valgrind`); slow: a season of 300,000
events is some 40 minutes a rulebook on a 2-core machine.

`--misses` simulates the caches as well (`--cache-sim=yes`, about twice as slow): the data
reads and writes that miss a last-level cache of `--ll` (bytes, ways, line; by default 32 MiB,
16 ways, as this machine's L3), per ruling, in the same four runs. Where the instructions per
ruling are level and the misses are not, a full history is slower for where its data sits
(the larger indexes, two months of what is still valid), not for more work.

    python bench/instructions.py [--events 300000] [--books berserk,clan-championship,team-wargame]
                                 [--misses [--ll 33554432,16,64]]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import re
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from replay import SEASONS, admissible

from sudya.domain.bulk import paused_gc
from sudya.domain.engine.core import RulesEngine
from sudya.domain.errors import RuleError

WINDOW = 1000
MODES = ("load", "full", "reset", "reset-twice")


def child(book_id: str, path: str, mode: str) -> None:
    """Under valgrind: load the season's events, then replay them as `mode` says."""
    season = SEASONS[book_id](20261130)
    events = pickle.loads(Path(path).read_bytes())
    gc.collect()
    if mode == "load":
        return
    engine = RulesEngine(season.book, season.roster(), season.tournament())
    rulings = 0
    with paused_gc():
        for i, ev in enumerate(events):
            if mode != "full" and i % WINDOW == 0:
                rulings += len(engine.rulings)
                if mode == "reset-twice":
                    RulesEngine(season.book, engine.roster, engine.t)
                engine = RulesEngine(season.book, engine.roster, engine.t)
            try:
                engine.apply(ev)
            except RuleError:
                continue
    print(rulings + len(engine.rulings))


@dataclass(frozen=True)
class Counts:
    """One child's counts under cachegrind: instructions, last-level data misses (reads and
    writes; 0 without the cache simulation) and the rulings it made."""

    instructions: int
    misses: int
    rulings: int


def counted(book_id: str, path: Path, mode: str, tmp: Path, ll: str | None) -> Counts:
    """One child run under cachegrind, with the caches simulated if `ll` is given."""
    out = tmp / f"cachegrind.{book_id}.{mode}"
    sim = ["--cache-sim=yes", f"--LL={ll}"] if ll else ["--cache-sim=no"]
    run = subprocess.run(
        ["valgrind", "--tool=cachegrind", *sim, f"--cachegrind-out-file={out}",
         sys.executable, __file__, "--child", book_id, str(path), mode],
        check=True, capture_output=True, text=True)
    text = out.read_text()
    events = re.search(r"^events:\s+(.+)$", text, re.MULTILINE)
    summary = re.search(r"^summary:\s+(.+)$", text, re.MULTILINE)
    assert events is not None and summary is not None, run.stderr[-2000:]
    count = dict(zip(events.group(1).split(), map(int, summary.group(1).split()), strict=True))
    return Counts(count["Ir"], count.get("DLmr", 0) + count.get("DLmw", 0),
                  int(run.stdout.strip() or 0))


def making(runs: dict[str, Counts], what: str) -> int:
    """What making the new engines of the resets cost (their `what`)."""
    return getattr(runs["reset-twice"], what) - getattr(runs["reset"], what)


def replayed(runs: dict[str, Counts], what: str) -> tuple[int, int]:
    """The full history's and the resets' `what`, less loading the events and making the
    engines."""
    load = getattr(runs["load"], what)
    return (getattr(runs["full"], what) - load,
            getattr(runs["reset"], what) - load - making(runs, what))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--books", default=",".join(SEASONS))
    parser.add_argument("--misses", action="store_true",
                        help="simulate the caches too: last-level data misses per ruling")
    parser.add_argument("--ll", default="33554432,16,64",
                        help="the simulated last-level cache: bytes,ways,line")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    ll = args.ll if args.misses else None
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for book_id in args.books.split(","):
            events, _ = admissible(SEASONS[book_id](20261130), args.events)
            path = Path(tmp) / f"{book_id}.pickle"
            path.write_bytes(pickle.dumps(events, protocol=pickle.HIGHEST_PROTOCOL))
            del events
            runs = {mode: counted(book_id, path, mode, Path(tmp), ll) for mode in MODES}
            full, reset = replayed(runs, "instructions")
            full_made, reset_made = runs["full"].rulings, runs["reset"].rulings
            n = args.events
            per_ruling = (full / full_made) / (reset / reset_made)
            worst = max(worst, per_ruling)
            print(f"{book_id}: {n:,} events; instructions per event: full history "
                  f"{full / n:,.0f}, reset every {WINDOW:,} {reset / n:,.0f} "
                  f"(= {full / reset:.3f}×); rulings {full_made:,} and {reset_made:,}; "
                  f"per ruling {full / full_made:,.0f} and {reset / reset_made:,.0f} "
                  f"(= {per_ruling:.3f}×); the {n // WINDOW} new engines' making, "
                  f"left out: {making(runs, 'instructions') / n:,.0f} per event", flush=True)
            if ll:
                full_m, reset_m = replayed(runs, "misses")
                print(f"{book_id}: last-level data misses ({ll}) per ruling: full history "
                      f"{full_m / full_made:,.1f}, reset every {WINDOW:,} "
                      f"{reset_m / reset_made:,.1f} "
                      f"(= {(full_m / full_made) / (reset_m / reset_made):.3f}×)", flush=True)
    print(f"replay-instructions-per-ruling-full-over-reset: {worst:.3f} (goal 1.1)")


if __name__ == "__main__":
    main()
