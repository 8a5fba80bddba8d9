"""Players report their own results (issue 36: «the player's own result entry with the
opponent's confirmation is a tournament setting»): with the plan's `self_report` on, a player
seated in a round reports their match's score; the opponent confirms it — then it is entered
in the ledger as a scorekeeper would enter it, under the opponent's name — or disputes it,
and a judge enters it. A judge or the scorekeeper may enter any result meanwhile; a report
whose match has a result is moot and is no longer shown.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.common import Actor, LedgerError
from sudya.app.ledger import Ledger
from sudya.app.readback import tournament_results
from sudya.app.views import MyMatchView, ReportView
from sudya.domain import commands as c
from sudya.domain.plan import Plan


def _seat(s: Session, tournament: int, round: int, person: str | None
          ) -> tuple[m.Tournament, m.Pairing]:
    """The tournament (one whose plan lets players report) and the person's table in
    `round`; refused otherwise."""
    t = s.get(m.Tournament, tournament)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    if not Plan.model_validate(t.plan or {}).self_report:
        raise LedgerError("self-report.off", field="round")
    if person is None:
        raise LedgerError("self-report.not-a-player", field="round")
    seat = s.scalar(select(m.Pairing).where(
        m.Pairing.tournament_id == tournament, m.Pairing.round == round,
        (m.Pairing.player_a == person) | (m.Pairing.player_b == person)))
    if seat is None:
        raise LedgerError("self-report.not-seated", field="round", round=round)
    return t, seat


def _entered(s: Session, t: m.Tournament, round: int, pair: tuple[str, str]
             ) -> tuple[int, int] | None:
    """The score entered for the pair in the round (the pair's first side's games first)."""
    for r, _t in tournament_results(s, t):
        if r.round == round and set(r.players) == set(pair):
            return r.score if r.players[0] == pair[0] else (r.score[1], r.score[0])
    return None


def report(ledger: Ledger, *, tournament: int, cmd: c.ReportResult, person: str | None,
           actor: Actor) -> None:
    """Store the player's report for their table (in place of an earlier one)."""
    with ledger.uow().begin() as s:
        t, seat = _seat(s, tournament, cmd.round, person)
        if _entered(s, t, cmd.round, (seat.player_a, seat.player_b)) is not None:
            raise LedgerError("self-report.entered", field="score", round=cmd.round)
        mine, theirs = cmd.score
        score = (mine, theirs) if seat.player_a == person else (theirs, mine)
        s.execute(delete(m.ResultReport).where(
            m.ResultReport.tournament_id == tournament, m.ResultReport.round == cmd.round,
            m.ResultReport.table_no == seat.table_no))
        stamp: dict[str, Any] = {"created_at": m.now(), "created_by": actor.name,
                                 "request_id": actor.request_id}
        assert person is not None
        s.add(m.ResultReport(tournament_id=tournament, round=cmd.round, table_no=seat.table_no,
                             reporter=person, score_a=score[0], score_b=score[1], **stamp))


def confirm(ledger: Ledger, *, tournament: int, cmd: c.ConfirmResult, person: str | None,
            actor: Actor) -> tuple[str, str, tuple[int, int]] | None:
    """The opponent's answer: agreed, the result to enter (players, score); disputed, the
    report is marked so (None)."""
    with ledger.uow().begin() as s:
        _t, seat = _seat(s, tournament, cmd.round, person)
        row = s.scalar(select(m.ResultReport).where(
            m.ResultReport.tournament_id == tournament, m.ResultReport.round == cmd.round,
            m.ResultReport.table_no == seat.table_no))
        if row is None:
            raise LedgerError("self-report.none", field="round", round=cmd.round)
        if row.reporter == person:
            raise LedgerError("self-report.own", field="agree")
        if not cmd.agree:
            row.disputed = True
            return None
        return seat.player_a, seat.player_b, (row.score_a, row.score_b)


def settle(ledger: Ledger, *, tournament: int, round: int, pair: tuple[str, str]) -> None:
    """The report of a match whose result is entered goes."""
    with ledger.uow().begin() as s:
        table = s.scalar(select(m.Pairing.table_no).where(
            m.Pairing.tournament_id == tournament, m.Pairing.round == round,
            m.Pairing.player_a == pair[0], m.Pairing.player_b == pair[1]))
        if table is not None:
            s.execute(delete(m.ResultReport).where(
                m.ResultReport.tournament_id == tournament, m.ResultReport.round == round,
                m.ResultReport.table_no == table))


def my_match(s: Session, *, tournament: int, round: int, person: str) -> MyMatchView | None:
    """The person's match of the round (None: not seated in it)."""
    t = s.get(m.Tournament, tournament)
    seat = s.scalar(select(m.Pairing).where(
        m.Pairing.tournament_id == tournament, m.Pairing.round == round,
        (m.Pairing.player_a == person) | (m.Pairing.player_b == person))) if t else None
    if t is None or seat is None:
        return None
    first = seat.player_a == person
    opponent = seat.player_b if first else seat.player_a

    def mine(score: tuple[int, int] | None) -> tuple[int, int] | None:
        return score if score is None or first else (score[1], score[0])

    entered = _entered(s, t, round, (seat.player_a, seat.player_b))
    row = None if entered is not None else s.scalar(select(m.ResultReport).where(
        m.ResultReport.tournament_id == tournament, m.ResultReport.round == round,
        m.ResultReport.table_no == seat.table_no))
    name = s.scalar(select(m.Person.name).where(m.Person.handle == opponent))
    return MyMatchView(
        round=round, table=seat.table_no, opponent=opponent, opponent_name=name or opponent,
        entered=mine(entered), reported=mine((row.score_a, row.score_b)) if row else None,
        reported_by_me=row is not None and row.reporter == person,
        disputed=row is not None and row.disputed)


def round_reports(s: Session, *, tournament: int, round: int) -> dict[int, ReportView]:
    """table -> the result reported for it in the round (moot where a result is entered:
    the pages show that first)."""
    return {row.table_no: ReportView(table=row.table_no, reporter=row.reporter,
                                     score_a=row.score_a, score_b=row.score_b,
                                     disputed=row.disputed)
            for row in s.scalars(select(m.ResultReport).where(
                m.ResultReport.tournament_id == tournament, m.ResultReport.round == round))}
