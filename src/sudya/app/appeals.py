"""Appeals: who appealed which ruling (a request), and the head judge's decision on it.

The decision itself is a ledger event (`Ledger.appeal`); a request only records that a
player appealed and why. Whether a request is decided, and how, is read from the ledger's
appeal events, so the two can never disagree.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.changes import APPEAL_REQUEST, Change, note
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.readback import tournament_rulings
from sudya.domain.rulebook import loader

# rulings that are themselves the outcome of something else cannot be appealed on their own
NOT_APPEALABLE = ("appeal", "cancellation", "decision", "correction", "stacking",
                  "conversion", "accumulation")
REVOKING = ("appeal", "cancellation", "correction")


def _tournament(s: Session, tournament_id: int) -> m.Tournament:
    t = s.get(m.Tournament, tournament_id)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament_id)
    return t


def appeal_decisions(s: Session, tournament_id: int) -> dict[str, dict[str, Any]]:
    """The appealed event id -> the decision on it (outcome, judge, choice, when, who)."""
    t = _tournament(s, tournament_id)
    out: dict[str, dict[str, Any]] = {}
    for ev in s.scalars(select(m.Event).where(m.Event.series_id == t.series_id,
                                              m.Event.kind == "appeal")
                        .order_by(m.Event.seq)):
        p = ev.payload
        out[p["of"]] = {"event": ev.ext_id, "of": p["of"], "outcome": p["outcome"],
                        "judge": p.get("judge"), "choice": p.get("choice"),
                        "at": ev.created_at, "by": ev.created_by}
    return out


def under_appeal(s: Session, *, tournament: int, subject: str, infractions: Collection[str],
                 series_wide: bool = False) -> list[str]:
    """The events of the subject's rulings on these infractions that were appealed and are
    not decided yet (what a repeat counts may still be overturned): in this tournament, or
    with `series_wide` in every tournament of its series; in series order."""
    t = _tournament(s, tournament)
    query = (select(m.Ruling.event_ext_id)
             .join(m.AppealRequest, (m.AppealRequest.tournament_id == m.Ruling.tournament_id)
                   & (m.AppealRequest.event_ext_id == m.Ruling.event_ext_id))
             .where(m.Ruling.series_id == t.series_id, m.Ruling.subject == subject,
                    m.Ruling.infraction.in_(list(infractions)))
             .order_by(m.Ruling.position))
    if not series_wide:
        query = query.where(m.Ruling.tournament_id == tournament)
    events = list(dict.fromkeys(s.scalars(query)))
    if not events:
        return []
    decided = appeal_decisions(s, tournament)
    return [e for e in events if e not in decided]


def appealable(s: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Standing rulings of the tournament an appeal can still be made against.

    Each is marked `final` when the judge who gave it holds a role whose rulings are final
    (the rulebook's roles); such rulings are listed so a page can say why they can't be
    appealed.
    """
    t = _tournament(s, tournament_id)
    book = loader.load(t.series.rulebook, t.edition)
    if book.appeals is None:
        return []
    rulings = tournament_rulings(s, t)
    # an event of this tournament may be revoked by a record of a later one: looked up by
    # the events (an index), not by reading the series' rulings
    revoked = set(s.scalars(select(m.Ruling.revokes).where(
        m.Ruling.series_id == t.series_id, m.Ruling.cause.in_(REVOKING),
        m.Ruling.revokes.in_({r.event for r in rulings})))) if rulings else set()
    decided = appeal_decisions(s, tournament_id)
    staff = {handle: role for handle, role in s.execute(
        select(m.Staff.handle, m.Staff.role).where(m.Staff.tournament_id == t.id))}
    out = []
    for r in rulings:
        if (r.tournament != t.position or not r.infraction or r.cause in NOT_APPEALABLE
                or r.event in revoked or r.event in decided):
            continue
        role = book.roles.get(staff.get(r.judge or "", ""))
        out.append({"ruling": r, "event": r.event, "subject": r.subject,
                    "final": role is not None and role.final,
                    "judge_role": staff.get(r.judge or "")})
    return out


def requests(s: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every appeal request of the tournament, with the decision on it when there is one."""
    decided = appeal_decisions(s, tournament_id)
    rows = s.scalars(select(m.AppealRequest).where(
        m.AppealRequest.tournament_id == tournament_id).order_by(m.AppealRequest.id))
    return [{"id": a.id, "event": a.event_ext_id, "appellant": a.appellant,
             "reason": a.reason, "at": a.created_at, "by": a.created_by,
             "decision": decided.get(a.event_ext_id)} for a in rows]


def waiting(s: Session, tournament_id: int) -> int:
    """How many appeal requests of the tournament the head judge has not decided yet."""
    return sum(1 for a in requests(s, tournament_id) if a["decision"] is None)


def file_appeal(ledger: Ledger, *, tournament: int, event: str, appellant: str,
                reason: str = "", idempotency_key: str | None = None,
                actor: Actor | None = None) -> int:
    """Record that a player appeals the rulings of `event`; returns the request's id."""
    actor = actor or Actor()
    reason = reason.strip()
    if len(reason) > 1000:
        raise LedgerError("text.too-long", field="reason", max=1000)
    try:
        with ledger.uow().begin() as s:
            if idempotency_key:
                done = s.scalar(select(m.AppealRequest.id).where(
                    m.AppealRequest.idempotency_key == idempotency_key))
                if done is not None:
                    return int(done)
            targets = [a for a in appealable(s, tournament) if a["event"] == event]
            if not targets:
                raise LedgerError("event.nothing-to-appeal", field="event",
                                  event=event)
            if any(a["final"] for a in targets):
                raise LedgerError("appeal.final", field="event", event=event,
                                  role=targets[0]["judge_role"])
            if appellant not in {a["subject"] for a in targets}:
                raise LedgerError("appeal.not-subject", field="appellant",
                                  appellant=appellant)
            if s.scalar(select(m.AppealRequest.id).where(
                    m.AppealRequest.tournament_id == tournament,
                    m.AppealRequest.event_ext_id == event)) is not None:
                raise LedgerError("appeal.requested", field="event", event=event)
            row = m.AppealRequest(tournament_id=tournament, event_ext_id=event,
                                  appellant=appellant, reason=reason,
                                  idempotency_key=idempotency_key, created_by=actor.name,
                                  request_id=actor.request_id)
            s.add(row)
            s.flush()
            series = s.scalar(select(m.Tournament.series_id).where(
                m.Tournament.id == tournament))
            note(s, ledger.changes, Change(series=int(series or 0), tournament=tournament,
                                           kind=APPEAL_REQUEST, event=event,
                                           appeal=int(row.id), of=event))
            return int(row.id)
    except IntegrityError:  # another request got there first (PostgreSQL, no series lock)
        raise LedgerError("appeal.requested", field="event", event=event) from None
