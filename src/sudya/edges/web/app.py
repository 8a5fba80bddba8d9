"""The judges' web app and the JSON API, built by `create_app(settings)`."""

from __future__ import annotations

import contextlib
import logging
import re
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import jinja2
from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.responses import JSONResponse, Response
from jinja2_fragments.fastapi import Jinja2Blocks
from starlette.concurrency import run_in_threadpool
from starlette.middleware.gzip import GZipMiddleware
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from sudya import __version__
from sudya.app.accounts import AuthError, Throttle
from sudya.app.core import Sudya
from sudya.app.settings import Settings
from sudya.domain.errors import SudyaError
from sudya.edges.web import i18n, security
from sudya.edges.web.assets import Assets, StaticAssets
from sudya.edges.web.headers import LanguageAndHeaders
from sudya.edges.web.limits import RequestLimits

HERE = Path(__file__).parent
# the HTTP status of an error's code (any other: 422, bad input): a key used for another
# request is a conflict with what was stored, and so is a second result for a pair's match
# (result.entered); a write that waited longer than
# SUDYA_WRITE_TIMEOUT for its series' turn recorded nothing and may be sent again; a
# scenario with more events than the caller may replay is too large
GZIP_FROM = 1400  # bytes: a body smaller than this fits in one TCP segment (MSS ≈ 1448)
STATUS = {"key.reused": 409, "ledger.busy": 503, "replay.too-many-events": 413,
          "replay.too-many-events-anonymous": 413, "result.entered": 409}
# how long a refused write is told to wait (Retry-After): the queue it met was stuck for the
# whole write timeout, so at once would only join the end of it again
BUSY_RETRY_AFTER = 5
CODE = re.compile(r"[a-z][a-z0-9_.-]{0,99}")  # a message code (an old message is its text)


def templates(assets: Assets | None = None) -> Jinja2Blocks:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(HERE / "templates"),
        autoescape=True,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda message, **kw: i18n.gettext(message, **kw),
        lambda s, p, n, **kw: i18n.ngettext(s, p, n, **kw),
        newstyle=True,
    )
    env.filters["date"] = i18n.date
    env.filters["isodate"] = i18n.isodate
    env.filters["datetime"] = i18n.datetime
    env.filters["t"] = i18n.text
    env.filters["source"] = i18n.source  # citations named in words (§4 E11)
    env.globals["lang"] = i18n.current_lang.get
    env.globals["version"] = __version__
    env.globals["new_key"] = lambda: uuid.uuid4().hex  # one idempotency key per form
    # a static file's URL by its content hash, cached for a year (web/assets.py)
    env.globals["static_url"] = (assets or Assets(HERE / "static")).url
    return Jinja2Blocks(env=env)


@contextlib.asynccontextmanager
async def _lifespan(app: FastAPI) -> AsyncIterator[None]:
    yield
    # the writes already sent, done; each cached engine stored as its series' snapshot (a
    # restart starts from there); the database file made whole (its write-ahead log folded
    # in: a copy of the file alone is then complete)
    try:
        await run_in_threadpool(app.state.sudya.stop)
    except Exception:  # noqa: BLE001 — the database may be gone; the events are not
        logging.getLogger("sudya").exception("the server did not stop cleanly")


def create_app(settings: Settings | None = None, *, engine: Any = None) -> FastAPI:
    """The app over one database (the settings', or an SQLAlchemy `engine` over one);
    refuses an unmigrated database."""
    settings = settings or Settings()
    sudya = Sudya.open(settings, engine)
    app = FastAPI(
        title="Sudya API",
        version=__version__,
        description="Penalty regulations as a running system: record infractions, get "
                    "rulings with their reasons, appeals, decisions, results, standings.",
        openapi_url="/api/v1/openapi.json",
        docs_url=None,  # sudya.edges.web.security serves it, with a policy of its own
        redoc_url=None,
        lifespan=_lifespan,
    )
    app.state.sudya = sudya
    app.state.ledger = sudya.ledger
    app.state.settings = settings
    # one secret for every worker and restart: SUDYA_SECRET, or the database's (app.secret)
    app.state.secret = sudya.secret(settings.secret)
    app.state.throttle = Throttle()
    app.state.assets = assets = Assets(HERE / "static")  # hashed once, at startup
    app.state.templates = templates(assets)
    # HTML, CSS, JS and JSON compressed (htmx is 52 KB, 16 KB gzipped); not the event stream
    # (Starlette leaves text/event-stream alone) nor what fits in one packet anyway (a
    # recorded ruling's answer, 0.4–1.3 KB: gzip would only cost both ends CPU). Innermost:
    # the middleware below streams every body, and gzip would then take even the smallest
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=6)
    app.add_middleware(RequestLimits)  # inside the next one: its headers and language apply

    app.add_middleware(LanguageAndHeaders)

    if settings.trusted_proxies:
        # outermost, so every layer sees the client the named proxies report; uvicorn itself
        # runs with proxy_headers=False (sudya serve) and believes no header from anyone
        app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=settings.trusted_proxies)

    @app.exception_handler(SudyaError)
    async def sudya_error(request: Request, exc: SudyaError) -> Response:
        status = exc.status if isinstance(exc, AuthError) else STATUS.get(exc.code, 422)
        field = getattr(exc, "field", "")
        retry_after = getattr(exc, "retry_after", None)
        if exc.code == "ledger.busy":
            retry_after = BUSY_RETRY_AFTER
        # the code of a refusal, for a script to tell "fetch a fresh token" (csrf.expired)
        # from a refusal of what it sent (static/outbox.js): never the text parsed back
        headers = {"Sudya-Code": exc.code} if CODE.fullmatch(exc.code) else {}
        if retry_after is not None:
            headers["Retry-After"] = str(retry_after)
        if request.url.path.startswith("/api/"):
            # the message in the request's language (?lang=, the lang cookie; Russian by
            # default), its code in `type` for scripts
            return JSONResponse({"detail": [{"loc": ["body", *field.split(".")] if field
                                             else ["body"],
                                             "msg": exc.render(i18n.current_lang.get()),
                                             "type": exc.code,
                                             "params": jsonable_encoder(exc.params)}]},
                                status_code=status, headers=headers)
        from sudya.app.accounts import csrf_token, session_user
        from sudya.edges.web.context import COOKIE

        token = request.cookies.get(COOKIE)
        user = app.state.sudya.read(session_user, token)
        page: Response = app.state.templates.TemplateResponse(
            request, "error.html",
            {"message": exc.render(i18n.current_lang.get()), "user": user,
             "csrf": csrf_token(app.state.secret, token) if user and token else "",
             "lang": i18n.current_lang.get()}, status_code=status, headers=headers)
        return page

    from sudya.edges.web import (
        api,
        pages,
        pages_appeals,
        pages_audit,
        pages_decks,
        pages_manage,
        pages_misc,
        pages_pending,
        pages_record,
        pages_rulebooks,
    )
    from sudya.edges.web.context import LoginRequired, see_other

    @app.exception_handler(LoginRequired)
    async def login_required(request: Request, exc: LoginRequired) -> Response:
        if request.url.path.startswith("/api/"):
            # the shape of every refusal of the API: where, the message, its code
            refusal = AuthError("auth.sign-in-first", status=401)
            return JSONResponse({"detail": [{"loc": ["header", "authorization"],
                                             "msg": refusal.render(i18n.current_lang.get()),
                                             "type": refusal.code,
                                             "params": {}}]},
                                status_code=401, headers={"Sudya-Code": refusal.code})
        return see_other(f"/login?next={request.url.path}")

    app.mount("/static", StaticAssets(assets), name="static")
    security.add_api_docs(app, "/api/v1/docs")

    # the API first: its routes all begin with /api/v1, so no page can take one of them, and
    # a recorded ruling need not be matched against every page's path before its own
    app.include_router(api.router)
    app.include_router(pages.router)
    from sudya.edges.web import pages_incidents, pages_tables  # tables, people; incident reports

    app.include_router(pages_tables.router)
    app.include_router(pages_incidents.router)
    from sudya.edges.web import pages_editor  # the rulebook editor: before /rulebooks/{rid}

    app.include_router(pages_editor.router)
    from sudya.edges.web import pages_cases  # a ruling made a test case of its rulebook

    app.include_router(pages_cases.router)
    from sudya.edges.web import (  # set-up; staff, accounts, /welcome; team rounds' games
        pages_matchups,
        pages_my_match,
        pages_offline,
        pages_setup,
        pages_staff,
    )

    for module in (pages_record, pages_pending, pages_appeals, pages_misc, pages_rulebooks,
                   pages_decks, pages_manage, pages_audit, pages_staff, pages_setup,
                   pages_matchups, pages_my_match, pages_offline):
        app.include_router(module.router)
    from sudya.edges.web import live  # the tournament's event stream and /sw.js (docs/web.*.md)

    live.include(app)
    from sudya.edges.web import pages_match  # the end of a match; corrections

    app.include_router(pages_match.router)
    from sudya.edges.web import api_statements, pages_statements  # statements for a DQ's report

    app.include_router(pages_statements.router)
    app.include_router(api_statements.router)
    from sudya.edges.web import api_setup  # set-up through the API: as the set-up pages

    app.include_router(api_setup.router)
    from sudya.edges.web import pages_reports  # reports on paper: pages, PDF, CSV, the API's JSON

    app.include_router(pages_reports.router)
    app.include_router(pages_reports.api_router)
    return app


__all__ = ["create_app", "templates"]
