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

    python bench/instructions.py [--events 300000] [--books berserk,clan-championship,team-wargame]
"""

from __future__ import annotations

import argparse
import gc
import pickle
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from replay import SEASONS, admissible

from sudya.bulk import paused_gc
from sudya.engine.core import RulesEngine
from sudya.errors import RuleError

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


def counted(book_id: str, path: Path, mode: str, tmp: Path) -> tuple[int, int]:
    """(instructions, rulings) of one child under cachegrind."""
    out = tmp / f"cachegrind.{book_id}.{mode}"
    run = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", f"--cachegrind-out-file={out}",
         sys.executable, __file__, "--child", book_id, str(path), mode],
        check=True, capture_output=True, text=True)
    summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.MULTILINE)
    assert summary is not None, run.stderr[-2000:]
    return int(summary.group(1)), int(run.stdout.strip() or 0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=300_000)
    parser.add_argument("--books", default=",".join(SEASONS))
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    worst = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for book_id in args.books.split(","):
            events, _ = admissible(SEASONS[book_id](20261130), args.events)
            path = Path(tmp) / f"{book_id}.pickle"
            path.write_bytes(pickle.dumps(events, protocol=pickle.HIGHEST_PROTOCOL))
            del events
            ir = {mode: counted(book_id, path, mode, Path(tmp)) for mode in MODES}
            load = ir["load"][0]
            making = ir["reset-twice"][0] - ir["reset"][0]
            full, full_made = ir["full"][0] - load, ir["full"][1]
            reset, reset_made = ir["reset"][0] - load - making, ir["reset"][1]
            n = args.events
            per_ruling = (full / full_made) / (reset / reset_made)
            worst = max(worst, per_ruling)
            print(f"{book_id}: {n:,} events; instructions per event: full history "
                  f"{full / n:,.0f}, reset every {WINDOW:,} {reset / n:,.0f} "
                  f"(= {full / reset:.3f}×); rulings {full_made:,} and {reset_made:,}; "
                  f"per ruling {full / full_made:,.0f} and {reset / reset_made:,.0f} "
                  f"(= {per_ruling:.3f}×); the {n // WINDOW} new engines' making, "
                  f"left out: {making / n:,.0f} per event", flush=True)
    print(f"replay-instructions-per-ruling-full-over-reset: {worst:.3f} (goal 1.1)")


if __name__ == "__main__":
    main()
