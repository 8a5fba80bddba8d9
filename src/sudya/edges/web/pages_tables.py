"""Tables and people by name: the dashboard's tables of the current round and its search for
a player, and the pairings page where a round's tables are uploaded from CSV."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import UploadFile

from sudya.app.accounts import AuthError, Roles
from sudya.app.imports import ImportRejected
from sudya.app.matches import table_results
from sudya.app.people import (
    PLAYER_COLUMNS,
    TEAM_COLUMNS,
    decode_upload,
    round_pairings,
    round_tables,
    search_people,
    tournament_people,
)
from sudya.app.self_results import round_reports
from sudya.app.swiss_rounds import byes
from sudya.app.team_rounds import round_games
from sudya.app.views import PairedRoundView, PairingsView, PersonView, TournamentView
from sudya.domain.commands import ImportPairings, PairRound, PairTopCut
from sudya.domain.errors import SudyaError
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx, see_other

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
LIST_ALL = 40  # a tournament this small lists everyone under the search field
SHOWN = 30  # found people shown at once; more: type more of the name


def record_url(t: TournamentView, handle: str, table: int | None, round: int | None) -> str:
    """The record form for a player, with their table and the round filled in."""
    query: dict[str, Any] = {"table": table, "player": handle, "round": round}
    return f"/t/{t.id}/record?" + urlencode({k: v for k, v in query.items() if v is not None})


def report_url(t: TournamentView, handle: str, table: int | None, round: int | None) -> str:
    """The incident report form for a player, their table and the round filled in (for a
    judge who may not rule)."""
    query: dict[str, Any] = {"player": handle, "table": table, "round": round}
    return f"/t/{t.id}/incidents?" + urlencode({k: v for k, v in query.items()
                                                if v is not None})


def _person(t: TournamentView, p: PersonView, round: int | None) -> dict[str, Any]:
    at = p.round or round
    return {**p.model_dump(), "record": record_url(t, p.handle, p.table, at),
            "report": report_url(t, p.handle, p.table, at)}


def _tables(t: TournamentView, pairings: PairingsView, people: list[PersonView]
            ) -> list[dict[str, Any]]:
    """The round's tables, each side with its players (and their record links); without
    pairings, the seats the players were registered with."""
    round = pairings.round
    if pairings.tables:
        return [{"table": tb.table,
                 "sides": [{"name": side.name, "handle": side.handle, "team": side.team,
                            "players": [_person(t, p, round) for p in side.players]}
                           for side in (tb.a, tb.b)]} for tb in pairings.tables]
    seats: dict[int, list[PersonView]] = {}
    for p in people:
        if p.table is not None:
            seats.setdefault(p.table, []).append(p)
    return [{"table": n, "sides": [{"name": p.name, "handle": p.handle, "team": False,
                                    "players": [_person(t, p, round)]} for p in seated]}
            for n, seated in sorted(seats.items())]


TABLES_PAGE = 25  # the dashboard's tables a page at a time (a 500-player event has 250)
OPEN_TABLES = 8  # a club night's tables are listed open; a larger event's folded until asked


def dashboard_context(ctx: Ctx, t: TournamentView, roles: Roles, q: str, *,
                      page: int | None = None) -> dict[str, Any]:
    """What the dashboard shows of tables and people: a page of the current round's tables
    (`TABLES_PAGE`), and the players found by `q` (everyone in a small tournament, nobody yet
    in a large one); and `people`, the players as read for them (None for a player, who sees
    no tables)."""
    if not roles.can("view-all"):
        return {"tables": None, "found": None, "q": q, "people": None}
    pairings, people = ctx.read(round_tables, tournament=t.id)
    every = _tables(t, pairings, people)
    pages = max(1, -(-len(every) // TABLES_PAGE))
    shown = min(max(page or 1, 1), pages)
    start = (shown - 1) * TABLES_PAGE
    return {"tables": {"round": pairings.round, "tables": every[start:start + TABLES_PAGE],
                       "paired": bool(pairings.tables), "total": len(every), "page": shown,
                       "pages": pages, "first": start + 1,
                       "open": page is not None or len(every) <= OPEN_TABLES,
                       "last": min(start + TABLES_PAGE, len(every))},
            "q": q, **_found(ctx, t, q, people, pairings.round), "people": people}


def _found(ctx: Ctx, t: TournamentView, q: str, people: list[PersonView] | None,
           round: int | None) -> dict[str, Any]:
    q = q.strip()[:100]
    if q:
        people = ctx.read(search_people, tournament=t.id, q=q, round=round)
    elif people is None or len(people) > LIST_ALL:
        return {"found": None, "more": 0}
    assert people is not None
    return {"found": [_person(t, p, round) for p in people[:SHOWN]],
            "more": max(0, len(people) - SHOWN)}


@router.get("/t/{tid}/find")
def find(ctx: C, tid: int, q: str = "") -> Response:
    """The players found as the judge types (the dashboard's search, swapped in by htmx)."""
    st = ctx.standing(tid, "view-all")
    t, roles = st.tournament, st.roles
    pairings = ctx.read(round_pairings, tournament=t.id)
    data = _found(ctx, t, q, None if q.strip() else
                  ctx.read(tournament_people, tournament=t.id, round=pairings.round),
                  pairings.round)
    return ctx.render("_people_found.html", t=t, roles=roles, q=q, **data)


# ---------------------------------------------------------------------- the pairings page
def _page(ctx: Ctx, t: TournamentView, roles: Roles, round: int | None, *, status: int = 200,
          values: dict[str, str] | None = None, errors: dict[str, Any] | None = None,
          imported: int | None = None, paired: PairedRoundView | None = None) -> Response:
    pairings, people = ctx.read(round_tables, tournament=t.id, round=round)
    current = pairings.current_round
    # the form offers the round started without its pairings, or else the next one
    suggested = current + 1 if current in pairings.rounds else current or 1
    had = ctx.read(byes, t.id)
    bye = next((p for p, rounds in had.items() if pairings.round in rounds), None)
    names = {p.handle: p.name for p in people}
    results = ctx.read(table_results, tournament=t.id, round=pairings.round) \
        if pairings.tables and pairings.round is not None else {}
    games = ctx.read(round_games, tournament=t.id, round=pairings.round) \
        if pairings.tables and pairings.round is not None else {}
    reports = ctx.read(round_reports, tournament=t.id, round=pairings.round) \
        if pairings.tables and pairings.round is not None and t.plan.self_report else {}
    return ctx.render("pairings.html", status=status, t=t, roles=roles, pairings=pairings,
                      results=results, names=names, games=games, reports=reports,
                      tables=_tables(t, pairings, people) if pairings.tables else [],
                      values=values or {"round": str(suggested)}, errors=errors or {},
                      imported=imported, columns=",".join(PLAYER_COLUMNS),
                      team_columns=",".join(TEAM_COLUMNS), bye=bye,
                      bye_name=names.get(bye or "", bye), paired=paired,
                      warnings=[i18n.error(SudyaError(code, a=hs[0], b=hs[-1]))
                                for code, hs in (paired.warnings if paired else [])])


@router.get("/t/{tid}/pairings")
def pairings_page(ctx: C, tid: int, round: str = "", imported: int | None = None
                  ) -> Response:
    st = ctx.standing(tid, "view-all")
    t, roles = st.tournament, st.roles
    number = forms.whole_number(round, 1000) if round else None
    return _page(ctx, t, roles, number, imported=imported)


@router.post("/t/{tid}/pairings")
def pairings_upload(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not import pairings
    t, roles = st.tournament, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {"round": str(form.get("round", "")).strip()}
    errors: dict[str, Any] = {}
    number = forms.whole_number(values["round"], 1000)
    if not values["round"]:
        errors["round"] = _("Enter the round.")
    elif number is None or number < 1:
        errors["round"] = _("A whole number from 1 to 1000.")
    upload = form.get("file")
    if not isinstance(upload, UploadFile) or not upload.filename:
        errors["file"] = _("Choose the CSV file of the round's pairings.")
    if not errors:
        assert isinstance(upload, UploadFile) and number is not None
        name = upload.filename or "pairings.csv"
        try:
            cmd = views.command(ImportPairings, round=number, where=name,
                                text=decode_upload(upload.file.read(), name))
            count = ctx.app.handle(cmd, ctx.actor(), tid)
        except AuthError:
            raise  # the core refuses the user: the 403 page
        except ImportRejected as exc:
            errors["file"] = _("Rows refused: %(n)s. Nothing was imported.", n=len(exc.problems))
            errors["rows"] = exc.lines(i18n.current_lang.get())
        except SudyaError as exc:
            errors["round" if exc.field == "round" else "file"] = i18n.error(exc)
        else:
            return see_other(f"/t/{tid}/pairings?round={number}&imported={count}")
    return _page(ctx, t, roles, number if number else None, status=422, values=values,
                 errors=errors)


def _pair(ctx: Ctx, tid: int, form: Any, which: str,
          command: Callable[[TournamentView, int], Any]) -> Response:
    """A round paired by Sudya from the Pairings page (`which`: the form, `swiss` or `cut`,
    each refusal beside it): the round asked, the command the core runs for it."""
    st = ctx.standing(tid)  # the core refuses one who may not pair
    t, roles = st.tournament, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {"round": str(form.get("round", "")).strip()}
    number = forms.whole_number(values["round"], 100)
    if number is None or number < 1:
        return _page(ctx, t, roles, None, status=422, values=values,
                     errors={which: _("A whole number from 1 to 100.")})
    try:
        paired = ctx.app.handle(command(t, number), ctx.actor(), tid)
    except AuthError:
        raise
    except SudyaError as exc:
        return _page(ctx, t, roles, number, status=422, values=values,
                     errors={which: i18n.error(exc)})
    return _page(ctx, t, roles, number, paired=paired)


@router.post("/t/{tid}/pairings/swiss")
def pairings_swiss(ctx: C, tid: int, form: forms.Posted) -> Response:
    """Sudya pairs the round (again, until its first result): the Swiss rules of
    domain.swiss, from the standings, the results and the byes so far."""
    return _pair(ctx, tid, form, "swiss",
                 lambda _t, number: views.command(PairRound, round=number))


@router.post("/t/{tid}/pairings/cut")
def pairings_cut(ctx: C, tid: int, form: forms.Posted) -> Response:
    """The top cut's first round, of the size the tournament's plan sets."""
    return _pair(ctx, tid, form, "cut",
                 lambda t, number: views.command(PairTopCut, round=number,
                                                 size=t.plan.top_cut))
