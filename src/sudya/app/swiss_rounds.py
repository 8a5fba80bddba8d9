"""Swiss rounds paired by Sudya (issue 36): the next round's tables from the standings, the
results and the byes so far (domain.swiss), stored as the round's pairings — the same rows an
imported CSV makes, so the dashboard's tables, the slips and the results follow — and its bye.

A round may be paired again until its first result is entered; a dropped player is never
paired after the round they dropped after; a bye counts as a won match of the round (its
player is given the tournament's points for a win), as card-game Swiss events count it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.common import Actor, LedgerError
from sudya.app.ledger import Ledger
from sudya.app.queries import tournament_standings
from sudya.app.readback import tournament_results
from sudya.app.views import PairedRoundView, PairingRowView
from sudya.domain import swiss

MAX_ROUND = 100


def byes(s: Session, tournament: int, before: int | None = None) -> dict[str, list[int]]:
    """player -> the rounds they had the bye in (before round `before`)."""
    query = select(m.RoundBye.player, m.RoundBye.round).where(
        m.RoundBye.tournament_id == tournament)
    if before is not None:
        query = query.where(m.RoundBye.round < before)
    out: dict[str, list[int]] = {}
    for player, rnd in s.execute(query.order_by(m.RoundBye.round)):
        out.setdefault(player, []).append(rnd)
    return out


def entrants(s: Session, tournament: int, round: int) -> list[swiss.Entrant]:
    """Everyone registered, as the pairing sees them before `round`: points and place from the
    standings, opponents from the results that count, byes, and who dropped or left."""
    t = s.get(m.Tournament, tournament)
    assert t is not None
    table = tournament_standings(s, tournament)["players"]
    # who met whom: the results entered, and the tables of the earlier rounds (a table
    # decided by a penalty, or whose result is not entered yet, was a meeting all the same)
    met: dict[str, set[str]] = {}
    pairs = [r.players for r, _position in tournament_results(s, t)
             if r.round is None or r.round < round]
    pairs += s.execute(select(m.Pairing.player_a, m.Pairing.player_b).where(
        m.Pairing.tournament_id == tournament, m.Pairing.round < round)).tuples().all()
    for a, b in pairs:
        met.setdefault(a, set()).add(b)
        met.setdefault(b, set()).add(a)
    had = byes(s, tournament, before=round)
    dropped = {h for h, after in s.execute(
        select(m.Person.handle, m.Entry.dropped_after)
        .join(m.Entry, m.Entry.person_id == m.Person.id)
        .where(m.Entry.tournament_id == tournament, m.Entry.dropped_after.is_not(None)))
        if after < round}
    out = []
    for rank, (handle, line) in enumerate(table.items(), start=1):
        out.append(swiss.Entrant(
            handle=handle, points=int(line.get("match_points") or 0), rank=rank,
            opponents=frozenset(met.get(handle, ())), byes=len(had.get(handle, ())),
            # who left the tournament (a disqualification) takes no place: never paired
            dropped=handle in dropped or line.get("place", rank) is None))
    return out


def _clear_round(s: Session, tournament: int, round: int) -> None:
    """Lock the tournament (its row is the pairing's lock, as an imported round's), refuse a
    round that has a result, and take away what the round had: its tables and its bye (its
    own bye is no point of the standings it is paired from)."""
    if s.get(m.Tournament, tournament, with_for_update=True) is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    if s.scalar(select(func.count()).select_from(m.Result).where(
            m.Result.tournament_id == tournament, m.Result.round == round)):
        raise LedgerError("pairing.round-has-results", field="round", round=round)
    s.execute(delete(m.Pairing).where(m.Pairing.tournament_id == tournament,
                                      m.Pairing.round == round))
    s.execute(delete(m.RoundBye).where(m.RoundBye.tournament_id == tournament,
                                       m.RoundBye.round == round))


def _store_round(s: Session, tournament: int, round: int, tables: Iterable[swiss.Pairing],
                 bye: str | None, actor: Actor) -> None:
    """The round's tables and bye, stamped with who paired them."""
    stamp: dict[str, Any] = {"created_at": m.now(), "created_by": actor.name,
                             "request_id": actor.request_id}
    s.add_all(m.Pairing(tournament_id=tournament, round=round, table_no=p.table,
                        player_a=p.a, player_b=p.b, **stamp) for p in tables)
    if bye is not None:
        s.add(m.RoundBye(tournament_id=tournament, round=round, player=bye, **stamp))


def pair(ledger: Ledger, *, tournament: int, round: int, seed: int | None,
         actor: Actor) -> PairedRoundView:
    """Pair `round` (again, while it has no result) and store it in place of what it had."""
    if not 1 <= round <= MAX_ROUND:
        raise LedgerError("value.between", field="round", least=1, most=MAX_ROUND)
    with ledger.uow().begin() as s:
        _clear_round(s, tournament, round)
        field = entrants(s, tournament, round)
        if sum(not e.dropped for e in field) < 2:
            raise LedgerError("pairing.too-few", field="round", count=len(field))
        made = swiss.pair_round(field, seed=seed if seed is not None else tournament * 1000 + round)
        _store_round(s, tournament, round, made.tables, made.bye, actor)
    return PairedRoundView(
        round=round, bye=made.bye,
        tables=[PairingRowView(table=p.table, a=p.a, b=p.b) for p in made.tables],
        warnings=[(n.code, list(n.handles)) for n in made.warnings])


def cut(ledger: Ledger, *, tournament: int, round: int, size: int,
        actor: Actor) -> PairedRoundView:
    """The first round of the top cut: the `size` best of the standings, still playing, in
    the standard bracket (domain.swiss.top_cut), stored as the round's pairings."""
    if size not in (2, 4, 8):
        raise LedgerError("pairing.cut-size", field="size", size=size)
    with ledger.uow().begin() as s:
        _clear_round(s, tournament, round)
        ranked = [e.handle for e in entrants(s, tournament, round) if not e.dropped]
        if len(ranked) < size:
            raise LedgerError("pairing.too-few", field="round", count=len(ranked))
        tables = swiss.top_cut(ranked, size)  # type: ignore[arg-type]
        _store_round(s, tournament, round, tables, None, actor)
    return PairedRoundView(round=round, tables=[PairingRowView(table=p.table, a=p.a, b=p.b)
                                                for p in tables])


def drop(ledger: Ledger, *, tournament: int, player: str, after: int | None) -> None:
    """A player drops after round `after` (None: re-entered, paired again)."""
    with ledger.uow().begin() as s:
        entry = s.scalar(select(m.Entry).join(m.Person, m.Person.id == m.Entry.person_id)
                         .where(m.Entry.tournament_id == tournament, m.Person.handle == player))
        if entry is None:
            raise LedgerError("scope.not-entered", field="player", handle=player,
                              tournament=str(tournament))
        entry.dropped_after = after


def dropped(s: Session, tournament: int) -> dict[str, int]:
    """player -> the round they dropped after."""
    return {h: after for h, after in s.execute(
        select(m.Person.handle, m.Entry.dropped_after)
        .join(m.Entry, m.Entry.person_id == m.Person.id)
        .where(m.Entry.tournament_id == tournament, m.Entry.dropped_after.is_not(None))
        .order_by(m.Person.handle))}


def seated_at(s: Session, tournament: int, round: int, table: int) -> tuple[str, str] | None:
    """The two sides of a round's table (None: no such table in the round's pairings)."""
    row = s.execute(select(m.Pairing.player_a, m.Pairing.player_b).where(
        m.Pairing.tournament_id == tournament, m.Pairing.round == round,
        m.Pairing.table_no == table)).first()
    return (row.player_a, row.player_b) if row is not None else None
