"""A player's own match (issue 36): where the tournament's plan lets players report, a
player sees their table and opponent in the current round, reports the score, and confirms
or disputes what the opponent reported (sudya.app.self_results). A judge or the scorekeeper
still enters any result from the results page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError
from sudya.app.people import current_round
from sudya.app.self_results import my_match
from sudya.domain.commands import ConfirmResult, ReportResult
from sudya.domain.errors import SudyaError
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx
from sudya.edges.web.pages_misc import SCORE

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


def _page(ctx: Ctx, tid: int, *, status: int = 200, score: str = "",
          errors: dict[str, str] | None = None, done: str = "") -> Response:
    st = ctx.standing(tid, "member")
    t, roles = st.tournament, st.roles
    round = ctx.read(current_round, tournament=tid)
    match = ctx.read(my_match, tournament=tid, round=round, person=roles.person) \
        if round is not None and roles.person else None
    return ctx.render("my_match.html", status=status, t=t, roles=roles, match=match,
                      score=score, errors=errors or {}, done=done)


@router.get("/t/{tid}/my-match")
def my_match_page(ctx: C, tid: int, done: str = "") -> Response:
    return _page(ctx, tid, done=done[:20])


@router.post("/t/{tid}/my-match")
def my_match_submit(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    ctx.standing(tid, "member")
    ctx.check_csrf(str(form.get("csrf", "")))
    answer = str(form.get("answer", ""))
    score = str(form.get("score", "")).strip()[:20]
    round = forms.whole_number(str(form.get("round", "")), 100)
    if round is None:
        return _page(ctx, tid, status=422, errors={"score": _("The round has changed: "
                                                               "look again.")})
    try:
        if answer in ("agree", "dispute"):
            ctx.app.handle(views.command(ConfirmResult, round=round, agree=answer == "agree"),
                           ctx.actor(), tid, key=views.form_key(form))
            done = "confirmed" if answer == "agree" else "disputed"
        else:
            games = SCORE.fullmatch(score)
            if games is None:
                return _page(ctx, tid, status=422, score=score, errors={
                    "score": _("Write the score as two numbers, such as 2-1.")})
            ctx.app.handle(views.command(ReportResult, round=round,
                                         score=(int(games[1]), int(games[2]))),
                           ctx.actor(), tid)
            done = "reported"
    except AuthError:
        raise
    except SudyaError as exc:
        return _page(ctx, tid, status=422, score=score, errors={"score": i18n.error(exc)})
    return views.done(request, f"/t/{tid}/my-match?done={done}")
