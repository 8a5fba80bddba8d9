"""Standings from game results and rulings, scored the way the rulebook says.

Two kinds of scoring (``Rulebook.scoring.kind``), each with its own output shape (see
docs/scenarios.en.md, `standings`):

- ``points``: each result is one game on a shared scale (e.g. 20-point games); a player's
  total is the sum of their game scores plus their point deductions, a team's the sum of its
  players' plus its own deductions (red cards).
- ``match-points``: each result is a match (or a fight) scored in games won; the winner gets
  ``win`` points, a draw ``draw``, a loss ``loss``. Sanction kinds named in
  ``scoring.effects`` change the match of the round they are given in (``lose-game``,
  ``lose-match``, ``void``), or of the next round when the ruling says the sanction applies
  to the next match (``applies_to``) or ``scoring.next_match`` says so.
  Players are placed by match points, then the rulebook's tiebreakers, then id.

Both kinds rank their tables (``place``: ``points`` by ``scoring.order``, then id), and a
subject whose status the rulebook names in ``scoring.unplaced`` takes no place and is listed
after everyone placed.

Nothing here knows a rulebook by name: what differs comes from the scoring data.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sudya.domain.engine.model import Result, Roster, Ruling, is_frozen, lifted
from sudya.domain.rulebook.schema import Rulebook, Scoring

# (tournament, round, player) -> the effects on that player's match of the round
Key = tuple[int, int | None, str]


@dataclass(slots=True)
class _Effects:
    """What the rulings do to one player's match of one round."""

    fixed: tuple[int, int] | None = None  # a fixed result, this player's score first
    lose_games: int = 0
    lose_match: bool = False
    void: bool = False
    frozen: bool = False  # held until a decision: counts for neither side yet (§4 E18)


@dataclass(slots=True)
class _Rulings:
    """The rulings, read once: effects per match, deductions, statuses."""

    effects: dict[Key, _Effects] = field(default_factory=dict)
    deductions: dict[str, int] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    # (tournament, subject) -> the earliest round in which the subject left the tournament
    left: dict[tuple[int, str], int] = field(default_factory=dict)
    any_frozen: bool = False


@dataclass(frozen=True, slots=True)
class Seat:
    """One table of a round's pairings: `tournament` is the position results carry."""

    tournament: int
    round: int
    table: int
    a: str
    b: str


PENALTY = "penalty:"  # the id of a result a penalty gave (`by_penalty`) begins with it


def standings(book: Rulebook, roster: Roster, rulings: list[Ruling],
              results: list[tuple[Result, int]], always: bool = False,
              byes: Mapping[str, int] | None = None,
              pairings: Iterable[Seat] = ()) -> dict[str, Any] | None:
    """The standings of the players and teams, or None when there is nothing to score.
    `byes`: how many byes each player of a Swiss event had (match points only);
    `pairings`: the rounds' tables, whose match a penalty decided counts without a result
    (`by_penalty`)."""
    scoring = book.scoring
    if scoring is None or (not results and not always):
        return None
    read = _read_rulings(book, roster, rulings)
    if pairings:
        results = results + _by_penalty(read, pairings, results)
    if scoring.kind == "points":
        return _points(scoring, roster, results, read)
    return _match_points(scoring, roster, results, read, byes or {})


def annulled(book: Rulebook, roster: Roster, rulings: list[Ruling],
             results: list[tuple[Result, int]]) -> set[str]:
    """The results that count for neither side because their match was annulled (a `void`
    effect on a side's first match of the round): the extra match that replaces one is
    entered as a later result of the same round (003 «Аннулирование боя и назначение
    дополнительного»). Only match-points scoring annuls; empty without scoring."""
    scoring = book.scoring
    if scoring is None or scoring.kind != "match-points" or "void" not in \
            scoring.effects.values():
        return set()
    read = _read_rulings(book, roster, rulings)
    out: set[str] = set()
    for result, t, firsts in _counted(roster, results, read):
        for player, first in zip(result.players, firsts, strict=True):
            effect = read.effects.get((t, result.round, player)) if first else None
            if effect is not None and effect.void:
                out.add(result.id)
    return out


def entered(book: Rulebook, roster: Roster, rulings: list[Ruling],
            results: list[tuple[Result, int]], new: Result, t: int) -> Result | None:
    """The result already entered for `new`'s pair in its round of tournament `t` that still
    counts (a second one would count the match twice), or None. An annulled match's result
    no longer counts: its extra match is the next result of the round (`annulled`). A result
    without a round names no match: None."""
    if new.round is None:
        return None
    pair = set(new.players)
    round_ = [(r, tr) for r, tr in results if tr == t and r.round == new.round]
    same = [r for r, _t in round_ if set(r.players) == pair]
    if not same:
        return None
    void = annulled(book, roster, [r for r in rulings if r.tournament == t], round_)
    return next((r for r in same if r.id not in void), None)


def by_penalty(book: Rulebook, roster: Roster, rulings: list[Ruling],
               results: list[tuple[Result, int]], pairings: Iterable[Seat]
               ) -> list[tuple[Result, int]]:
    """The results penalties give (issue 36): a paired table of a round with no result
    entered whose match a ruling decides — a match loss (`lose-match`) or a fixed score of a
    side — counts as played, its id `penalty:ROUND:TABLE`. A match lost to a penalty is won
    2-0 by the other side (as a bye); both sides losing it, 0-0, each a loss. The result is
    the ruling's: revoked or overturned, it is gone; a result entered for the table later
    replaces it (and the penalty still applies to that one)."""
    if book.scoring is None:
        return []
    return _by_penalty(_read_rulings(book, roster, rulings), pairings, results)


def _by_penalty(read: _Rulings, pairings: Iterable[Seat],
                results: list[tuple[Result, int]]) -> list[tuple[Result, int]]:
    if not read.effects:
        return []
    played = {(t, r.round, frozenset(r.players)) for r, t in results}
    out = []
    for seat in pairings:
        ea = read.effects.get((seat.tournament, seat.round, seat.a))
        eb = read.effects.get((seat.tournament, seat.round, seat.b))
        if not _decides(ea) and not _decides(eb):
            continue
        if (seat.tournament, seat.round, frozenset((seat.a, seat.b))) in played:
            continue
        if ea is not None and ea.fixed is not None:
            score = ea.fixed
        elif eb is not None and eb.fixed is not None:
            score = eb.fixed[::-1]
        else:
            score = (0 if ea is not None and ea.lose_match else BYE_GAMES,
                     0 if eb is not None and eb.lose_match else BYE_GAMES)
        out.append((Result(f"{PENALTY}{seat.round}:{seat.table}", (seat.a, seat.b), score,
                           seat.round), seat.tournament))
    return out


def _decides(effect: _Effects | None) -> bool:
    """Whether a side's effects decide its match without a result: a match loss or a fixed
    score (frozen or annulled matches are decided by the college, not here)."""
    return effect is not None and not effect.frozen and not effect.void and (
        effect.lose_match or effect.fixed is not None)


# ---------------------------------------------------------------------- rulings
def _read_rulings(book: Rulebook, roster: Roster, rulings: list[Ruling]) -> _Rulings:
    scoring = book.scoring
    assert scoring is not None
    out = _Rulings()
    # what each kind does here, looked up once a kind (a season has 100,000s of sanctions
    # of a dozen kinds): whether it deducts points, the status it gives, its match effect
    facts: dict[str, tuple[bool, str | None, str | None]] = {}
    # the infractions whose rulings may freeze their fight (§4 E18), and the sanctions whose
    # term a decision lifted (§4 E13): most rulebooks have neither
    freezing = {i.id for i in book.infractions if i.freezes_result}
    if any(k.term for k in book.sanctions):
        rulings = list(rulings)
        lifted_terms = lifted(rulings)
    else:
        lifted_terms = set()
    for r in rulings:
        if freezing and r.infraction in freezing and is_frozen(r):
            out.any_frozen = True
            for player in _players_of(roster, r.subject):
                out.effects.setdefault((r.tournament, r.round, player), _Effects()).frozen = True
        for s in r.sanctions:
            if s.revoked:
                continue
            found = facts.get(s.kind)
            if found is None:
                kind = book.kind(s.kind)
                found = facts[s.kind] = (kind.tally == "points", kind.status,
                                         scoring.effects.get(s.kind))
            points, status, effect = found
            if status == "suspended" and (s.subject, r.event) in lifted_terms:
                status = None  # the disqualification it came with still stands
            if points:
                out.deductions[s.subject] = out.deductions.get(s.subject, 0) + (s.amount or 0)
            if status is not None:
                if status == "suspended" or out.status.get(s.subject) != "suspended":
                    out.status[s.subject] = status
                if r.round is not None:
                    key = (r.tournament, s.subject)
                    out.left[key] = min(out.left.get(key, r.round), r.round)
            if s.score is None and effect is None:
                continue
            round_ = _target_round(scoring, r, s.kind)
            for player in _players_of(roster, s.subject):
                e = out.effects.setdefault((r.tournament, round_, player), _Effects())
                if s.score is not None and e.fixed is None:
                    own, other = (int(x) for x in s.score.split("-"))
                    e.fixed = (own, other)
                if effect == "lose-game":
                    e.lose_games += 1
                elif effect == "lose-match":
                    e.lose_match = True
                elif effect == "void":
                    e.void = True
    return out


def _target_round(scoring: Scoring, r: Ruling, kind: str) -> int | None:
    """The round whose match a sanction of `kind` changes: its ruling's own, or the next one.

    A sanction the ruling says applies to the next match (`applies_to: next-match`: given
    between matches, made by stacking at the end of a match, or carried there by the judge,
    regulations.md §1.2 and §4 E8) changes the match of the next round, whatever the scoring
    says; `scoring.next_match` names the other rulings that do (a game loss given between
    matches applies to the next game, which is the next round's).
    """
    if r.round is None:
        return r.round
    if r.applies_to and r.applies_to.get(kind) == "next-match":
        return r.round + 1
    nxt = scoring.next_match
    if nxt is None:
        return r.round
    if r.cause in nxt.causes or any(r.details.get(d) for d in nxt.details):
        return r.round + 1
    return r.round


def _players_of(roster: Roster, subject: str) -> list[str]:
    """A sanction on a team acts on each of its players' matches."""
    return list(roster.teams[subject]) if subject in roster.teams else [subject]


def _counted(roster: Roster, results: list[tuple[Result, int]],
             read: _Rulings) -> list[tuple[Result, int, tuple[bool, bool]]]:
    """Results that count, each with whether it is the round's first match of each side.

    A result of a later round than the one in which a player (or their team) left the
    tournament counts for neither side.
    """
    out = []
    seen: set[Key] = set()
    see = seen.add
    left = read.left
    for result, t in results:
        if left and _after_leaving(roster, result, t, read):
            continue
        a, b = result.players
        rnd = result.round
        key_a, key_b = (t, rnd, a), (t, rnd, b)
        first_a = key_a not in seen
        see(key_a)
        first_b = key_b not in seen
        see(key_b)
        out.append((result, t, (first_a, first_b)))
    return out


def _after_leaving(roster: Roster, result: Result, t: int, read: _Rulings) -> bool:
    if result.round is None:
        return False
    for player in result.players:
        for subject in (player, roster.team_of.get(player)):
            left = read.left.get((t, subject)) if subject is not None else None
            if left is not None and result.round > left:
                return True
    return False


# ---------------------------------------------------------------------- points
def _points(scoring: Scoring, roster: Roster, results: list[tuple[Result, int]],
            read: _Rulings) -> dict[str, Any]:
    """Per player: place, games, game points, deductions, total; per team its place, the sums
    and card points; each table in the order of `scoring.order` (default: total)."""
    # every line begins with its place, set in table order (_placed)
    players: dict[str, dict[str, Any]] = {
        p: {"place": None, "games": 0, "game_points": 0,
            "deductions": read.deductions.get(p, 0)}
        for p in roster.players
    }
    for result, t, firsts in _counted(roster, results, read):
        a, b = result.players
        sa, sb = result.score
        ea = read.effects.get((t, result.round, a)) if firsts[0] else None
        eb = read.effects.get((t, result.round, b)) if firsts[1] else None
        if (ea is not None and ea.frozen) or (eb is not None and eb.frozen):
            continue  # frozen until a decision: it counts for neither side yet
        # a fixed game result (e.g. 0-20) given in a round replaces that round's score
        if ea is not None and ea.fixed is not None:
            sa, sb = ea.fixed
        elif eb is not None and eb.fixed is not None:
            sb, sa = eb.fixed
        for player, own in ((a, sa), (b, sb)):
            entry = players.setdefault(player, {"place": None, "games": 0, "game_points": 0,
                                                "deductions": read.deductions.get(player, 0)})
            entry["games"] += 1
            entry["game_points"] += own
    for entry in players.values():
        entry["total"] = entry["game_points"] + entry["deductions"]
    teams: dict[str, dict[str, Any]] = {}
    for team, members in roster.teams.items():
        game_points = sum(players[m]["game_points"] for m in members)
        member_deductions = sum(players[m]["deductions"] for m in members)
        card_points = read.deductions.get(team, 0)
        teams[team] = {
            "place": None,
            "game_points": game_points,
            "deductions": member_deductions,
            "card_points": card_points,
            "total": game_points + member_deductions + card_points,
        }
    keys = scoring.order or ["total"]

    def by_order(rows: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        return _placed(scoring, rows, read, lambda sid: tuple(-rows[sid][k] for k in keys))

    return {"players": by_order(players), "teams": by_order(teams)}


def _placed(scoring: Scoring, rows: dict[str, dict[str, Any]], read: _Rulings,
            key: Callable[[str], tuple[Any, ...]]) -> dict[str, dict[str, Any]]:
    """The lines in table order with their places (`_places`). Each line's first key is
    `place`; it is set here, in the line itself (a large open tournament's table is 100,000
    lines: no copy of each)."""
    out: dict[str, dict[str, Any]] = {}
    for sid, place in _places(scoring, rows, read, key):
        line = out[sid] = rows[sid]
        line["place"] = place
    return out


def _places(scoring: Scoring, subjects: Iterable[str], read: _Rulings,
            key: Callable[[str], Any]) -> Iterator[tuple[str, int | None]]:
    """The subjects in table order with their places: 1, 2, 3… by `key`, then by id (no
    shared place).

    A subject whose status the rulebook names in `scoring.unplaced` takes no place: it is
    listed after everyone placed (in the same order among themselves), `place: null`, and
    the places of the others close up.
    """
    # Which statuses lose their place is the rulebook's: 002 «Значение и сила пенальти» lets a
    # disqualified player keep the points and the prize of the place taken, while 003
    # «Дисквалификация команды», «с турнира/чемпионата» puts a disqualified team (fighter) out
    # of the tournament — no place at all rather than the last one, which is still a place
    # (and a prize place in a small field): marked and left out of the ranks.
    # by id, then by `key` (a stable sort keeps the ids' order among equal keys): the same
    # order as sorting by (key, id) at once, where a large open table's equal keys (most
    # players have the same points) made every comparison compare a tuple, then the ids in
    # it; each sort here compares values of one type, which Python does far faster
    order = sorted(subjects)
    order.sort(key=key)
    # the few subjects out of the ranks, found once, go after the others in the same order
    # (from the statuses given, a few, not from every line of a large table)
    unplaced = {sid for sid, status in read.status.items()
                if status in scoring.unplaced} if scoring.unplaced else set()
    if not unplaced:
        return zip(order, itertools.count(1))
    placed = [sid for sid in order if sid not in unplaced]
    return itertools.chain(zip(placed, itertools.count(1)),
                           ((sid, None) for sid in order if sid in unplaced))


# ---------------------------------------------------------------------- match points
COUNTS = ("matches", "wins", "draws", "losses", "annulled", "games_won", "games_lost",
          "match_points", "frozen")


BYE_GAMES = 2  # a bye is a match won 2-0 (the MTG tournament rules, which Swiss events follow)


def _match_points(scoring: Scoring, roster: Roster, results: list[tuple[Result, int]],
                  read: _Rulings, byes: Mapping[str, int]) -> dict[str, Any]:
    """Per player: matches, wins, draws, losses, annulled, games, match points, tiebreakers,
    place and status; per team the sums of its players, its place and status. A bye counts
    as a match won 2-0 with no opponent: in the player's own rates, in no one's opponents'."""
    # a line is a list of the COUNTS while results are added (a large open tournament has
    # thousands of them, each adding to two lines), a dict once made
    rows: dict[str, list[int]] = {p: [0] * len(COUNTS) for p in roster.players}
    for player, n in byes.items():
        row = rows.get(player)
        if row is not None and n:
            row[_MATCHES] += n
            row[_WINS] += n
            row[_WON] += BYE_GAMES * n
            row[_POINTS] += scoring.win * n
    opponents: dict[str, list[str]] = defaultdict(list)
    # Sonneborn–Berger needs whom each player beat and drew with: kept only when it is asked
    # for (a large open tournament's results each add to these, for nothing otherwise)
    track = any(tb.id == "sb" for tb in scoring.tiebreakers)
    beaten: dict[str, list[str]] = defaultdict(list)
    drawn: dict[str, list[str]] = defaultdict(list)
    points = {"win": scoring.win, "draw": scoring.draw, "loss": scoring.loss}
    win, draw, loss = scoring.win, scoring.draw, scoring.loss
    outcome_at = {"win": _WINS, "draw": _DRAWS, "loss": _LOSSES}
    effects, left = read.effects, read.left
    # the results that count, as _counted gives them, in one pass: whether a result is its
    # side's first match of the round matters only for a side the rulings change a match
    # of, so only those sides' rounds are remembered
    seen: set[Key] = set()
    for result, t in results:
        if left and _after_leaving(roster, result, t, read):
            continue
        a, b = result.players
        row_a = rows.get(a)
        if row_a is None:
            row_a = rows[a] = [0] * len(COUNTS)
        row_b = rows.get(b)
        if row_b is None:
            row_b = rows[b] = [0] * len(COUNTS)
        ea = eb = None
        if effects:  # most tournaments' rulings change no match at all
            key_a, key_b = (t, result.round, a), (t, result.round, b)
            ea, eb = effects.get(key_a), effects.get(key_b)
            if ea is not None:
                if key_a in seen:
                    ea = None
                seen.add(key_a)
            if eb is not None:
                if key_b in seen:
                    eb = None
                seen.add(key_b)
        if ea is None and eb is None:  # the match as reported
            opponents[a].append(b)
            opponents[b].append(a)
            ga, gb = result.score
            if ga > gb:
                row_a[_WINS] += 1
                row_b[_LOSSES] += 1
                row_a[_POINTS] += win
                row_b[_POINTS] += loss
                if track:
                    beaten[a].append(b)
            elif ga == gb:
                row_a[_DRAWS] += 1
                row_b[_DRAWS] += 1
                row_a[_POINTS] += draw
                row_b[_POINTS] += draw
                if track:
                    drawn[a].append(b)
                    drawn[b].append(a)
            else:
                row_a[_LOSSES] += 1
                row_b[_WINS] += 1
                row_a[_POINTS] += loss
                row_b[_POINTS] += win
                if track:
                    beaten[b].append(a)
            row_a[_MATCHES] += 1
            row_b[_MATCHES] += 1
            row_a[_WON] += ga
            row_a[_LOST] += gb
            row_b[_WON] += gb
            row_b[_LOST] += ga
            continue
        ea, eb = ea or _NONE, eb or _NONE
        if ea.frozen or eb.frozen:  # until a decision releases or annuls it (§4 E18)
            row_a[_FROZEN] += 1
            row_b[_FROZEN] += 1
            continue
        if ea.void or eb.void:
            row_a[_ANNULLED] += 1
            row_b[_ANNULLED] += 1
            continue
        opponents[a].append(b)
        opponents[b].append(a)
        ga, gb = result.score
        if ea.fixed is not None:
            ga, gb = ea.fixed
        elif eb.fixed is not None:
            gb, ga = eb.fixed
        else:
            # a game lost to a penalty is not in the reported score: the opponent wins it
            ga, gb = ga + eb.lose_games, gb + ea.lose_games
        if ea.lose_match or eb.lose_match:
            outcome_a = "loss" if ea.lose_match else "win"
            outcome_b = "loss" if eb.lose_match else "win"
        else:
            outcome_a = "win" if ga > gb else "draw" if ga == gb else "loss"
            outcome_b = "win" if gb > ga else "draw" if ga == gb else "loss"
        for row, outcome, won, lost in ((row_a, outcome_a, ga, gb), (row_b, outcome_b, gb, ga)):
            row[_MATCHES] += 1
            row[outcome_at[outcome]] += 1
            row[_WON] += won
            row[_LOST] += lost
            row[_POINTS] += points[outcome]
        if track:
            for player, other, outcome in ((a, b, outcome_a), (b, a, outcome_b)):
                if outcome == "win":
                    beaten[player].append(other)
                elif outcome == "draw":
                    drawn[player].append(other)
    breaks = _tiebreakers(scoring, rows, opponents, beaten, drawn)
    status = read.status
    # each player's place in the order, made once: match points, the tiebreakers (then the
    # id, _places)
    order: dict[str, Any]
    if scoring.tiebreakers:
        order = {p: (-row[_POINTS], *[-v for v in breaks[p].values()])
                 for p, row in rows.items()}
    else:  # most rulebooks have none: the points alone, a number
        order = {p: -row[_POINTS] for p, row in rows.items()}
    # the lines made in table order, each with its place (a large open table is 100,000s)
    frozen = read.any_frozen
    players = {p: _line(place, rows[p], breaks.get(p), status.get(p, "active"), frozen)
               for p, place in _places(scoring, rows, read, order.__getitem__)}
    sums: dict[str, list[int]] = {}
    for team, members in roster.teams.items():
        # the members' lines added column by column (zip and sum, not a loop per count)
        sums[team] = [sum(column) for column in zip(*(rows[m] for m in members if m in rows),
                                                    strict=True)] or [0] * len(COUNTS)
    teams = {t: _line(place, sums[t], None, status.get(t, "active"), frozen)
             for t, place in _places(scoring, sums, read, lambda t: -sums[t][_POINTS])}
    return {"players": players, "teams": teams}


def _line(place: int | None, counts: list[int], breaks: dict[str, float] | None,
          status: str, frozen: bool = False) -> dict[str, Any]:
    """A line of the match-points table: its place, the COUNTS, the tiebreakers, the
    status; `frozen` (fights held until a decision) only in a table that has any."""
    # written out, not zipped from COUNTS: a dict of constant keys is made at once
    line: dict[str, Any] = {
        "place": place, "matches": counts[_MATCHES], "wins": counts[_WINS],
        "draws": counts[_DRAWS], "losses": counts[_LOSSES], "annulled": counts[_ANNULLED],
        "games_won": counts[_WON], "games_lost": counts[_LOST],
        "match_points": counts[_POINTS]}
    if frozen:
        line["frozen"] = counts[_FROZEN]
    if breaks:
        line.update(breaks)
    line["status"] = status
    return line


# where each of the COUNTS is in a line being added up (_match_points)
_MATCHES, _WINS, _DRAWS, _LOSSES, _ANNULLED, _WON, _LOST, _POINTS, _FROZEN = range(len(COUNTS))
_NONE = _Effects()  # no effect: read only


def _tiebreakers(scoring: Scoring, rows: dict[str, list[int]],
                 opponents: dict[str, list[str]], beaten: dict[str, list[str]],
                 drawn: dict[str, list[str]]) -> dict[str, dict[str, float]]:
    """Each player's tiebreakers, in the rulebook's order (`rows`: the lines being added up,
    lists of the COUNTS; `beaten`, `drawn`: whom each player beat and drew with, kept only
    for `sb`); none without them (not an empty dict for each player)."""
    if not scoring.tiebreakers:
        return {}
    out: dict[str, dict[str, float]] = {p: {} for p in rows}
    for tb in scoring.tiebreakers:
        if tb.id == "omw":
            values = _omw(Fraction(tb.floor), scoring.win, rows, opponents)
        elif tb.id == "gw":
            values = _gw(rows)
        elif tb.id == "ogw":
            values = _ogw(Fraction(tb.floor), rows, opponents)
        elif tb.id == "buchholz":
            values = _buchholz(rows, opponents)
        else:
            values = _sb(rows, beaten, drawn)
        for p, value in values.items():
            out[p][tb.id] = value
    return out


def _omw(floor: Fraction, win: int, rows: dict[str, list[int]],
         opponents: dict[str, list[str]]) -> dict[str, float]:
    """The mean of the opponents' match-win rates (each at least `floor`), rounded half to
    even at 4 places, as `round(Fraction, 4)` does (`_mean_rate`). An opponent's rate is
    their match points over `win` × the matches they played (MTG tournament rules,
    opponents' match-win percentage)."""
    return _mean_rate(floor, {o: (rows[o][_POINTS], win * rows[o][_MATCHES])
                              for o in {o for opps in opponents.values() for o in opps}},
                      rows, opponents)


def _ogw(floor: Fraction, rows: dict[str, list[int]],
         opponents: dict[str, list[str]]) -> dict[str, float]:
    """The mean of the opponents' game-win rates (`_gw`'s, each at least `floor`), rounded
    as `_omw` (MTG tournament rules, opponents' game-win percentage). An opponent who played
    no game has the rate 0, so the floor."""
    rate: dict[str, tuple[int, int]] = {}
    for o in {o for opps in opponents.values() for o in opps}:
        won, played = rows[o][_WON], rows[o][_WON] + rows[o][_LOST]
        rate[o] = (won, played) if played else (0, 1)
    return _mean_rate(floor, rate, rows, opponents)


def _mean_rate(floor: Fraction, rate: dict[str, tuple[int, int]], rows: dict[str, list[int]],
               opponents: dict[str, list[str]]) -> dict[str, float]:
    """Each player's mean over their opponents (one term per match) of the opponents'
    `rate`s, each at least `floor`, rounded half to even at 4 places; 0 with no opponent.
    Exact: each opponent's rate is one fraction, taken once, and a player's sum is of whole
    numbers over their common denominator (a Fraction per game would take most of a large
    tournament's time). A rate is kept as its numerator and denominator, unreduced (the same
    value: a few distinct denominators, one per number of matches played), and compared with
    the floor across."""
    low, high = floor.numerator, floor.denominator
    rate = {o: (low, high) if num * high < low * den else (num, den)
            for o, (num, den) in rate.items()}
    common = math.lcm(*{den for _num, den in rate.values()})
    scaled = {o: num * (common // den) for o, (num, den) in rate.items()}
    out: dict[str, float] = {}
    for p in rows:
        opps = opponents.get(p)
        out[p] = _rounded(sum(map(scaled.__getitem__, opps)), common * len(opps)) \
            if opps else 0.0
    return out


def _gw(rows: dict[str, list[int]]) -> dict[str, float]:
    """The player's game-win rate: games won of games played (won and lost: a result is
    the games each side won, so no game is drawn), rounded as `_omw`; 0 with no game. The
    MTG tournament rules' game-win percentage, which has no floor for the player's own."""
    return {p: _rounded(row[_WON], row[_WON] + row[_LOST]) if row[_WON] + row[_LOST] else 0.0
            for p, row in rows.items()}


def _buchholz(rows: dict[str, list[int]], opponents: dict[str, list[str]]) -> dict[str, float]:
    """Buchholz (FIDE tie-break regulations): the sum of the match points of the opponents
    of each counted match (an opponent met twice counts twice), a whole number."""
    return {p: sum(rows[o][_POINTS] for o in opponents.get(p, ())) for p in rows}


def _sb(rows: dict[str, list[int]], beaten: dict[str, list[str]],
        drawn: dict[str, list[str]]) -> dict[str, float]:
    """Sonneborn–Berger (FIDE tie-break regulations): the match points of each opponent
    beaten, and half those of each opponent drawn with — a whole number, or one and a half
    (kept whole when it is: exact, no rounding needed)."""
    out: dict[str, float] = {}
    for p in rows:
        twice = 2 * sum(rows[o][_POINTS] for o in beaten.get(p, ())) + \
            sum(rows[o][_POINTS] for o in drawn.get(p, ()))
        out[p] = twice // 2 if twice % 2 == 0 else twice / 2
    return out


def _rounded(num: int, den: int) -> float:
    """num / den rounded half to even at 4 places, exactly (as `round(Fraction, 4)`)."""
    whole, rest = divmod(num * SHIFT, den)
    if 2 * rest > den or (2 * rest == den and whole % 2):
        whole += 1
    return whole / SHIFT


SHIFT = 10**4  # the tiebreakers' 4 decimal places
