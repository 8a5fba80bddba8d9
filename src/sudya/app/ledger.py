"""The ledger's use cases: one transaction per call; rulings computed from the stored history.

The events table is the source of truth. The engine's state for a series is rebuilt by
replaying the stored events once and then kept per process; each new event is applied to it
inside the transaction that stores the event, after catching up with events other processes
stored. Writers serialise per series: in this process first, in arrival order and before
they check out a connection (the series' turn, services.projection), so many judges of one
series queue in Python and not in the connection pool, and another series never waits; then
in the database, for the other processes (SQLite: BEGIN IMMEDIATE with a busy timeout;
PostgreSQL: the row lock of `UPDATE series SET last_seq = last_seq + 1`). So two judges
recording at the same moment get exactly the rulings they would get one after the other.
Reads (previews, pages) take neither: a preview copies the committed engine. A thread's read
sessions give their connections back before it waits for a turn (`ReadSessions`): a page or
an API call that read first, then writes, waits holding no connection.
"""

from __future__ import annotations

import datetime as dt
import threading
import weakref
from collections.abc import Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, event, select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from sudya.adapters.db import models as m
from sudya.adapters.db.chain import Chain
from sudya.adapters.db.session import UnitOfWork, session_factory
from sudya.app import faults, rulebook_store, snapshots, terms
from sudya.app.changes import ChangeFeed, of_event
from sudya.app.changes import note as stage_change
from sudya.app.common import (
    Actor,
    LedgerError,
    SeriesRef,
    TournamentRef,
    command,
    load_book,
    ref,
)
from sudya.app.projection import Projection, State
from sudya.app.writer import (
    BY_KEY,
    INSERT_EVENT,
    INSERT_RESULT,
    NEXT_SEQ,
    SET_HEAD,
    jsonable,
    store_rulings,
)
from sudya.app.writer_queue import SeriesQueue
from sudya.domain import commands
from sudya.domain.engine.model import Result, Ruling
from sudya.domain.errors import RuleError
from sudya.domain.handles import skeleton
from sudya.domain.rulebook.schema import Rulebook
from sudya.domain.standings import entered

__all__ = ["Actor", "Ledger", "LedgerError", "Recorded"]


@dataclass(frozen=True)
class Recorded:
    """What a command stored: its event's id and the rulings made on it.

    `retried`: the command was a retry of one already stored under the same idempotency
    key, and these are the first answer's rulings (nothing new was written)."""

    event: str
    rulings: list[Ruling]
    retried: bool = False
    book: Rulebook | None = None  # the rulebook (edition) they were made under, for views


class _Retried(Exception):
    """A retry of an event already stored under the same idempotency key."""

    def __init__(self, event_id: int) -> None:
        self.event_id = event_id


class ReadSessions(threading.local):
    """The read sessions of a thread that hold a connection now.

    A read session opens no transaction in the database (`db.session.session_factory`: each
    statement reads the newest commit), yet SQLAlchemy keeps its connection until it is
    closed: a request reads (its user, its roles, a form's choices), then writes, and would
    wait for its series' turn holding that connection, 32 judges holding 32. So before a
    thread waits for a turn, its read sessions end their (empty) transactions: the
    connections go back to the pool, what they loaded stays loaded, and a later read checks
    one out again."""

    def __init__(self) -> None:
        # weakly: a session dropped without being closed is no reason to keep it
        self.holding: weakref.WeakSet[Session] = weakref.WeakSet()

    def track(self, factory: sessionmaker[Session]) -> None:
        event.listen(factory, "after_begin", self._began)
        event.listen(factory, "after_transaction_end", self._ended)

    def _began(self, s: Session, _transaction: SessionTransaction, _conn: object) -> None:
        self.holding.add(s)

    def _ended(self, s: Session, transaction: SessionTransaction) -> None:
        if transaction.parent is None:
            self.holding.discard(s)

    def give_back(self) -> None:
        """End this thread's read sessions' transactions (a session with changes of its own,
        which a read session should not have, is left as it is)."""
        for s in list(self.holding):
            if not (s.new or s.dirty or s.deleted):
                s.commit()


class Ledger:
    """Service functions over one database."""

    def __init__(self, engine: Engine, *, write_timeout: float = 30.0,
                 snapshot_key: bytes | None = None) -> None:
        self.db = engine
        self.factory = session_factory(engine)  # reads
        self.reading = ReadSessions()
        self.reading.track(self.factory)
        self.writer = session_factory(engine, write=True)
        # snapshot_key: engine snapshots signed with it (services.snapshots); None: none
        self.projection = Projection(snapshot_key)
        self.write_timeout = write_timeout  # seconds a write waits for its series' turn
        self._places: dict[int, SeriesRef] = {}
        self.changes = ChangeFeed()  # what this process commits (services.changes)
        self._queues: dict[int, SeriesQueue] = {}  # each series' writer (group commit)
        self._queues_mutex = threading.Lock()
        self.load_rulebooks()

    def load_rulebooks(self) -> None:
        """Make the rulebook editions stored in the ledger loadable in this process
        (services.rulebook_store); a database not migrated yet has none."""
        try:
            with self.factory() as s:
                rulebook_store.sync(s)
        except DBAPIError:
            pass  # no rulebook_edition table yet: `sudya db upgrade` makes it

    @property
    def _states(self) -> dict[int, State]:
        """The engine of each series this process has seen (the projection's)."""
        return self.projection.states

    def uow(self) -> UnitOfWork:
        """One writing transaction (serialised per series; see the module's docstring)."""
        return UnitOfWork(self.writer)

    @contextmanager
    def writing(self, *, tournament: int) -> Iterator[Session]:
        """One writing transaction of a tournament's series, in the series' turn (for a batch
        that passes its session to the service functions, as the CSV import does)."""
        with self._writing(self._series_of(tournament).id) as s:
            yield s

    @contextmanager
    def _writing(self, series_id: int | None) -> Iterator[Session]:
        """The series' turn in this process (waited for holding no connection), then one
        writing transaction; the turn is passed on once the connection is back in the pool."""
        turn = self.projection.locks(series_id).turn if series_id is not None else None
        self.reading.give_back()  # a write waiting for its turn holds no connection
        if turn is not None and not turn.acquire(self.write_timeout):
            raise LedgerError("ledger.busy", seconds=self.write_timeout)
        try:
            if series_id is not None and series_id not in self.projection.states:
                with self.factory() as r:  # a cold engine is built before the series lock
                    self.projection.warm(r, series_id)
            with self.uow().begin() as s:
                yield s
        finally:
            if turn is not None:
                turn.release()

    def save_snapshots(self, series_ids: list[int] | None = None) -> int:
        """Store the cached engine of each series (all cached ones: None) as its snapshot,
        unless its stored one is as new; returns how many were stored (the server does it
        when it stops). Each engine is pickled holding its state lock (so it is one the
        database committed), then written in a transaction of its own."""
        key = self.projection.snapshot_key
        if key is None:
            return 0
        stored = 0
        for series_id in list(self.projection.states) if series_ids is None else series_ids:
            with self.projection.locks(series_id).state:
                state = self.projection.states.get(series_id)
                if state is None:
                    continue
                seq, data = state.seq, snapshots.dumps(state)[1]
            with self.uow().begin() as s:
                conn = s.connection()
                if snapshots.current(conn, series_id, seq):
                    continue
                snapshots.store(conn, key, series_id, seq, data)
                stored += 1
        return stored

    def known_series(self, tournament: int) -> int | None:
        """The id of a tournament's series, if this process has met the tournament (no read:
        None otherwise)."""
        place = self._places.get(tournament)
        return None if place is None else place.id

    def _series_of(self, tournament: int) -> SeriesRef:
        """The series of a tournament, cached (a short read the first time)."""
        place = self._places.get(tournament)
        if place is None:
            with self.factory() as s:
                place, _where = self._place(s, tournament)
        return place

    # ------------------------------------------------------------------ series & tournaments
    def create_series(self, *, name: str, rulebook: str, actor: Actor | None = None) -> int:
        """A new series (championship, league) under a bundled rulebook; returns its id."""
        actor = actor or Actor()
        _require(name, "name")
        self.load_rulebooks()  # a rulebook another process published
        book = load_book(rulebook)
        with self.uow().begin() as s:
            if s.scalar(select(m.Series.id).where(m.Series.name == name)) is not None:
                raise LedgerError("series.exists", field="name", name=name)
            series = m.Series(name=name, rulebook=book.id, last_seq=0,
                              created_by=actor.name, request_id=actor.request_id)
            s.add(series)
            s.flush()
            return series.id

    def create_tournament(self, *, series: int | str, name: str, date: dt.date,
                          level: str | None = None, settings: dict[str, Any] | None = None,
                          edition: str | None = None, actor: Actor | None = None,
                          new_series_rulebook: str | None = None) -> int:
        """A new tournament of a series; the rulebook edition in force is recorded on it.

        With `new_series_rulebook`, a series of that name that does not exist yet is created in
        the same transaction (so a refused tournament leaves no series behind).
        """
        actor = actor or Actor()
        _require(name, "name")
        if isinstance(series, str):
            with self.factory() as s:
                known = s.scalar(select(m.Series.id).where(m.Series.name == series))
        else:
            known = series
        # a series created here has no cached engine and no other writer yet: no turn needed
        with self._writing(known) as s:
            if new_series_rulebook is not None and isinstance(series, str) and s.scalar(
                    select(m.Series.id).where(m.Series.name == series)) is None:
                _require(series, "series")
                rulebook_store.sync(s)
                fresh = m.Series(name=series, rulebook=load_book(new_series_rulebook).id,
                                 last_seq=0, created_by=actor.name,
                                 request_id=actor.request_id)
                s.add(fresh)
                s.flush()
            row = self._series(s, series)
            self._lock_series(s, row.id)
            rulebook_store.sync(s)
            # the edition in force on the tournament's date in its series, unless it pins one
            # (issue 17) — never another series' own (issue 35)
            book = load_book(row.rulebook, rulebook_store.edition_in(
                row.rulebook, date, row.id, pinned=edition))
            if book.levels and level not in book.level_ids():
                raise LedgerError("level.not-one-of", field="level",
                                  levels=list(book.level_ids()))
            if not book.levels and level is not None:
                raise LedgerError("level.none", field="level", rulebook=book.id)
            for key in settings or {}:
                if key not in book.settings:
                    raise LedgerError("setting.unknown", field=f"settings.{key}",
                                      setting=key)
            if s.scalar(select(m.Tournament.id).where(
                    m.Tournament.series_id == row.id, m.Tournament.name == name)) is not None:
                raise LedgerError("tournament.exists", field="name", name=name)
            position = len(row.tournaments)
            t = m.Tournament(series_id=row.id, position=position, name=name,
                             edition=book.edition, level=level, settings=dict(settings or {}),
                             date=date, created_by=actor.name, request_id=actor.request_id)
            s.add(t)
            s.flush()
            payload = {"date": date.isoformat(), "level": level,
                       "settings": dict(settings or {}), "edition": book.edition}
            self._append(s, ref(row), TournamentRef(t.id), "tournament",
                         f"~tournament-{t.id}", payload, None, actor)
            return t.id

    # ------------------------------------------------------------------ people
    def add_player(self, *, tournament: int, handle: str, name: str | None = None,
                   team: str | None = None, table: int | None = None,
                   gender: str | None = None,
                   actor: Actor | None = None, session: Session | None = None) -> None:
        """Register a person (created on first sight) for a tournament, optionally in a team;
        `gender` (`m`, `f`), when given, is the person's from now on."""
        actor = actor or Actor()
        _require(handle, "handle")
        if table is not None and not 0 < table <= 100_000:
            raise LedgerError("table.out-of-range", field="table")
        with self._tx(session, tournament) as s:
            t, series = self._tournament(s, tournament)
            self._lock_series(s, series.id)
            if self._team(s, series, handle) is not None:
                raise LedgerError("handle.is-team", field="handle", handle=handle)
            person = self._person(s, handle, name, actor)
            if s.scalar(select(m.Entry.id).where(m.Entry.tournament_id == t.id,
                                                 m.Entry.person_id == person.id)):
                raise LedgerError("handle.registered", field="handle", handle=handle)
            if gender is not None:
                if gender not in ("m", "f"):
                    raise LedgerError("value.not-one-of", field="gender", values=["m", "f"])
                person.gender = gender
            team_row = self._team(s, series, team) if team else None
            if team and team_row is None:
                raise LedgerError("team.unknown", field="team", team=team)
            s.add(m.Entry(tournament_id=t.id, person_id=person.id,
                          team_id=team_row.id if team_row else None, table_no=table,
                          created_by=actor.name, request_id=actor.request_id))
            s.flush()
            teams = {team_row.handle: self._members(s, t.id, team_row.id)} if team_row else {}
            self._append(s, ref(series), TournamentRef(t.id), "roster", None,
                         {"players": [handle], "teams": teams, "judges": {}}, None, actor)

    def add_team(self, *, tournament: int, handle: str, name: str | None = None,
                 members: list[str] | None = None, actor: Actor | None = None,
                 session: Session | None = None) -> None:
        """A team (clan) of the series, with its members for this tournament."""
        actor = actor or Actor()
        _require(handle, "handle")
        with self._tx(session, tournament) as s:
            t, series = self._tournament(s, tournament)
            self._lock_series(s, series.id)
            if s.scalar(select(m.Person.id).where(m.Person.handle == handle)) is not None:
                raise LedgerError("handle.is-player", field="handle", handle=handle)
            row = self._team(s, series, handle)
            if row is None:
                sk = skeleton(handle)
                _not_alike(s, handle, sk, series.id)
                row = m.Team(series_id=series.id, handle=handle, name=name or handle,
                             skeleton=sk, created_by=actor.name, request_id=actor.request_id)
                s.add(row)
                s.flush()
            new_players = []
            for member in members or []:
                person = self._person(s, member, None, actor)
                entry = s.scalar(select(m.Entry).where(m.Entry.tournament_id == t.id,
                                                       m.Entry.person_id == person.id))
                if entry is None:
                    s.add(m.Entry(tournament_id=t.id, person_id=person.id, team_id=row.id,
                                  created_by=actor.name, request_id=actor.request_id))
                    new_players.append(member)
                elif entry.team_id not in (None, row.id):
                    raise LedgerError("team.member-elsewhere", field="members",
                                      member=member)
                else:
                    entry.team_id = row.id
            s.flush()
            self._append(s, ref(series), TournamentRef(t.id), "roster", None,
                         {"players": new_players,
                          "teams": {handle: self._members(s, t.id, row.id)}, "judges": {}},
                         None, actor)

    def replace_player(self, *, tournament: int, removed: str, by: str,
                       army: str | None = None, coach: bool = False, name: str | None = None,
                       idempotency_key: str | None = None,
                       actor: Actor | None = None) -> Recorded:
        """A removed player's place taken (regulations.md §4 E9): the replacement plays for
        the removed player's team from now on in this tournament. One not yet registered for
        it is registered here (a person created on first sight, named `name`), in the same
        transaction: a replacement the engine refuses registers no one."""
        actor = actor or Actor()
        payload = {"replace": removed, "by": by, "army": army, "coach": coach}
        cmd = command("roster", payload)
        try:
            with self._tx(None, tournament) as s:
                t, series = self._tournament(s, tournament)
                self._lock_series(s, series.id)
                entries = {handle: entry for handle, entry in s.execute(
                    select(m.Person.handle, m.Entry)
                    .join(m.Entry, m.Entry.person_id == m.Person.id)
                    .where(m.Entry.tournament_id == t.id, m.Person.handle.in_((removed, by))))}
                gone, new = entries.get(removed), entries.get(by)
                if gone is not None and new is None:
                    if self._team(s, series, by) is not None:
                        raise LedgerError("handle.is-team", field="by", handle=by)
                    person = self._person(s, by, name, actor)
                    new = m.Entry(tournament_id=t.id, person_id=person.id, team_id=None,
                                  created_by=actor.name, request_id=actor.request_id)
                    s.add(new)
                if gone is not None and new is not None and new.team_id is None:
                    new.team_id = gone.team_id  # refused by the engine below: rolled back
                s.flush()
                return self._append(s, ref(series), TournamentRef(t.id), "roster", None,
                                    cmd.payload(), idempotency_key, actor)
        except _Retried as retry:  # the same replacement sent again under its key
            return self._stored(retry.event_id)

    def add_judge(self, *, tournament: int, handle: str, role: str, official: bool = False,
                  name: str | None = None, actor: Actor | None = None) -> None:
        """Staff a tournament: a judge with a role the rulebook defines."""
        actor = actor or Actor()
        _require(handle, "handle")
        with self._tx(None, tournament) as s:
            t, series = self._tournament(s, tournament)
            book = load_book(series.rulebook, t.edition)
            if role not in book.roles:
                raise LedgerError("role.unknown", field="role", role=role,
                                  roles=list(book.roles))
            if s.scalar(select(m.Staff.id).where(m.Staff.tournament_id == t.id,
                                                 m.Staff.handle == handle)):
                raise LedgerError("staff.exists", field="handle", handle=handle)
            s.add(m.Staff(tournament_id=t.id, handle=handle, name=name or handle, role=role,
                          official=official, created_by=actor.name,
                          request_id=actor.request_id))
            self._append(s, ref(series), TournamentRef(t.id), "roster", None,
                         {"players": [], "teams": {},
                          "judges": {handle: {"role": role, "official": official}}},
                         None, actor)

    # ------------------------------------------------------------------ rulings
    def record(self, *, tournament: int, infraction: str, player: str | None = None,
               team: str | None = None, judge: str | None = None, round: int | None = None,
               date: dt.date | None = None, details: dict[str, Any] | None = None,
               choice: Any = None, note: str = "", event_id: str | None = None,
               idempotency_key: str | None = None,
               actor: Actor | None = None) -> list[Ruling]:
        """A judge reports an infraction; the engine rules on it with the full history
        (`note`: the judge's account of the incident, stored with the event)."""
        payload = {"infraction": infraction, "player": player, "team": team, "judge": judge,
                   "round": round, "date": date.isoformat() if date else None,
                   "details": jsonable(details or {}), "choice": choice, "note": note}
        return self._event(tournament, "infraction", event_id, payload, idempotency_key, actor)

    def preview(self, *, tournament: int, infraction: str, player: str | None = None,
                team: str | None = None, judge: str | None = None, round: int | None = None,
                details: dict[str, Any] | None = None, choice: Any = None,
                note: str = "") -> list[Ruling]:
        """The rulings `record` would make, without storing anything."""
        payload = {"infraction": infraction, "player": player, "team": team, "judge": judge,
                   "round": round, "date": None, "details": details or {}, "choice": choice,
                   "note": note}
        return self.projection.preview(self.factory, self._series_of(tournament),
                                       command("infraction", payload), "preview")

    def end_match(self, *, tournament: int, round: int | None,
                  players: list[str] | tuple[str, ...] | None = None,
                  event_id: str | None = None, idempotency_key: str | None = None,
                  actor: Actor | None = None) -> list[Ruling]:
        """The end of a match or round: stacking checks for every player, or for `players`
        (a table's, whose match ended)."""
        payload: dict[str, Any] = {"round": round}
        if players is not None:
            payload["players"] = list(players)
        return self._event(tournament, "end-of-match", event_id, payload, idempotency_key,
                           actor)

    def appeal(self, *, tournament: int, of: str, outcome: str, judge: str | None = None,
               choice: Any = None, event_id: str | None = None,
               idempotency_key: str | None = None, actor: Actor | None = None) -> list[Ruling]:
        """The head judge's decision on an appeal against the rulings of event `of`."""
        payload = {"of": of, "outcome": outcome, "judge": judge, "choice": choice}
        return self._event(tournament, "appeal", event_id, payload, idempotency_key, actor)

    def decide(self, *, tournament: int, of: str, judge: str | None = None,
               sanctions: list[dict[str, Any]] | None = None, choice: Any = None,
               date: dt.date | None = None, result: str | None = None,
               until: dt.date | None = None, lift: bool = False,
               event_id: str | None = None,
               idempotency_key: str | None = None, actor: Actor | None = None) -> list[Ruling]:
        """The college's or a judge's decision on a pending ruling; on a frozen fight's
        result (`result`: release or annul); on a sanction's term (`until`, `lift`)."""
        payload: dict[str, Any] = {
            "of": of, "judge": judge, "sanctions": _jsonable_list(sanctions),
            "choice": choice, "date": date.isoformat() if date else None}
        if result is not None:
            payload["result"] = result
        if until is not None:
            payload["until"] = until.isoformat()
        if lift:
            payload["lift"] = True
        return self._event(tournament, "decision", event_id, payload, idempotency_key, actor)

    def correct(self, *, tournament: int, of: str, judge: str | None = None, reason: str = "",
                event_id: str | None = None, idempotency_key: str | None = None,
                actor: Actor | None = None) -> list[Ruling]:
        """Correct a mistaken record: a new record revokes the rulings of event `of`."""
        payload = {"of": of, "judge": judge, "reason": reason}
        return self._event(tournament, "correction", event_id, payload, idempotency_key, actor)

    def correct_result(self, *, tournament: int, of: str, score: tuple[int, int] | None = None,
                       judge: str | None = None, reason: str = "",
                       idempotency_key: str | None = None,
                       actor: Actor | None = None) -> tuple[Recorded, Recorded | None]:
        """Correct a result entered by mistake: a correction makes it stop counting, and with
        `score` the right result of the same players and round is entered after it, in the
        same transaction (both or neither). Answers the correction and the new result."""
        actor = actor or Actor()
        place = self._series_of(tournament)
        where = TournamentRef(tournament)
        try:
            with self._writing(place.id) as s:
                old = s.execute(select(m.Result.player_a, m.Result.player_b, m.Result.round)
                                .join(m.Event, m.Event.id == m.Result.event_id)
                                .where(m.Event.series_id == place.id, m.Event.ext_id == of)
                                ).first()
                if score is not None and old is None:
                    raise LedgerError("correction.not-a-result", field="of", event=of)
                done = self._append(s, place, where, "correction", None,
                                    {"of": of, "judge": judge, "reason": reason},
                                    idempotency_key, actor)
                again = None
                if score is not None and old is not None:
                    again = self._append(s, place, where, "result", None,
                                         {"players": [old.player_a, old.player_b],
                                          "score": list(score), "round": old.round},
                                         None, actor)
                return done, again
        except _Retried as retry:
            return self._stored(retry.event_id), None
        except IntegrityError as exc:
            self.projection.forget(place.id)
            if "idempotency_key" in str(exc.orig):
                raise LedgerError("key.reused", field="idempotency_key") from None
            raise

    def record_result(self, *, tournament: int, players: tuple[str, str],
                      score: tuple[int, int], round: int | None = None,
                      event_id: str | None = None, idempotency_key: str | None = None,
                      actor: Actor | None = None, session: Session | None = None) -> None:
        """A game or match result, as the scorekeeper reports it."""
        payload = {"players": list(players), "score": list(score), "round": round}
        if session is not None:
            place, where = self._place(session, tournament)
            self._append(session, place, where, "result", event_id, payload,
                         idempotency_key, actor or Actor())
            return
        self._event(tournament, "result", event_id, payload, idempotency_key, actor)

    @contextmanager
    def _tx(self, session: Session | None, tournament: int) -> Iterator[Session]:
        """The caller's transaction (`writing`), or a new one in the series' turn."""
        if session is not None:
            yield session
            return
        with self._writing(self._series_of(tournament).id) as s:
            yield s

    # ------------------------------------------------------------------ the core
    def execute(self, tournament: int, cmd: commands.Command, *, event_id: str | None = None,
                idempotency_key: str | None = None, actor: Actor | None = None,
                session: Session | None = None) -> Recorded:
        """Store one command of a tournament and the rulings the engine makes on it: in the
        caller's batch transaction `session` (from `writing`), or sent to the series' writer,
        which stores it with the other writes waiting for the series in one transaction and
        answers once that has committed (app.writer_queue).

        The idempotency key binds a retry to what was first sent: the same key with the same
        command by the same person answers the first result and writes nothing; the same key
        for anything else is refused."""
        actor = actor or Actor()
        place = self._series_of(tournament)
        where = TournamentRef(tournament)
        if session is not None:
            return self._store(session, place, where, cmd, event_id, idempotency_key, actor)
        answer = self.submit(tournament, cmd, event_id=event_id,
                             idempotency_key=idempotency_key, actor=actor)
        self.reading.give_back()  # waiting for its batch, the thread holds no connection
        return answer.result()

    def submit(self, tournament: int, cmd: commands.Command, *, event_id: str | None = None,
               idempotency_key: str | None = None, actor: Actor | None = None
               ) -> Future[Recorded]:
        """Send one command to its series' writer; its answer, once stored, in the future."""
        actor = actor or Actor()
        place = self._series_of(tournament)
        where = TournamentRef(tournament)
        return self.queue(place.id).submit(
            lambda s: self._store(s, place, where, cmd, event_id, idempotency_key, actor))

    def queue(self, series_id: int) -> SeriesQueue:
        """The writer of one series in this process (made on first use)."""
        found = self._queues.get(series_id)
        if found is None:
            with self._queues_mutex:
                found = self._queues.get(series_id)
                if found is None:
                    found = self._queues[series_id] = SeriesQueue(
                        series_id, lambda: self._writing(series_id),
                        lambda: self.write_timeout,
                        lambda: self.projection.forget(series_id))
        return found

    def shutdown(self) -> None:
        """Let every series' writer finish what it was sent (the server is stopping)."""
        with self._queues_mutex:
            queues, self._queues = list(self._queues.values()), {}
        for q in queues:
            q.close()

    def _store(self, s: Session, place: SeriesRef, where: TournamentRef,
               cmd: commands.Command, event_id: str | None, idempotency_key: str | None,
               actor: Actor) -> Recorded:
        """`_append` for one command under a savepoint of its own, its retry and its
        duplicates answered as the ledger's (a retry stores nothing: its savepoint is rolled
        back, the series' counter with it)."""
        try:
            with s.begin_nested():
                return self._append(s, place, where, cmd.kind, event_id, cmd.payload(),
                                    idempotency_key, actor, cmd)
        except _Retried as retry:  # (its first attempt may be of this very batch)
            return self._stored(retry.event_id, s)
        except IntegrityError as exc:
            self.projection.forget(place.id)
            if "ext_id" in str(exc.orig):
                raise LedgerError("event.id-used", field="event_id",
                                  event=event_id) from None
            if "idempotency_key" in str(exc.orig):  # the same key, at the same moment
                raise LedgerError("key.reused", field="idempotency_key") from None
            raise

    def _event(self, tournament: int, kind: str, event_id: str | None,
               payload: dict[str, Any], idempotency_key: str | None,
               actor: Actor | None) -> list[Ruling]:
        return self.execute(tournament, command(kind, payload), event_id=event_id,
                            idempotency_key=idempotency_key, actor=actor).rulings

    def _append(self, s: Session, series: SeriesRef, t: TournamentRef, kind: str,
                event_id: str | None, payload: dict[str, Any], idempotency_key: str | None,
                actor: Actor, cmd: commands.Command | None = None) -> Recorded:
        """Store one event and the rulings the engine makes on it (`cmd`: the payload already
        decoded, and `payload` its `cmd.payload()`)."""
        if cmd is None:
            cmd = command(kind, payload)
            payload = cmd.payload()  # stored as the decoder normalised it
        if s.new or s.dirty:
            s.flush()  # the caller's ORM rows first: what follows is Core on the connection
        conn = s.connection()
        found = NEXT_SEQ.run(conn, {"series": series.id})
        assert found is not None, "a series without its row"
        seq, head = found
        # holding the series lock now: a retry with the same key finds the first attempt
        if idempotency_key:
            done = conn.execute(BY_KEY, {"key": idempotency_key}).first()
            if done is not None:
                if tuple(done[1:]) != (series.id, t.id, kind, actor.name, payload):
                    raise LedgerError("key.reused", field="idempotency_key")
                raise _Retried(done.id)
        ext_id = event_id or f"e{seq}"
        if kind == "roster":
            ext_id = f"~roster-{seq}"
        state: State | None = None
        rulings: list[Ruling] = []
        if seq > 1:  # the series' first event is its first tournament: nothing to rule on
            # until this transaction ends (services.projection): the cached engine is ours
            self.projection.hold(s, series.id)
            state = self.projection.catch_up(s, series, seq - 1)
            if isinstance(cmd, commands.RecordResult):
                _not_entered(s, state, t, cmd)
            try:  # a term given in another series of the ledger (§4 E13)
                terms.check_elsewhere(s, series.id, state.engine.book, cmd,
                                      state.engine.t.date)
            except RuleError as exc:
                raise LedgerError(exc.code, field=exc.field, **exc.params) from None
            try:
                rulings = self.projection.apply(state, cmd, ext_id, series)
            except BaseException:
                self.projection.forget(series.id)  # the engine may be half-way: rebuild
                raise
            state.seq = seq
        try:
            audit = {"created_by": actor.name, "request_id": actor.request_id,
                     "created_at": m.now()}
            chain = Chain(head)  # every row below is linked into the series' hash chain
            row = {"series_id": series.id, "tournament_id": t.id, "seq": seq,
                   "ext_id": ext_id, "kind": kind, "payload": payload,
                   "idempotency_key": idempotency_key, **audit}
            chain.add("event", row)
            event_row = _first(INSERT_EVENT.run(conn, row))
            faults.point("after-event")
            if state is not None and rulings:
                store_rulings(s, state, chain, series.id, event_row, seq, t.id, rulings, audit)
            if kind == "result":
                a, b = payload["players"]
                row = {"event_id": event_row, "tournament_id": t.id, "round": payload["round"],
                       "player_a": a, "player_b": b, "score_a": payload["score"][0],
                       "score_b": payload["score"][1], **audit}
                chain.add("result", row, event=seq)
                INSERT_RESULT.run(conn, row)
            SET_HEAD.run(conn, {"series": series.id, "head": chain.head})
            # told to the live pages once the transaction has committed
            stage_change(s, self.changes, of_event(series.id, t.id, seq, ext_id, kind, payload))
            faults.point("before-commit")
        except BaseException:
            self.projection.forget(series.id)
            raise
        # if the transaction fails to commit after this, the engine is dropped as the
        # transaction ends (services.projection), before the state lock is released
        return Recorded(event=ext_id, rulings=rulings)

    def forget_all(self) -> None:
        """Drop every cached engine (after a rolled-back batch): rebuilt on next use."""
        self.projection.forget_all()

    # ------------------------------------------------------------------ lookups
    @staticmethod
    def _lock_series(s: Session, series_id: int) -> None:
        """Take the series lock before reading what a write depends on (PostgreSQL row lock;
        SQLite's BEGIN IMMEDIATE already holds the whole database)."""
        s.execute(select(m.Series.id).where(m.Series.id == series_id).with_for_update())

    def _series(self, s: Session, ref: int | str) -> m.Series:
        row = (s.get(m.Series, ref) if isinstance(ref, int) else
               s.scalar(select(m.Series).where(m.Series.name == ref)))
        if row is None:
            raise LedgerError("series.unknown", field="series", series=ref)
        return row

    def _place(self, s: Session, tournament: int) -> tuple[SeriesRef, TournamentRef]:
        """The series of a tournament (cached: it never changes)."""
        place = self._places.get(tournament)
        if place is None:
            t, series = self._tournament(s, tournament)
            place = self._places[tournament] = ref(series)
        return place, TournamentRef(tournament)

    def _tournament(self, s: Session, tournament: int) -> tuple[m.Tournament, m.Series]:
        t = s.get(m.Tournament, tournament)
        if t is None:
            raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
        return t, t.series

    def _person(self, s: Session, handle: str, name: str | None, actor: Actor) -> m.Person:
        person = s.scalar(select(m.Person).where(m.Person.handle == handle))
        if person is None:
            sk = skeleton(handle)
            _not_alike(s, handle, sk, None)
            person = m.Person(handle=handle, name=name or handle, skeleton=sk,
                              created_by=actor.name, request_id=actor.request_id)
            s.add(person)
            s.flush()
        return person

    def _team(self, s: Session, series: m.Series, handle: str) -> m.Team | None:
        return s.scalar(select(m.Team).where(m.Team.series_id == series.id,
                                             m.Team.handle == handle))

    def _members(self, s: Session, tournament_id: int, team_id: int) -> list[str]:
        return list(s.scalars(
            select(m.Person.handle).join(m.Entry, m.Entry.person_id == m.Person.id)
            .where(m.Entry.tournament_id == tournament_id, m.Entry.team_id == team_id)
            .order_by(m.Entry.id)))

    def _stored(self, event_id: int, s: Session | None = None) -> Recorded:
        """The first answer of a retried command, read back (in the writing transaction `s`
        where the first attempt may be, else a new session)."""
        from sudya.app.readback import rulings_of_event

        if s is None:
            with self.factory() as fresh:
                return self._stored(event_id, fresh)
        event = s.get(m.Event, event_id)
        assert event is not None
        return Recorded(event=event.ext_id, rulings=rulings_of_event(s, event), retried=True)


def _not_entered(s: Session, state: State, t: TournamentRef,
                 cmd: commands.RecordResult) -> None:
    """A second result for the same pair and round is refused (entered twice, it would count
    twice): a wrong result is corrected (`correct_result`), not entered again. What no longer
    counts is no obstacle: a corrected result, or a match annulled by a ruling, whose extra
    match is a later result of the same round (standings.entered)."""
    if cmd.round is None:
        return  # nothing says which of the pair's matches it is
    engine = state.engine
    rows = s.execute(
        select(m.Result.player_a, m.Result.player_b, m.Result.score_a, m.Result.score_b,
               m.Event.ext_id)
        .join(m.Event, m.Event.id == m.Result.event_id)
        .where(m.Result.tournament_id == t.id, m.Result.round == cmd.round)
        .order_by(m.Event.seq)).all()
    if not any({r.player_a, r.player_b} == set(cmd.players) for r in rows):
        return
    position = s.scalar(select(m.Tournament.position).where(m.Tournament.id == t.id)) or 0
    results = [(Result(id=r.ext_id, players=(r.player_a, r.player_b),
                       score=(r.score_a, r.score_b), round=cmd.round), position)
               for r in rows if r.ext_id not in engine.corrected_results]
    first = entered(engine.book, engine.roster, engine.rulings, results,
                    cmd.event("new"), position)
    if first is not None:
        raise LedgerError("result.entered", field="players", event=first.id,
                          round=cmd.round, players=" — ".join(first.players),
                          score="-".join(str(n) for n in first.score))


def _first(row: tuple[Any, ...] | None) -> Any:
    assert row is not None, "an INSERT ... RETURNING that returned nothing"
    return row[0]


def _not_alike(s: Session, handle: str, sk: str, series: int | None) -> None:
    """A new handle may not look like a person's, or a team's of the series (`series`), that
    is already there (sudya.domain.handles)."""
    found = s.scalar(select(m.Person.handle).where(m.Person.skeleton == sk,
                                                   m.Person.handle != handle).limit(1))
    if found is None and series is not None:
        found = s.scalar(select(m.Team.handle).where(m.Team.skeleton == sk,
                                                     m.Team.series_id == series,
                                                     m.Team.handle != handle).limit(1))
    if found is not None:
        raise LedgerError("handle.confusable", field="handle", handle=handle, existing=found)


def _require(value: str | None, field: str) -> None:
    if value is None or not str(value).strip():
        raise LedgerError("value.required", field=field)


def _jsonable_list(items: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    return None if items is None else [jsonable(dict(i)) if isinstance(i, dict) else i
                                       for i in items]
