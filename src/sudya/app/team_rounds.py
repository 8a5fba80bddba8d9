"""The captains' matchups of a team round (issue 36): at each team table of a round's
pairings, who of each team plays whom, in the order the captains matched them, and which side
defended where the format has a defender. Entered by a judge, checked, not paired by Sudya.

The checks: the table is a team table of the round; each game has a player of the table's
first team and one of the second; nobody plays twice; both teams are complete — every player
of each team plays, or of the smaller one when the other has a reserve, as many games as
that. A table's games are replaced as a whole, until one of them has its result.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, or_, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.common import Actor, LedgerError
from sudya.app.ledger import Ledger
from sudya.app.views import GameView
from sudya.domain.commands import Game


def team_members(s: Session, tournament: int, team: str) -> list[str]:
    """The players of a team in this tournament, in the order they entered."""
    return list(s.scalars(
        select(m.Person.handle).join(m.Entry, m.Entry.person_id == m.Person.id)
        .join(m.Team, m.Team.id == m.Entry.team_id)
        .where(m.Entry.tournament_id == tournament, m.Team.handle == team)
        .order_by(m.Entry.id)))


def check(games: list[Game], first: list[str], second: list[str]) -> None:
    """Refuse games that do not seat both teams once and completely (the module's rules),
    naming the game's field (`games.N.a`)."""
    seen: set[str] = set()
    for n, game in enumerate(games):
        for side, handle, team in (("a", game.a, first), ("b", game.b, second)):
            if handle not in team:
                raise LedgerError("matchup.not-in-team", field=f"games.{n}.{side}",
                                  handle=handle, game=n + 1)
            if handle in seen:
                raise LedgerError("matchup.twice", field=f"games.{n}.{side}",
                                  handle=handle, game=n + 1)
            seen.add(handle)
    size = min(len(first), len(second))
    if len(games) != size:
        missing = [h for h in (first if len(first) == size else second) if h not in seen]
        raise LedgerError("matchup.incomplete", field="games", size=size,
                          count=len(games), missing=", ".join(missing))


def set_games(ledger: Ledger, *, tournament: int, round: int, table: int,
              games: list[Game], actor: Actor) -> list[GameView]:
    """Store a team table's games in place of what it had (checked first)."""
    with ledger.uow().begin() as s:
        # the tournament's row is the round's lock, as for its pairings
        if s.get(m.Tournament, tournament, with_for_update=True) is None:
            raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
        pairing = s.scalar(select(m.Pairing).where(
            m.Pairing.tournament_id == tournament, m.Pairing.round == round,
            m.Pairing.table_no == table))
        if pairing is None:
            raise LedgerError("matchup.no-table", field="table", table=table, round=round)
        first = team_members(s, tournament, pairing.player_a)
        second = team_members(s, tournament, pairing.player_b)
        if not first or not second:
            raise LedgerError("matchup.not-teams", field="table", table=table, round=round)
        check(games, first, second)
        players = first + second
        if s.scalar(select(func.count()).select_from(m.Result).where(
                m.Result.tournament_id == tournament, m.Result.round == round,
                or_(m.Result.player_a.in_(players), m.Result.player_b.in_(players)))):
            raise LedgerError("matchup.has-results", field="table", table=table, round=round)
        s.execute(delete(m.Matchup).where(m.Matchup.tournament_id == tournament,
                                          m.Matchup.round == round, m.Matchup.table_no == table))
        stamp: dict[str, Any] = {"created_at": m.now(), "created_by": actor.name,
                                 "request_id": actor.request_id}
        s.add_all(m.Matchup(tournament_id=tournament, round=round, table_no=table, game=n,
                            player_a=g.a, player_b=g.b, defender=g.defender, **stamp)
                  for n, g in enumerate(games, start=1))
    return [GameView(game=n, a=g.a, b=g.b, defender=g.defender)
            for n, g in enumerate(games, start=1)]


def round_games(s: Session, *, tournament: int, round: int) -> dict[int, list[GameView]]:
    """table -> the games the captains matched at it in `round`, in their order."""
    out: dict[int, list[GameView]] = {}
    for row in s.scalars(select(m.Matchup).where(
            m.Matchup.tournament_id == tournament, m.Matchup.round == round)
            .order_by(m.Matchup.table_no, m.Matchup.game)):
        out.setdefault(row.table_no, []).append(GameView(
            game=row.game, a=row.player_a, b=row.player_b, defender=row.defender))
    return out
