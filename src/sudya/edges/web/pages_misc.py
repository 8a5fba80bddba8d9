"""A team's record, results entry for scorekeepers, and the round clock (with a projector page)."""

from __future__ import annotations

import re
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError, Roles
from sudya.app.clock import round_clock, rounds
from sudya.app.common import command
from sudya.app.ledger import LedgerError
from sudya.app.people import genders
from sudya.app.queries import (
    RESULTS_PAGE,
    result_count,
    rulings_json,
    team_name,
    tournament_results,
    tournament_standings,
    tournament_subjects,
    tournament_summary,
)
from sudya.app.views import SubjectView, TournamentView
from sudya.domain.commands import StartRound
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
SCORE = re.compile(r"\s*(\d{1,3})\s*[-:–]\s*(\d{1,3})\s*")


# ---------------------------------------------------------------------- a team's record
@router.get("/t/{tid}/teams/{handle}")
def team(ctx: C, tid: int, handle: str) -> Response:
    st = ctx.standing(tid, "view-all")
    t, book, roles = st.tournament, st.book, st.roles
    summary = ctx.read(tournament_summary, tid)
    members = summary.teams.get(handle)
    if members is None:
        raise AuthError(_("No such team."), status=404)
    name = ctx.read(team_name, series=t.series.id, handle=handle)
    rulings = views.rulings(book, ctx.read(rulings_json, tid), names=summary.names)
    about_team = [r for r in rulings if r["subject"] == handle
                  or any(s.get("subject") == handle for s in r["sanctions"])]
    about_members = [r for r in rulings if r["subject"] in members]
    tally = ctx.read(tournament_subjects, tournament=t.id)
    mine = tally.get(handle) or SubjectView(status="active", sanctions={}, points=0, ore=0)
    kinds = [{"name": views.kind_name(book, k), "kind": k, "count": n}
             for k, n in mine.sanctions.items()]
    try:
        standing = ctx.read(tournament_standings, tid)["teams"].get(handle)
    except LedgerError:
        standing = None
    if standing is not None:  # the status in words, not `active`
        standing = {c: i18n.status(v) if c == "status" else v for c, v in standing.items()}
    kind_names = {k.id: views.kind_name(book, k.id) for k in book.sanctions}
    return ctx.render("team.html", t=t, book=book, roles=roles, handle=handle,
                      status_text=i18n.status(mine.status),
                      points_text=views.tally_amount(book, "points", mine.points),
                      ore_text=views.tally_amount(book, "ore", mine.ore),
                      kind_names=kind_names, names=summary.names,
                      name=name or handle, members=members, tally=mine,
                      kinds=kinds, standing=standing, about_team=about_team,
                      about_members=about_members,
                      member_tally={p: tally.get(p) for p in members},
                      member_status=_member_status(ctx, tally, members))


def _member_status(ctx: Ctx, tally: dict[str, SubjectView], members: list[str]
                   ) -> dict[str, str]:
    """The status of each member who is out, in words agreeing with their gender."""
    out = [p for p in members if p in tally and tally[p].status != "active"]
    known = ctx.read(genders, handles=out)
    return {p: i18n.status(tally[p].status, known.get(p)) for p in out}


# ---------------------------------------------------------------------- results entry
def _results_page(ctx: Ctx, t: TournamentView, book: Rulebook, roles: Roles, *,
                  status: int = 200, values: dict[str, str] | None = None,
                  errors: dict[str, str] | None = None, entered: bool = False,
                  page: int = 1) -> Response:
    summary = ctx.read(tournament_summary, t.id)
    # the newest results a page at a time: a large open tournament enters thousands
    total = ctx.read(result_count, tournament=t.id)
    pages = max(1, -(-total // RESULTS_PAGE))
    page = min(max(page, 1), pages)
    rows = ctx.read(tournament_results, tournament=t.id, limit=RESULTS_PAGE,
                              offset=(page - 1) * RESULTS_PAGE)
    pager = {"page": page, "pages": pages, "total": total,
             "first": (page - 1) * RESULTS_PAGE + 1, "last": (page - 1) * RESULTS_PAGE + len(rows)}
    clock = ctx.read(round_clock, t.id)
    default_round = str(clock["round"]) if clock else ""
    return ctx.render("results.html", status=status, t=t, book=book,
                      players=summary.handles(), results=rows, pager=pager,
                      values=values or {"round": default_round}, errors=errors or {},
                      entered=entered, roles=roles)


@router.get("/t/{tid}/results")
def results(ctx: C, tid: int, entered: bool = False, page: int = 1, round: str = "",
            a: str = "", b: str = "") -> Response:
    """The results form; `round`, `a` and `b` fill it in (a table card's «result» link)."""
    st = ctx.standing(tid, "results")
    values = ({"round": round[:4], "player_a": a[:100], "player_b": b[:100]}
              if round or a or b else None)
    return _results_page(ctx, st.tournament, st.book, st.roles, entered=entered,
                         page=min(page, 100_000), values=values)


@router.post("/t/{tid}/results")
def results_submit(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not enter results
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in ("round", "player_a", "player_b",
                                                         "score")}
    errors: dict[str, str] = {}
    rnd = values["round"]
    if not rnd:
        errors["round"] = _("Enter the round.")
    elif forms.whole_number(rnd, 1000) is None:
        errors["round"] = _("A whole number.")
    for field in ("player_a", "player_b"):  # (one not of this tournament: the core says)
        if not values[field]:
            errors[field] = _("Choose the player.")
    if "player_b" not in errors and values["player_a"] == values["player_b"]:
        errors["player_b"] = _("Choose a different player.")
    score = SCORE.fullmatch(values["score"])
    if score is None:
        errors["score"] = _("Write the score as two numbers, such as 2-1.")
    if not errors:
        assert score is not None
        try:
            ctx.app.handle(command("result", {
                "players": [values["player_a"], values["player_b"]],
                "score": [int(score[1]), int(score[2])], "round": int(rnd)}),
                ctx.actor(), tid, key=views.form_key(form))
        except views.REFUSED as exc:
            field = {"players": "player_a", "players.0": "player_a", "players.1": "player_b",
                     "round": "round"}.get(exc.field, "score")
            errors[field] = i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/results?entered=1")
    return _results_page(ctx, t, book, roles, status=422, values=values, errors=errors)


# ---------------------------------------------------------------------- the round clock
def _rounds_page(ctx: Ctx, t: TournamentView, *, status: int = 200,
                 values: dict[str, str] | None = None, errors: dict[str, str] | None = None,
                 started: bool = False) -> Response:
    clock = ctx.read(round_clock, t.id)
    history = ctx.read(rounds, t.id)
    suggested = {"round": str(clock["round"] + 1) if clock else "1",
                 "minutes": str(history[0].minutes) if history else "50"}
    return ctx.render("rounds.html", status=status, t=t, clock=clock, history=history,
                      values=values or suggested, errors=errors or {}, started=started)


@router.get("/t/{tid}/rounds")
def rounds_page(ctx: C, tid: int, started: bool = False) -> Response:
    st = ctx.standing(tid, "manage")
    return _rounds_page(ctx, st.tournament, started=started)


@router.post("/t/{tid}/rounds/start")
def round_start(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not start rounds
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in ("round", "minutes")}
    errors: dict[str, str] = {}
    numbers: dict[str, int] = {}
    for field in ("round", "minutes"):
        number = forms.whole_number(values[field])
        if number is not None:
            numbers[field] = number
        else:
            errors[field] = _("A whole number.")
    if not errors:
        try:
            ctx.app.handle(views.command(StartRound, round=numbers["round"],
                                         minutes=numbers["minutes"]),
                           ctx.actor(), tid, key=views.form_key(form))
        except views.REFUSED as exc:
            errors[exc.field if exc.field in ("round", "minutes") else "round"] = \
                i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/rounds?started=1")
    return _rounds_page(ctx, t, status=422, values=values, errors=errors)


@router.get("/t/{tid}/clock")
def clock(ctx: C, tid: int) -> Response:
    """Public, like the standings: a projector in the hall needs no judge's session."""
    t, _book, _roles = ctx.tournament(tid)
    data: dict[str, Any] | None = ctx.read(round_clock, tid)
    return ctx.render("clock.html", t=t, clock=data)
