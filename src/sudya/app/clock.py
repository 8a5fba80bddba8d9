"""The round clock: an organiser starts a round; pages and the projector count it down."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import Actor, Ledger, LedgerError

MAX_MINUTES = 24 * 60


def start_round(ledger: Ledger, *, tournament: int, round: int, minutes: int,
                idempotency_key: str | None = None, actor: Actor | None = None) -> int:
    """Start round `round` now, lasting `minutes`; a retry with the same key starts nothing."""
    actor = actor or Actor()
    if not 0 <= round <= 1000:
        raise LedgerError("value.between", field="round", least=0, most=1000)
    if not 1 <= minutes <= MAX_MINUTES:
        raise LedgerError("value.between", field="minutes", least=1, most=MAX_MINUTES)
    # the key is the request's id: a double submit of the same form finds the first row
    request_id = (idempotency_key or actor.request_id)[:64]
    with ledger.uow().begin() as s:
        t = s.get(m.Tournament, tournament)
        if t is None:
            raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
        if idempotency_key:
            done = s.scalar(select(m.RoundClock.id).where(
                m.RoundClock.tournament_id == tournament,
                m.RoundClock.request_id == request_id))
            if done is not None:
                return int(done)
        row = m.RoundClock(tournament_id=tournament, round=round, minutes=minutes,
                           started_at=m.now(), created_by=actor.name, request_id=request_id)
        s.add(row)
        s.flush()
        return int(row.id)



def round_clock(s: Session, tournament_id: int, now: dt.datetime | None = None
                ) -> dict[str, Any] | None:
    """The latest round started: number, minutes, when it ends, seconds left (0 when over)."""
    row = s.scalar(select(m.RoundClock).where(m.RoundClock.tournament_id == tournament_id)
                   .order_by(m.RoundClock.id.desc()))
    if row is None:
        return None
    now = now or m.now()
    started = m.aware(row.started_at)
    ends = started + dt.timedelta(minutes=row.minutes)
    left = max(0, int((ends - now).total_seconds()))
    ms = "milliseconds"  # what every browser's Date.parse reads
    return {"round": row.round, "minutes": row.minutes,
            "started": started.isoformat(timespec=ms), "ends": ends.isoformat(timespec=ms),
            "now": now.isoformat(timespec=ms), "left": left, "over": left == 0}


def rounds(s: Session, tournament_id: int) -> list[m.RoundClock]:
    """Every round started in the tournament, newest first."""
    return list(s.scalars(select(m.RoundClock).where(
        m.RoundClock.tournament_id == tournament_id).order_by(m.RoundClock.id.desc())))
