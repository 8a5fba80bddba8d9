"""The engine-state projection: each series' rules engine, built from its stored events.

The events table is the source of truth. A series' engine is rebuilt by replaying its
stored events once and then kept per process; before a new event is ruled on, the engine
catches up with the events other processes stored since (`catch_up`). A preview rules on the
cached engine in a trial (`RulesEngine.trial`: every change it makes is undone), so it copies
nothing and stores nothing.

Locks, all per series (a series never waits for another in this process):

- the write *turn* (`Turn`, first come first served): a writer takes it before it checks out
  a connection, so many writers of one series queue here and not in the connection pool;
- the *state lock*: the cached engine is changed only by the writer holding it, from its
  catch-up until its transaction has committed or rolled back (released by the session
  events below), so a cached engine is always one the database has committed; a preview
  holds it only while it tries its event on the engine (after catching it up with events it
  read before, if other processes stored some), never while it waits for the database.

Order, always: turn → connection → the database's series lock → state lock. Other processes
are kept in step by the database (SQLite: BEGIN IMMEDIATE; PostgreSQL: the series row lock).
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from sqlalchemy import event, select
from sqlalchemy.orm import Session, SessionTransaction

from sudya.adapters.db import models as m
from sudya.app import rulebook_store, snapshots
from sudya.app.common import LedgerError, SeriesRef, command, load_book
from sudya.domain import commands
from sudya.domain.bulk import paused_gc
from sudya.domain.commands import CommandError
from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import Event, Roster, Ruling, Tournament
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Rulebook

HELD = "sudya_held_states"  # Session.info: the series whose state lock the session holds
COMMITTED = "sudya_committed"  # Session.info: its transaction committed


class Turn:
    """A first-come, first-served lock with a timeout (threading.Lock does not promise an
    order, and under load a late writer could overtake the queue again and again)."""

    def __init__(self) -> None:
        self._mutex = threading.Lock()
        self._waiting: deque[threading.Lock] = deque()
        self._held = False

    def acquire(self, timeout: float) -> bool:
        with self._mutex:
            if not self._held:
                self._held = True
                return True
            mine = threading.Lock()
            mine.acquire()
            self._waiting.append(mine)
        if mine.acquire(timeout=timeout):
            return True  # handed over by release()
        with self._mutex:
            if mine in self._waiting:
                self._waiting.remove(mine)
                return False
        return True  # handed over just as the wait ended: ours after all

    def release(self) -> None:
        with self._mutex:
            if self._waiting:
                self._waiting.popleft().release()  # the next in line holds it now
            else:
                self._held = False


@dataclass
class SeriesLocks:
    """The locks of one series in this process."""

    turn: Turn = field(default_factory=Turn)
    state: threading.Lock = field(default_factory=threading.Lock)


STORED = (m.Event.kind, m.Event.payload, m.Event.ext_id, m.Event.seq)  # what a replay reads


class StoredEvent(Protocol):
    """An event as stored (an `m.Event` row, or the same columns read with Core)."""

    @property
    def kind(self) -> str: ...
    @property
    def payload(self) -> dict[str, Any]: ...
    @property
    def ext_id(self) -> str: ...
    @property
    def seq(self) -> int: ...


@dataclass
class State:
    """A series' engine, caught up to `seq`."""

    engine: RulesEngine
    seq: int
    books: dict[str, Rulebook]
    stored_revocations: int = 0  # engine.revocations already in the database


class Projection:
    """The engines of the series this process has seen, by series id, and their locks."""

    def __init__(self, snapshot_key: bytes | None = None) -> None:
        self.snapshot_key = snapshot_key  # None: no snapshots (services.snapshots)
        self.last_replayed = 0  # events the last build replayed (a snapshot's tail, or all)
        self.states: dict[int, State] = {}
        self._locks: dict[int, SeriesLocks] = {}
        self._mutex = threading.Lock()  # guards self._locks only, never held while waiting

    def locks(self, series_id: int) -> SeriesLocks:
        """The locks of one series (made on first use)."""
        held = self._locks.get(series_id)
        if held is None:
            with self._mutex:
                held = self._locks.setdefault(series_id, SeriesLocks())
        return held

    def forget(self, series_id: int) -> None:
        """Drop one series' engine (it may be half-way through a refused event)."""
        self.states.pop(series_id, None)

    def forget_all(self) -> None:
        """Drop every cached engine (after a rolled-back batch): rebuilt on next use."""
        self.states.clear()

    def hold(self, s: Session, series_id: int) -> None:
        """Take the series' state lock for the rest of the writing transaction `s` (released,
        and the engine dropped unless the transaction committed, when it ends)."""
        held: dict[int, tuple[Projection, threading.Lock]] = s.info.setdefault(HELD, {})
        if series_id not in held:
            lock = self.locks(series_id).state
            lock.acquire()
            held[series_id] = (self, lock)

    def catch_up(self, s: Session, series: SeriesRef, upto: int) -> State:
        """The series' engine with every stored event up to `upto` applied (the caller holds
        the series' state lock: `hold`)."""
        state = self.states.get(series.id)
        if state is not None and state.seq > upto:
            state = None  # ahead of the database: a transaction of ours did not commit
        if state is None:
            state = self._build(s, series, upto)
            self.states[series.id] = state
        elif state.seq < upto:  # another process stored events since: replay them
            self._replay_since(s, state, series, upto)
        state.stored_revocations = len(state.engine.revocations)
        return state

    def warm(self, s: Session, series_id: int) -> None:
        """Build the engine of a series this process has not got yet, from what the read
        session `s` sees, before the writer takes the database's series lock: a cold build
        under that lock would hold up the series' writers in every other process."""
        if series_id in self.states:
            return
        row = s.execute(select(m.Series.rulebook, m.Series.last_seq)
                        .where(m.Series.id == series_id)).first()
        if row is None or not row.last_seq:
            return  # no such series, or nothing stored yet: the writer says so
        self._offer(series_id, self._build(s, SeriesRef(series_id, row.rulebook), row.last_seq))

    def preview(self, factory: Callable[[], Session], series: SeriesRef,
                cmd: commands.Command, ext_id: str) -> list[Ruling]:
        """The rulings the engine would make on `cmd` now, storing nothing: ruled in a trial
        on the cached engine (committed, since writers hold the state lock until their
        transaction ends), which it leaves as it was. What the database has that the engine
        has not yet is read first, holding no lock, and applied holding the state lock."""
        for _ in range(3):  # a writer's rollback may drop the engine meanwhile: again
            with factory() as s, s.begin():
                last = s.scalar(select(m.Series.last_seq).where(m.Series.id == series.id)) or 0
                cached = self.states.get(series.id)
                tail: list[StoredEvent] = []
                if cached is None:
                    self._offer(series.id, self._build(s, series, last))
                    since = last
                else:
                    since = cached.seq  # read without the lock: only a lower bound
                    if since < last:  # other processes stored events since
                        tail = list(s.execute(select(*STORED).where(
                            m.Event.series_id == series.id, m.Event.seq > since,
                            m.Event.seq <= last).order_by(m.Event.seq)))
                    if any(ev.kind == "tournament" for ev in tail):
                        rulebook_store.sync(s)  # it may use an edition published since
            with self.locks(series.id).state:
                state = self.states.get(series.id)
                if state is not None and state.seq >= since:
                    self._apply_stored(state, tail, series)
                    return self._trial(state, cmd, ext_id, series)
        with factory() as s, s.begin():  # still none to try it on: a private engine
            last = s.scalar(select(m.Series.last_seq).where(m.Series.id == series.id)) or 0
            state = self._build(s, series, last)
        return self.apply(state, cmd, ext_id, series)

    def _trial(self, state: State, cmd: commands.Command, ext_id: str,
               series: SeriesRef) -> list[Ruling]:
        books = dict(state.books)  # a new tournament's edition, loaded for the trial
        try:
            with state.engine.trial():
                return self.apply(state, cmd, ext_id, series)
        finally:
            state.books.clear()
            state.books.update(books)

    def _apply_stored(self, state: State, events: list[StoredEvent],
                      series: SeriesRef) -> None:
        """Catch the cached engine up with stored events read beforehand (the caller holds
        the series' state lock); dropped if it refuses one (it may be half-way)."""
        try:
            for ev in events:
                if ev.seq > state.seq:
                    self._replay_stored(state, ev, series)
        except BaseException:
            self.forget(series.id)
            raise
        state.stored_revocations = len(state.engine.revocations)

    def _offer(self, series_id: int, state: State) -> None:
        """Keep a committed engine for the next writer or preview, unless the cached one is as
        new, or a writer is busy with it (a preview never waits for the state lock)."""
        lock = self.locks(series_id).state
        if lock.acquire(blocking=False):
            try:
                cached = self.states.get(series_id)
                if cached is None or cached.seq < state.seq:
                    self.states[series_id] = state
            finally:
                lock.release()

    def apply(self, state: State, cmd: commands.Command, ext_id: str,
              series: SeriesRef) -> list[Ruling]:
        """The rulings the engine makes on one command."""
        return rule(state, self.to_event(cmd, ext_id, state, series))

    def to_event(self, cmd: commands.Command, ext_id: str, state: State,
                 series: SeriesRef) -> Event:
        """The engine's event for a command, its people checked against the series."""
        if isinstance(cmd, commands.NewTournament):
            edition = cmd.edition or ""
            book = state.books.get(edition)
            if book is None:
                book = state.books[edition] = load_book(series.rulebook, edition)
            return cmd.event(ext_id, rulebook=book)
        try:
            commands.known(cmd, state.engine.roster, state.engine.player_order)
        except CommandError as exc:
            raise LedgerError(exc.code, field=exc.field, **exc.params) from None
        return cmd.event(ext_id)  # type: ignore[attr-defined,no-any-return]

    def _build(self, s: Session, series: SeriesRef, upto: int) -> State:
        """The series' engine as of event `upto`: from its snapshot if one can be trusted
        (services.snapshots), replaying the events since; else from its first event."""
        restored: State | None = None
        rulebook_store.sync(s)  # its tournaments may use editions stored in the ledger
        if self.snapshot_key is not None:
            restored = snapshots.restore(s.connection(), self.snapshot_key, series, upto)
        with paused_gc():
            if restored is not None:
                since = restored.seq
                self._replay_since(s, restored, series, upto)
                state: State | None = restored
            else:
                since = 0
                # Core rows, not ORM objects: a season's replay reads 100,000 of them
                events = s.execute(select(*STORED).where(m.Event.series_id == series.id,
                                                         m.Event.seq <= upto)
                                   .order_by(m.Event.seq)).all()
                state = self._replay_all(series, events)
        if state is None:
            raise LedgerError("series.no-tournament", field="tournament")
        self.last_replayed = upto - since
        return state

    def _replay_all(self, series: SeriesRef, events: Iterable[StoredEvent]) -> State | None:
        last = deque(self.replayed(series, events), maxlen=1)  # run it through
        return last[0][0] if last else None

    def replayed(self, series: SeriesRef, events: Iterable[StoredEvent],
                 ) -> Iterator[tuple[State, StoredEvent, list[Ruling]]]:
        """Replay stored events from the series' first (its first tournament), yielding the
        state and the rulings after each."""
        state: State | None = None
        for ev in events:
            if state is None:
                if ev.kind != "tournament":
                    raise LedgerError("series.corrupt-start")
                p = ev.payload
                book = load_book(series.rulebook, p["edition"])
                engine = RulesEngine(book, Roster(players=[]), Tournament(
                    index=0, date=dt.date.fromisoformat(p["date"]), level=p["level"],
                    settings=p["settings"]))
                state = State(engine=engine, seq=ev.seq, books={book.edition: book})
                yield state, ev, []
                continue
            yield state, ev, self._replay_stored(state, ev, series)

    def _replay_since(self, s: Session, state: State, series: SeriesRef, upto: int) -> None:
        for ev in s.execute(select(*STORED).where(
                m.Event.series_id == series.id, m.Event.seq > state.seq,
                m.Event.seq <= upto).order_by(m.Event.seq)):
            if ev.kind == "tournament":  # it may use an edition another process published
                rulebook_store.sync(s)
            self._replay_stored(state, ev, series)

    def _replay_stored(self, state: State, ev: StoredEvent, series: SeriesRef) -> list[Ruling]:
        rulings = self.apply(state, command(ev.kind, ev.payload), ev.ext_id, series)
        state.seq = ev.seq
        return rulings


def rule(state: State, event: Event) -> list[Ruling]:
    """The engine's rulings on one event; a refusal is the ledger's."""
    try:
        return state.engine.apply(event)
    except RuleError as exc:
        raise LedgerError(exc.code, field=exc.field, **exc.params) from exc


# Every session: when a writing transaction ends, the state locks it took are released, and
# the engines it changed are dropped unless it committed (they would be ahead of the
# database). Fired after the database's COMMIT or ROLLBACK and the connection's return.
@event.listens_for(Session, "after_commit")
def _committed(s: Session) -> None:
    if s.in_nested_transaction():
        return  # a savepoint released (SQLAlchemy tells that as a commit): not committed yet
    if s.info.get(HELD):
        s.info[COMMITTED] = True


@event.listens_for(Session, "after_transaction_end")
def _ended(s: Session, transaction: SessionTransaction) -> None:
    if transaction.parent is not None or not s.info.get(HELD):
        return  # a savepoint, or a transaction that changed no engine
    held: dict[int, tuple[Projection, threading.Lock]] = s.info.pop(HELD)
    committed = s.info.pop(COMMITTED, False)
    for series_id, (projection, lock) in held.items():
        if not committed:
            projection.forget(series_id)
        lock.release()
