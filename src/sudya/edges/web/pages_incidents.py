"""Incident reports: a judge who gives no penalty (a junior judge) reports what happened for a
judge who may rule; those waiting are counted on the dashboard and settled here, by the
ruling recorded for them or without a penalty."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import Roles
from sudya.app.clock import round_clock
from sudya.app.incidents import MAX_TEXT, incidents, rulings_about
from sudya.app.people import staff_names, tournament_people
from sudya.app.views import TournamentView
from sudya.domain.commands import FileIncident, SettleIncident
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx
from sudya.edges.web.pages_tables import record_url

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
FIELDS = ("subject", "table", "round", "text")


def _page(ctx: Ctx, t: TournamentView, roles: Roles, *, status: int = 200,
          values: dict[str, str] | None = None, errors: dict[str, Any] | None = None,
          filed: int | None = None, settled: int | None = None) -> Response:
    reports = ctx.read(incidents, tournament=t.id)
    waiting = [{**r.model_dump(), "record": record_url(t, r.subject, r.table, r.round),
                "rulings": ctx.read(rulings_about, tournament=t.id, subject=r.subject)}
               for r in reports if r.settled_at is None]
    done = [r for r in reports if r.settled_at is not None][:30]
    # a refusal about a report no longer waiting (closed meanwhile) is shown at the top
    shown = {f"settle/{r['id']}" for r in waiting}
    problems = [message for key, message in (errors or {}).items()
                if key.startswith("settle/") and key not in shown]
    people = ctx.read(tournament_people, tournament=t.id)
    clock = ctx.read(round_clock, t.id)
    # who filed and who closed each report, by name (the staff list's, else the account's)
    judges = ctx.read(staff_names, tournament=t.id, handles={
        h for r in reports for h in (r.filed_by, r.settled_by)})
    return ctx.render("incidents.html", status=status, t=t, roles=roles, waiting=waiting,
                      settled_reports=done, people=people, most=MAX_TEXT, judges=judges,
                      values=values or {"round": str(clock["round"]) if clock else ""},
                      errors=errors or {}, problems=problems, filed=filed, settled=settled)


@router.get("/t/{tid}/incidents")
def incidents_page(ctx: C, tid: int, player: str = "", table: str = "", round: str = "",
                   filed: int | None = None, settled: int | None = None) -> Response:
    """The reports; `player`, `table` and `round` prefill the report form (the dashboard's
    tables link here for a judge who may not rule)."""
    st = ctx.standing(tid, "view-all")
    t, roles = st.tournament, st.roles
    values = None
    if player or table or round:
        values = {"subject": player[:100], "table": table[:9], "round": round[:9]}
    return _page(ctx, t, roles, values=values, filed=filed, settled=settled)


def _number(text: str, most: int, errors: dict[str, Any], field: str) -> int | None:
    if not text:
        return None
    number = forms.whole_number(text, most)
    if number is None:
        errors[field] = _("A whole number.")
    return number


@router.post("/t/{tid}/incidents")
def incident_file(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not report incidents
    t, roles = st.tournament, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in FIELDS}
    errors: dict[str, Any] = {}
    table = _number(values["table"], 100_000, errors, "table")
    rnd = _number(values["round"], 1000, errors, "round")
    if not errors:
        try:
            done = ctx.app.handle(views.command(FileIncident, subject=values["subject"],
                                                text=values["text"], table=table, round=rnd),
                                  ctx.actor(), tid, key=views.form_key(form))
        except views.REFUSED as exc:
            errors[exc.field if exc.field in FIELDS else "text"] = i18n.error(exc)
        else:
            return views.done(request, f"/t/{tid}/incidents?filed={done}")
    return _page(ctx, t, roles, status=422, values=values, errors=errors)


@router.post("/t/{tid}/incidents/{incident}/settle")
def incident_settle(ctx: C, tid: int, incident: int, request: Request,
                    form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not rule
    t, roles = st.tournament, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    event = str(form.get("event", "")).strip()
    note = str(form.get("note", ""))
    try:
        ctx.app.handle(views.command(SettleIncident, incident=incident,
                                     event=None if event in ("", "none") else event,
                                     note=note), ctx.actor(), tid)
    except views.REFUSED as exc:
        return _page(ctx, t, roles, status=422,
                     errors={f"settle/{incident}": i18n.error(exc)},
                     values={"settle": str(incident), "event": event, "note": note})
    return views.done(request, f"/t/{tid}/incidents?settled={incident}")
