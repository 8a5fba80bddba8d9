"""The captains' matchups of a team table (issue 36): a judge enters who of each team plays
whom in the round, game by game, with the defender where the format has one. The core checks
them (sudya.app.team_rounds): each player once, both teams complete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError, Roles
from sudya.app.people import round_tables
from sudya.app.team_rounds import round_games
from sudya.app.views import PairingView, TournamentView
from sudya.domain.commands import Game, SetMatchups
from sudya.domain.errors import SudyaError
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
MAX_GAMES = 50


def _table(ctx: Ctx, t: TournamentView, round: int, table: int) -> PairingView | None:
    pairings, _people = ctx.read(round_tables, tournament=t.id, round=round)
    return next((tb for tb in pairings.tables if tb.table == table and tb.a.team), None)


def _page(ctx: Ctx, t: TournamentView, roles: Roles, round: int, tb: PairingView, *,
          status: int = 200, rows: list[dict[str, str]] | None = None,
          errors: dict[str, str] | None = None, saved: bool = False) -> Response:
    games = ctx.read(round_games, tournament=t.id, round=round).get(tb.table, [])
    size = min(len(tb.a.players), len(tb.b.players))
    if rows is None:
        rows = [{"a": g.a, "b": g.b, "defender": g.defender or ""} for g in games]
        rows += [{"a": "", "b": "", "defender": ""}] * (size - len(rows))
    names = {p.handle: p.name for side in (tb.a, tb.b) for p in side.players}
    return ctx.render("matchups.html", status=status, t=t, roles=roles, round=round, tb=tb,
                      rows=rows, errors=errors or {}, games=games, names=names, saved=saved)


def _numbers(round: str, table: str) -> tuple[int, int] | None:
    r, n = forms.whole_number(round, 100), forms.whole_number(table, 100_000)
    return (r, n) if r and n else None


@router.get("/t/{tid}/matchups")
def matchups(ctx: C, tid: int, round: str = "", table: str = "", saved: bool = False
             ) -> Response:
    st = ctx.standing(tid, "view-all")
    t, roles = st.tournament, st.roles
    numbers = _numbers(round, table)
    tb = _table(ctx, t, *numbers) if numbers else None
    if numbers is None or tb is None:
        return ctx.render("error.html", status=404,
                          message=_("No team table %(table)s in round %(round)s.",
                                    table=table[:8], round=round[:4]))
    return _page(ctx, t, roles, numbers[0], tb, saved=saved)


@router.post("/t/{tid}/matchups")
def matchups_submit(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not enter results
    t, roles = st.tournament, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    numbers = _numbers(str(form.get("round", "")), str(form.get("table", "")))
    tb = _table(ctx, t, *numbers) if numbers else None
    if numbers is None or tb is None:
        return ctx.render("error.html", status=404,
                          message=_("No team table %(table)s in round %(round)s.",
                                    table=str(form.get("table", ""))[:8],
                                    round=str(form.get("round", ""))[:4]))
    round, table = numbers
    count = min(forms.whole_number(str(form.get("count", "")), MAX_GAMES) or 0, MAX_GAMES)
    rows = [{k: str(form.get(f"{k}{n}", "")).strip()[:100] for k in ("a", "b", "defender")}
            for n in range(count)]
    errors: dict[str, str] = {}
    for n, row in enumerate(rows):
        for side in ("a", "b"):
            if not row[side]:
                errors[f"{side}{n}"] = _("Choose the player.")
        if row["defender"] not in ("", "a", "b"):
            errors[f"defender{n}"] = _("Choose a side.")
    if not errors:
        try:
            cmd = views.command(SetMatchups, round=round, table=table, games=[
                Game(a=r["a"], b=r["b"], defender=r["defender"] or None) for r in rows])
            ctx.app.handle(cmd, ctx.actor(), tid)
        except AuthError:
            raise
        except SudyaError as exc:
            errors[_field(exc.field)] = i18n.error(exc)
        except ValueError as exc:  # a handle a Game refuses: not one of the selects' values
            errors["games"] = str(exc).splitlines()[0]
        else:
            return views.done(request, f"/t/{tid}/matchups?round={round}&table={table}&saved=1")
    return _page(ctx, t, roles, round, tb, status=422, rows=rows, errors=errors)


def _field(field: str | None) -> str:
    """A core's field (`games.2.a`) as the form's (`a2`); the whole list otherwise."""
    parts = (field or "").split(".")
    if len(parts) == 3 and parts[0] == "games" and parts[1].isdigit():
        return f"{parts[2]}{parts[1]}"
    return "games"
