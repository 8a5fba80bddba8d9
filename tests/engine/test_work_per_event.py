"""The engine's work per event does not grow with the history (issue 16: a federation's season).

Work is counted, not timed: the lines of the engine's own code (sudya/domain/engine, and the
rulebook objects it calls) executed for a window of events, traced with sys.settrace — a
loop over a list counts a line per item, so a walk over a subject's or a team's history
shows. The same season is measured after a short history and after one ten times longer;
a small roster and many corrections make each subject's and team's history long, so any
walk over it (what a subject holds after a revocation, a team's accumulation, repeats,
pools) would at least double the count. Deterministic: a seeded season, no clock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import sys
from collections.abc import Iterator
from types import FrameType
from typing import Any

import pytest

from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import (
    Appeal,
    Correction,
    EndOfMatch,
    Event,
    NewTournament,
    Offence,
    Result,
    Roster,
    Tournament,
)
from sudya.domain.errors import RuleError
from sudya.domain.rulebook import loader

START = dt.date(2026, 1, 10)
WINDOW = 400
SHORT, LONG = 400, 4000

KINDS = {
    "berserk": None,  # every infraction without details
    # warnings, their repeats and aggravations (a fighter disqualified for the series would
    # leave nothing to measure)
    "clan-championship": ["fight.unauthorised-start", "interference",
                          "outside-entry"],
    "team-wargame": ["disruptive-behaviour", "petty-cheating", "third-party-help",
                     "time-wasting"],
}


def season(book_id: str) -> tuple[Roster, Tournament, Iterator[Event]]:
    book = loader.load(book_id)
    rng = random.Random(16)
    players = [f"p{i}" for i in range(24)]
    # teams in the wargame (its cards convert per team); the clans' would soon be disqualified
    # for the series by accumulation (§4 E7), leaving nothing to measure
    teams = {f"team{i}": players[i * 4:(i + 1) * 4] for i in range(6)} \
        if book_id == "team-wargame" else {}
    kinds = KINDS[book_id] or [
        i.id for i in book.infractions
        if not i.id.startswith(("deck.", "conduct.severe", "cheating", "conduct.random"))
        and not i.details]
    level = book.level_ids()[-1] if book.levels else None

    def events() -> Iterator[Event]:
        day = START
        recent: list[str] = []
        for k in range(1, 10**9):
            if k % 200 == 0:
                day += dt.timedelta(days=7)
                yield NewTournament(id=f"t{k}", date=day)
            elif k % 10 == 0 and recent:
                yield Correction(id=f"c{k}", of=rng.choice(recent[-50:]))
            elif k % 10 == 5:
                yield EndOfMatch(id=f"m{k}", round=k % 5)
            elif k % 10 == 7:
                a, b = rng.sample(players, 2)
                yield Result(id=f"r{k}", players=(a, b), score=(1, 0), round=k % 5)
            else:
                recent.append(f"e{k}")
                yield Offence(id=f"e{k}", infraction=rng.choice(kinds),
                              offender=rng.choice(players), round=k % 5)

    return Roster(players=players, teams=teams), Tournament(0, START, level, {}), events()


def lines_per_event(book_id: str, history: int, window: list[Event] | None = None) -> float:
    """Engine lines executed per event over WINDOW events after `history` events (or over
    the events of `window`)."""
    roster, t0, stream = season(book_id)
    engine = RulesEngine(loader.load(book_id), roster, t0)
    events = iter(stream)
    for _ in range(history):
        apply(engine, next(events))
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        name = frame.f_code.co_filename
        return local if "sudya/domain/engine" in name or "sudya/domain/rulebook" in name else None

    if window is None:
        window = [next(events) for _ in range(WINDOW)]
    sys.settrace(calls)
    try:
        for ev in window:
            apply(engine, ev)
    finally:
        sys.settrace(None)
    return count / len(window)


def apply(engine: RulesEngine, ev: Event) -> None:
    # a disqualified subject's report, a correction of a corrected event: refused
    with contextlib.suppress(RuleError):
        engine.apply(ev)


@pytest.mark.parametrize("book_id", list(KINDS))
def test_work_per_event_does_not_grow_with_the_history(book_id: str) -> None:
    short = lines_per_event(book_id, SHORT)
    long = lines_per_event(book_id, LONG)
    assert long <= 1.25 * short, (
        f"{book_id}: {long:.0f} engine lines per event after {LONG:,} events, "
        f"{short:.0f} after {SHORT:,}: something walks the history")


@pytest.mark.parametrize("book_id", list(KINDS))
def test_refusing_an_appeal_does_not_grow_with_the_history(book_id: str) -> None:
    """An appeal of an event that made no ruling (a refused report, a mistyped id) is
    refused; telling whether that event was itself an appeal (then «final») must not walk
    the season's rulings."""
    appeals: list[Event] = [Appeal(id=f"a{k}", of=f"nothing{k}", outcome="upheld")
                            for k in range(50)]
    short = lines_per_event(book_id, SHORT, appeals)
    long = lines_per_event(book_id, LONG, appeals)
    assert long <= 1.25 * short, (
        f"{book_id}: {long:.0f} engine lines per refused appeal after {LONG:,} events, "
        f"{short:.0f} after {SHORT:,}: something walks the history")
