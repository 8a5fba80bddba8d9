"""What every page and API call needs: the application, the user and their standing in a
tournament, CSRF, rendering."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Literal

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from sudya.app import access
from sudya.app.accounts import (
    AuthError,
    Roles,
    Standing,
    csrf_ok,
    csrf_token,
    roles_from,
    roles_in,
    session_user,
    standing_in,
)
from sudya.app.common import Actor, LedgerError
from sudya.app.core import Reads, Sudya
from sudya.app.queries import find_tournament
from sudya.app.views import TournamentView, UserView
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import i18n

COOKIE = "sudya_session"
# what a page needs of the user in a tournament: a permission of the core (app.access), or
# `view-all`: a role other than player's (the staff see every player's record)
Need = access.Permission | Literal["view-all"]


class LoginRequired(Exception):
    """An HTML page needs a signed-in user: redirect to the login page."""


_UNREAD: Any = object()  # the user is looked up on first use


@dataclass
class Ctx:
    """A request's signed-in user and standing, read on first use: in the thread the
    endpoint or its dependency runs in, so that building the context takes no trip to the
    thread pool (FastAPI runs each `def` dependency in a trip of its own). The pages read
    through `read` and write through `app.handle`, as the JSON API does: a request holds no
    database session of its own."""

    request: Request
    token: str | None
    data: dict[str, Any] = field(default_factory=dict)
    _user: UserView | None = _UNREAD
    _standings: dict[int, Standing] = field(default_factory=dict)
    _access: dict[int, access.Standing] = field(default_factory=dict)

    @property
    def user(self) -> UserView | None:
        if self._user is _UNREAD:
            self._user = self.read(session_user, self.token)
        return self._user

    @property
    def app(self) -> Sudya:
        """The application (sudya.app.core): every write goes through `app.handle`."""
        sudya: Sudya = self.request.app.state.sudya
        return sudya

    def actor(self) -> Actor:
        """The signed-in user as the author of what this request sends."""
        user = self.need_user()
        request_id = self.request.headers.get("x-request-id", "")[:64]
        return Actor(name=user.username, user=user, request_id=request_id or uuid.uuid4().hex)

    @property
    def read(self) -> Reads:
        """The application's reads: `ctx.read(fn, *args)` runs one of them (each takes a
        session first) in a session of its own (`Sudya.read`)."""
        return self.app.read

    @property
    def app_secret(self) -> str:
        """The secret every worker signs tokens with (app.secret)."""
        secret: str = self.request.app.state.secret
        return secret

    @property
    def csrf(self) -> str:
        return csrf_token(self.request.app.state.secret, self.token) if self.token else ""

    def check_csrf(self, given: str | None) -> None:
        """Every state-changing request carries the session's CSRF token (form or header)."""
        if self.request.headers.get("authorization", "").lower().startswith("bearer "):
            return  # API clients with a bearer token are not exposed to CSRF
        given = given or self.request.headers.get("x-csrf-token")
        if not csrf_ok(self.request.app.state.secret, self.token, given):
            raise AuthError("csrf.expired", status=403)

    def need_user(self) -> UserView:
        if self.user is None:
            raise LoginRequired
        return self.user

    def read_standing(self, tid: int) -> None:
        """Read the user, tournament `tid` and the user's roles in it in one statement (when
        the user is not read yet), for `user` and `tournament` to answer from."""
        if self._user is _UNREAD and tid not in self._standings:
            found = self._standings[tid] = self.read(standing_in, self.token, tid)
            self._user = found.user

    def tournament(self, tid: int) -> tuple[TournamentView, Rulebook, Roles]:
        """Tournament `tid`, its rulebook and the roles in it of whoever is signed in (no
        one, for a public page such as the standings)."""
        self.read_standing(tid)
        found = self._standings.get(tid)
        t = self.read(find_tournament, tournament=tid) if found is None else found.tournament
        if t is None:
            raise no_such_tournament()
        book = loader.load(t.series.rulebook, t.edition)
        if found is None:
            return t, book, self.read(roles_in, self.user, t, book)
        return t, book, roles_from(self.user, found.roles, t, book)

    def standing(self, tid: int, need: Need | None = None, refusal: str | None = None
                 ) -> access.Standing:
        """The signed-in user's standing in tournament `tid` as the core sees it
        (`app.standing`: the tournament, its rulebook, the user's roles), read once per
        request: what a page shows is decided by it. With `need`, a page that is no write
        is refused unless the user may (the core's refusal of that permission, or the
        page's `refusal`); a form's write is refused by `app.handle` itself."""
        st = self._access.get(tid)
        if st is None:
            actor = self.actor()
            try:
                st = self._access[tid] = self.app.standing(actor, tid)
            except LedgerError as exc:
                if exc.code != "tournament.unknown":
                    raise
                raise no_such_tournament() from None
        if need is None or (st.roles.can("view-all") if need == "view-all"
                            else st.can(need)):
            return st
        if refusal is not None:
            raise forbid(refusal)
        if need == "view-all":
            raise forbid(i18n.gettext("Players see only their own record."))
        raise access.refuse(self.actor(), need, st.tournament.name)

    def _may_find(self, data: dict[str, Any]) -> bool:
        """Whether a tournament's page shows the search at its top (templates/_find.html):
        to one who sees every player there, as this request's standing says."""
        t = data.get("t")
        st = self._access.get(t.id) if t is not None and hasattr(t, "id") else None
        return st is not None and st.roles.can("view-all")

    def render(self, template: str, status: int = 200, block: str | None = None,
               **data: Any) -> Response:
        templates = self.request.app.state.templates
        context = {"user": self.user, "csrf": self.csrf, "lang": i18n.current_lang.get(),
                   "path": self.request.url.path, "may_find": self._may_find(data), **data}
        extra = {"block_name": block} if block is not None else {}
        response: Response = templates.TemplateResponse(self.request, template, context,
                                                        status_code=status, **extra)
        return response


async def get_ctx(request: Request) -> Ctx:
    """The request's context: its user is read on first use, every read and write goes
    through the application, which gives its connections back at once."""
    token = request.cookies.get(COOKIE)
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    return Ctx(request=request, token=token)


def forbid(message: str) -> AuthError:
    return AuthError(message, status=403)


def no_such_tournament() -> AuthError:
    return AuthError(i18n.gettext("No such tournament."), status=404)


def see_other(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)
