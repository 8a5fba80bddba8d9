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
import random
import time
from collections.abc import Callable, Iterator

from sudya.bulk import paused_gc
from sudya.engine.core import RulesEngine
from sudya.engine.model import EndOfMatch, Event, NewTournament, Offence, Roster, Tournament
from sudya.rulebooks import loader

START = dt.date(2026, 1, 10)


def berserk_season(n: int, rng: random.Random) -> tuple[Roster, Tournament, list[Event]]:
    book = loader.load("berserk")
    players = [f"p{i}" for i in range(2000)]
    simple = [i.id for i in book.infractions
              if not i.id.startswith(("deck.", "conduct.severe", "cheating", "conduct.random"))
              and not i.details]
    events: list[Event] = []
    day = START
    for k in range(n):
        if k and k % 2000 == 0:
            day += dt.timedelta(days=7)
            events.append(NewTournament(id=f"t{k}", date=day))
        elif k % 97 == 0:
            events.append(EndOfMatch(id=f"m{k}", round=k % 9))
        else:
            events.append(Offence(id=f"e{k}", infraction=rng.choice(simple),
                                  offender=rng.choice(players), round=k % 9))
    return Roster(players=players), Tournament(0, START, "professional", {}), events


def clan_season(n: int, rng: random.Random) -> tuple[Roster, Tournament, list[Event]]:
    players = [f"c{i}" for i in range(3000)]
    teams = {f"clan{i}": players[i * 10:(i + 1) * 10] for i in range(300)}
    kinds = ["elixirs.forbidden-combat", "interference", "fight.unauthorised-start",
             "invisibility", "hoops", "attack.undeclared-on-participant"]
    events: list[Event] = []
    day = START
    for k in range(n):
        if k and k % 2000 == 0:
            day += dt.timedelta(days=7)
            events.append(NewTournament(id=f"t{k}", date=day))
            continue
        inf = rng.choice(kinds)
        details = {"level": rng.randint(1, 20), "attacks": 1} if inf.startswith("attack") else {}
        events.append(Offence(id=f"e{k}", infraction=inf, offender=rng.choice(players),
                              details=details))
    return Roster(players=players, teams=teams), Tournament(0, START, None, {}), events


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
            engine.apply(ev)
    return time.perf_counter() - start


def chunks(events: list[Event], size: int) -> Iterator[list[Event]]:
    for i in range(0, len(events), size):
        yield events[i:i + size]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    args = parser.parse_args()
    rng = random.Random(20261130)
    seasons: dict[str, Callable[[int, random.Random], tuple[Roster, Tournament, list[Event]]]]
    seasons = {"berserk": berserk_season, "clan-championship": clan_season}
    for book_id, make in seasons.items():
        roster, t0, events = make(args.events, rng)
        baseline = run(book_id, roster, t0, events, window=1000)
        full = run(book_id, roster, t0, events)
        per_event = full / len(events) * 1e6
        print(f"{book_id}: {len(events)} events in {full:.2f} s "
              f"({len(events) / full:,.0f} events/s, {per_event:.1f} µs/event); "
              f"full history / history reset every 1,000 events = {full / baseline:.2f}")


if __name__ == "__main__":
    main()
