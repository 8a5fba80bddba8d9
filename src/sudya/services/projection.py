"""The engine-state projection: each series' rules engine, built from its stored events.

The events table is the source of truth. A series' engine is rebuilt by replaying its
stored events once and then kept per process; before a new event is ruled on, the engine
catches up with the events other processes stored since (`catch_up`). A preview rules on a
copy and stores nothing.
"""

from __future__ import annotations

import copy
import datetime as dt
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya import commands
from sudya.bulk import paused_gc
from sudya.commands import CommandError
from sudya.db import models as m
from sudya.engine.core import RulesEngine
from sudya.engine.model import Event, Roster, Ruling, Tournament
from sudya.errors import RuleError
from sudya.rulebooks.schema import Rulebook
from sudya.services.common import LedgerError, SeriesRef, command, load_book


@dataclass
class State:
    """A series' engine, caught up to `seq`."""

    engine: RulesEngine
    seq: int
    books: dict[str, Rulebook]
    stored_revocations: int = 0  # engine.revocations already in the database


class Projection:
    """The engines of the series this process has seen, by series id."""

    def __init__(self) -> None:
        self.states: dict[int, State] = {}
        self.lock = threading.Lock()

    def forget(self, series_id: int) -> None:
        """Drop one series' engine (it may be half-way through a refused event)."""
        self.states.pop(series_id, None)

    def forget_all(self) -> None:
        """Drop every cached engine (after a rolled-back batch): rebuilt on next use."""
        with self.lock:
            self.states.clear()

    def catch_up(self, s: Session, series: SeriesRef, upto: int) -> State:
        """The series' engine with every stored event up to `upto` applied."""
        state = self.states.get(series.id)
        if state is not None and state.seq > upto:
            state = None  # ahead of the database: a transaction of ours did not commit
        if state is None:
            state = self._build(s, series, upto)
            self.states[series.id] = state
        elif state.seq < upto:  # another process stored events since: replay them
            for ev in s.scalars(select(m.Event).where(
                    m.Event.series_id == series.id, m.Event.seq > state.seq,
                    m.Event.seq <= upto).order_by(m.Event.seq)):
                self._replay_stored(state, ev, series)
        state.stored_revocations = len(state.engine.revocations)
        return state

    def preview_state(self, s: Session, series: SeriesRef) -> State:
        """A copy of the series' engine to try an event on (previews store nothing)."""
        last = s.scalar(select(m.Series.last_seq).where(m.Series.id == series.id)) or 0
        with self.lock:
            state = self.catch_up(s, series, last)
            book = state.engine.book
            memo: dict[int, Any] = {id(b): b for b in (book, *state.books.values())}
            return copy.deepcopy(state, memo)

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
            commands.known(cmd, state.engine.roster)
        except CommandError as exc:
            raise LedgerError(exc.code, field=exc.field, **exc.params) from None
        return cmd.event(ext_id)  # type: ignore[attr-defined,no-any-return]

    def _build(self, s: Session, series: SeriesRef, upto: int) -> State:
        events = list(s.scalars(select(m.Event).where(m.Event.series_id == series.id,
                                                      m.Event.seq <= upto)
                                .order_by(m.Event.seq)))
        with paused_gc():
            state = self._replay_all(series, events)
        if state is None:
            raise LedgerError("series.no-tournament", field="tournament")
        return state

    def _replay_all(self, series: SeriesRef, events: list[m.Event]) -> State | None:
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
                continue
            self._replay_stored(state, ev, series)
        return state

    def _replay_stored(self, state: State, ev: m.Event, series: SeriesRef) -> None:
        self.apply(state, command(ev.kind, ev.payload), ev.ext_id, series)
        state.seq = ev.seq


def rule(state: State, event: Event) -> list[Ruling]:
    """The engine's rulings on one event; a refusal is the ledger's."""
    try:
        return state.engine.apply(event)
    except RuleError as exc:
        raise LedgerError(exc.code, field=exc.field, **exc.params) from exc
