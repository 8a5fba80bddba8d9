"""Accounts, server-side sessions, CSRF tokens, login throttling and roles per tournament."""

from __future__ import annotations

import collections
import contextlib
import datetime as dt
import hashlib
import hmac
import math
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, Protocol, cast

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import (
    BindParameter,
    Select,
    String,
    Table,
    bindparam,
    delete,
    func,
    literal,
    select,
    true,
    union,
    union_all,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
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
from sudya.app.views import AccountView, PasswordCodeView, TournamentView, UserView
from sudya.domain import handles
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

SESSION_DAYS = 7
EXTRA_ROLES = ("organiser", "scorekeeper", "player")


def _password_hasher(cost: str) -> PasswordHash:
    """argon2 at its standard cost (tens of milliseconds a password, 64 MiB); `test`
    (SUDYA_PASSWORD_COST=test, which the test suite sets: never on a server) the same kind of
    hash at next to no cost, so a suite that signs in thousands of times stays fast."""
    if cost == "test":
        return PasswordHash((Argon2Hasher(time_cost=1, memory_cost=1024, parallelism=1),))
    return PasswordHash((Argon2Hasher(),))


_hasher = _password_hasher(os.environ.get("SUDYA_PASSWORD_COST", "standard"))


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
    username = handles.normal(username)  # a judge's username is their staff-list handle
    wrong = handles.problem(username)
    if wrong is not None:
        raise AuthError(wrong, status=422, field="username", handle=username)
    if len(password) < 8:
        raise AuthError("user.password-short", status=422, field="password", least=8)
    if s.scalar(select(m.User.id).where(m.User.username == username)) is not None:
        raise AuthError("user.taken", status=422, field="username", username=username)
    user = m.User(username=username, password_hash=hash_password(password),
                  display_name=display_name or username, person_handle=person)
    s.add(user)
    s.flush()
    return user


# ---------------------------------------------------------------------- one-time codes
CODE_DAYS = 7  # an invitation or a reset is good for a week, once
_CODE_LETTERS = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read aloud at a venue


def _code_digest(code: str) -> str:
    """What is kept of a code: the hash of its letters (spaces, dashes, case ignored)."""
    plain = "".join(ch for ch in code.upper() if ch.isalnum())
    return hashlib.sha256(f"sudya password code\n{plain}".encode()).hexdigest()


def new_code(s: Session, user: m.User, actor_name: str) -> PasswordCodeView:
    """A fresh one-time code for the account (its earlier unused ones stop working): twelve
    letters and digits, 60 bits, shown once and kept only as a hash."""
    now = m.now()
    s.execute(update(m.PasswordCode).where(m.PasswordCode.user_id == user.id,
                                           m.PasswordCode.used_at.is_(None))
              .values(used_at=now))
    letters = "".join(secrets.choice(_CODE_LETTERS) for _ in range(12))
    code = "-".join(letters[i:i + 4] for i in range(0, 12, 4))
    expires = now + dt.timedelta(days=CODE_DAYS)
    s.add(m.PasswordCode(user_id=user.id, code_hash=_code_digest(code), expires_at=expires,
                         created_by=actor_name))
    return PasswordCodeView(username=user.username, code=code, expires_at=expires)


def use_code(ledger: Ledger, *, code: str, password: str, throttle: Throttle,
             address: str) -> tuple[UserView, str]:
    """Set an account's password with its one-time code and sign it in: the user and the new
    session's token. Every other session of the account ends (a reset is also a sign-out
    elsewhere). A wrong code counts as a failed login of the address."""
    if len(password) < 8:
        raise AuthError("user.password-short", status=422, field="password", least=8)
    if len(password) > 200:
        raise AuthError("user.password-long", status=422, field="password", most=200)
    _name, by_address = throttle.keys("", address)
    with ledger.uow().begin() as s:
        throttle.attempt(s, by_address)
    digest = _code_digest(code)
    new_hash = hash_password(password)  # outside any transaction (tens of milliseconds)
    with ledger.uow().begin() as s:
        row = s.scalar(select(m.PasswordCode).where(m.PasswordCode.code_hash == digest)
                       .with_for_update())
        if row is None or row.used_at is not None or m.aware(row.expires_at) < m.now():
            raise AuthError("user.code-unknown", status=422, field="code")
        row.used_at = m.now()
        user = s.get(m.User, row.user_id)
        assert user is not None
        user.password_hash = new_hash
        revoke(s, user_id=user.id)
        view = user_view(user)
        token = secrets.token_urlsafe(32)
        s.add(m.WebSession(token_hash=_digest(token), user_id=user.id,
                           expires_at=m.now() + dt.timedelta(days=SESSION_DAYS)))
        s.execute(update(m.LoginFailure).where(m.LoginFailure.key == by_address,
                                               m.LoginFailure.failures > 0)
                  .values(failures=m.LoginFailure.failures - 1))
    return view, token


def invite(s: Session, *, username: str, display_name: str | None, person: str | None,
           tournament: int, role: str | None, actor_name: str) -> PasswordCodeView:
    """A new account without a password yet (it signs in only once its code set one), with a
    role in the tournament; its one-time code."""
    user = create_user(s, username=username, password=secrets.token_urlsafe(32),
                       display_name=display_name, person=person)
    if role is not None:
        assign(s, user=user, tournament_id=tournament, role=role)
    return new_code(s, user, actor_name)


def remove_role(s: Session, *, user: m.User, tournament: int, role: str) -> None:
    """Take an account's role in a tournament away; never the tournament's last organiser
    (nobody could manage it any more)."""
    row = s.scalar(select(m.Assignment).where(
        m.Assignment.user_id == user.id, m.Assignment.tournament_id == tournament,
        m.Assignment.role == role))
    if row is None:
        raise AuthError("role.not-held", status=422, field="role", username=user.username,
                        role=role)
    if role == "organiser" and s.scalar(select(func.count()).select_from(m.Assignment).where(
            m.Assignment.tournament_id == tournament,
            m.Assignment.role == "organiser")) == 1:
        raise AuthError("role.last-organiser", status=422, field="role",
                        username=user.username)
    s.delete(row)


def of_own_events(s: Session, user: m.User, organised: set[int]) -> bool:
    """Whether every role the account holds is in a tournament of `organised` (its staff
    entries too) and it starts no series: the accounts an organiser may reset."""
    if user.may_start_series:
        return False
    held = set(s.scalars(select(m.Assignment.tournament_id)
                         .where(m.Assignment.user_id == user.id)))
    held |= set(s.scalars(select(m.Staff.tournament_id).where(m.Staff.handle == user.username)))
    return bool(held) and held <= organised


def organised_by(s: Session, username: str) -> set[int]:
    """The tournaments an account organises."""
    return set(s.scalars(select(m.Assignment.tournament_id)
                         .join(m.User, m.User.id == m.Assignment.user_id)
                         .where(m.User.username == username, m.Assignment.role == "organiser")))


def account_list(s: Session, tournament: int | None) -> list[AccountView]:
    """The accounts with their roles, by username: those with a role in `tournament` (its
    judges on the staff list too), or every account (None)."""
    users = select(m.User).order_by(m.User.username)
    if tournament is not None:
        users = users.where(m.User.id.in_(
            select(m.Assignment.user_id).where(m.Assignment.tournament_id == tournament))
            | m.User.username.in_(select(m.Staff.handle)
                                  .where(m.Staff.tournament_id == tournament)))
    found = list(s.scalars(users))
    ids = [u.id for u in found]
    roles: dict[int, list[tuple[int, str]]] = {}
    for row in s.execute(select(m.Assignment.user_id, m.Assignment.tournament_id,
                                m.Assignment.role).where(m.Assignment.user_id.in_(ids))
                         .order_by(m.Assignment.tournament_id, m.Assignment.role)):
        roles.setdefault(row.user_id, []).append((row.tournament_id, row.role))
    by_name = {u.username: u.id for u in found}
    for staff in s.execute(select(m.Staff.handle, m.Staff.tournament_id, m.Staff.role)
                           .where(m.Staff.handle.in_(list(by_name)))
                           .order_by(m.Staff.tournament_id)):
        roles.setdefault(by_name[staff.handle], []).append((staff.tournament_id, staff.role))
    pending = set(s.scalars(select(m.PasswordCode.user_id).where(
        m.PasswordCode.user_id.in_(ids), m.PasswordCode.used_at.is_(None),
        m.PasswordCode.expires_at > m.now())))
    return [AccountView(username=u.username, display_name=u.display_name,
                        person=u.person_handle, roles=sorted(roles.get(u.id, [])),
                        may_start_series=u.may_start_series, code_pending=u.id in pending)
            for u in found]


def may_start_series(s: Session, username: str) -> bool:
    """Whether the account may start series of its own (AllowSeries)."""
    return bool(s.scalar(select(m.User.may_start_series).where(m.User.username == username)))


def organisers_follow(s: Session, *, tournament: int, author: str | None) -> None:
    """A new tournament's organisers: its author (an account; None: the owner of the
    database) and every organiser of its series' earlier tournaments — a series role."""
    t = s.get(m.Tournament, tournament)
    assert t is not None
    earlier = set(s.scalars(select(m.Assignment.user_id)
                            .join(m.Tournament, m.Tournament.id == m.Assignment.tournament_id)
                            .where(m.Tournament.series_id == t.series_id,
                                   m.Tournament.id != tournament,
                                   m.Assignment.role == "organiser")))
    if author is not None:
        found = s.scalar(select(m.User.id).where(m.User.username == author))
        if found is not None:
            earlier.add(found)
    for user_id in sorted(earlier):
        s.add(m.Assignment(user_id=user_id, tournament_id=tournament, role="organiser"))


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
        raise AuthError("tournament.unknown", status=422, field="tournament",
                        tournament=tournament_id)
    if role not in EXTRA_ROLES:  # judges are added to the tournament's staff
        raise AuthError("role.unknown", status=422, field="role", role=role,
                        roles=", ".join(EXTRA_ROLES))
    exists = s.scalar(select(m.Assignment.id).where(
        m.Assignment.user_id == user.id, m.Assignment.tournament_id == tournament_id,
        m.Assignment.role == role))
    if exists is None:
        s.add(m.Assignment(user_id=user.id, tournament_id=tournament_id, role=role))


class Throttle:
    """Failed logins, counted per username and per address in the database every worker
    shares, each key on its own back-off.

    A username's first `free` failures cost nothing, an address's first `address_free` (a
    venue's judges share one address behind its Wi-Fi, and mistype); after that every
    attempt waits `base`, then twice as long after each further failure (1, 2, 4 … s), never
    more than `cap`, counted from the key's last failure. A spray of usernames from one
    address is slowed by the address's key; the real user, trying from elsewhere, waits at
    most `cap` — never a lock of minutes. A key quiet for `forget` seconds starts again (and
    its row goes). An attempt is counted before its password is hashed, so a burst at once
    is refused, not hashed; a success takes its count back.
    """

    def __init__(self, *, free: int = 3, address_free: int = 20, base: float = 1.0,
                 cap: float = 60.0, forget: float = 900.0,
                 clock: Callable[[], float] = time.time, hashing: int = 4) -> None:
        self.free = free
        self.address_free = max(address_free, free)
        self.base = base
        self.cap = cap
        self.forget = max(forget, cap)
        self.clock = clock  # wall-clock seconds: the workers share the database's counts
        self.at_once = hashing  # password hashes at once per address in this process
        self._hashing: collections.Counter[str] = collections.Counter()
        self._lock = threading.Lock()

    @staticmethod
    def keys(username: str, address: str) -> tuple[str, str]:
        """The two keys a login attempt counts against: its username and its address."""
        return f"user:{username.strip().casefold()}", f"address:{address}"

    def delay(self, failures: int, key: str = "") -> float:
        """How long an attempt of this key waits after this many failures in a row."""
        free = self.address_free if key.startswith("address:") else self.free
        if failures < free:
            return 0.0
        return float(min(self.base * 2 ** min(failures - free, 32), self.cap))

    def attempt(self, s: Session, *keys: str) -> None:
        """Count an attempt of these keys now, before its password is hashed (rows locked in
        the transaction `s`); refused (429, nothing counted) while any of them backs off."""
        when = dt.datetime.fromtimestamp(self.clock(), dt.UTC)
        now = when.timestamp()  # as it is stored (to the microsecond): a fresh row waits 0
        table = cast(Table, m.LoginFailure.__table__)
        # the keys quiet for `forget` go (by the index on last_at: the table stays small
        # under a flood of addresses)
        s.execute(delete(m.LoginFailure).where(
            m.LoginFailure.last_at < when - dt.timedelta(seconds=self.forget)))
        fresh = [{"key": k, "failures": 0, "last_at": when} for k in keys]
        dialect = s.get_bind().dialect.name
        insert_ = pg_insert if dialect == "postgresql" else sqlite_insert
        s.execute(insert_(table).values(fresh).on_conflict_do_nothing(index_elements=["key"]))
        rows = list(s.scalars(select(m.LoginFailure).where(m.LoginFailure.key.in_(keys))
                              .with_for_update()))
        seconds = max([0.0, *(m.aware(row.last_at).timestamp()
                              + self.delay(row.failures, row.key) - now for row in rows)])
        if seconds > 0:
            raise AuthError("login.throttled", status=429, retry_after=math.ceil(seconds),
                            seconds=math.ceil(seconds))
        for row in rows:
            row.failures += 1
            row.last_at = when

    def waiting(self, ledger: Ledger, *keys: str) -> float:
        """Seconds until these keys may try again, as every worker counts them (0: now)."""
        now = self.clock()
        with ledger.factory() as s:
            rows = list(s.scalars(select(m.LoginFailure)
                                  .where(m.LoginFailure.key.in_(keys))))
        waits = [last + self.delay(row.failures, row.key) - now for row in rows
                 if now - (last := m.aware(row.last_at).timestamp()) <= self.forget]
        return max([0.0, *waits])

    def succeeded_in(self, s: Session, by_name: str, by_address: str) -> None:
        """A login succeeded: the username starts again; the address's count of this attempt
        is taken back (its earlier failures stay: a spray is not reset by one's own login)."""
        s.execute(delete(m.LoginFailure).where(m.LoginFailure.key == by_name))
        s.execute(update(m.LoginFailure).where(m.LoginFailure.key == by_address,
                                               m.LoginFailure.failures > 0)
                  .values(failures=m.LoginFailure.failures - 1))

    @contextlib.contextmanager
    def hashing(self, address: str) -> Iterator[None]:
        """One of `at_once` password hashes for an address; refused (429) when as many run
        already (a burst from one address keeps the others' logins and rulings moving)."""
        with self._lock:
            if self._hashing[address] >= self.at_once:
                raise AuthError("login.throttled", status=429, retry_after=1, seconds=1)
            self._hashing[address] += 1
        try:
            yield
        finally:
            with self._lock:
                self._hashing[address] -= 1
                if not self._hashing[address]:
                    del self._hashing[address]


def _check_password(stored: str | None, password: str) -> tuple[bool, str | None]:
    """Whether the password matches the stored hash (and its hash anew, when the hasher says
    so); the same work whether or not the user exists (`stored` None)."""
    if stored is None:
        _hasher.hash(password)
        return False, None
    ok, new_hash = _hasher.verify_and_update(password, stored)
    return bool(ok), new_hash


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
    """Log in: the user and the new session's token.

    The attempt is counted first, in a short transaction shared by every worker (refused,
    429, while its username or address backs off) — before the password's hash, which costs
    tens of milliseconds and is done outside any transaction, at most `Throttle.hashing` at a
    time per address in this process. A success takes its count back (the username's whole;
    the address keeps its earlier failures: one's own account does not reset a spray's)."""
    by_name, by_address = throttle.keys(username, address)
    with ledger.uow().begin() as s:
        throttle.attempt(s, by_name, by_address)
    with ledger.factory() as s:
        user = s.scalar(select(m.User).where(m.User.username == username))
        if user is None and handles.normal(username) != username:  # typed «Anna» for anna
            user = s.scalar(select(m.User).where(m.User.username == handles.normal(username)))
        view = user_view(user) if user is not None else None
        stored = user.password_hash if user is not None else None
    with throttle.hashing(address):  # the connection is back in the pool by now
        ok, new_hash = _check_password(stored, password)
    if not ok or view is None:
        raise AuthError("auth.wrong-password", status=401, field="password")
    token = secrets.token_urlsafe(32)
    with ledger.uow().begin() as s:
        throttle.succeeded_in(s, by_name, by_address)
        if new_hash:
            s.execute(update(m.User).where(m.User.id == view.id)
                      .values(password_hash=new_hash))
        s.add(m.WebSession(token_hash=_digest(token), user_id=view.id,
                           expires_at=m.now() + dt.timedelta(days=SESSION_DAYS)))
    return view, token


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


def add_user(ledger: Ledger, *, username: str, password: str | None,
             display_name: str | None = None, person: str | None = None,
             roles: list[tuple[int, str]] | None = None,
             actor_name: str = "system") -> PasswordCodeView | None:
    """A new account with its roles (tournament id, role): all of it or nothing. Without a
    password, one nobody knows, and the one-time code that sets the real one."""
    with ledger.uow().begin() as s:
        user = create_user(s, username=username, password=password or secrets.token_urlsafe(32),
                           display_name=display_name, person=person)
        for tournament_id, role in roles or []:
            assign(s, user=user, tournament_id=tournament_id, role=role)
        return new_code(s, user, actor_name) if password is None else None


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
