"""What the judge's record form needs besides the ledger's record: the round to prefill, the
infractions the tournament uses most, people's names, incident notes, and undo.

Undo is a correction like any other (services.ledger `correct`, append-only: the mistaken
ruling stays and a new record revokes it); it is offered only for a short time and only to the
person who recorded the ruling, and it is named for what it is in the correction's reason.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import distinct, func, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.common import Actor, LedgerError
from sudya.app.ledger import Ledger, Recorded
from sudya.app.people import round_pairings
from sudya.domain import commands


def current_round(s: Session, tournament: int) -> int | None:
    """The round a new ruling most likely belongs to: the round clock's or the round of the
    last ruling recorded, whichever is newer (an organiser may not start every clock), and
    never before the latest round with pairings (its tables are the ones being played)."""
    clock = s.scalar(select(m.RoundClock).where(m.RoundClock.tournament_id == tournament)
                     .order_by(m.RoundClock.id.desc()).limit(1))
    last = s.execute(select(m.Ruling.round, m.Ruling.created_at).where(
        m.Ruling.tournament_id == tournament, m.Ruling.round.is_not(None))
        .order_by(m.Ruling.position.desc()).limit(1)).first()
    if clock is None:
        found = None if last is None else int(last[0])
    elif last is None or m.aware(clock.started_at) >= m.aware(last[1]):
        found = int(clock.round)
    else:
        found = int(last[0])
    paired = s.scalar(select(func.max(m.Pairing.round))
                      .where(m.Pairing.tournament_id == tournament))
    known = [r for r in (found, paired) if r is not None]
    return max(known) if known else None


def infraction_use(s: Session, tournament: int) -> dict[str, int]:
    """How many times each infraction was recorded in the tournament (its events)."""
    rows = s.execute(
        select(m.Ruling.infraction, func.count(distinct(m.Ruling.event_id)))
        .join(m.Event, m.Event.id == m.Ruling.event_id)
        .where(m.Ruling.tournament_id == tournament, m.Event.kind == "infraction",
               m.Ruling.infraction.is_not(None))
        .group_by(m.Ruling.infraction))
    return {str(inf): int(n) for inf, n in rows}


def display_names(s: Session, tournament: int, handles: Collection[str]) -> dict[str, str]:
    """People's (and teams') names as people read them, by their ids; an id with no name of
    its own is left out (the page shows the id)."""
    wanted = set(handles)
    if not wanted:
        return {}
    t = s.get(m.Tournament, tournament)
    if t is None:
        return {}
    names = {h: n for h, n in s.execute(select(m.Person.handle, m.Person.name)
                                        .where(m.Person.handle.in_(wanted)))}
    names.update({h: n for h, n in s.execute(select(m.Team.handle, m.Team.name).where(
        m.Team.series_id == t.series_id, m.Team.handle.in_(wanted)))})
    return {h: n for h, n in names.items() if n and n != h}


def table_players(s: Session, tournament: int, table: int) -> list[str]:
    """The players at a table: in the current round's pairings where the round has them
    (both sides; a team's members), else those registered at that table."""
    paired = round_pairings(s, tournament=tournament)
    here = next((p for p in paired.tables if p.table == table), None)
    if here is not None:
        return [person.handle for side in (here.a, here.b) for person in side.players]
    return list(s.scalars(select(m.Person.handle).join(m.Entry, m.Entry.person_id == m.Person.id)
                          .where(m.Entry.tournament_id == tournament,
                                 m.Entry.table_no == table).order_by(m.Entry.id)))


def incident_notes(s: Session, tournament: int, events: Collection[str]) -> dict[str, str]:
    """The judge's account of each of these infraction events of a tournament that has one."""
    if not events:
        return {}
    rows = s.execute(select(m.Event.ext_id, m.Event.payload).where(
        m.Event.tournament_id == tournament, m.Event.kind == "infraction",
        m.Event.ext_id.in_(set(events))))
    return {ext: str(payload["note"]) for ext, payload in rows
            if isinstance(payload, dict) and payload.get("note")}


def series_incident_notes(s: Session, events: Collection[tuple[str, str]]
                          ) -> dict[tuple[str, str], str]:
    """The same by (series name, event id), for a person's record across series."""
    ids = {ext for _series, ext in events}
    if not ids:
        return {}
    rows = s.execute(select(m.Series.name, m.Event.ext_id, m.Event.payload)
                     .join(m.Series, m.Series.id == m.Event.series_id)
                     .where(m.Event.kind == "infraction", m.Event.ext_id.in_(ids)))
    wanted = set(events)
    return {(series, ext): str(payload["note"]) for series, ext, payload in rows
            if (series, ext) in wanted and isinstance(payload, dict) and payload.get("note")}


# ---------------------------------------------------------------------- undo
@dataclass(frozen=True)
class Undoable:
    """A ruling its judge may still take back: until when, and how many seconds are left."""

    event: str
    until: dt.datetime
    seconds: int


def _recorded(s: Session, tournament: int, event: str) -> m.Event:
    row = s.scalar(select(m.Event).where(m.Event.tournament_id == tournament,
                                         m.Event.ext_id == event,
                                         m.Event.kind == "infraction"))
    if row is None:
        raise LedgerError("undo.unknown", field="event", event=event)
    return row


def _undone(s: Session, row: m.Event) -> bool:
    """Whether something later already revoked the event's rulings (an undo, a correction,
    an appeal)."""
    return s.scalar(select(m.Ruling.id).where(m.Ruling.series_id == row.series_id,
                                              m.Ruling.revokes == row.ext_id).limit(1)
                    ) is not None


def undoable(s: Session, *, tournament: int, event: str, user: str, within: float,
             now: dt.datetime | None = None) -> Undoable | None:
    """Whether `user` may still undo the infraction event they recorded (None: not theirs,
    too late, already revoked, or no such event)."""
    try:
        row = _recorded(s, tournament, event)
    except LedgerError:
        return None
    now = now or m.now()
    until = m.aware(row.created_at) + dt.timedelta(seconds=within)
    if row.created_by != user or until <= now or _undone(s, row):
        return None
    return Undoable(event=event, until=until, seconds=int((until - now).total_seconds()))


def undo(ledger: Ledger, *, tournament: int, event: str, judge: str | None, within: float,
         reason: str, actor: Actor, now: dt.datetime | None = None) -> Recorded:
    """Take back a ruling just recorded: a correction of its event, by the judge who recorded
    it, within `within` seconds of recording it. Sent twice, it corrects once."""
    with ledger.factory() as s:
        row = _recorded(s, tournament, event)
        if row.created_by != actor.name:
            raise LedgerError("undo.not-yours", field="event", event=event)
        now = now or m.now()
        if m.aware(row.created_at) + dt.timedelta(seconds=within) <= now:
            raise LedgerError("undo.too-late", field="event", event=event,
                              seconds=int(within))
        key = f"undo-{row.id}"  # one correction however many times it is tapped
    cmd = commands.Correct(of=event, judge=judge, reason=reason)
    return ledger.execute(tournament, cmd, idempotency_key=key, actor=actor)
