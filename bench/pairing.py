"""Swiss pairings of a large tournament, as a ratio to the matching library alone in the same
run.

Plays a tournament of `--players` (500) over `--rounds` (9): random results (wins and losses,
draws at `--draws`), the standings ordered by points and then a fixed random order (the
caller's tiebreakers), so each round has the score groups, pair-downs and met opponents of a
real one. For every round after the first (round 1 is a fold, no matching) it measures, in
turns and `--repeat` times each (the best):

- `sudya.domain.swiss.pair_round` on the round's entrants, everything included: the standing
  order, the graphs, the matchings, the checks that prove the pairing best, the tables;
- the baseline: networkx's `max_weight_matching` alone, once, on the whole field's first
  graph (each player with the nearest non-opponents that `pair_round` starts from, the same
  weights), built beforehand — the one matching a plain implementation would run.

Per round: the score groups, both times and their ratio (below 1: `pair_round` pairs pieces
of the field apart, each far quicker than the whole, see swiss.py). The goal is the slowest
round: the last line reads `PAIRING: X s for 500 players (goal 1 s)`.

    python bench/pairing.py [--players 500] [--rounds 9] [--draws 0.1] [--repeat 3] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import networkx as nx

from sudya.domain import swiss
from sudya.domain.swiss import Entrant


def baseline_graph(entrants: list[Entrant]) -> Any:
    """The whole field's graph as `pair_round` first builds it (its own helpers)."""
    field, met = swiss._field(entrants)
    costs = swiss._costs(field)
    return swiss._graph(field, met, costs, swiss._near_edges(met, swiss._K_START, costs))


def best_of(repeat: int, entrants: list[Entrant], graph: Any) -> tuple[float, float]:
    """The best time of `pair_round` and of the matching alone, measured in turns."""
    ours, alone = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        swiss.pair_round(entrants)
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        nx.max_weight_matching(graph, maxcardinality=True)
        alone.append(time.perf_counter() - start)
    return min(ours), min(alone)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--draws", type=float, default=0.1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    handles = [f"p{i:04d}" for i in range(args.players)]
    points = dict.fromkeys(handles, 0)
    byes = dict.fromkeys(handles, 0)
    met: dict[str, set[str]] = {h: set() for h in handles}
    tiebreak = {h: rng.random() for h in handles}
    print(f"{args.players} players, {args.rounds} rounds, draws {args.draws:.0%}, "
          f"best of {args.repeat}")
    print(f"{'round':>5} {'groups':>6} {'pair_round':>11} {'matching alone':>15} {'ratio':>6}")
    slowest, ratios = 0.0, []
    for rnd in range(1, args.rounds + 1):
        standing = sorted(handles, key=lambda h: (-points[h], tiebreak[h]))
        entrants = [Entrant(handle=h, points=points[h], rank=i + 1,
                            opponents=frozenset(met[h]), byes=byes[h])
                    for i, h in enumerate(standing)]
        r = swiss.pair_round(entrants)
        if rnd > 1:
            ours, alone = best_of(args.repeat, entrants, baseline_graph(entrants))
            slowest = max(slowest, ours)
            ratios.append(ours / alone)
            print(f"{rnd:>5} {len(set(points.values())):>6} {ours:>9.3f} s {alone:>13.3f} s "
                  f"{ours / alone:>6.2f}")
        for t in r.tables:
            met[t.a].add(t.b)
            met[t.b].add(t.a)
            x = rng.random()
            if x < args.draws:
                points[t.a] += 1
                points[t.b] += 1
            else:
                points[t.a if x < (1 + args.draws) / 2 else t.b] += 3
        if r.bye:
            points[r.bye] += 3
            byes[r.bye] += 1
    if ratios:
        print(f"pair_round / the matching alone: median {statistics.median(ratios):.2f}, "
              f"worst {max(ratios):.2f}")
    print(f"PAIRING: {slowest:.3f} s for {args.players} players (goal 1 s)")


if __name__ == "__main__":
    main()
