"""The end of a match (per table or per round) and corrections of rulings and results.

The end of a match runs the stacking check (`Ledger.end_match`) for the pair whose match
ended, or for everyone at the end of the round, and shows the stacking rulings it made. A
correction (`Ledger.correct`, `Ledger.correct_result`) is a new record naming the old one,
with a reason: a ruling's sanctions stop counting, a result stops counting (and the right
score, if given, is entered with it). Nothing is changed or deleted.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError
from sudya.app.common import command
from sudya.app.matches import match_ends, round_matches, standing_events
from sudya.app.people import current_round
from sudya.app.queries import (
    latest_result_round,
    result_count,
    rulings_json,
    tournament_results,
    tournament_summary,
)
from sudya.app.views import TournamentView
from sudya.domain.commands import CorrectResult
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx
from sudya.edges.web.pages_misc import SCORE

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
LISTED = 50  # the latest records the corrections page offers


# ---------------------------------------------------------------------- the end of a match
def _default_round(ctx: Ctx, tid: int) -> int:
    """The current round (the latest with pairings, or the one the clock last started), else
    the latest round with a result, else 1."""
    current = ctx.read(current_round, tournament=tid)
    if current is not None:
        return current
    latest = ctx.read(latest_result_round, tournament=tid)
    return 1 if latest is None else latest


def _match_page(ctx: Ctx, t: TournamentView, book: Rulebook, round_: int, *,
                status: int = 200, ended: str | None = None,
                errors: dict[str, str] | None = None,
                values: dict[str, str] | None = None) -> Response:
    summary = ctx.read(tournament_summary, t.id)
    every = ctx.read(rulings_json, t.id) if ended else []
    made = [r for r in every if r["event"] == ended]
    end = next((e for e in ctx.read(match_ends, tournament=t.id)
                if e["event"] == ended), None)
    names = summary.names
    matches = ctx.read(round_matches, tournament=t.id, round=round_)
    for mt in matches:  # people (and teams) by their display names
        mt["pair"] = " — ".join(names.get(p, p) for p in mt["players"])
    whole = next((e for e in ctx.read(match_ends, tournament=t.id)
                  if e["round"] == round_ and e["players"] is None), None)
    return ctx.render("match.html", status=status, t=t, book=book, round=round_,
                      matches=matches, whole=whole, end=end,
                      made=views.rulings(book, made, among=every),
                      players=summary.handles(),
                      names=names, errors=errors or {},
                      values=values or {})


@router.get("/t/{tid}/match")
def match(ctx: C, tid: int, round: str = "", ended: str | None = None) -> Response:
    st = ctx.standing(tid, "rule")
    t, book = st.tournament, st.book
    chosen = forms.whole_number(round, 1000) if round else None
    if round and chosen is None:
        return _match_page(ctx, t, book, _default_round(ctx, tid), status=422,
                           errors={"show_round": _("A whole number.")},
                           values={"show_round": round})
    return _match_page(ctx, t, book, chosen if chosen is not None else
                       _default_round(ctx, tid), ended=ended)


@router.post("/t/{tid}/match/end")
def match_end(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not rule
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in ("round", "scope", "player_a",
                                                         "player_b")}
    errors: dict[str, str] = {}
    round_ = forms.whole_number(values["round"], 1000)
    if round_ is None:
        errors["round"] = _("Enter the round.") if not values["round"] else \
            _("A whole number.")
    players: list[str] | None = None
    if values["scope"] != "round":
        players = [values["player_a"], values["player_b"]]
        for field in ("player_a", "player_b"):
            if not values[field]:
                errors[field] = _("Choose the player.")
        if not errors.get("player_b") and values["player_a"] == values["player_b"]:
            errors["player_b"] = _("Choose a different player.")
    if not errors:
        assert round_ is not None
        try:
            done = ctx.app.handle(
                command("end-of-match", {"round": round_, "players": players}),
                ctx.actor(), tid, key=views.form_key(form))
        except views.REFUSED as exc:
            field = exc.field.split(".")[0]
            key = {"round": "round"}.get(field) or (
                ("player_b" if exc.field.endswith(".1") else "player_a")
                if field == "players" else "form")
            errors[key] = i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/match?round={round_}&ended={done.event}")
    return _match_page(ctx, t, book, round_ if round_ is not None else _default_round(ctx, tid),
                       status=422, errors=errors, values=values)


# ---------------------------------------------------------------------- corrections
def _correctable(ctx: Ctx, t: TournamentView, book: Rulebook
                 ) -> tuple[dict[str, list[dict[str, Any]]], list[dict[str, Any]]]:
    """The events whose rulings stand (ready for the page), and the results entered."""
    every = ctx.read(rulings_json, t.id)
    standing = standing_events(every)
    shown = {event: views.rulings(book, rulings, among=every)
             for event, rulings in standing.items()}
    return shown, ctx.read(tournament_results, tournament=t.id)


@router.get("/t/{tid}/corrections")
def corrections(ctx: C, tid: int, corrected: str | None = None,
                by: str | None = None) -> Response:
    """The latest records a head judge may correct: the newest LISTED standing rulings and
    results, each ruling made ready for the page alone (a large open tournament has
    thousands of both; the results list, a page at a time, offers the older results)."""
    st = ctx.standing(tid, "decide")
    t, book = st.tournament, st.book
    every = ctx.read(rulings_json, t.id)
    standing = list(standing_events(every).items())[-LISTED:][::-1]
    latest = [(event, views.rulings(book, rulings, among=every)) for event, rulings in standing]
    results = ctx.read(tournament_results, tournament=t.id, limit=LISTED)
    return ctx.render("corrections.html", t=t, book=book, events=latest, results=results,
                      total_results=ctx.read(result_count, tournament=t.id),
                      corrected=corrected, by=by)


def _correct_page(ctx: Ctx, t: TournamentView, book: Rulebook, event: str, *,
                  status: int = 200, errors: dict[str, str] | None = None,
                  values: dict[str, str] | None = None) -> Response:
    events, results = _correctable(ctx, t, book)
    result = next((r for r in results if r["event"] == event and r["corrected"] is None),
                  None)
    rulings = events.get(event)
    if rulings is None and result is None and not errors:  # (a refusal is shown beside "of")
        raise AuthError(_("Nothing to correct: no standing ruling or result %(event)s.",
                          event=event), status=404)
    return ctx.render("correct.html", status=status, t=t, book=book, event=event,
                      rulings=rulings or [], result=result, errors=errors or {},
                      values=values or {})


@router.get("/t/{tid}/corrections/{event}")
def correct_form(ctx: C, tid: int, event: str) -> Response:
    st = ctx.standing(tid, "decide")
    return _correct_page(ctx, st.tournament, st.book, event)


@router.post("/t/{tid}/corrections/{event}")
def correct_submit(ctx: C, tid: int, event: str, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not correct records
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in ("reason", "score")}
    errors: dict[str, str] = {}
    if not values["reason"]:
        errors["reason"] = _("Write why the record is corrected.")
    score = SCORE.fullmatch(values["score"]) if values["score"] else None
    if values["score"] and score is None:
        errors["score"] = _("Write the score as two numbers, such as 2-1.")
    if not errors:
        key = views.form_key(form)
        try:
            if form.get("kind") == "result":
                done, _again = ctx.app.handle(views.command(
                    CorrectResult, of=event, reason=values["reason"],
                    score=(int(score[1]), int(score[2])) if score else None,
                    judge=roles.judge_handle), ctx.actor(), tid, key=key)
            else:
                done = ctx.app.handle(command("correction", {
                    "of": event, "judge": roles.judge_handle, "reason": values["reason"]}),
                    ctx.actor(), tid, key=key)
        except views.REFUSED as exc:
            errors[views.error_field(exc.field, ("reason", "score"), "of")] = \
                i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/corrections?corrected={event}"
                                       f"&by={done.event}")
    return _correct_page(ctx, t, book, event, status=422, errors=errors, values=values)
