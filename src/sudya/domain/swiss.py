"""Swiss pairings: who meets whom in the next round, and the bracket of a top cut.

The rules, after the basic rules for Swiss systems (FIDE Handbook C.04.1) and the byes of
card-game Swiss events (MTG Tournament Rules):

- a player who dropped is never paired (and never given the bye);
- two players meet at most once (C.04.1 b): a rematch is made only when no pairing of
  everybody without one exists; then as few as possible, each reported (`pairing.rematch`);
- with an odd number of players one of them has the bye (C.04.1 c): the lowest-ranked of
  those who have had the fewest byes, so nobody has a second bye while someone else has none
  (C.04.1 d). If that player's bye would force a rematch among the others, the next
  lowest-ranked of the same players has it instead (`pairing.bye-moved`);
- players are paired within their score group (C.04.1 e); a group with an odd number of
  players sends one player down to the next group (a pair-down), and the score difference
  between paired players is kept as small as possible;
- within a group, neighbours in the standings meet (1 v 2, 3 v 4, …): the top of the table
  meets the top, so the leaders are sorted out early (which a top cut needs);
- round 1 (nobody has points or has played) is paired top half against bottom half of the
  given order (1 v n/2+1, 2 v n/2+2, …), or of a shuffle of it made from `seed` (a random
  first round, as card-game events pair it) — the same seed, the same round;
- tables are numbered from 1, the highest-scored pairs first.

How the rules become one matching (after Tabbycat's draw generators: the rules are edge
weights, networkx's `max_weight_matching` with `maxcardinality=True` finds the pairing): every
edge between two players (and between a player and the bye) has a cost made of four tiers,
each tier weighted so that the whole of any lower tier over a round is less than one unit of
the tier above it — the comparison is lexicographic, and exact (whole numbers):

1. rematch: 1 for a pair who have met;
2. bye: for the edge to the bye, how many bye candidates rank below this one (0 for the
   lowest-ranked of those with the fewest byes; the others are not candidates at all);
3. score: the square of the difference of the pair's points. The sum over a round is least
   when every group pairs within itself and exactly one player crosses each boundary above
   which the count is odd, to the next group only (a square makes one long pair-down cost
   more than a chain of short ones: a 6-point player meets a 3-point one, not a 0-point one);
4. proximity: the square of the difference of the pair's places in the standings; on a line
   this is least for neighbours (1 v 2, 3 v 4) and, when a rematch forbids that, for the
   nearest alternatives (1 v 3, 2 v 4 rather than 1 v 4, 2 v 3).

A matching costs the sum of its edges; each edge's weight is a constant less its cost, and
every complete pairing has the same number of edges, so the heaviest one is the cheapest.

Speed: the blossom algorithm is cubic, and the complete graph of 500 players takes minutes.
The graph is therefore cut to each player's nearest `k` non-opponents in standing order on
either side (and the bye to the `k` lowest candidates), `k` doubled while the answer is not
proved best: a pairing with no rematch, the bye on the preferred player and the least score
cost that the groups' sizes allow (the bound of tier 3 above, which ignores rematches) is
the best there is whatever the edges left out. When a rematch blocks a group (two leaders
who drew with each other) the bound cannot be reached: the pairing found with the widest
cut is kept — the best among the edges to each player's `_K_MAX` nearest non-opponents,
which hold every pair-down to the neighbouring groups. Only if that cut has no complete
pairing without a rematch, or cannot give the bye to the preferred player, is the complete
graph used (a small field, or a pathological one: with n players of whom each has met at
most r, every player has n - 1 - r possible opponents, and from n ≥ 2(r + 2) on a pairing
without rematches exists for any choice of bye — Dirac's theorem).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import networkx as nx

NoticeCode = Literal["pairing.rematch", "pairing.bye-moved"]
CutSize = Literal[2, 4, 8]

# fields up to this size are paired on the complete graph: exact in every tier, and quick
_FULL = 48
_K_START = 2  # nearest non-opponents on each side, first try
_K_MAX = 16  # widest cut before the complete graph (measured: bench/pairing.py)


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player to pair: `rank` is their place in the current standings (1 = top, ties already
    broken by the caller), `points` their match points, `opponents` the handles they have
    met, `byes` the byes they have had."""

    handle: str
    points: int = 0
    rank: int = 0
    opponents: frozenset[str] = frozenset()
    byes: int = 0
    dropped: bool = False


@dataclass(frozen=True, slots=True)
class Pairing:
    """One table: `a` is the higher-placed of the two."""

    table: int
    a: str
    b: str


@dataclass(frozen=True, slots=True)
class Notice:
    """Something a judge should know about the round, as a code and the players concerned
    (`pairing.rematch`: the pair; `pairing.bye-moved`: who has the bye, then the player the
    rule would have given it to). The text is the catalogues' (architecture: codes, not
    prose)."""

    code: NoticeCode
    handles: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Round:
    """A round's pairings: the tables in order, the player with the bye, the warnings."""

    tables: tuple[Pairing, ...]
    bye: str | None = None
    warnings: tuple[Notice, ...] = ()


def pair_round(entrants: Iterable[Entrant], *, seed: int | None = None) -> Round:
    """The next round's pairings of the players who have not dropped (the module's rules).

    `seed` shuffles the order of round 1 before it is folded (the same seed, the same round);
    later rounds follow the standings and do not use it. Raises ValueError for two entrants
    with one handle (a caller's mistake, not a judge's).
    """
    everyone = list(entrants)
    handles = [e.handle for e in everyone]
    if len(set(handles)) != len(handles):
        twice = sorted({h for h in handles if handles.count(h) > 1})
        raise ValueError(f"entrants with the same handle: {', '.join(twice)}")
    field = sorted((e for e in everyone if not e.dropped),
                   key=lambda e: (-e.points, e.rank, e.handle))
    if not field:
        return Round(tables=())
    at = {e.handle: i for i, e in enumerate(field)}
    met: list[set[int]] = [set() for _ in field]
    for i, e in enumerate(field):
        for o in e.opponents:  # either side's record of a match is enough
            j = at.get(o)
            if j is not None and j != i:
                met[i].add(j)
                met[j].add(i)
    if not any(e.points for e in field) and not any(met):
        return _first_round(field, seed)
    return _later_round(field, met)


def top_cut(ranked: Sequence[str], size: CutSize) -> tuple[Pairing, ...]:
    """The first round of a single-elimination top cut of the `size` best of `ranked`: the
    standard bracket (8: 1 v 8, 4 v 5, 2 v 7, 3 v 6; 4: 1 v 4, 2 v 3; 2: 1 v 2), in which
    seeds 1 and 2 can meet only in the final, and each table's winner meets the next
    table's. Raises ValueError when fewer than `size` players are ranked."""
    if size not in (2, 4, 8):
        raise ValueError(f"a top cut has 2, 4 or 8 players, not {size}")
    if len(ranked) < size:
        raise ValueError(f"a top {size} needs {size} ranked players, {len(ranked)} given")
    if len(set(ranked[:size])) != size:
        raise ValueError("a player is ranked twice")
    seeds = [1]
    while len(seeds) < size:  # each seed s of a bracket half the size meets 2·len + 1 - s
        seeds = [x for s in seeds for x in (s, 2 * len(seeds) + 1 - s)]
    return tuple(Pairing(table=t + 1, a=ranked[seeds[2 * t] - 1], b=ranked[seeds[2 * t + 1] - 1])
                 for t in range(size // 2))


# ---------------------------------------------------------------------- round 1
def _first_round(field: list[Entrant], seed: int | None) -> Round:
    """Round 1: the bye to the lowest-ranked of those with the fewest byes, then the top half
    of the order against the bottom half (C.04.1 has the rank order fold; a seed shuffles the
    order first, for a random first round)."""
    players = list(field)
    bye = None
    if len(players) % 2:
        least = min(e.byes for e in players)
        bye = next(e for e in reversed(players) if e.byes == least)
        players.remove(bye)
    if seed is not None:
        random.Random(seed).shuffle(players)
    half = len(players) // 2
    tables = tuple(Pairing(table=i + 1, a=players[i].handle, b=players[i + half].handle)
                   for i in range(half))
    return Round(tables=tables, bye=bye.handle if bye else None)


# ---------------------------------------------------------------------- later rounds
@dataclass(frozen=True, slots=True)
class _Costs:
    """The weights of the four tiers for one field (each larger than a round's total of the
    tiers below it) and the bye's candidates with their costs."""

    score: int  # one unit of tier 3 (score), in units of tier 4 (proximity)
    bye: int
    rematch: int
    top: int  # the constant every edge's cost is taken from (more than any edge costs)
    bye_cost: dict[int, int]  # candidate (place) -> how many candidates rank below


def _costs(field: list[Entrant]) -> _Costs:
    n = len(field)
    pairs = n // 2 + 1
    span = field[0].points - field[-1].points
    score = pairs * (n - 1) ** 2 + 1
    bye = (pairs * span**2 + 1) * score
    rematch = n * bye
    candidates: list[int] = []
    if n % 2:
        least = min(e.byes for e in field)
        candidates = [i for i, e in enumerate(field) if e.byes == least]
    bye_cost = {c: len(candidates) - 1 - k for k, c in enumerate(candidates)}
    return _Costs(score=score, bye=bye, rematch=rematch, top=2 * rematch + 1,
                  bye_cost=bye_cost)


def _later_round(field: list[Entrant], met: list[set[int]]) -> Round:
    """A round after the first: pieces of the field paired apart when that is proved best,
    else the whole field at once (`_whole`)."""
    costs = _costs(field)
    preferred = next((c for c, below in costs.bye_cost.items() if below == 0), None)
    pairs = _pieces(field, met, preferred)
    if pairs is None:
        pairs, _proved = _whole(field, met, costs, preferred)
    return _round(field, met, pairs, preferred)


def _pieces(field: list[Entrant], met: list[set[int]],
            preferred: int | None) -> set[tuple[int, int]] | None:
    """The field, less the preferred bye, cut at each boundary between score groups with an
    even number of players above it, each piece paired on its own (`_whole`); None unless
    that is proved best.

    In the usual round no pair crosses such a boundary (the score bound, `_score_bound`, has
    none there), so the pieces lose nothing — and the matching, cubic in the players, is far
    quicker on pieces of a few score groups than on the whole field. A piece that does not
    reach its own bound (a rematch in the way: its players may need the next group) is put
    together with the next piece (the last with the one before) and paired again. Proved
    best when every piece pairs completely without a rematch and the pieces' score costs add
    up to the whole field's bound; then no pairing of the whole does better in tiers 1 to 3,
    and tier 4 is each piece's best.
    """
    n = len(field)
    points = [e.points for e in field]
    pieces: list[list[int]] = [[]]
    above = 0
    for i in range(n):
        if i == preferred:
            continue
        last = pieces[-1]
        if last and above % 2 == 0 and points[last[-1]] != points[i]:
            pieces.append([])
        pieces[-1].append(i)
        above += 1
    if len(pieces) < 2:
        return None
    found: list[set[tuple[int, int]]] = []  # the pairs of each piece before pieces[k]
    k = 0
    while k < len(pieces):
        piece = pieces[k]
        local = {i: x for x, i in enumerate(piece)}
        sub = [field[i] for i in piece]
        sub_met = [{local[j] for j in met[i] if j in local} for i in piece]
        pairs, proved = _whole(sub, sub_met, _costs(sub), None)
        if proved:
            found.append({(piece[i], piece[j]) for i, j in pairs})  # a piece is in order
            k += 1
            continue
        if len(pieces) == 1:
            return None
        if k + 1 < len(pieces):
            pieces[k:k + 2] = [piece + pieces[k + 1]]
        else:
            pieces[k - 1:k + 1] = [pieces[k - 1] + piece]
            found.pop()
            k -= 1
    everyone = set().union(*found)
    if _score_cost(everyone, points, n) != _score_bound(points, met, preferred):
        return None
    if preferred is not None:
        everyone.add((preferred, n))
    return everyone


def _whole(field: list[Entrant], met: list[set[int]], costs: _Costs,
           preferred: int | None) -> tuple[set[tuple[int, int]], bool]:
    """The field paired at once, and whether that is proved best: a complete pairing without
    a rematch, the bye on the preferred player, the least score cost the groups allow
    (`_score_bound`). On the complete graph when the field is small, else on the cut graph
    widened until proved (or the widest cut kept, see the module's docstring)."""
    n = len(field)
    points = [e.points for e in field]
    bound = _score_bound(points, met, preferred)

    def proved(pairs: set[tuple[int, int]]) -> bool:
        return complete(pairs) and _score_cost(pairs, points, n) == bound and \
            not any(j in met[i] for i, j in pairs if j != n)

    def complete(pairs: set[tuple[int, int]]) -> bool:
        return 2 * len(pairs) == n + n % 2 and (preferred is None or (preferred, n) in pairs)

    if n <= _FULL:
        pairs = _match(field, met, costs, _all_edges(n))
        return pairs, proved(pairs)
    k = _K_START
    while True:
        pairs = _match(field, met, costs, _near_edges(met, k, costs))
        if proved(pairs):
            return pairs, True
        if k >= _K_MAX:
            if not complete(pairs):  # the complete graph has the pairing the cut lacks
                pairs = _match(field, met, costs, _all_edges(n))
            return pairs, proved(pairs)
        k *= 2


def _all_edges(n: int) -> Iterable[tuple[int, int]]:
    """Every pair of players, and each player with the bye (node `n`, used when n is odd)."""
    for i in range(n):
        for j in range(i + 1, n):
            yield i, j
        yield i, n


def _near_edges(met: list[set[int]], k: int, costs: _Costs) -> Iterable[tuple[int, int]]:
    """Each player with the `k` nearest players in standing order they have not met, on
    either side, and the bye with its `k` lowest-ranked candidates."""
    n = len(met)
    edges: set[tuple[int, int]] = set()
    for i in range(n):
        for step in (1, -1):
            found, j = 0, i + step
            while 0 <= j < n and found < k:
                if j not in met[i]:
                    edges.add((i, j) if i < j else (j, i))
                    found += 1
                j += step
    lowest = sorted(costs.bye_cost, key=costs.bye_cost.__getitem__)[:k]
    edges.update((c, n) for c in lowest)
    return sorted(edges)


def _match(field: list[Entrant], met: list[set[int]], costs: _Costs,
           edges: Iterable[tuple[int, int]]) -> set[tuple[int, int]]:
    """The cheapest pairing among `edges` that pairs as many players as possible, as pairs
    (lower place first; the bye is node len(field)). An edge to the bye exists only for a
    candidate."""
    n = len(field)
    graph = nx.Graph()
    weighted = []
    for i, j in edges:
        if j == n:
            if i in costs.bye_cost:
                weighted.append((i, j, costs.top - costs.bye * costs.bye_cost[i]))
            continue
        cost = costs.score * (field[i].points - field[j].points) ** 2 + (j - i) ** 2
        if j in met[i]:
            cost += costs.rematch
        weighted.append((i, j, costs.top - cost))
    graph.add_nodes_from(range(n + n % 2))
    graph.add_weighted_edges_from(weighted)
    found = nx.max_weight_matching(graph, maxcardinality=True)
    return {(i, j) if i < j else (j, i) for i, j in found}


def _score_cost(pairs: set[tuple[int, int]], points: list[int], n: int) -> int:
    """Tier 3 of a pairing: the sum of the squared point differences of its pairs."""
    return sum((points[i] - points[j]) ** 2 for i, j in pairs if j != n)


def _score_bound(points: list[int], met: list[set[int]], bye: int | None) -> int:
    """A least tier-3 cost of any pairing of these players (less the bye), to prove a
    pairing best.

    Count the pairs crossing each boundary between neighbouring score groups, c_b. Above a
    boundary the players pair among themselves but for those crossing it, so c_b has the
    parity of the number of players above. A group whose members cannot all pair among
    themselves without a rematch (at most ν of its pairs can, its deficiency d = size - 2ν)
    sends at least d players across its two boundaries: c_above + c_below ≥ d. A pair
    crossing several boundaries costs more than the squares of their gaps together, so any
    pairing costs at least Σ c_b·gap_b² for some c meeting those constraints: the least such
    sum (a walk down the boundaries, `_least_crossings`) is the bound. Without rematches in
    the way it is Σ gap_b² over the boundaries with an odd count above, reached by pairing
    within groups and one pair-down across each of those.
    """
    groups: list[list[int]] = []
    for i, p in enumerate(points):
        if i == bye:
            continue
        if groups and points[groups[-1][0]] == p:
            groups[-1].append(i)
        else:
            groups.append([i])
    if len(groups) < 2:
        return 0
    deficiency = [len(g) - 2 * _pairs_within(g, met) for g in groups]
    gaps = [(points[a[0]] - points[b[0]]) ** 2 for a, b in zip(groups, groups[1:], strict=False)]
    above, parity = 0, []
    for g in groups[:-1]:
        above += len(g)
        parity.append(above % 2)
    return _least_crossings(deficiency, gaps, parity)


def _pairs_within(group: list[int], met: list[set[int]]) -> int:
    """ν: the most pairs of a group that have not met (Dirac: when each member has not met
    at least half of the others the group pairs completely; a small group is matched)."""
    size = len(group)
    members = set(group)
    if all(2 * (size - 1 - len(met[i] & members)) >= size for i in group):
        return size // 2
    graph = nx.Graph()
    graph.add_edges_from((i, j) for k, i in enumerate(group) for j in group[k + 1:]
                         if j not in met[i])
    return len(nx.max_weight_matching(graph, maxcardinality=True))


def _least_crossings(deficiency: list[int], gaps: list[int], parity: list[int]) -> int:
    """min Σ c_b·gaps[b] over whole c_b ≥ 0 with c_b ≡ parity[b] (mod 2) and, for each group
    i, c_above + c_below ≥ deficiency[i] (no boundary above the first group or below the
    last): one boundary after another, remembering the least cost for each count crossing
    the last one. No count above max(deficiency) + 1 is ever needed."""
    most = max(deficiency) + 1
    # the least cost so far for each count crossing the boundary just passed (none: 0)
    best: dict[int, int] = {0: 0}
    for b, gap in enumerate(gaps):
        nxt: dict[int, int] = {}
        for c in range(parity[b], most + 1, 2):
            options = [cost for prev, cost in best.items() if prev + c >= deficiency[b]]
            if options:
                nxt[c] = min(options) + c * gap
        best = nxt
    return min(cost for c, cost in best.items() if c >= deficiency[-1])


def _round(field: list[Entrant], met: list[set[int]], pairs: set[tuple[int, int]],
           preferred: int | None) -> Round:
    """The pairs as numbered tables (the highest-scored first, then the higher-placed), the
    bye, and the warnings: each rematch, and a bye not on the player the rule names."""
    n = len(field)
    bye = next((i for i, j in pairs if j == n), None)
    games = sorted(((i, j) for i, j in pairs if j != n),
                   key=lambda p: (-field[p[0]].points, -field[p[1]].points, p[0]))
    warnings = [Notice("pairing.rematch", (field[i].handle, field[j].handle))
                for i, j in games if j in met[i]]
    if bye is not None and bye != preferred and preferred is not None:
        warnings.append(Notice("pairing.bye-moved", (field[bye].handle,
                                                     field[preferred].handle)))
    tables = tuple(Pairing(table=t, a=field[i].handle, b=field[j].handle)
                   for t, (i, j) in enumerate(games, start=1))
    return Round(tables=tables, bye=field[bye].handle if bye is not None else None,
                 warnings=tuple(warnings))
