"""What changed in the ledger, for the pages that update themselves (the live event stream).

Every writer stages what it wrote on its session (`note`); once the transaction has committed,
the change is handed to the ledger's `ChangeFeed` — never before, so a listener is never told
of a ruling that was rolled back. The feed only calls its listeners (in the writer's thread);
the web app's live stream (`sudya.edges.web.live`) turns that into its asyncio queues.

Another process's writes are found by their marks: a series' `last_seq` (raised by every
event, in the same transaction that stores it) and the highest appeal request of its
tournaments. `marks` reads both in one short statement; `since` reads what follows them. The
events of a series are numbered in the order they commit (the database's series lock), so
every event up to a `last_seq` one has read is already visible.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session, SessionTransaction

from sudya.adapters.db import models as m

STAGED = "sudya_changes"  # Session.info: the changes its transaction will have made
APPEAL_REQUEST = "appeal-request"  # the kind of a change that is an appeal filed
# what an event's payload says it is about (a decision, an appeal, a correction)
TARGET_KEYS = ("of",)


@dataclass(frozen=True)
class Change:
    """One change of a tournament: a ledger event, or an appeal request filed.

    `seq` is the event's place in its series (0 for an appeal request); `appeal` the appeal
    request's id (0 for an event). `of` names the event a decision, an appeal, a correction
    or an appeal request is about."""

    series: int
    tournament: int
    kind: str
    event: str
    seq: int = 0
    appeal: int = 0
    of: str | None = None

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind, "event": self.event,
                               "tournament": self.tournament}
        if self.seq:
            out["seq"] = self.seq
        if self.appeal:
            out["appeal"] = self.appeal
        if self.of:
            out["of"] = self.of
        return out


class ChangeFeed:
    """The changes this process commits, handed to whoever listens (thread-safe)."""

    def __init__(self) -> None:
        self._listeners: list[Callable[[Change], None]] = []
        self._mutex = threading.Lock()

    def listen(self, listener: Callable[[Change], None]) -> None:
        with self._mutex:
            self._listeners.append(listener)

    def unlisten(self, listener: Callable[[Change], None]) -> None:
        with self._mutex:
            if listener in self._listeners:
                self._listeners.remove(listener)

    def publish(self, change: Change) -> None:
        """Tell every listener (a listener must not block: it runs in the writer's thread)."""
        with self._mutex:
            listeners = list(self._listeners)
        for listener in listeners:
            listener(change)


def note(s: Session, feed: ChangeFeed, change: Change) -> None:
    """Stage a change on the writing session: published once its transaction commits."""
    s.info.setdefault(STAGED, []).append((feed, change))


def of_event(series: int, tournament: int, seq: int, ext_id: str, kind: str,
             payload: dict[str, Any]) -> Change:
    """The change a stored event makes."""
    target = next((payload[k] for k in TARGET_KEYS if isinstance(payload.get(k), str)), None)
    return Change(series=series, tournament=tournament, kind=kind, event=ext_id, seq=seq,
                  of=target)


@event.listens_for(Session, "after_commit")
def _publish(s: Session) -> None:
    if s.in_nested_transaction():
        return  # a savepoint released (SQLAlchemy tells that as a commit): not on disk yet
    staged: list[tuple[ChangeFeed, Change]] = s.info.pop(STAGED, [])
    for feed, change in staged:
        feed.publish(change)


@event.listens_for(Session, "after_transaction_end")
def _drop(s: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is None:  # rolled back (a commit has published and popped them)
        s.info.pop(STAGED, None)


# ---------------------------------------------------------------------- the read side
def marks(s: Session, *, series: int) -> tuple[int, int]:
    """A series' last event number and its tournaments' highest appeal request id."""
    appeals = (select(func.coalesce(func.max(m.AppealRequest.id), 0))
               .join(m.Tournament, m.Tournament.id == m.AppealRequest.tournament_id)
               .where(m.Tournament.series_id == series).scalar_subquery())
    row = s.execute(select(m.Series.last_seq, appeals).where(m.Series.id == series)).first()
    return (0, 0) if row is None else (int(row[0] or 0), int(row[1] or 0))


def since(s: Session, *, series: int, seq: int, appeal: int, tournament: int | None = None,
          limit: int = 1000) -> list[Change]:
    """The changes of a series after event `seq` and appeal request `appeal` (of one
    tournament only, if given), events first, each kind in its order; at most `limit` each."""
    events = select(m.Event.tournament_id, m.Event.seq, m.Event.ext_id, m.Event.kind,
                    m.Event.payload).where(m.Event.series_id == series, m.Event.seq > seq)
    requests = (select(m.AppealRequest.id, m.AppealRequest.tournament_id,
                       m.AppealRequest.event_ext_id)
                .join(m.Tournament, m.Tournament.id == m.AppealRequest.tournament_id)
                .where(m.Tournament.series_id == series, m.AppealRequest.id > appeal))
    if tournament is not None:
        events = events.where(m.Event.tournament_id == tournament)
        requests = requests.where(m.AppealRequest.tournament_id == tournament)
    out = [of_event(series, t, n, ext, kind, payload or {}) for t, n, ext, kind, payload
           in s.execute(events.order_by(m.Event.seq).limit(limit))]
    out += [Change(series=series, tournament=t, kind=APPEAL_REQUEST, event=ext, appeal=i,
                   of=ext)
            for i, t, ext in s.execute(requests.order_by(m.AppealRequest.id).limit(limit))]
    return out


__all__ = ["APPEAL_REQUEST", "Change", "ChangeFeed", "marks", "note", "of_event", "since"]
