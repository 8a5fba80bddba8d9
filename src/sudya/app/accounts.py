"""Accounts, server-side sessions, CSRF tokens, login throttling and roles per tournament."""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import hmac
import math
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import (
    BindParameter,
    Select,
    String,
    bindparam,
    literal,
    select,
    true,
    union,
    union_all,
)
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger
from sudya.app.queries import (
    BIGGEST_ID,
    TOURNAMENT,
    person_exists,
    person_series,
    tournament_view,
)
from sudya.app.readback import plain_rows
from sudya.app.views import TournamentView, UserView
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

SESSION_DAYS = 7
EXTRA_ROLES = ("organiser", "scorekeeper", "player")
_hasher = PasswordHash((Argon2Hasher(),))


class AuthError(SudyaError):
    code = "auth"

    def __init__(self, message: str, *, status: int = 403, field: str = "",
                 retry_after: int | None = None, **params: Any) -> None:
        super().__init__(message, field=field, **params)
        self.status = status
        self.field = field
        self.retry_after = retry_after  # seconds, for a Retry-After header


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def create_user(s: Session, *, username: str, password: str, display_name: str | None = None,
                person: str | None = None) -> m.User:
    """A new account (argon2 hash); `person` links a player to their own record."""
    if not username.strip():
        raise AuthError("username: required", status=422, field="username")
    if len(password) < 8:
        raise AuthError("password: at least 8 characters", status=422, field="password")
    if s.scalar(select(m.User.id).where(m.User.username == username)) is not None:
        raise AuthError(f"username: {username!r} is taken", status=422, field="username")
    user = m.User(username=username, password_hash=hash_password(password),
                  display_name=display_name or username, person_handle=person)
    s.add(user)
    s.flush()
    return user


def user_named(s: Session, username: str) -> m.User:
    """The account of that username (refused, naming the field, when there is none)."""
    user = s.scalar(select(m.User).where(m.User.username == username))
    if user is None:
        raise AuthError("user.unknown", status=422, field="username", username=username)
    return user


def assign(s: Session, *, user: m.User, tournament_id: int, role: str) -> None:
    """Make a user organiser, scorekeeper or player of a tournament.

    Judge roles come from the tournament's staff list (`sudya judge add` with the user's
    username as the judge's id), so the engine knows who ruled.
    """
    if s.get(m.Tournament, tournament_id) is None:
        raise AuthError(f"tournament: unknown tournament {tournament_id}", status=422,
                        field="tournament")
    if role not in EXTRA_ROLES:
        raise AuthError(f"role: {role!r} is not one of {', '.join(EXTRA_ROLES)}; judges are "
                        "added to the tournament's staff", status=422, field="role")
    exists = s.scalar(select(m.Assignment.id).where(
        m.Assignment.user_id == user.id, m.Assignment.tournament_id == tournament_id,
        m.Assignment.role == role))
    if exists is None:
        s.add(m.Assignment(user_id=user.id, tournament_id=tournament_id, role=role))


class Throttle:
    """Failed logins, counted per address and per username, each key on its own back-off.

    A key's first `free` failures cost nothing; after that every attempt waits `base`, then
    twice as long after each further failure (1, 2, 4 … s), never more than `cap`, counted
    from the key's last failure. A spray of usernames from one address is slowed by the
    address's key; the real user, trying from elsewhere, waits at most `cap` — never a
    lock of minutes. A key quiet for `forget` seconds starts again; at most `max_keys` keys
    are kept (the longest quiet go first), so a flood of addresses cannot fill the memory.
    """

    def __init__(self, *, free: int = 3, base: float = 1.0, cap: float = 60.0,
                 forget: float = 900.0, max_keys: int = 10_000,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget = max(forget, cap)
        self.max_keys = max_keys
        self.clock = clock
        # key -> (failures, time of the last); ordered by the last failure, oldest first
        self._failures: collections.OrderedDict[str, tuple[int, float]] = (
            collections.OrderedDict())
        self._lock = threading.Lock()

    @staticmethod
    def keys(username: str, address: str) -> tuple[str, str]:
        """The two keys a login attempt counts against: its username and its address."""
        return f"user:{username.strip().casefold()}", f"address:{address}"

    def _expire(self, now: float) -> None:
        while self._failures:
            key, (_n, last) = next(iter(self._failures.items()))
            if now - last <= self.forget and len(self._failures) <= self.max_keys:
                return
            del self._failures[key]

    def delay(self, failures: int) -> float:
        """How long an attempt waits after this many failures in a row."""
        if failures < self.free:
            return 0.0
        return float(min(self.base * 2 ** min(failures - self.free, 32), self.cap))

    def wait(self, *keys: str) -> float:
        """Seconds until these keys may try again (0: now)."""
        with self._lock:
            now = self.clock()
            self._expire(now)
            waits = [last + self.delay(n) - now for n, last in
                     (self._failures[k] for k in keys if k in self._failures)]
            return max([0.0, *waits])

    def check(self, *keys: str) -> None:
        """Refuse (429, with the seconds to wait) while any of the keys is backing off."""
        seconds = self.wait(*keys)
        if seconds > 0:
            raise AuthError("login.throttled", status=429, retry_after=math.ceil(seconds),
                            seconds=math.ceil(seconds))

    def failed(self, *keys: str) -> None:
        with self._lock:
            now = self.clock()
            for key in keys:
                n, _last = self._failures.pop(key, (0, now))
                self._failures[key] = (n + 1, now)  # to the end: the newest failure
            self._expire(now)

    def succeeded(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._failures.pop(key, None)


def login(s: Session, *, username: str, password: str, throttle: Throttle,
          address: str) -> tuple[m.User, str]:
    """Check the password; open a server-side session; return the user and the token."""
    by_name, by_address = throttle.keys(username, address)
    throttle.check(by_name, by_address)  # before the password's hash: a refusal costs nothing
    user = s.scalar(select(m.User).where(m.User.username == username))
    ok = False
    if user is not None:
        ok, new_hash = _hasher.verify_and_update(password, user.password_hash)
        if ok and new_hash:
            user.password_hash = new_hash
    else:
        _hasher.hash(password)  # the same work whether or not the user exists
    if user is None or not ok:
        throttle.failed(by_name, by_address)
        raise AuthError("wrong username or password", status=401, field="password")
    # the address keeps its count: one's own account must not reset a spray's back-off
    throttle.succeeded(by_name)
    token = secrets.token_urlsafe(32)
    s.add(m.WebSession(token_hash=_digest(token), user_id=user.id,
                       expires_at=m.now() + dt.timedelta(days=SESSION_DAYS)))
    return user, token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class _Account(Protocol):
    """An account as an ORM row or as the columns a query read."""

    @property
    def id(self) -> int: ...
    @property
    def username(self) -> str: ...
    @property
    def display_name(self) -> str: ...
    @property
    def person_handle(self) -> str | None: ...
    @property
    def lang(self) -> str: ...


def user_view(user: _Account) -> UserView:
    """What the edges see of an account (never its password hash)."""
    return UserView(id=user.id, username=user.username, display_name=user.display_name,
                    person_handle=user.person_handle, lang=user.lang)


def sign_in(ledger: Ledger, *, username: str, password: str, throttle: Throttle,
            address: str) -> tuple[UserView, str]:
    """Log in (one transaction): the user and the new session's token."""
    with ledger.uow().begin() as s:
        user, token = login(s, username=username, password=password, throttle=throttle,
                            address=address)
        return user_view(user), token


def sign_out(ledger: Ledger, *, token: str | None) -> int:
    """End the session of this token (logout); returns how many ended."""
    with ledger.uow().begin() as s:
        return revoke(s, token)


def sign_out_everywhere(ledger: Ledger, *, username: str) -> int | None:
    """End every session of a user; how many ended (None: no user by this name)."""
    with ledger.uow().begin() as s:
        user = s.scalar(select(m.User).where(m.User.username == username))
        if user is None:
            return None
        return revoke(s, user_id=user.id)


def add_user(ledger: Ledger, *, username: str, password: str, display_name: str | None = None,
             person: str | None = None, roles: list[tuple[int, str]] | None = None) -> None:
    """A new account with its roles (tournament id, role): all of it or nothing."""
    with ledger.uow().begin() as s:
        user = create_user(s, username=username, password=password,
                           display_name=display_name, person=person)
        for tournament_id, role in roles or []:
            assign(s, user=user, tournament_id=tournament_id, role=role)


# the reads every request makes, built once (a statement object keeps its compiled form's
# cache key, so each request only binds its values) and read as plain rows
# (readback.plain_rows: no ORM result machinery for columns)
_SESSION_USER = (select(m.WebSession.revoked_at, m.WebSession.expires_at, m.User.id,
                        m.User.username, m.User.display_name, m.User.person_handle, m.User.lang)
                 .join(m.User, m.User.id == m.WebSession.user_id)
                 .where(m.WebSession.token_hash == bindparam("token_hash")))
# a user's assignments in a tournament and the staff list's entry, in one query
_ROLES = union_all(
    select(m.Assignment.role, literal(None, String).label("judge")).where(
        m.Assignment.user_id == bindparam("user"), m.Assignment.tournament_id == bindparam("t")),
    select(m.Staff.role, m.Staff.handle.label("judge")).where(
        m.Staff.tournament_id == bindparam("t"), m.Staff.handle == bindparam("username")))


def session_user(s: Session, token: str | None) -> UserView | None:
    """The user of a live (not expired, not revoked) session."""
    if not token:
        return None
    rows = plain_rows(s, _SESSION_USER, {"token_hash": _digest(token)})
    found = rows[0] if rows else None
    if found is None:
        return None
    return _live(found.revoked_at, found.expires_at, user_view(found))


def _live(revoked_at: dt.datetime | None, expires_at: dt.datetime, user: UserView
          ) -> UserView | None:
    """The user of a session, if the session is neither revoked nor expired."""
    if revoked_at is not None:
        return None
    expires = expires_at if expires_at.tzinfo else expires_at.replace(tzinfo=dt.UTC)
    return None if expires < m.now() else user


def revoke(s: Session, token: str | None = None, *, user_id: int | None = None) -> int:
    """End one session (logout) or every session of a user; returns how many."""
    query = select(m.WebSession).where(m.WebSession.revoked_at.is_(None))
    if token is not None:
        query = query.where(m.WebSession.token_hash == _digest(token))
    elif user_id is not None:
        query = query.where(m.WebSession.user_id == user_id)
    else:
        return 0
    count = 0
    for row in s.scalars(query):
        row.revoked_at = m.now()
        count += 1
    return count


def csrf_token(secret: str, session_token: str) -> str:
    """Bound to the session: a page's forms carry it, every state-changing request checks it."""
    return hmac.new(secret.encode(), session_token.encode(), hashlib.sha256).hexdigest()


def csrf_ok(secret: str, session_token: str | None, given: str | None) -> bool:
    if not session_token or not given:
        return False
    return hmac.compare_digest(csrf_token(secret, session_token), given)


# what a person may ask of a tournament; the first three are the rulebook's own (a role's
# `may`, so the engine's judge-role rule stays in the rulebook), the rest Sudya's
Action = Literal["rule", "decide", "hear-appeals", "results", "manage", "appeal", "view-all",
                 "pairings", "report"]


@dataclass(frozen=True)
class Roles:
    """A user's roles in one tournament, and what the rulebook lets them do."""

    names: frozenset[str]
    may: frozenset[str]  # rulebook actions: rule, decide, hear-appeals
    person: str | None
    judge_handle: str | None

    def can(self, action: Action) -> bool:
        """The one permission rule: whether these roles may do `action`."""
        if action in ("rule", "decide", "hear-appeals"):
            return action in self.may
        if action == "results":
            return bool({"scorekeeper", "organiser"} & self.names) or "rule" in self.may
        if action == "manage":
            return "organiser" in self.names
        if action == "pairings":  # the organiser, the scorekeeper and the head judge
            return bool({"scorekeeper", "organiser"} & self.names) or "hear-appeals" in self.may
        if action == "report":  # an incident, for a judge who may rule: every judge, a junior too
            return self.judge_handle is not None or "rule" in self.may
        if action == "appeal":
            return bool(self.names)
        if action == "view-all":
            return bool(self.names - {"player"})
        return False


def may(s: Session, user: UserView | None, action: Action, tournament: TournamentView
        ) -> bool:
    """Whether a user may do `action` in a tournament (every edge asks this)."""
    return roles_in(s, user, tournament).can(action)


def roles_in(s: Session, user: UserView | None, tournament: TournamentView,
             book: Rulebook | None = None) -> Roles:
    """Assignments plus the judge role the tournament's staff list gives the user (`book`:
    the tournament's rulebook, when the caller has it already)."""
    if user is None:
        return Roles(frozenset(), frozenset(), None, None)
    rows = plain_rows(s, _ROLES, {"user": user.id, "t": tournament.id,
                                  "username": user.username})
    return roles_from(user, [(row.role, row.judge) for row in rows], tournament, book)


def roles_from(user: UserView | None, found: list[tuple[str, str | None]],
               tournament: TournamentView, book: Rulebook | None = None) -> Roles:
    """The roles of a user's (role, staff-list handle) rows in a tournament, and what the
    rulebook lets them do."""
    if user is None:
        return Roles(frozenset(), frozenset(), None, None)
    names: set[str] = set()
    judge = None
    for name, handle in found:
        names.add(name)
        judge = handle or judge
    book = book or loader.load(tournament.series.rulebook, tournament.edition)
    may: set[str] = set()
    for name in names:
        role = book.roles.get(name)
        if role is not None:
            may.update(role.may)
    return Roles(frozenset(names), frozenset(may), user.person_handle, judge)


def _access_statement() -> Select[Any]:
    """The tournament, the session's user and the user's roles in the tournament, in one
    statement: a row per role (one with no role when there is none), the user's columns
    empty when the token names no session; its liveness is checked on the row."""
    token: BindParameter[str] = bindparam("token_hash")
    session = _SESSION_USER.subquery("signed_in")
    roles = union_all(  # as _ROLES: the assignments, and the staff list by the username
        select(m.Assignment.tournament_id, m.Assignment.role,
               literal(None, String).label("judge"))
        .join(m.WebSession, m.WebSession.user_id == m.Assignment.user_id)
        .where(m.WebSession.token_hash == token),
        select(m.Staff.tournament_id, m.Staff.role, m.Staff.handle.label("judge"))
        .join(m.User, m.User.username == m.Staff.handle)
        .join(m.WebSession, m.WebSession.user_id == m.User.id)
        .where(m.WebSession.token_hash == token)).subquery("roles")
    # the session's user columns, its `id` as user_id beside the tournament's own id
    user_columns = [c.label("user_id") if c.key == "id" else c for c in session.c]
    return (TOURNAMENT.add_columns(*user_columns, roles.c.role, roles.c.judge)
            .outerjoin(session, true())
            .outerjoin(roles, roles.c.tournament_id == m.Tournament.id)
            .where(m.Tournament.id == bindparam("tournament")))


_ACCESS = _access_statement()


@dataclass(frozen=True)
class Standing:
    """What every request to a tournament begins with, read in one statement: the signed-in
    user (None: nobody, or a session revoked or expired), the tournament (None: no such
    tournament) and the user's (role, staff-list handle) rows in it (`roles_from`)."""

    user: UserView | None
    tournament: TournamentView | None
    roles: list[tuple[str, str | None]]


def standing_in(s: Session, token: str | None, tournament: int) -> Standing:
    """`session_user`, `find_tournament` and `roles_in`'s rows in one statement instead of
    three (two more round trips to PostgreSQL, and SQLAlchemy's execution twice more)."""
    if not 0 < tournament <= BIGGEST_ID:  # no database integer holds it
        return Standing(session_user(s, token), None, [])
    rows = plain_rows(s, _ACCESS, {"token_hash": _digest(token) if token else "",
                                   "tournament": tournament})
    if not rows:
        return Standing(session_user(s, token), None, [])
    first = rows[0]
    user = None
    if first.user_id is not None:
        user = _live(first.revoked_at, first.expires_at,
                     UserView(id=first.user_id, username=first.username,
                              display_name=first.display_name,
                              person_handle=first.person_handle, lang=first.lang))
    roles = [(row.role, row.judge) for row in rows if row.role is not None and user]
    return Standing(user, tournament_view(first), roles)


def manages_any(s: Session, user: UserView | None) -> bool:
    """Whether a user organises some tournament: who may write and publish rulebooks (the
    web editor; the organisers choose the regulations their tournaments run under)."""
    if user is None:
        return False
    return s.scalar(select(m.Assignment.id).where(
        m.Assignment.user_id == user.id, m.Assignment.role == "organiser").limit(1)) is not None


def staff_series(s: Session, user: UserView) -> frozenset[int]:
    """The series in which a user holds a role other than player (in some tournament)."""
    assigned = (select(m.Tournament.series_id)
                .join(m.Assignment, m.Assignment.tournament_id == m.Tournament.id)
                .where(m.Assignment.user_id == user.id, m.Assignment.role != "player"))
    judging = (select(m.Tournament.series_id)
               .join(m.Staff, m.Staff.tournament_id == m.Tournament.id)
               .where(m.Staff.handle == user.username))
    return frozenset(s.scalars(union(assigned, judging)))


def readable_record(s: Session, user: UserView, tournament: TournamentView,
                    handle: str) -> frozenset[int] | None:
    """Which series of a person's record a user may read through a tournament's page.

    A player reads their own record whole (None); staff read a person of this tournament's
    series, and of the record only the series in which they hold a role. Anything else is
    refused (403), so a role in one series opens no other series' records.
    """
    if user.person_handle is not None and user.person_handle == handle:
        return None
    mine = staff_series(s, user)
    series = tournament.series
    if series.id not in mine:
        raise AuthError("record.no-role", status=403, series=series.name)
    if person_exists(s, handle) and series.id not in person_series(s, handle):
        raise AuthError("record.other-series", status=403, person=handle, series=series.name)
    return mine
