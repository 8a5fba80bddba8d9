"""An organiser sets a tournament up from the web app (issue 36): a new tournament of a series
they organise, or of a new series when they may start one; its rulebook and level, date,
rounds, how it is paired, its match points and tie-breakers, a top cut. Then the People page
takes its players."""

from __future__ import annotations

import datetime as dt
import typing
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.access import organised_series
from sudya.app.accounts import AuthError, may_start_series
from sudya.domain.commands import CreateTournament
from sudya.domain.errors import SudyaError
from sudya.domain.plan import Plan
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Tiebreaker
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, forbid, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
FIELDS = ("series", "new_series", "rulebook", "name", "date", "level", "rounds", "pairing",
          "win", "draw", "loss", "tb1", "tb2", "tb3", "top_cut", "self_report")
NEW = "new"


def _tiebreaker_names() -> dict[str, str]:
    names = {"omw": _("Opponents' match-win %"), "gw": _("Game-win %"),
             "ogw": _("Opponents' game-win %"), "buchholz": _("Buchholz"),
             "sb": _("Sonneborn–Berger")}
    known = typing.get_args(Tiebreaker.model_fields["id"].annotation)
    return {k: names.get(k, k) for k in known}


def _choices(ctx: Ctx) -> tuple[list[Any], bool]:
    """The series the user may add a tournament to, and whether they may start one."""
    actor = ctx.actor()
    series = ctx.read(organised_series, actor)
    starts = ctx.read(may_start_series, ctx.need_user().username)
    return series, starts


def _page(ctx: Ctx, *, status: int = 200, values: dict[str, str] | None = None,
          errors: dict[str, str] | None = None) -> Response:
    series, starts = _choices(ctx)
    if not series and not starts:
        raise forbid(_("Only an organiser sets tournaments up: ask the owner of the database "
                       "to let you start a series (sudya user add NAME --organiser)."))
    books = []
    for rid in loader.bundled_ids():
        try:
            book = loader.load(rid)
        except SudyaError:
            continue
        books.append({"id": rid, "title": i18n.text(book.title),
                      "levels": [(lv.id, i18n.text(lv.name)) for lv in book.levels]})
    chosen = values or {"date": dt.date.today().isoformat(), "pairing": "swiss",
                        "series": str(series[0].id) if series else NEW}
    return ctx.render("tournament_new.html", status=status, series=series, starts=starts,
                      books=books, values=chosen, errors=errors or {},
                      tiebreakers=_tiebreaker_names())


@router.get("/tournaments/new")
def new_tournament(ctx: C) -> Response:
    ctx.need_user()
    return _page(ctx)


@router.post("/tournaments/new")
def new_tournament_submit(ctx: C, request: Request, posted: forms.Posted) -> Response:
    """Created through the core (CreateTournament); each refusal beside its field."""
    ctx.need_user()
    ctx.check_csrf(str(posted.get("csrf", "")))
    values = {k: str(posted.get(k, "")).strip() for k in FIELDS}
    errors: dict[str, str] = {}
    new = values["series"] == NEW
    if new and not values["new_series"]:
        errors["new_series"] = _("Required.")
    if not values["name"]:
        errors["name"] = _("Required.")
    try:
        day = dt.date.fromisoformat(values["date"])
    except ValueError:
        errors["date"] = _("A date YYYY-MM-DD.")
    numbers: dict[str, int | None] = {}
    for field in ("rounds", "win", "draw", "loss"):
        if values[field] and forms.whole_number(values[field]) is None:
            errors[field] = _("A whole number.")
        numbers[field] = forms.whole_number(values[field]) if values[field] else None
    if errors:
        return _page(ctx, status=422, values=values, errors=errors)
    # a level is chosen as RULEBOOK:LEVEL (each rulebook's levels in a group of their own);
    # one of another rulebook than the series' is refused by the core (level.not-one-of)
    _book, _sep, level_id = values["level"].partition(":")
    try:
        plan = Plan.model_validate({
            "rounds": numbers["rounds"], "pairing": values["pairing"] or "imported",
            "win": numbers["win"], "draw": numbers["draw"], "loss": numbers["loss"],
            "tiebreakers": [v for v in (values["tb1"], values["tb2"], values["tb3"]) if v]
            or None, "top_cut": int(values["top_cut"] or 0),
            "self_report": values["self_report"] == "1"})
        cmd = views.command(
            CreateTournament,
            series=values["new_series"] if new else (forms.whole_number(values["series"])
                                                     or values["series"]),
            new_series_rulebook=values["rulebook"] or None if new else None,
            name=values["name"], date=day, level=level_id or None, plan=plan)
        tid = ctx.app.handle(cmd, ctx.actor())
    except (*views.REFUSED, AuthError, ValueError) as exc:
        if isinstance(exc, AuthError) and exc.status not in (403, 422):
            raise
        # who may not add to the series (or start one) is told beside the series' choice
        field = getattr(exc, "field", "") or ("series" if isinstance(exc, AuthError)
                                              else "name")
        field = {"series": "new_series" if new and not isinstance(exc, AuthError)
                 else "series"}.get(field.split(".")[0], field.split(".")[0])
        message = i18n.error(exc) if isinstance(exc, SudyaError) else _(
            "Check the plan: %(problem)s", problem=str(exc).splitlines()[0])
        if field not in FIELDS:
            field = "name"
        return _page(ctx, status=422, values=values, errors={field: message})
    return views.done(request, f"/t/{tid}/people")
