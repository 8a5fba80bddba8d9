"""`sudya replay` end to end against the engine alone, as a ratio measured in one run.

A season of each rulebook (bench/replay.py's, without corrections: a scenario file has none)
is written as a scenario JSON file; the engine alone replays the prepared events
(`sudya.app.scenario.Replay.run`), then `sudya replay FILE > /dev/null` runs in a fresh process:
reading and checking the file, deciding every event through the one decoder, the replay, and
the JSON output. Goal: end to end at most 2× the engine's time.

The command runs as an installed one does, from compiled bytecode: a development shell that
sets PYTHONDONTWRITEBYTECODE (and a venv installed without .pyc files) makes every start
compile each module it imports from source, 0.6-0.8 s of a season's replay here that no
installed sudya pays (pip compiles at install; otherwise Python caches on the first run). So
the bytecode goes to a cache of its own (PYTHONPYCACHEPREFIX, nothing written beside the
sources) and a tiny scenario of the same rulebook runs first. `--compile` keeps the
environment as it is: every module compiled at each start, as before.

On a shared machine the wall-clock ratio moves with others' load between the two runs; the
CPU-time ratio (the engine's process time; the command's user + system time) moves far less,
and is printed beside it. Each side is run three times, alternately, and its best run is
compared (as timeit does: the slower runs measure the machine's other work, not the code; the
same berserk replay's user time read 2.14 to 2.37 s in four runs a minute apart).

    python bench/cli_replay.py [--events 100000] [--books berserk,clan-championship,team-wargame]
                               [--compile]
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import orjson
from replay import SEASONS, admissible

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import Replay
from sudya.domain.engine.model import (
    Appeal,
    Decision,
    EndOfMatch,
    Event,
    NewTournament,
    Offence,
    Result,
    RosterChange,
)

RUNS = 3  # each side's best of this many (a run moves by a tenth either way on a busy machine)


def scenario_event(ev: Event, teams: set[str]) -> dict[str, Any]:
    """One engine event as a scenario file writes it (../shared/spec/scenarios.md)."""
    if isinstance(ev, Offence):
        out: dict[str, Any] = {"id": ev.id, "infraction": ev.infraction,
                               "team" if ev.offender in teams else "player": ev.offender}
        if ev.round is not None:
            out["round"] = ev.round
        if ev.details:
            out["details"] = ev.details
        if ev.choice is not None:
            out["choice"] = ev.choice
        return out
    if isinstance(ev, EndOfMatch):
        body: dict[str, Any] = {"round": ev.round}
        if ev.players is not None:
            body["players"] = list(ev.players)
        return {"id": ev.id, "end-of-match": body}
    if isinstance(ev, NewTournament):
        return {"id": ev.id, "tournament": {"date": ev.date.isoformat()}}
    if isinstance(ev, Result):
        return {"id": ev.id, "result": {"round": ev.round, "players": list(ev.players),
                                        "score": f"{ev.score[0]}-{ev.score[1]}"}}
    if isinstance(ev, Appeal):
        return {"id": ev.id, "appeal": {"of": ev.of, "outcome": ev.outcome}}
    if isinstance(ev, Decision):
        return {"id": ev.id, "decision": {"of": ev.of, "sanctions": ev.sanctions}}
    if isinstance(ev, RosterChange):
        return {"id": ev.id, "roster": {"players": list(ev.players), "teams": ev.teams}}
    raise TypeError(type(ev).__name__)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--books", default=",".join(SEASONS))
    parser.add_argument("--compile", action="store_true",
                        help="no bytecode cache: each module compiled at every start")
    args = parser.parse_args()
    sudya = Path(sys.executable).with_name("sudya")
    worst = 0.0
    for book_id in args.books.split(","):
        season = SEASONS[book_id](20261130)
        season.corrections = False
        events, _ = admissible(season, args.events)
        # people who join during the season are in the file's roster from the start (a
        # scenario's `roster` event adds people the engine knows, not the file's checks)
        roster, t0 = season.roster(), season.tournament()
        for ev in events:
            if isinstance(ev, RosterChange):
                roster.players += [p for p in ev.players if p not in roster.team_of]
                roster.teams.update(ev.teams)
        events = [ev for ev in events if not isinstance(ev, RosterChange)]
        scenario = {"rulebook": book_id, "date": t0.date.isoformat(), "players": roster.players,
                    "teams": roster.teams, "events": [scenario_event(e, set(roster.teams))
                                                      for e in events]}
        if t0.level is not None:
            scenario["level"] = t0.level
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / f"{book_id}.json"
            path.write_bytes(orjson.dumps(scenario))
            env = dict(os.environ)
            if not args.compile:
                env.pop("PYTHONDONTWRITEBYTECODE", None)
                env["PYTHONPYCACHEPREFIX"] = str(Path(tmp) / "pyc")
                tiny = Path(tmp) / "tiny.json"
                tiny.write_bytes(orjson.dumps({**scenario, "events": scenario["events"][:50]}))
                subprocess.run([str(sudya), "replay", str(tiny)], stdout=subprocess.DEVNULL,
                               check=True, env=env)
            size = path.stat().st_size
            prepared = Replay(load_scenario_file(path))
            engine = engine_cpu = whole = whole_cpu = float("inf")
            for _ in range(RUNS):  # alternately, so a slow minute weighs on both alike
                start, cpu = time.perf_counter(), time.process_time()
                prepared.run()
                engine = min(engine, time.perf_counter() - start)
                engine_cpu = min(engine_cpu, time.process_time() - cpu)
                gc.collect()  # the last run's rulings, before the command runs beside them
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.perf_counter()
                with open(os.devnull, "wb") as sink:
                    subprocess.run([str(sudya), "replay", str(path)], stdout=sink, check=True,
                                   env=env)
                whole = min(whole, time.perf_counter() - start)
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                whole_cpu = min(whole_cpu, (after.ru_utime - before.ru_utime)
                                + (after.ru_stime - before.ru_stime))
            del prepared
        worst = max(worst, whole / engine)
        print(f"{book_id}: {len(events):,} events ({size / 1e6:.1f} MB of JSON): engine "
              f"{engine:.2f} s, sudya replay end to end {whole:.2f} s = "
              f"{whole / engine:.2f}× the engine (CPU: {engine_cpu:.2f} s, {whole_cpu:.2f} s = "
              f"{whole_cpu / engine_cpu:.2f}×)", flush=True)
    print(f"cli-replay-over-engine: {worst:.2f} (goal 2.0)")


if __name__ == "__main__":
    main()
