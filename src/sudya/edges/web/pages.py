"""HTML pages for judges on a phone: every form works without JavaScript; htmx makes it quick."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import JSONResponse, Response

from sudya.app.access import organised_series
from sudya.app.accounts import (
    AuthError,
    csrf_ok,
    csrf_token,
    may_start_series,
    readable_record,
    staff_series,
)
from sudya.app.appeals import requests as appeal_requests
from sudya.app.appeals import waiting as appeals_waiting
from sudya.app.clock import round_clock
from sudya.app.incidents import waiting as incidents_waiting
from sudya.app.ledger import LedgerError
from sudya.app.matches import standing_events
from sudya.app.people import display_names, people_names, person_name
from sudya.app.queries import (
    all_tournaments,
    events_by,
    person_history,
    rulings_json,
    series_rulebooks,
    standings_page,
    tournament_summary,
)
from sudya.app.readback import stored_reason
from sudya.app.recording import series_incident_notes
from sudya.app.statements import dq_events
from sudya.app.views import PeopleNamesView, TournamentSummaryView
from sudya.domain.engine.model import Ruling
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.describe import explain
from sudya.domain.rulebook.schema import Infraction, Rulebook
from sudya.edges.web import i18n, views
from sudya.edges.web.context import COOKIE, Ctx, get_ctx, see_other
from sudya.edges.web.pages_audit import check_view
from sudya.edges.web.pages_cases import case_events
from sudya.edges.web.pages_tables import dashboard_context
from sudya.edges.web.recorded import notice as record_notice
from sudya.edges.web.recorded import with_notes

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


# ---------------------------------------------------------------------- session
@router.get("/")
def home(ctx: C) -> Response:
    return see_other("/tournaments")


LOGIN_COOKIE = "sudya_login"  # the login form's own token (login CSRF), no session yet


def signed_out_form(ctx: Ctx, request: Request, template: str, *, status: int = 200,
                    **data: Any) -> Response:
    """A form posted before there is a session (login, /welcome), carrying a token bound to
    a cookie of the browser's own: a page of another site cannot post it (it would sign the
    browser in as someone else)."""
    seed = request.cookies.get(LOGIN_COOKIE) or secrets.token_urlsafe(24)
    page = ctx.render(template, status=status, login_csrf=csrf_token(ctx.app_secret, seed),
                      **data)
    page.set_cookie(LOGIN_COOKIE, seed, httponly=True, samesite="lax", max_age=86400,
                    secure=request.url.scheme == "https")
    return page


def signed_out_form_ok(ctx: Ctx, request: Request, given: str) -> bool:
    """Whether a signed-out form came with its own token (`signed_out_form`)."""
    return csrf_ok(ctx.app_secret, request.cookies.get(LOGIN_COOKIE), given)


def _login_page(ctx: Ctx, request: Request, *, status: int = 200, next: str, username: str,
                errors: dict[str, str]) -> Response:
    return signed_out_form(ctx, request, "login.html", status=status, next=_safe_next(next),
                           errors=errors, username=username)


@router.get("/login")
def login_form(ctx: C, request: Request, next: str = "/tournaments") -> Response:
    return _login_page(ctx, request, next=next, username="", errors={})


@router.get("/session/csrf")
def session_csrf(ctx: C) -> Response:
    """The signed-in session's form token, for a page open since before a restart or a new
    sign-in: the phone's outbox sends a kept ruling again with it (static/outbox.js)."""
    if ctx.user is None:
        return JSONResponse({"csrf": ""}, status_code=401, headers={"Cache-Control": "no-store"})
    return JSONResponse({"csrf": ctx.csrf}, headers={"Cache-Control": "no-store"})


@router.post("/login")
def login_submit(ctx: C, request: Request, username: Annotated[str, Form()] = "",
                 password: Annotated[str, Form()] = "",
                 next: Annotated[str, Form()] = "/tournaments",
                 csrf: Annotated[str, Form()] = "") -> Response:
    address = request.client.host if request.client else "?"
    if not signed_out_form_ok(ctx, request, csrf):
        return _login_page(ctx, request, status=403, next=next, username=username,
                           errors={"password": _("The form has expired; reload the page "
                                                 "and try again.")})
    try:
        user, token = ctx.app.sign_in(username=username.strip(), password=password,
                                      throttle=request.app.state.throttle, address=address)
    except AuthError as exc:
        message = (i18n.error(exc) if exc.status == 429
                   else _("Wrong username or password."))
        page = _login_page(ctx, request, status=exc.status, next=next, username=username,
                           errors={"password": message})
        if exc.retry_after is not None:
            page.headers["Retry-After"] = str(exc.retry_after)
        return page
    response = see_other(_safe_next(next))
    response.delete_cookie(LOGIN_COOKIE)
    response.set_cookie(COOKIE, token, httponly=True, samesite="lax",
                        max_age=7 * 86400, secure=request.url.scheme == "https")
    if user.lang and "lang" not in request.cookies:
        response.set_cookie("lang", user.lang, max_age=365 * 86400, samesite="lax")
    return response


@router.post("/logout")
def logout(ctx: C, csrf: Annotated[str, Form()] = "") -> Response:
    ctx.check_csrf(csrf)
    ctx.app.sign_out(ctx.token)
    response = see_other("/login")
    response.delete_cookie(COOKIE)
    return response


def _safe_next(url: str) -> str:
    return url if url.startswith("/") and not url.startswith("//") else "/tournaments"


# ---------------------------------------------------------------------- tournaments
@router.get("/tournaments")
def tournaments(ctx: C) -> Response:
    may_set_up = ctx.user is not None and bool(
        ctx.read(may_start_series, ctx.user.username)
        or ctx.read(organised_series, ctx.actor()))
    return ctx.render("tournaments.html", tournaments=ctx.read(all_tournaments),
                      may_set_up=may_set_up)


@router.get("/t/{tid}")
def dashboard(ctx: C, tid: int, recorded: str | None = None,
              undone: str | None = None, tp: int | None = None) -> Response:
    """The tournament's home: the search first (a table, a name), the judge's work next
    (pending decisions, appeals and incidents waiting, their own latest rulings, everyone's),
    the other pages, then the current round's tables, a page at a time. The work is the part
    that follows the tournament's changes (`live_work`: only it is sent again)."""
    st = ctx.standing(tid, "member")
    t, book, roles = st.tournament, st.book, st.roles
    # the current round's tables (a page of them), the players found (?q=); the names and
    # teams shown come from the players read for the tables (for a player, who sees no
    # tables, from the tournament's summary)
    board = dashboard_context(ctx, t, roles, ctx.request.query_params.get("q", ""),
                              page=tp)
    people = board.pop("people")
    summary: TournamentSummaryView | PeopleNamesView = (
        people_names(people) if people is not None else ctx.read(tournament_summary, tid))
    work = _work(ctx, st, summary, recorded=recorded, undone=undone)
    clock = ctx.read(round_clock, t.id)
    # the head judge and the organiser see the ledger's last verification (pages_audit)
    audit = {"check": check_view(ctx, tid)} if st.can("audit") else None
    return ctx.render("dashboard.html", t=t, book=book, roles=roles, summary=summary,
                      recorded=recorded, clock=clock, **board, **work, audit=audit)


@router.get("/t/{tid}/live/work")
def live_work(ctx: C, tid: int) -> Response:
    """The dashboard's work alone, as a live update fetches it when the tournament changes:
    a few KB, where the whole dashboard of a 500-player event is far more, and the rest of
    the page (an open table card, the search typed) is left as it is."""
    st = ctx.standing(tid, "member")
    summary = ctx.read(tournament_summary, tid)
    return ctx.render("_work.html", t=st.tournament, book=st.book, roles=st.roles,
                      summary=summary, **_work(ctx, st, summary, recorded=None, undone=None))


def _work(ctx: Ctx, st: Any, summary: TournamentSummaryView | PeopleNamesView, *,
          recorded: str | None, undone: str | None) -> dict[str, Any]:
    """What waits for the judge and what was ruled: pending rulings, the counts of appeals
    and incidents waiting, the judge's own latest rulings, the latest of everyone; and the
    notice of a ruling just recorded or undone."""
    tid, book, roles = st.tournament.id, st.book, st.roles
    every = ctx.read(rulings_json, tid)
    if not roles.can("view-all"):
        every = [r for r in every if r["subject"] == roles.person]
    # only the rulings shown are made ready for the page (names, choices, what settled
    # them): those pending, the latest ten, the judge's own latest five, and those of the
    # event just recorded or undone
    told = undone or recorded
    waiting = [r for r in every if r["pending"]]
    newest = every[:-11:-1]
    user = ctx.user
    recent = set(ctx.read(events_by, tournament=tid, username=user.username, limit=MINE)) \
        if user is not None and roles.can("view-all") else set()
    own = [r for r in reversed(every) if r["event"] in recent]
    about = [r for r in every if told and (r["event"] == told or (
        r.get("revokes") == told and r["cause"] == "correction"))]
    shown = list({id(r): r for r in waiting + newest + own + about}.values())
    ready = dict(zip(map(id, shown), views.rulings(book, shown, among=every,
                                                     names=summary.names), strict=True))
    pending = [ready[id(r)] for r in waiting]
    latest = [ready[id(r)] for r in newest]
    mine = [ready[id(r)] for r in own]
    # the head judge's «исправить» on a ruling that still stands (pages_match)
    correctable = set(standing_events(every)) if roles.can("decide") else set()
    if roles.can("view-all"):  # the judges' accounts of the incidents (pages_record)
        with_notes(ctx, tid, pending + latest + mine)
    # after a ruling was recorded or undone: it in words, and the undo for a short time
    notice = record_notice(ctx, tid, book, [ready[id(r)] for r in about], told,
                           undone=bool(undone), may_undo=roles.can("decide"))
    waiting_counts = {"appeals": ctx.read(appeals_waiting, tid)
                      if roles.can("hear-appeals") else None,
                      "incidents": ctx.read(incidents_waiting, tournament=tid)
                      if roles.can("rule") else None}
    # a disqualification's statements for its report (pages_statements)
    dqs = {d.event for d in ctx.read(dq_events, tournament=tid)}
    # a ruling made a test case of the rulebook, by one who writes rulebooks (pages_cases)
    cases = case_events(ctx, newest) if roles.can("view-all") else set()
    return {"pending": pending, "latest": latest, "mine": mine, "notice": notice,
            "correctable": correctable, "waiting": waiting_counts, "dqs": dqs,
            "cases": cases}


MINE = 5  # the judge's own latest rulings on the dashboard


# ---------------------------------------------------------------------- record a ruling
# the routes are in pages_record; the preview's explanation and the history are shared here
def _explained(book: Rulebook, r: Ruling) -> dict[str, Any]:
    """A ruling with everything a judge needs to see before confirming."""
    inf: Infraction | None = book.infraction(r.infraction) if r.infraction else None
    exp = explain(book, inf, i18n.current_lang.get()) if inf else None
    return {
        "ruling": r,
        "infraction_name": i18n.text(inf.name) if inf else "",
        "sanctions": [{"name": i18n.text(book.kind(s.kind).name), "kind": s.kind,
                       "amount": s.amount, "amount_text": views.amount(book, s.kind, s.amount),
                       "score": s.score, "attached": s.attached,
                       "subject": s.subject if s.subject != r.subject else None,
                       "valid_until": s.valid_until} for s in r.sanctions],
        "cause": i18n.cause(r.cause),
        # the interpretations and the source are shown from the rulebook itself below
        "notes": [i18n.reason(n, book) for n in r.notes
                  if n.code not in ("rule.interpretation", "rule.source")],
        "source": i18n.source(inf.source) if inf else "",
        "interpretations": [i18n.source(n) for n in exp.interpretations] if exp else [],
        "conflicts": [i18n.source(n) for n in exp.conflicts] if exp else [],
        "cells": {_level_name(book, lv): cell for lv, cell in (exp.cells if exp else {}).items()},
    }


def _level_name(book: Rulebook, level: str) -> str:
    names = {lv.id: i18n.text(lv.name) for lv in book.levels}
    return names.get(level, level)


def _history(ctx: Ctx, handle: str | None) -> list[dict[str, Any]]:
    """The person's latest rulings, named as a judge reads them."""
    if not handle:
        return []
    # the judge sees the rulings of the series they hold a role in, not the person's others
    scope = ctx.read(staff_series, ctx.need_user())
    try:
        entries = [e.as_json() for e in ctx.read(person_history, handle, dt.date.today(),
                                                         series=scope)[-10:]]
    except LedgerError:
        return []
    return [readable_entry(e) for e in entries]


def readable_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A history entry with the rulebook's names for its infraction and sanctions."""
    book = loader.load(entry["rulebook"], entry["edition"])
    inf = book.infraction(entry["infraction"]) if entry["infraction"] else None
    kinds = {k.id: i18n.text(k.name) for k in book.sanctions}
    return {**entry,
            "infraction_name": i18n.text(inf.name) if inf else (entry["infraction"] or "—"),
            "cause_name": i18n.cause(entry["cause"]),
            "sanctions": [{**sn, "name": kinds.get(sn["kind"], sn["kind"]),
                           "amount_text": views.amount(book, sn["kind"], sn.get("amount")),
                           "state_name": _(sn["state"])} for sn in entry["sanctions"]]}


# ---------------------------------------------------------------------- records
@router.get("/t/{tid}/people/{handle}")
def person(ctx: C, tid: int, handle: str) -> Response:
    user = ctx.need_user()
    st = ctx.standing(tid)
    t, book, roles = st.tournament, st.book, st.roles
    # staff: a person of this series, and of the record the series they hold a role in
    scope = ctx.read(readable_record, user, t, handle)
    entries = [e.as_json() for e in ctx.read(person_history, handle, dt.date.today(),
                                                   series=scope)]
    rulebook_of = ctx.read(series_rulebooks)
    for e in entries:  # names in the reader's language, from the edition each ruling used
        try:
            their = loader.load(rulebook_of[e["series"]], e["edition"])
        except (KeyError, SudyaError):
            their = book
        e["infraction_name"] = views.infraction_name(their, e["infraction"])
        e["cause_text"] = i18n.cause(e["cause"])
        e["sanctions"] = views.sanctions(their, e["sanctions"])
        # an appeal's outcome is in its note (upheld, overturned, frivolous)
        e["outcome"] = [i18n.reason(stored_reason(n), their) for n in e["reasons"]
                        if e["cause"] == "appeal"]
    views.settle_record(entries)
    if roles.can("view-all"):  # the judges' accounts of the incidents, for the staff
        notes = ctx.read(series_incident_notes, {(e["series"], e["event"]) for e in entries})
        for e in entries:
            e["incident"] = notes.get((e["series"], e["event"]))
    appeals = [{**a, "outcome": views.outcome_text(a["decision"]["outcome"])
                if a["decision"] else None}
               for a in ctx.read(appeal_requests, tid) if a["appellant"] == handle]
    dqs = {d.event for d in ctx.read(dq_events, tournament=tid)}  # their statements
    return ctx.render("person.html", t=t, book=book, handle=handle, entries=entries,
                      appeals=appeals, name=ctx.read(person_name, handle=handle), dqs=dqs)


@router.get("/t/{tid}/standings")
def standings(ctx: C, tid: int, page: int = 1, q: str = "") -> Response:
    t, book, roles = ctx.tournament(tid)  # public: no sign-in needed
    # a page of the players' lines (a large open tournament has thousands), or those found
    table = ctx.read(standings_page, tid, page=min(max(page, 1), 100_000), q=q[:100])
    # the names of the lines shown, not of every player
    shown = [*table.players, *table.teams]
    return ctx.render("standings.html", t=t, book=book, table=table,
                      names=ctx.read(display_names, tournament=tid, only=shown))
