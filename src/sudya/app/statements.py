"""Statements about a disqualification or suspension, for its report: the player's own (typed
on a judge's phone or from the player's account), the opponent's, witnesses', and the head
judge's statement of facts and decision with the rule cited (as on the DQ forms of other
organisers: the player's, the opponent's and witnesses' statements, the head judge's facts).

Statements are append-only (database triggers) and each is a link of its series' hash chain
(db.chain), so `sudya audit verify` finds one changed behind Sudya's back; a correction is a
new statement. They are not ledger events: no ruling depends on them.

Who may write which (`permission`): a judge of the tournament types any statement but the
head judge's (the player's own on the judge's phone, the opponent's, witnesses'); whoever
may hear appeals writes the head judge's too; a player's own account writes their own
statement — `player` about their own disqualification, otherwise as opponent or witness, in
their own name — about an event of a tournament they play in.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.accounts import Roles
from sudya.app.common import LedgerError, load_book
from sudya.app.ledger import Actor, Ledger
from sudya.app.people import display_names, staff_names
from sudya.app.views import DisqualificationView, StatementView
from sudya.app.writer import store_statement
from sudya.domain.commands import STATEMENT_ROLES, AddStatement, StatementRole

STATUSES = ("disqualified", "suspended")  # what a statement may be about
__all__ = ["add_statement", "statements_of", "dq_events", "dq_event", "permission",
           "visible", "Permission", "STATEMENT_ROLES"]



def _view(row: m.Statement, event: str) -> StatementView:
    return StatementView(id=row.id, event=event, role=cast(StatementRole, row.role),
                         author=row.author, text=row.text, rule_cited=row.rule_cited,
                         decision=row.decision, written_by=row.created_by,
                         written_at=m.aware(row.created_at))


@dataclass(frozen=True)
class _Dq:
    """What the ledger says of one event's disqualifications (or suspensions)."""

    id: int
    view: DisqualificationView


def _dqs(s: Session, tournament: int, event: str | None = None) -> list[_Dq]:
    """The tournament's events whose rulings disqualified or suspended someone (a sanction
    whose own status, or its kind's, is one of STATUSES), in series order."""
    t = s.get(m.Tournament, tournament) if 0 < tournament <= 2**31 - 1 else None
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    book = load_book(t.series.rulebook, t.edition)
    query = (select(m.Event.id, m.Event.ext_id, m.Event.seq, m.Event.created_at,
                    m.Ruling.infraction, m.Ruling.round, m.Ruling.judge, m.SanctionRow.kind,
                    m.SanctionRow.subject, m.SanctionRow.status,
                    m.Revocation.id.label("revoked"))
             .join(m.Ruling, m.Ruling.event_id == m.Event.id)
             .join(m.SanctionRow, m.SanctionRow.ruling_id == m.Ruling.id)
             .outerjoin(m.Revocation, m.Revocation.sanction_id == m.SanctionRow.id)
             .where(m.Event.tournament_id == tournament,
                    m.SanctionRow.status.in_(STATUSES) | m.SanctionRow.kind.in_(
                        [k.id for k in book.sanctions if k.status in STATUSES]))
             .order_by(m.Event.seq, m.Ruling.position, m.SanctionRow.position))
    if event is not None:
        query = query.where(m.Event.ext_id == event)
    found: dict[int, dict[str, Any]] = {}
    for row in s.execute(query):
        try:
            kind_status = book.kind(row.kind).status
        except KeyError:
            kind_status = None
        status = row.status or kind_status
        if status not in STATUSES:
            continue
        e = found.setdefault(row.id, {
            "event": row.ext_id, "seq": row.seq, "infraction": row.infraction,
            "round": row.round, "judge": row.judge, "at": m.aware(row.created_at),
            "subjects": [], "kinds": [], "status": status, "revoked": True})
        if row.subject not in e["subjects"]:
            e["subjects"].append(row.subject)
        if row.kind not in e["kinds"]:
            e["kinds"].append(row.kind)
        if status == "suspended":  # the graver one names the event
            e["status"] = status
        e["revoked"] = e["revoked"] and row.revoked is not None
    if not found:
        return []
    counts: dict[int, list[str]] = {}
    for event_id, role in s.execute(select(m.Statement.event_id, m.Statement.role)
                                    .where(m.Statement.event_id.in_(found))):
        counts.setdefault(event_id, []).append(role)
    names = display_names(s, tournament=tournament)
    return [_Dq(id=i, view=DisqualificationView(
        **e, names=[names.get(h, h) for h in e["subjects"]],
        statements=len(counts.get(i, [])), head_judge="head-judge" in counts.get(i, [])))
        for i, e in found.items()]


def dq_events(s: Session, *, tournament: int) -> list[DisqualificationView]:
    """The tournament's disqualifications and suspensions (by event), each a report with its
    statements; revoked ones too (marked), since a report may still be asked for."""
    return [d.view for d in _dqs(s, tournament)]


def dq_event(s: Session, *, tournament: int, event: str) -> DisqualificationView:
    """One event's disqualification; refused when the event is unknown or gave none."""
    return _one(s, tournament, event).view


def _one(s: Session, tournament: int, event: str) -> _Dq:
    found = _dqs(s, tournament, event)
    if found:
        return found[0]
    known = s.scalar(select(m.Event.id).where(m.Event.tournament_id == tournament,
                                              m.Event.ext_id == event))
    if known is None:
        raise LedgerError("statement.unknown-event", field="event", event=event)
    raise LedgerError("statement.not-a-dq", field="event", event=event)


def statements_of(session: Session, *, tournament: int, event: int | str
                  ) -> list[StatementView]:
    """The statements about one event of a tournament, in the order written (empty for an
    event with none, or none of this tournament). `event`: its id as the pages and rulings
    name it (`"e7"`, RulingView.event), or the event row's database id (an int)."""
    which = m.Event.id == event if isinstance(event, int) else m.Event.ext_id == event
    rows = session.execute(select(m.Statement, m.Event.ext_id)
                           .join(m.Event, m.Event.id == m.Statement.event_id)
                           .where(m.Statement.tournament_id == tournament, which)
                           .order_by(m.Statement.id))
    return [_view(row, ext_id) for row, ext_id in rows]


# ---------------------------------------------------------------------- who may
@dataclass(frozen=True)
class Permission:
    """Which statements a user may write about one event, and in whose name."""

    roles: tuple[StatementRole, ...]  # none: may write nothing (403)
    author: str | None = None  # a player's own account: always in their own name
    reads_all: bool = False  # staff, and the disqualified player: every statement

    def allows(self, role: str) -> bool:
        return role in self.roles


def _player_of(s: Session, tournament: int, person: str) -> str | None:
    """The team a person plays for in the tournament ("" for none); None: not playing."""
    row = s.execute(select(m.Entry.team_id).join(m.Person, m.Person.id == m.Entry.person_id)
                    .where(m.Entry.tournament_id == tournament,
                           m.Person.handle == person)).first()
    if row is None:
        return None
    if row.team_id is None:
        return ""
    return s.scalar(select(m.Team.handle).where(m.Team.id == row.team_id)) or ""


def permission(s: Session, roles: Roles, *, tournament: int,
               subjects: list[str]) -> Permission:
    """What `roles` (a user's in the tournament) may write about a disqualification of
    `subjects` (DisqualificationView.subjects)."""
    if roles.can("hear-appeals"):
        return Permission(roles=STATEMENT_ROLES, reads_all=True)
    if roles.judge_handle is not None:
        return Permission(roles=("player", "opponent", "witness"), reads_all=True)
    person = roles.person
    team = _player_of(s, tournament, person) if person else None
    if person is None or team is None:
        return Permission(roles=(), reads_all=roles.can("view-all"))
    if person in subjects or (team and team in subjects):
        return Permission(roles=("player",), author=person, reads_all=True)
    return Permission(roles=("opponent", "witness"), author=person,
                      reads_all=roles.can("view-all"))


def visible(permission: Permission, statements: list[StatementView],
            username: str) -> list[StatementView]:
    """What a user sees: everything (staff, the disqualified player), or their own."""
    if permission.reads_all:
        return statements
    return [st for st in statements if st.written_by == username]


# ---------------------------------------------------------------------- writing
def _checked(cmd: AddStatement, subjects: list[str], names: dict[str, str],
             writer: str) -> dict[str, Any]:
    """The columns of the statement, its fields checked against its role (`writer`: the
    name of the one who types it, the head judge's statement's author by default)."""
    author = cmd.author
    if cmd.role == "head-judge":
        if not cmd.rule_cited:
            raise LedgerError("value.required", field="rule_cited")
        if not (cmd.decision or "").strip():
            raise LedgerError("value.required", field="decision")
        author = author or writer
    else:
        for field in ("rule_cited", "decision"):
            if (getattr(cmd, field) or "").strip():
                raise LedgerError("statement.head-judge-only", field=field)
        if cmd.role == "player" and not author and len(subjects) == 1:
            author = names.get(subjects[0], subjects[0])
    if not author:
        raise LedgerError("value.required", field="author")
    decision = (cmd.decision or "").strip() or None
    return {"role": cmd.role, "author": author, "text": cmd.text,
            "rule_cited": cmd.rule_cited or None, "decision": decision}


def _retried(s: Session, key: str, cmd: AddStatement, actor: Actor) -> StatementView | None:
    row = s.scalar(select(m.Statement).where(m.Statement.idempotency_key == key))
    if row is None:
        return None
    event = s.scalar(select(m.Event.ext_id).where(m.Event.id == row.event_id))
    if (row.tournament_id, event, row.role, row.text, row.created_by) != (
            cmd.tournament, cmd.event, cmd.role, cmd.text, actor.name):
        raise LedgerError("key.reused", field="idempotency_key")
    return _view(row, cmd.event)


def add_statement(ledger: Ledger, cmd: AddStatement, actor: Actor | None = None
                  ) -> StatementView:
    """Store a statement about an event that disqualified or suspended someone; returns it
    as stored. The same idempotency key again (a double tap) answers the first statement
    and stores nothing. Who may write it is the edge's to ask (`permission`)."""
    actor = actor or Actor()
    key = cmd.idempotency_key
    try:
        with ledger.writing(tournament=cmd.tournament) as s:
            if key and (done := _retried(s, key, cmd, actor)) is not None:
                return done
            dq = _one(s, cmd.tournament, cmd.event)
            # the head judge signs by name, not by login (issue 37: «Записал(а) glavsud»)
            writer = staff_names(s, tournament=cmd.tournament, handles=[actor.name]).get(
                actor.name, actor.name)
            columns = _checked(cmd, dq.view.subjects,
                               display_names(s, tournament=cmd.tournament), writer)
            t = s.get(m.Tournament, cmd.tournament)
            assert t is not None
            row = {"tournament_id": t.id, "event_id": dq.id, **columns,
                   "idempotency_key": key, "created_by": actor.name,
                   "request_id": actor.request_id, "created_at": m.now()}
            sid = store_statement(s, t.series_id, dq.view.seq, row)
            stored = s.get(m.Statement, sid)
            assert stored is not None
            return _view(stored, cmd.event)
    except IntegrityError:  # the same key at the same moment: the first one stands
        if not key:
            raise
        with ledger.factory() as s:
            done = _retried(s, key, cmd, actor)
        if done is None:
            raise
        return done

