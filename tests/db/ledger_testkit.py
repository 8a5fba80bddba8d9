"""Plain helpers for the ledger tests: a standard tournament, a snapshot of every row, the
scenario that replays the stored events, and the worker multiprocessing starts.

Kept out of conftest.py so that the worker is importable in a freshly spawned interpreter.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import Actor, Ledger

DAY = dt.date(2026, 3, 1)
SLOW = "gameplay.slow-play"


def setup_berserk(ledger: Ledger, *, name: str = "Berserk Cup",
                  players: tuple[str, ...] = ("alice", "bob", "carol"),
                  actor: Actor | None = None) -> tuple[int, int]:
    """A berserk series with one professional tournament, players and two judges."""
    sid = ledger.create_series(name=name, rulebook="berserk", actor=actor)
    tid = ledger.create_tournament(series=sid, name="Day 1", date=DAY, level="professional",
                                   settings={"decklists": True}, actor=actor)
    for player in players:
        ledger.add_player(tournament=tid, handle=player, actor=actor)
    ledger.add_judge(tournament=tid, handle="anna", role="head-judge", official=True,
                     actor=actor)
    ledger.add_judge(tournament=tid, handle="oleg", role="floor-judge", actor=actor)
    return sid, tid


def snapshot(engine: sa.Engine) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table in the database (reflected, so nothing is left out)."""
    meta = sa.MetaData()
    meta.reflect(bind=engine)
    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for table in meta.sorted_tables:
            rows = [tuple(r) for r in conn.execute(select(table))]
            out[table.name] = sorted(rows, key=repr)
    return out


def counts(engine: sa.Engine) -> dict[str, int]:
    return {name: len(rows) for name, rows in snapshot(engine).items()}


def events(engine: sa.Engine, series_id: int) -> list[m.Event]:
    with Session(engine) as s:
        return list(s.scalars(select(m.Event).where(m.Event.series_id == series_id)
                              .order_by(m.Event.seq)))


def scenario_of(engine: sa.Engine, series_id: int) -> dict[str, Any]:
    """The scenario that replays the stored events of a series one after the other."""
    with Session(engine) as s:
        series = s.get(m.Series, series_id)
        assert series is not None
        stored = list(s.scalars(select(m.Event).where(m.Event.series_id == series_id)
                                .order_by(m.Event.seq)))
    first = stored[0]
    assert first.kind == "tournament"
    p0 = first.payload
    sc: dict[str, Any] = {"rulebook": series.rulebook, "edition": p0["edition"],
                          "date": p0["date"], "players": [], "teams": {}, "judges": {},
                          "events": []}
    if p0["level"] is not None:
        sc["level"] = p0["level"]
    if p0["settings"]:
        sc["settings"] = p0["settings"]

    def clean(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if v is not None and v != {}}

    for ev in stored[1:]:
        p = ev.payload
        if ev.kind == "roster":
            assert not sc["events"], "roster changes after the first event: not a scenario"
            sc["players"] += [x for x in p["players"] if x not in sc["players"]]
            # add_player(team=...) stores the new member twice in its roster event (the
            # engine only reads team_of, so rulings do not change); a scenario lists each once
            sc["teams"].update({t: list(dict.fromkeys(ms)) for t, ms in p["teams"].items()})
            sc["judges"].update({h: dict(j) for h, j in p["judges"].items()})
        elif ev.kind == "infraction":
            sc["events"].append({"id": ev.ext_id, **clean(p)})
        elif ev.kind == "end-of-match":
            sc["events"].append({"id": ev.ext_id, "end-of-match": clean(p)})
        elif ev.kind in ("appeal", "decision"):
            sc["events"].append({"id": ev.ext_id, ev.kind: clean(p)})
        elif ev.kind == "result":
            sc["events"].append({"id": ev.ext_id, "result": {
                "round": p["round"], "players": p["players"],
                "score": f"{p['score'][0]}-{p['score'][1]}"}})
        elif ev.kind == "tournament":
            sc["events"].append({"id": ev.ext_id, "tournament": clean(
                {"date": p["date"], "level": p["level"], "settings": p["settings"]})})
        else:
            raise AssertionError(f"no scenario form for a {ev.kind!r} event")
    return sc


def cached_json(ledger: Ledger, series_id: int) -> dict[str, Any]:
    """The replay output of the engine this Ledger keeps in memory for a series."""
    from sudya.app.scenario import result_json

    state = ledger._states[series_id]
    e = state.engine
    return result_json(e.book, e.roster, e.rulings, e.results)


def race(calls: list[Callable[[], Any]], timeout: float = 60) -> list[Any]:
    """Run the calls in real threads released together by a barrier; their results."""
    barrier = threading.Barrier(len(calls))
    results: list[Any] = [None] * len(calls)
    errors: list[str] = []

    def run(i: int, call: Callable[[], Any]) -> None:
        try:
            barrier.wait(timeout=timeout)
            results[i] = call()
        except BaseException:
            errors.append(traceback.format_exc())

    threads = [threading.Thread(target=run, args=(i, c)) for i, c in enumerate(calls)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert errors == [], errors
    return results


def record_in_process(url: str, tournament: int, barrier: Any, queue: Any,
                      calls: list[dict[str, Any]]) -> None:
    """A separate process: its own engine and Ledger (cache warmed first), then the calls."""
    try:
        from sudya.adapters.db.session import make_engine
        from sudya.app.scenario import ruling_json

        engine = make_engine(url)
        ledger = Ledger(engine)
        ledger.preview(tournament=tournament, infraction=SLOW, player="bob")  # warm cache
        barrier.wait(timeout=60)
        out = []
        for call in calls:
            rulings = ledger.record(tournament=tournament, **call)
            out.append([ruling_json(r, True) for r in rulings])
        engine.dispose()
        queue.put(("ok", out))
    except BaseException:
        queue.put(("error", traceback.format_exc()))


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str


# Compiled modules for the subprocesses, kept outside the checkout: without them every
# `python -m sudya` compiles its imports again (a second each when PYTHONDONTWRITEBYTECODE
# is set).
PYCACHE = Path(tempfile.gettempdir()) / f"sudya-tests-pycache-{os.getuid()}"


def cli_env() -> dict[str, str]:
    """The environment without any SUDYA_* variable, tables wide, no colour."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SUDYA_") and k not in ("FORCE_COLOR", "COLUMNS", "LINES",
                                                       "PYTHONDONTWRITEBYTECODE")}
    env.update({"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8",
                "PYTHONPYCACHEPREFIX": str(PYCACHE)})
    return env


def run_cli(*args: Any, cwd: Path) -> Run:
    """`python -m sudya ARGS` in a subprocess."""
    proc = subprocess.run([sys.executable, "-m", "sudya", *[str(a) for a in args]],
                          cwd=cwd, env=cli_env(), capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr)


def record_in_threads(url: str, tournament: int, barrier: Any, queue: Any,
                      plans: list[list[dict[str, Any]]]) -> None:
    """A separate process with one thread per plan, all released with the other processes:
    its own engine and Ledger (cache warmed first); puts ("ok", answers per thread)."""
    try:
        from sudya.adapters.db.session import make_engine
        from sudya.app.scenario import ruling_json

        engine = make_engine(url)
        ledger = Ledger(engine)
        ledger.preview(tournament=tournament, infraction=SLOW, player="bob")  # warm cache
        barrier.wait(timeout=60)

        def judge(plan: list[dict[str, Any]]) -> list[list[Any]]:
            return [[ruling_json(r, True) for r in ledger.record(tournament=tournament, **call)]
                    for call in plan]

        answers = race([lambda p=plan: judge(p) for plan in plans], timeout=120)
        engine.dispose()
        queue.put(("ok", answers))
    except BaseException:
        queue.put(("error", traceback.format_exc()))
