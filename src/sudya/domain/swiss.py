"""Swiss pairings: who meets whom in the next round, and the bracket of a top cut.

The rules, after the basic rules for Swiss systems (FIDE Handbook C.04.1):

- a player who dropped is never paired (and never given the bye);
- two players meet at most once (C.04.1 b): a rematch is made only when no pairing of
  everybody without one exists; then as few as possible, each reported (`pairing.rematch`);
- with an odd number of players one of them has the bye (C.04.1 c): the lowest-ranked of
  those who have had the fewest byes, so nobody has a second bye while someone else has none
  (C.04.1 d, which this relaxes only once everyone still in has had one). If that player's
  bye would force a rematch among the others, the next lowest-ranked of the same players
  has it instead (`pairing.bye-moved`);
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

Speed: the blossom algorithm is cubic; on the complete graph 500 players take minutes, and
even a sparse graph of the whole field a few tenths of a second. Fields of up to `_FULL`
players are paired on the complete graph (exact in every tier). A larger one:

- is cut into pieces at each boundary between score groups with an even number of players
  above it — where a pairing at the bound of tier 3 has no pair across — and each piece is
  paired on its own (`_pieces`);
- a piece (or the whole field) is paired on a cut graph: each player with their nearest `k`
  non-opponents in standing order on either side, and the bye with its `k` lowest
  candidates (`_whole`);
- a pairing is proved best when it pairs everyone, has no rematch, gives the bye to the
  preferred player and costs in tier 3 no more than a lower bound for any pairing at all
  (`_score_bound`: the parity of each boundary's crossings, and the players a group whose
  members have met cannot keep among themselves) — then no edge left out could do better
  in tiers 1 to 3, and tier 4 is the best on the edges kept. A small cut graph not proved
  best is widened (`k` doubled while it has at most `_PROOF_EDGES` edges); a piece still
  not proved is joined to its neighbour and paired again, up to `_MERGED` players;
- when the pieces are not proved best together, the whole field is paired at once as well
  and the cheaper of the two pairings is kept.

A pairing not proved best happens when a rematch forces more than the bound counts (two
leaders who drew with each other; the bound counts a pair across two boundaries as the two
gaps' squares, not the square of their sum): measured against the complete graph's pairing
on fields of 49 to 130 players, tiers 1 to 3 came out the same in every round, tier 4 in
most. Whatever the cut, a complete pairing without a rematch and with the bye on the
preferred player is always found when one exists: the cut graph is widened for it up to
`_K_MAX`, then the complete graph is used — a pathological field only: with n players of
whom each has met at most r, every player has at least n - 1 - r possible opponents, and
from n ≥ 2(r + 2) on a pairing without rematches exists for any choice of bye (Dirac's
theorem: a Hamiltonian cycle of the players who have not met, every other edge of which is
a pairing).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import networkx as nx

NoticeCode = Literal["pairing.rematch", "pairing.bye-moved"]
CutSize = Literal[2, 4, 8]

# fields up to this size are paired on the complete graph: exact in every tier, and quick
_FULL = 48
_K_START = 2  # nearest non-opponents on each side, first try
_K_MAX = 16  # widest cut before the complete graph: 500 players at once on it take ~1 s
# a cut graph is widened to prove its pairing best only while it has no more edges than this
_PROOF_EDGES = 8192
_MERGED = 2 * _FULL  # the most players a piece grows to by joining its neighbours


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
    field, met = _field(entrants)
    if not field:
        return Round(tables=())
    if not any(e.points for e in field) and not any(met):
        return _first_round(field, seed)
    return _later_round(field, met)


def _field(entrants: Iterable[Entrant]) -> tuple[list[Entrant], list[set[int]]]:
    """The players to pair in standing order (points, then rank, then handle: the points
    make the groups whatever the ranks say) and, for each place, the places of those they
    have met — either side's record of a match is enough."""
    everyone = list(entrants)
    count = Counter(e.handle for e in everyone)
    if len(count) != len(everyone):
        twice = sorted(h for h, c in count.items() if c > 1)
        raise ValueError(f"entrants with the same handle: {', '.join(twice)}")
    field = sorted((e for e in everyone if not e.dropped),
                   key=lambda e: (-e.points, e.rank, e.handle))
    at = {e.handle: i for i, e in enumerate(field)}
    met: list[set[int]] = [set() for _ in field]
    for i, e in enumerate(field):
        for o in e.opponents:
            j = at.get(o)
            if j is not None and j != i:
                met[i].add(j)
                met[j].add(i)
    return field, met


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
    of the order against the bottom half, as the Dutch system (FIDE C.04.3) pairs its first
    round; a seed shuffles the order first, for a random first round. In each pair `a` is
    the higher-ranked."""
    players = list(field)
    bye = None
    if len(players) % 2:
        least = min(e.byes for e in players)
        bye = next(e for e in reversed(players) if e.byes == least)
        players.remove(bye)
    if seed is not None:
        random.Random(seed).shuffle(players)
    half = len(players) // 2
    place = {e.handle: i for i, e in enumerate(field)}
    pairs = [sorted((players[i], players[i + half]), key=lambda e: place[e.handle])
             for i in range(half)]
    tables = tuple(Pairing(table=t, a=a.handle, b=b.handle)
                   for t, (a, b) in enumerate(pairs, start=1))
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
    """The tiers' weights (the module's docstring) for a field in standing order: each unit
    exceeds the most the tiers below can add up to over a round, and the bye's candidates
    (none for an even field)."""
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
    """A round after the first: a large field paired in pieces (`_pieces`); unless that is
    proved best, the whole field paired at once as well (`_whole`), and the cheaper of the
    two kept. A small field is paired at once, on the complete graph."""
    costs = _costs(field)
    preferred = next((c for c, below in costs.bye_cost.items() if below == 0), None)
    pairs, proved = _pieces(field, met, preferred) if len(field) > _FULL else (set(), False)
    if not proved:
        whole, _proved = _whole(field, met, costs, preferred)
        if not pairs or _total(whole, field, met, costs) < _total(pairs, field, met, costs):
            pairs = whole
    return _round(field, met, pairs, preferred)


def _pieces(field: list[Entrant], met: list[set[int]],
            preferred: int | None) -> tuple[set[tuple[int, int]], bool]:
    """The field, less the preferred bye, cut at each boundary between score groups with an
    even number of players above it, each piece paired on its own (`_whole`), and whether
    that is proved best; no pairs when the field is one piece or a piece cannot pair all its
    players without a rematch.

    In the usual round no pair crosses such a boundary (the score bound, `_score_bound`, has
    none there), so the pieces lose nothing — and the matching, cubic in the players, is far
    quicker on pieces of a few score groups than on the whole field. A piece not proved best
    on its own (a rematch in the way: its players may need the next group) is put together
    with the next piece (the last with the one before) and paired again, while the two
    together are no more than `_MERGED` players. Proved best when every piece pairs
    completely without a rematch and the pieces' score costs add up to the whole field's
    bound; then no pairing of the whole does better in tiers 1 to 3, and tier 4 is each
    piece's best.
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
        return set(), False
    found: list[tuple[set[tuple[int, int]], bool]] = []  # each piece's before pieces[k]
    k = 0
    while k < len(pieces):
        piece = pieces[k]
        local = {i: x for x, i in enumerate(piece)}
        sub = [field[i] for i in piece]
        sub_met = [{local[j] for j in met[i] if j in local} for i in piece]
        pairs, proved = _whole(sub, sub_met, _costs(sub), None)
        if not proved:
            after = len(pieces[k + 1]) if k + 1 < len(pieces) else None
            before = len(pieces[k - 1]) if k > 0 else None
            if after is not None and len(piece) + after <= _MERGED:
                pieces[k:k + 2] = [piece + pieces[k + 1]]
                continue
            if after is None and before is not None and len(piece) + before <= _MERGED:
                pieces[k - 1:k + 1] = [pieces[k - 1] + piece]
                found.pop()
                k -= 1
                continue
        if 2 * len(pairs) != len(piece) or any(j in sub_met[i] for i, j in pairs):
            return set(), False
        found.append(({(piece[i], piece[j]) for i, j in pairs}, proved))  # pieces are in order
        k += 1
    everyone: set[tuple[int, int]] = set().union(*(pairs for pairs, _proved in found))
    proved = all(p for _pairs, p in found) and \
        _score_cost(everyone, points, n) == _score_bound(points, met, preferred)
    if preferred is not None:
        everyone.add((preferred, n))
    return everyone, proved


def _whole(field: list[Entrant], met: list[set[int]], costs: _Costs,
           preferred: int | None) -> tuple[set[tuple[int, int]], bool]:
    """The field paired at once, and whether that is proved best: a complete pairing without
    a rematch, the bye on the preferred player, the least score cost the groups allow
    (`_score_bound`). On the complete graph when the field is small; else on the cut graph,
    widened while it is not proved best and small (`_PROOF_EDGES`), or while it cannot pair
    everyone without a rematch and the bye on the preferred player (then up to `_K_MAX`,
    and the complete graph beyond)."""
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
        if complete(pairs) and 2 * k * n > _PROOF_EDGES:
            return pairs, False
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
    (lower place first; the bye is node len(field))."""
    found = nx.max_weight_matching(_graph(field, met, costs, edges), maxcardinality=True)
    return {(i, j) if i < j else (j, i) for i, j in found}


def _graph(field: list[Entrant], met: list[set[int]], costs: _Costs,
           edges: Iterable[tuple[int, int]]) -> Any:
    """The weighted graph of `edges` (a networkx Graph): each edge's weight is `costs.top`
    less its cost (`_cost`). An edge to the bye (node len(field)) is kept only for a bye
    candidate."""
    n = len(field)
    top = costs.top
    weighted = [(i, j, top - _cost(field, met, costs, i, j)) for i, j in edges
                if j != n or i in costs.bye_cost]
    graph = nx.Graph()
    graph.add_nodes_from(range(n + n % 2))
    graph.add_weighted_edges_from(weighted)
    return graph


def _cost(field: list[Entrant], met: list[set[int]], costs: _Costs, i: int, j: int) -> int:
    """An edge's cost in the four tiers (places i < j; j = len(field) is the bye)."""
    if j == len(field):
        return costs.bye * costs.bye_cost[i]
    cost = costs.score * (field[i].points - field[j].points) ** 2 + (j - i) ** 2
    return cost + costs.rematch if j in met[i] else cost


def _total(pairs: set[tuple[int, int]], field: list[Entrant], met: list[set[int]],
           costs: _Costs) -> tuple[int, int]:
    """A pairing's cost to compare it with another: the players it leaves out first (fewer
    is better), then the sum of its edges' costs."""
    n = len(field)
    return (n + n % 2 - 2 * len(pairs), sum(_cost(field, met, costs, i, j) for i, j in pairs))


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
    squares = [(points[a[0]] - points[b[0]]) ** 2
               for a, b in zip(groups, groups[1:], strict=False)]
    above, parity = 0, []
    for g in groups[:-1]:
        above += len(g)
        parity.append(above % 2)
    return _least_crossings(deficiency, squares, parity)


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


def _least_crossings(deficiency: list[int], squares: list[int], parity: list[int]) -> int:
    """min Σ c_b·squares[b] (boundary b's squared gap) over whole c_b ≥ 0 with
    c_b ≡ parity[b] (mod 2) and, for each group i, c_above + c_below ≥ deficiency[i] (no
    boundary above the first group or below the last): one boundary after another,
    remembering the least cost for each count crossing the last one. No count above
    max(deficiency) + 1 is ever needed."""
    most = max(deficiency) + 1
    # the least cost so far for each count crossing the boundary just passed (none: 0)
    best: dict[int, int] = {0: 0}
    for b, square in enumerate(squares):
        nxt: dict[int, int] = {}
        for c in range(parity[b], most + 1, 2):
            options = [cost for prev, cost in best.items() if prev + c >= deficiency[b]]
            if options:
                nxt[c] = min(options) + c * square
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
