"""Live updates: the event stream of a tournament (Server-Sent Events), and the offline shell.

`GET /api/v1/tournaments/{tid}/events` (`text/event-stream`) sends one `change` event per
change of the tournament — a ruling recorded, a decision, an appeal filed or decided, a
result, a correction, a roster change — as one `data:` line of JSON (`kind`, `event`,
`tournament`, and `seq`, `appeal`, `of` where they apply). The pages re-fetch what they show
when one comes (static/live.js, the vendored htmx SSE extension).

How it scales: a stream holds no database connection while it waits and never polls the
database itself. The ledger hands every committed change to the process's feed
(services.changes); one `Hub` per series being listened to passes it on to its listeners.
Changes another process (`sudya serve --workers N`) committed are found by the hub's own
catch-up: one short read of the series' marks (`last_seq`, the last appeal request) per
`POLL` seconds, shared by every listener of the series, and a read of what follows when they
moved. Each `id:` is a cursor `SEQ-APPEAL`: a reconnecting browser sends it back as
Last-Event-ID and gets what it missed. Heartbeat comments keep proxies from closing an idle
stream; a stream ends after `MAX_AGE` seconds (the browser reconnects at once and its access
is checked again); at most `MAX_LISTENERS` streams per process (503 beyond).

Also here: `/sw.js`, the service worker (static/sw.js) served from the root so that it may
control every page. (What the server recorded for an infraction the outbox sent is
pages_record's `/t/{tid}/record/answer/{event}`.)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pathlib
import time
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Annotated

import orjson
from fastapi import APIRouter, Depends, FastAPI, Path, Request
from fastapi.responses import FileResponse, Response, StreamingResponse

from sudya.app import changes
from sudya.app.accounts import AuthError, session_user
from sudya.app.changes import Change
from sudya.app.common import Actor, LedgerError
from sudya.app.core import Sudya
from sudya.edges.web.context import COOKIE, Ctx, get_ctx

log = logging.getLogger("sudya.live")
HERE = pathlib.Path(__file__).parent

POLL = 1.0  # seconds between two reads of a series' marks (changes of other processes)
HEARTBEAT = 15.0  # seconds between two comments on an idle stream
MAX_AGE = 300.0  # seconds a stream lasts before the browser is told to reconnect
MAX_LISTENERS = 2000  # open streams per process
MAX_BEHIND = 500  # changes a listener may have waiting before it is dropped (it reconnects)
CATCH_UP = 500  # changes sent at most to a reconnecting browser (the pages re-fetch anyway)
RETRY_MS = 2000  # what the browser waits before it reconnects

router = APIRouter()
pages = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]


@dataclass(eq=False)  # each listener is itself (hashed by identity)
class Listener:
    """One open stream: its tournament, its cursor, and the changes waiting to be sent."""

    tournament: int
    seq: int
    appeal: int
    waiting: deque[Change] = field(default_factory=deque)
    ready: asyncio.Event = field(default_factory=asyncio.Event)
    dropped: bool = False

    def offer(self, change: Change) -> None:
        if change.tournament != self.tournament:
            return
        if len(self.waiting) >= MAX_BEHIND:
            self.dropped = True  # too slow a reader: it reconnects and resumes by its cursor
        else:
            self.waiting.append(change)
        self.ready.set()

    def take(self, change: Change) -> bool:
        """Whether the change is past the cursor (and move the cursor past it)."""
        if change.seq:
            if change.seq <= self.seq:
                return False
            self.seq = change.seq
        elif change.appeal:
            if change.appeal <= self.appeal:
                return False
            self.appeal = change.appeal
        return True

    @property
    def cursor(self) -> str:
        return f"{self.seq}-{self.appeal}"


@dataclass
class Hub:
    """The listeners of one series, and where its changes have been passed on to them."""

    series: int
    seq: int
    appeal: int
    listeners: set[Listener] = field(default_factory=set)
    inbox: deque[Change] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    def dispatch(self, change: Change) -> None:
        if change.seq:
            self.seq = max(self.seq, change.seq)
        if change.appeal:
            self.appeal = max(self.appeal, change.appeal)
        for listener in list(self.listeners):
            listener.offer(change)

    def next_of(self, change: Change) -> bool | None:
        """True: the change follows what was passed on; None: already passed on; False: a gap
        (something committed elsewhere came between)."""
        if change.seq:
            return None if change.seq <= self.seq else change.seq == self.seq + 1
        if change.appeal:
            return None if change.appeal <= self.appeal else change.appeal == self.appeal + 1
        return True


class Live:
    """The live streams of this process (one per app), fed by its ledger's changes."""

    def __init__(self, app: Sudya, *, poll: float = POLL, heartbeat: float = HEARTBEAT,
                 max_age: float = MAX_AGE, max_listeners: int = MAX_LISTENERS) -> None:
        self.app = app
        self.poll = poll
        self.heartbeat = heartbeat
        self.max_age = max_age
        self.max_listeners = max_listeners
        self.hubs: dict[int, Hub] = {}
        self.count = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        app.changes.listen(self._committed)  # what this process commits

    # ------------------------------------------------------------------ from the writers
    def _committed(self, change: Change) -> None:
        """Called in a writer's thread once its transaction committed: never blocks."""
        loop = self._loop
        if loop is None or change.series not in self.hubs:
            return  # nobody listens to this series in this process
        with contextlib.suppress(RuntimeError):  # the loop has closed (shutting down)
            loop.call_soon_threadsafe(self._arrived, change)

    def _arrived(self, change: Change) -> None:
        hub = self.hubs.get(change.series)
        if hub is not None:
            hub.inbox.append(change)
            hub.wake.set()

    # ------------------------------------------------------------------ listeners
    async def join(self, series: int, tournament: int, marks: tuple[int, int],
                   cursor: tuple[int, int] | None) -> Listener:
        """A new listener of a tournament, from `cursor` (or from now: the series' `marks`)."""
        self._loop = asyncio.get_running_loop()
        seq, appeal = cursor if cursor is not None else marks
        listener = Listener(tournament=tournament, seq=seq, appeal=appeal)
        hub = self.hubs.get(series)
        if hub is None:
            hub = self.hubs[series] = Hub(series=series, seq=marks[0], appeal=marks[1])
            hub.task = asyncio.create_task(self._follow(hub), name=f"sudya-live-{series}")
        hub.listeners.add(listener)
        self.count += 1
        return listener

    def leave(self, series: int, listener: Listener) -> None:
        hub = self.hubs.get(series)
        if hub is None or listener not in hub.listeners:
            return
        hub.listeners.discard(listener)
        self.count -= 1
        if not hub.listeners:
            del self.hubs[series]
            if hub.task is not None:
                hub.task.cancel()

    async def _follow(self, hub: Hub) -> None:
        """Pass the series' changes on: this process's as they commit, other processes' as
        the marks show them (one short read per `poll` seconds for the whole series)."""
        next_poll = time.monotonic() + self.poll
        while True:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(hub.wake.wait(), max(0.0, next_poll - time.monotonic()))
            hub.wake.clear()
            behind = False
            while hub.inbox and not behind:
                follows = hub.next_of(hub.inbox[0])
                if follows is False:
                    behind = True  # left in the inbox: the read below finds them too
                    break
                change = hub.inbox.popleft()
                if follows:
                    hub.dispatch(change)
            try:
                if not behind and time.monotonic() >= next_poll:
                    next_poll = time.monotonic() + self.poll
                    seq, appeal = await asyncio.to_thread(self._marks, hub.series)
                    behind = seq > hub.seq or appeal > hub.appeal
                if behind:
                    found = await asyncio.to_thread(self._since, hub.series, hub.seq,
                                                    hub.appeal, None)
                    for change in found:
                        if hub.next_of(change) is not None:
                            hub.dispatch(change)
                    hub.inbox = deque(c for c in hub.inbox if hub.next_of(c) is not None)
            except asyncio.CancelledError:
                raise
            except Exception:  # the database is away: try again at the next poll
                log.warning("live: reading series %s failed", hub.series, exc_info=True)

    # ------------------------------------------------------------------ reads (threads)
    def _marks(self, series: int) -> tuple[int, int]:
        return self.app.read(changes.marks, series=series)

    def _since(self, series: int, seq: int, appeal: int, tournament: int | None
               ) -> list[Change]:
        return self.app.read(changes.since, series=series, seq=seq, appeal=appeal,
                             tournament=tournament, limit=CATCH_UP)


def live_of(app: FastAPI) -> Live:
    """The app's live streams (made on first use: the app's ledger feeds them)."""
    live: Live | None = getattr(app.state, "live", None)
    if live is None:
        live = app.state.live = Live(app.state.sudya)
    return live


def parse_cursor(value: str | None) -> tuple[int, int] | None:
    """A Last-Event-ID: `SEQ-APPEAL`, or a bare `SEQ` (appeal requests then from now)."""
    if not value:
        return None
    seq, _sep, appeal = value.strip().partition("-")
    if not seq.isdigit() or (appeal and not appeal.isdigit()) or len(value) > 40:
        return None
    return int(seq), int(appeal) if appeal else -1


@dataclass(frozen=True)
class Access:
    series: int
    marks: tuple[int, int]


def _access(app: Sudya, token: str | None, tid: int) -> Access:
    """The tournament's pages' rule: a signed-in user with a role in it (any role)."""
    user = app.read(session_user, token)
    if user is None:
        raise AuthError("auth.sign-in-first", status=401)
    try:
        st = app.standing(Actor(name=user.username, user=user), tid)
    except LedgerError as exc:
        if exc.code != "tournament.unknown":
            raise
        raise AuthError("tournament.unknown", status=404, field="tid", tournament=tid) from None
    if not st.can("member"):
        raise AuthError("access.no-role", status=403)
    series = st.tournament.series.id
    return Access(series=series, marks=app.read(changes.marks, series=series))


def _token(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.cookies.get(COOKIE)


def frame(change: Change, cursor: str) -> bytes:
    """One change as an SSE event: its cursor, its name, its one data line."""
    return b"id: %s\nevent: change\ndata: %s\n\n" % (cursor.encode(),
                                                     orjson.dumps(change.as_json()))


@router.get("/tournaments/{tid}/events", response_class=StreamingResponse,
            include_in_schema=False)  # endless: not for schemathesis (see docs/web.*.md)
async def events(request: Request, tid: Annotated[int, Path(ge=1, le=2**31 - 1)]
                 ) -> StreamingResponse:
    """The tournament's changes as Server-Sent Events (see the module's docstring)."""
    live = live_of(request.app)
    if live.count >= live.max_listeners:
        raise AuthError("live.too-many", status=503,
                        retry_after=5)
    # a short read of its own: no session of the request is held while the stream is open
    access = await asyncio.to_thread(_access, live.app, _token(request), tid)
    cursor = parse_cursor(request.headers.get("last-event-id"))
    if cursor is not None and cursor[1] < 0:
        cursor = (cursor[0], access.marks[1])
    listener = await live.join(access.series, tid, access.marks, cursor)
    missed: list[Change] = []
    try:
        if cursor is not None:
            missed = await asyncio.to_thread(live._since, access.series, cursor[0], cursor[1],
                                             tid)
    except BaseException:
        live.leave(access.series, listener)
        raise

    async def stream() -> AsyncIterator[bytes]:
        try:
            # the cursor first: a reconnect from here misses nothing
            yield f"retry: {RETRY_MS}\nid: {listener.cursor}\n\n".encode()
            for change in sorted(missed, key=lambda c: (c.appeal > 0, c.seq, c.appeal)):
                if listener.take(change):
                    yield frame(change, listener.cursor)
            ends = time.monotonic() + live.max_age
            while not listener.dropped and time.monotonic() < ends:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(listener.ready.wait(), live.heartbeat)
                if not listener.ready.is_set():
                    yield b": ping\n\n"
                    continue
                listener.ready.clear()
                while listener.waiting:
                    change = listener.waiting.popleft()
                    if listener.take(change):
                        yield frame(change, listener.cursor)
        finally:
            live.leave(access.series, listener)

    return StreamingResponse(stream(), media_type="text/event-stream", headers={
        "Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"})


# ---------------------------------------------------------------------- the offline shell
@pages.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the root so that its scope is every page."""
    return FileResponse(HERE / "static" / "sw.js", media_type="text/javascript",
                        headers={"Service-Worker-Allowed": "/", "Cache-Control": "no-cache"})


def include(app: FastAPI) -> None:
    """The stream under /api/v1, the service worker and the answer page."""
    app.state.live = Live(app.state.sudya)
    app.include_router(router, prefix="/api/v1", tags=["api"])
    app.include_router(pages)


__all__ = ["Live", "frame", "include", "live_of", "parse_cursor"]
