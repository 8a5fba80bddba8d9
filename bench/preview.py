"""A preview on a federation's season: the record form's «what would the engine rule», as a
ratio to what a preview cost when it deep-copied the series' engine (issue 16).

A berserk season of N events (bench/replay.py's generator) is ruled on by one engine, as a
process's cached engine is. Then previews of random infractions are ruled on it both ways, in
the same run: on a deep copy of the state (sharing the rulebooks, as the projection's copy
did), and in a trial on the engine itself (`RulesEngine.trial`, which puts every change
back). Both must give the same rulings, and the engine must rule on as many rulings after the
trials as before. Printed: the copy's seconds, the trial's median, 95th percentile and
slowest milliseconds, their ratio, and last `PREVIEW: X ms (goal 50 ms)` (the 95th percentile:
the slowest is a pause of the machine's as often as not).

    python bench/preview.py [--events 100000] [--previews 200] [--copies 1]
"""

from __future__ import annotations

import argparse
import copy
import gc
import random
import statistics
import time
from typing import Any

from replay import Berserk, rule_season

from sudya.app.projection import State
from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import Event, Offence, Ruling
from sudya.domain.errors import RuleError


def season_state(n: int) -> State:
    """The cached state of a berserk series after `n` stored (not refused) events."""
    season = Berserk(20261201)
    engine = RulesEngine(season.book, season.roster(), season.tournament())
    kept, _refused = rule_season(season, engine, n)
    gc.collect()
    return State(engine=engine, seq=kept, books={season.book.edition: season.book})


def shape(rulings: list[Ruling]) -> list[tuple[Any, ...]]:
    return [(r.subject, r.infraction, r.cause, r.seq, [(s.kind, s.attached) for s in r.sanctions])
            for r in rulings]


def rule(engine: RulesEngine, ev: Event) -> list[tuple[Any, ...]] | str:
    try:
        return shape(engine.apply(ev))
    except RuleError as exc:
        return exc.code


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=100_000)
    parser.add_argument("--previews", type=int, default=200)
    parser.add_argument("--copies", type=int, default=1)
    args = parser.parse_args()
    state = season_state(args.events)
    engine = state.engine
    rng = random.Random(16)
    players = engine.roster.players
    kinds = [i.id for i in engine.book.infractions if not i.details]
    previews = [Offence(id="preview", infraction=rng.choice(kinds),
                        offender=rng.choice(players), round=1)
                for _ in range(args.previews)]
    size = len(engine.rulings)

    copies: list[float] = []
    expected = {}
    for k in range(args.copies):  # the old way: a copy of the state, then the ruling
        ev = previews[k]
        start = time.perf_counter()
        memo: dict[int, Any] = {id(b): b for b in (engine.book, *state.books.values())}
        copied = copy.deepcopy(state, memo)
        expected[k] = rule(copied.engine, ev)
        copies.append(time.perf_counter() - start)
        del copied
        gc.collect()

    trials: list[float] = []
    for k, ev in enumerate(previews):
        start = time.perf_counter()
        with engine.trial():
            got = rule(engine, ev)
        trials.append(time.perf_counter() - start)
        if k in expected:
            assert got == expected[k], (got, expected[k])
    assert len(engine.rulings) == size, "a trial left a ruling behind"

    copy_s = statistics.median(copies)
    median_ms = statistics.median(trials) * 1000
    worst_ms = max(trials) * 1000
    p95_ms = statistics.quantiles(trials, n=20)[-1] * 1000 if len(trials) > 1 else worst_ms
    print(f"{args.events:,} berserk events: {size:,} rulings in the engine")
    print(f"preview on a deep copy: {copy_s:.2f} s; in a trial: {median_ms:.2f} ms median, "
          f"{p95_ms:.2f} ms 95th percentile, {worst_ms:.2f} ms slowest of {len(trials)}")
    print(f"copy / trial = {copy_s * 1000 / median_ms:,.0f}")
    print(f"PREVIEW: {p95_ms:.1f} ms (goal 50 ms)")


if __name__ == "__main__":
    main()
