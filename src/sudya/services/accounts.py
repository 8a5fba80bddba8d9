"""Accounts, server-side sessions, CSRF tokens, login throttling and roles per tournament."""

from __future__ import annotations

import collections
import datetime as dt
import hashlib
import hmac
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any, Literal

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher
from sqlalchemy import select, union
from sqlalchemy.orm import Session

from sudya.db import models as m
from sudya.errors import SudyaError
from sudya.rulebooks import loader
from sudya.services.ledger import Ledger
from sudya.services.queries import person_exists, person_series
from sudya.views import TournamentView, UserView

SESSION_DAYS = 7
EXTRA_ROLES = ("organiser", "scorekeeper", "player")
_hasher = PasswordHash((Argon2Hasher(),))


class AuthError(SudyaError):
    code = "auth"

    def __init__(self, message: str, *, status: int = 403, field: str = "",
                 **params: Any) -> None:
        super().__init__(message, field=field, **params)
        self.status = status
        self.field = field


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
    """At most `limit` failed logins per username and address in `window` seconds."""

    def __init__(self, limit: int = 5, window: float = 300.0) -> None:
        self.limit = limit
        self.window = window
        self._failures: dict[str, collections.deque[float]] = collections.defaultdict(
            collections.deque)
        self._lock = threading.Lock()

    def _recent(self, key: str) -> collections.deque[float]:
        q = self._failures[key]
        cutoff = time.monotonic() - self.window
        while q and q[0] < cutoff:
            q.popleft()
        return q

    def check(self, key: str) -> None:
        with self._lock:
            if len(self._recent(key)) >= self.limit:
                raise AuthError("too many failed logins; wait a few minutes", status=429)

    def failed(self, key: str) -> None:
        with self._lock:
            self._recent(key).append(time.monotonic())

    def succeeded(self, key: str) -> None:
        with self._lock:
            self._failures.pop(key, None)


def login(s: Session, *, username: str, password: str, throttle: Throttle,
          address: str) -> tuple[m.User, str]:
    """Check the password; open a server-side session; return the user and the token."""
    key = f"{username.lower()}@{address}"
    throttle.check(key)
    user = s.scalar(select(m.User).where(m.User.username == username))
    ok = False
    if user is not None:
        ok, new_hash = _hasher.verify_and_update(password, user.password_hash)
        if ok and new_hash:
            user.password_hash = new_hash
    else:
        _hasher.hash(password)  # the same work whether or not the user exists
    if user is None or not ok:
        throttle.failed(key)
        raise AuthError("wrong username or password", status=401, field="password")
    throttle.succeeded(key)
    token = secrets.token_urlsafe(32)
    s.add(m.WebSession(token_hash=_digest(token), user_id=user.id,
                       expires_at=m.now() + dt.timedelta(days=SESSION_DAYS)))
    return user, token


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def user_view(user: m.User) -> UserView:
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


def session_user(s: Session, token: str | None) -> UserView | None:
    """The user of a live (not expired, not revoked) session."""
    if not token:
        return None
    row = s.scalar(select(m.WebSession).where(m.WebSession.token_hash == _digest(token)))
    if row is None or row.revoked_at is not None:
        return None
    expires = row.expires_at if row.expires_at.tzinfo else row.expires_at.replace(
        tzinfo=dt.UTC)
    if expires < m.now():
        return None
    user = s.get(m.User, row.user_id)
    return None if user is None else user_view(user)


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
Action = Literal["rule", "decide", "hear-appeals", "results", "manage", "appeal", "view-all"]


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
        if action == "appeal":
            return bool(self.names)
        if action == "view-all":
            return bool(self.names - {"player"})
        return False


def may(s: Session, user: UserView | None, action: Action, tournament: TournamentView
        ) -> bool:
    """Whether a user may do `action` in a tournament (every edge asks this)."""
    return roles_in(s, user, tournament).can(action)


def roles_in(s: Session, user: UserView | None, tournament: TournamentView) -> Roles:
    """Assignments plus the judge role the tournament's staff list gives the user."""
    if user is None:
        return Roles(frozenset(), frozenset(), None, None)
    names = set(s.scalars(select(m.Assignment.role).where(
        m.Assignment.user_id == user.id, m.Assignment.tournament_id == tournament.id)))
    staff = s.scalar(select(m.Staff).where(m.Staff.tournament_id == tournament.id,
                                           m.Staff.handle == user.username))
    book = loader.load(tournament.series.rulebook, tournament.edition)
    judge = None
    if staff is not None:
        names.add(staff.role)
        judge = staff.handle
    may: set[str] = set()
    for name in names:
        role = book.roles.get(name)
        if role is not None:
            may.update(role.may)
    return Roles(frozenset(names), frozenset(may), user.person_handle, judge)


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
