"""Replay throughput for a federation's season, as ratios to a baseline in the same process.

Prints, for each rulebook, events per second over a long history and the ratio of the cost per
event with a long history to the cost per event with a short one (≈1.0 means the work per
event does not grow with the history), plus the ratio to a baseline: the same events with the
history thrown away every 1,000 events.

    python bench/replay.py [--events 100000]
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import random
import time
from collections.abc import Callable, Iterator

from sudya.bulk import paused_gc
from sudya.engine.core import RulesEngine
from sudya.engine.model import EndOfMatch, Event, NewTournament, Offence, Roster, Tournament
from sudya.errors import RuleError
from sudya.rulebooks import loader

START = dt.date(2026, 1, 10)


def berserk_season(rng: random.Random) -> tuple[Roster, Tournament, Iterator[Event]]:
    book = loader.load("berserk")
    players = [f"p{i}" for i in range(2000)]
    simple = [i.id for i in book.infractions
              if not i.id.startswith(("deck.", "conduct.severe", "cheating", "conduct.random"))
              and not i.details]

    def events() -> Iterator[Event]:
        day = START
        for k in itertools.count():
            if k and k % 2000 == 0:
                day += dt.timedelta(days=7)
                yield NewTournament(id=f"t{k}", date=day)
            elif k % 97 == 0:
                yield EndOfMatch(id=f"m{k}", round=k % 9)
            else:
                yield Offence(id=f"e{k}", infraction=rng.choice(simple),
                              offender=rng.choice(players), round=k % 9)

    return Roster(players=players), Tournament(0, START, "professional", {}), events()


def clan_season(rng: random.Random) -> tuple[Roster, Tournament, Iterator[Event]]:
    # a federation's season: 3,000 clans of 10; a clan disqualified by accumulation stays out
    # for the rest of the series (regulations.md §4 E7), so its later reports are refused
    players = [f"c{i}" for i in range(30_000)]
    teams = {f"clan{i}": players[i * 10:(i + 1) * 10] for i in range(3000)}
    kinds = ["elixirs.forbidden-combat", "interference", "fight.unauthorised-start",
             "invisibility", "hoops", "attack.undeclared-on-participant"]

    def events() -> Iterator[Event]:
        day = START
        for k in itertools.count():
            if k and k % 2000 == 0:
                day += dt.timedelta(days=7)
                yield NewTournament(id=f"t{k}", date=day)
                continue
            inf = rng.choice(kinds)
            details = ({"level": rng.randint(1, 20), "attacks": 1} if inf.startswith("attack")
                       else {})
            yield Offence(id=f"e{k}", infraction=inf, offender=rng.choice(players),
                          details=details)

    return Roster(players=players, teams=teams), Tournament(0, START, None, {}), events()


def run(book_id: str, roster: Roster, t0: Tournament, events: list[Event],
        window: int | None = None) -> float:
    """Seconds to rule on every event; with `window`, the history restarts every N events."""
    book = loader.load(book_id)
    engine = RulesEngine(book, roster, t0)
    start = time.perf_counter()
    with paused_gc():  # as sudya.replay and the ledger replay
        for i, ev in enumerate(events):
            if window and i % window == 0:
                engine = RulesEngine(book, roster, engine.t)
            try:
                engine.apply(ev)
            except RuleError:  # a short history disqualifies at other moments than the full
                continue
    return time.perf_counter() - start


def admissible(book_id: str, roster: Roster, t0: Tournament, events: Iterator[Event],
               n: int) -> tuple[list[Event], int]:
    """The first `n` events a ledger would have stored, and how many were refused: an event
    the engine refuses (an infraction of a fighter or clan disqualified for the rest of the
    series, regulations.md §4 E7) is never stored, so no history holds it. Untimed."""
    engine = RulesEngine(loader.load(book_id), roster, t0)
    kept: list[Event] = []
    refused = 0
    with paused_gc():
        for ev in events:
            if len(kept) == n:
                break
            try:
                engine.apply(ev)
            except RuleError:
                refused += 1
                continue
            kept.append(ev)
    return kept, refused


def chunks(events: list[Event], size: int) -> Iterator[list[Event]]:
    for i in range(0, len(events), size):
        yield events[i:i + size]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(20261130)
    seasons: dict[str, Callable[[random.Random], tuple[Roster, Tournament, Iterator[Event]]]]
    seasons = {"berserk": berserk_season, "clan-championship": clan_season}
    for book_id, make in seasons.items():
        roster, t0, stream = make(rng)
        events, refused = admissible(book_id, roster, t0, stream, args.events)
        baseline = run(book_id, roster, t0, events, window=1000)
        full = run(book_id, roster, t0, events)
        per_event = full / len(events) * 1e6
        print(f"{book_id}: {len(events)} events in {full:.2f} s "
              f"({len(events) / full:,.0f} events/s, {per_event:.1f} µs/event); "
              f"full history / history reset every 1,000 events = {full / baseline:.2f}"
              f" ({refused:,} reports refused while the season was made)")


if __name__ == "__main__":
    main()
