"""Standings from game results and rulings, scored the way the rulebook says."""

from __future__ import annotations

from typing import Any

from sudya.engine.model import Result, Roster, Ruling
from sudya.rulebooks.schema import Rulebook


def standings(book: Rulebook, roster: Roster, rulings: list[Ruling],
              results: list[tuple[Result, int]], always: bool = False) -> dict[str, Any] | None:
    """Per player and per team: game points, deductions, card points, totals."""
    scoring = book.scoring
    if scoring is None or (not results and not always):
        return None
    # a fixed game result (e.g. 0-20) given in a round replaces that round's score
    fixed: dict[tuple[int, int | None, str], tuple[int, int]] = {}
    deductions: dict[str, int] = {}
    for r in rulings:
        for s in r.sanctions:
            if s.revoked:
                continue
            if s.score is not None:
                own, other = (int(x) for x in s.score.split("-"))
                fixed[(r.tournament, r.round, s.subject)] = (own, other)
            if book.kind(s.kind).tally == "points":
                deductions[s.subject] = deductions.get(s.subject, 0) + (s.amount or 0)
    players: dict[str, dict[str, Any]] = {
        p: {"games": 0, "game_points": 0, "deductions": deductions.get(p, 0)}
        for p in roster.players
    }
    for result, tournament in results:
        a, b = result.players
        sa, sb = result.score
        if (tournament, result.round, a) in fixed:
            sa, sb = fixed[(tournament, result.round, a)]
        elif (tournament, result.round, b) in fixed:
            sb, sa = fixed[(tournament, result.round, b)]
        for player, own, other in ((a, sa, sb), (b, sb, sa)):
            entry = players[player]
            entry["games"] += 1
            if scoring.kind == "points":
                entry["game_points"] += own
            else:
                entry["game_points"] += (scoring.win if own > other else
                                         scoring.draw if own == other else scoring.loss)
    for entry in players.values():
        entry["total"] = entry["game_points"] + entry["deductions"]
    teams: dict[str, dict[str, Any]] = {}
    for team, members in roster.teams.items():
        game_points = sum(players[m]["game_points"] for m in members)
        member_deductions = sum(players[m]["deductions"] for m in members)
        card_points = deductions.get(team, 0)
        teams[team] = {
            "game_points": game_points,
            "deductions": member_deductions,
            "card_points": card_points,
            "total": game_points + member_deductions + card_points,
        }
    return {"players": players, "teams": teams}
