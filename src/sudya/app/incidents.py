"""Incidents reported for a judge who may rule: a junior judge (who gives no penalty) writes
what happened at a table; it waits on the head judge's dashboard until a judge who may rule
settles it — by the ruling recorded for it, or without a penalty. The report is not a ledger
event: the ruling, when there is one, is recorded as any other and named on the report.
"""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.people import display_names
from sudya.app.views import IncidentView

MAX_TEXT = 2000  # the account, as the record form's incident note
MAX_NOTE = 1000
MAX_TABLE = 100_000
MAX_ROUND = 1000



def _text(value: str, field: str, most: int, required: bool) -> str:
    value = value.strip()
    if required and not value:
        raise LedgerError("value.required", field=field)
    if len(value) > most:
        raise LedgerError("text.too-long", field=field, max=most)
    if any((ord(ch) < 32 and ch not in "\t\n\r") or ord(ch) == 127 for ch in value):
        raise LedgerError("text.control-characters", field=field)
    return value


def _view(row: m.IncidentReport, names: dict[str, str]) -> IncidentView:
    filed = m.aware(row.created_at)
    assert filed is not None
    return IncidentView(id=row.id, subject=row.subject, name=names.get(row.subject, row.subject),
                        table=row.table_no, round=row.round, text=row.text,
                        filed_by=row.created_by, filed_at=filed,
                        settled_at=m.aware(row.settled_at), settled_by=row.settled_by,
                        event=row.event_ext_id, note=row.settled_note or "")


def file_incident(ledger: Ledger, *, tournament: int, subject: str, text: str,
                  table: int | None = None, round: int | None = None,
                  idempotency_key: str | None = None, actor: Actor | None = None) -> int:
    """Report an incident about a player (or team) of the tournament; returns its id. The same
    idempotency key again returns the first report's id and files nothing new."""
    actor = actor or Actor()
    subject = _text(subject, "subject", 100, True)
    text = _text(text, "text", MAX_TEXT, True)
    if table is not None and not 0 < table <= MAX_TABLE:
        raise LedgerError("table.out-of-range", field="table")
    if round is not None and not 0 <= round <= MAX_ROUND:
        raise LedgerError("value.between", field="round", least=0, most=MAX_ROUND)
    try:
        with ledger.uow().begin() as s:
            if idempotency_key:
                done = s.scalar(select(m.IncidentReport.id).where(
                    m.IncidentReport.idempotency_key == idempotency_key))
                if done is not None:
                    return int(done)
            if s.get(m.Tournament, tournament) is None:
                raise LedgerError("tournament.unknown", field="tournament",
                                  tournament=tournament)
            if subject not in display_names(s, tournament=tournament):
                raise LedgerError("incident.unknown-subject", field="subject", subject=subject)
            row = m.IncidentReport(tournament_id=tournament, subject=subject, table_no=table,
                                   round=round, text=text, idempotency_key=idempotency_key,
                                   created_by=actor.name, request_id=actor.request_id)
            s.add(row)
            s.flush()
            return int(row.id)
    except IntegrityError:  # the same key at the same moment: the first one stands
        with ledger.factory() as s:
            done = s.scalar(select(m.IncidentReport.id).where(
                m.IncidentReport.idempotency_key == idempotency_key))
        if done is None:
            raise
        return int(done)


def incidents(s: Session, *, tournament: int) -> list[IncidentView]:
    """The tournament's reports: those waiting, the oldest first, then the settled ones, the
    latest settled first."""
    names = display_names(s, tournament=tournament)
    rows = list(s.scalars(select(m.IncidentReport)
                          .where(m.IncidentReport.tournament_id == tournament)
                          .order_by(m.IncidentReport.id)))
    waiting = [_view(r, names) for r in rows if r.settled_at is None]
    settled = sorted((_view(r, names) for r in rows if r.settled_at is not None),
                     key=lambda v: (v.settled_at or v.filed_at, v.id), reverse=True)
    return waiting + settled


def waiting(s: Session, *, tournament: int) -> int:
    """How many reports of the tournament no judge has settled yet."""
    return int(s.scalar(select(func.count()).select_from(m.IncidentReport).where(
        m.IncidentReport.tournament_id == tournament,
        m.IncidentReport.settled_at.is_(None))) or 0)


def rulings_about(s: Session, *, tournament: int, subject: str) -> list[str]:
    """The infraction events of the tournament with a ruling about `subject`, the latest
    first: what a report about them can be settled by."""
    rows = s.execute(select(m.Event.ext_id, m.Event.seq)
                     .join(m.Ruling, m.Ruling.event_id == m.Event.id)
                     .where(m.Event.tournament_id == tournament, m.Event.kind == "infraction",
                            m.Ruling.subject == subject)
                     .distinct().order_by(m.Event.seq.desc()))
    return [ext for ext, _seq in rows]


def settle_incident(ledger: Ledger, *, tournament: int, incident: int,
                    event: str | None = None, note: str = "",
                    actor: Actor | None = None) -> IncidentView:
    """Settle a report: by the ruling recorded for it (`event`, an infraction event about its
    subject) or, with no event, without a penalty. Settled again the same way: the same
    answer (a double tap); another way: refused."""
    actor = actor or Actor()
    note = _text(note, "note", MAX_NOTE, False)
    event = (event or "").strip() or None
    with ledger.uow().begin() as s:
        row = s.get(m.IncidentReport, incident, with_for_update=True) \
            if 0 < incident <= 2**31 - 1 else None
        if row is None or row.tournament_id != tournament:
            raise LedgerError("incident.unknown", field="incident", incident=incident)
        names = display_names(s, tournament=tournament)
        if row.settled_at is not None:
            if row.event_ext_id == event and (row.settled_note or "") == note:
                return _view(row, names)
            raise LedgerError("incident.settled", field="incident", incident=incident,
                              by=row.settled_by or "")
        if event is not None and event not in rulings_about(s, tournament=tournament,
                                                            subject=row.subject):
            raise LedgerError("incident.not-a-ruling", field="event", event=event,
                              subject=row.subject)
        row.settled_at = m.now()
        row.settled_by = actor.name
        row.event_ext_id = event
        row.settled_note = note
        s.flush()
        return _view(row, names)


__all__ = ["file_incident", "incidents", "waiting", "rulings_about", "settle_incident",
           "MAX_TEXT", "MAX_NOTE"]
