"""Appeals: rulings that can be appealed, appeals made, and the head judge's decision.

A player appeals a ruling about themselves (a judge or an organiser may file it for them);
only a role that may `hear-appeals` decides, through `Ledger.appeal`. The outcome is a
ruling in the ledger, so it shows in the player's record.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app import appeals as service
from sudya.app.accounts import Roles
from sudya.app.common import command
from sudya.app.queries import rulings_json, tournament_summary
from sudya.app.scenario import ruling_json
from sudya.app.views import TournamentSummaryView, TournamentView
from sudya.domain.commands import FileAppeal
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
OUTCOMES = ("upheld", "overturned", "frivolous")
BACK = {"appeals": "appeals", "pending": "pending"}


def may_file(roles: Roles, subject: str) -> bool:
    """Whether the page offers the user to appeal a ruling about `subject`: the player
    concerned, a judge who may rule, or an organiser (app.access decides the appeal)."""
    return roles.can("rule") or roles.can("manage") or roles.person == subject


def frivolous(book: Rulebook) -> dict[str, Any] | None:
    """The choices a frivolous appeal's penalty offers the head judge (None: no choice)."""
    outcome = book.appeals.frivolous if book.appeals else None
    if outcome is None or not outcome.is_choice:
        return None
    options = [{"value": name, "name": views.option_name(book, outcome, name, kind_too=False),
                "sanctions": views.sanctions(book, [{"kind": s.kind, "amount": s.amount,
                                                     "score": s.score} for s in specs])}
               for name, specs in outcome.options.items()]
    pr = outcome.points
    points = None
    if pr is not None:
        with_ = [views.kind_name(book, s.kind) for s in pr.with_]
        points = {"least": pr.least, "most": pr.most, "with": with_,
                  "name": views.points_name(book, outcome, pr.least, pr.most, with_)}
    return {"options": options, "points": points}


def appeal_context(ctx: Ctx, t: TournamentView, book: Rulebook, roles: Roles,
                   summary: TournamentSummaryView | None = None,
                   rulings: list[dict[str, Any]] | None = None, *,
                   appealable: bool = True) -> dict[str, Any]:
    """What the appeals page (and the pending page) show, filtered to what the user may see
    (the tournament's summary and rulings, when the caller has read them already);
    `appealable=False`: not the rulings still open to an appeal (the pending page shows the
    appeals only)."""
    summary = summary or ctx.read(tournament_summary, t.id)
    rulings = rulings if rulings is not None else ctx.read(rulings_json, t.id)
    names = summary.names
    settled = views.settlements(book, rulings)
    requests = ctx.read(service.requests, t.id)
    requested = {a["event"] for a in requests}
    decisions = ctx.read(service.appeal_decisions, t.id)
    # only the rulings of the appeals shown are made ready for the page, not every ruling
    of_event: dict[str, list[dict[str, Any]]] = {}
    for r in rulings:
        of_event.setdefault(r["event"], []).append(r)
    shown = requested | {e for of, d in decisions.items() for e in (of, d["event"])}
    by_event = {event: views.rulings(book, of_event[event], among=rulings, names=names)
                for event in shown if event in of_event}
    open_: list[dict[str, Any]] = []
    final: list[dict[str, Any]] = []
    for a in ctx.read(service.appealable, t.id) if appealable else []:
        if a["event"] in requested:
            continue
        raw = ruling_json(a["ruling"], book.validity is not None)
        view = views.ruling(book, raw, settled.get((raw["event"], raw["subject"])), names)
        view["judge_role"] = _role_name(book, a["judge_role"])
        (final if a["final"] else open_).append(view)
    by_request = {a["event"]: a for a in requests}
    decided = [{**d, "request": by_request.get(of), "rulings": by_event.get(of, []),
                "results": by_event.get(d["event"], []),
                "outcome_text": views.outcome_text(d["outcome"])}
               for of, d in decisions.items() if of in by_event]
    awaiting = [{**a, "rulings": by_event.get(a["event"], [])}
                for a in requests if a["decision"] is None]
    if not roles.can("view-all"):  # a player sees only appeals about themselves
        mine = roles.person

        def about_me(rulings: list[dict[str, Any]]) -> bool:
            return any(r["subject"] == mine for r in rulings)

        open_ = [r for r in open_ if r["subject"] == mine]
        final = [r for r in final if r["subject"] == mine]
        awaiting = [a for a in awaiting if a["appellant"] == mine or about_me(a["rulings"])]
        decided = [d for d in decided if about_me(d["rulings"])]
    return {"open_rulings": open_, "final_rulings": final, "awaiting": awaiting,
            "decided_appeals": decided, "frivolous": frivolous(book),
            "has_appeals": book.appeals is not None, "teams": set(summary.teams),
            "names": names,
            "heard_by": [_role_name(book, r) for r in (book.appeals.heard_by
                                                        if book.appeals else [])],
            "may_file": lambda subject: may_file(roles, subject)}


def _role_name(book: Rulebook, role: str | None) -> str:
    spec = book.roles.get(role or "")
    return i18n.text(spec.name) if spec is not None else (role or "")


def render(ctx: Ctx, t: TournamentView, book: Rulebook, roles: Roles, *, status: int = 200,
           errors: dict[str, dict[str, str]] | None = None,
           values: dict[str, Any] | None = None, filed: str | None = None,
           appealed: str | None = None) -> Response:
    context = appeal_context(ctx, t, book, roles)
    shown = ({f"{r['event']}/{r['subject']}" for r in context["open_rulings"]}
             | {f"appeal/{a['event']}" for a in context["awaiting"]})
    problems = views.unshown(errors, shown)
    page = ctx.render("appeals.html", status=status, t=t, book=book, roles=roles,
                      errors=errors or {}, values=values or {}, filed=filed,
                      appealed=appealed, problems=problems, **context)
    return views.show_whole_page(ctx.request, page, problems)


@router.get("/t/{tid}/appeals")
def appeals(ctx: C, tid: int, filed: str | None = None,
            appealed: str | None = None) -> Response:
    st = ctx.standing(tid, "member")
    return render(ctx, st.tournament, st.book, st.roles, filed=filed, appealed=appealed)


@router.post("/t/{tid}/appeals/file")
def file(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses an appeal about someone else
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    event = str(form.get("event", "")).strip()
    appellant = str(form.get("appellant", "")).strip()
    reason = str(form.get("reason", ""))
    errors: dict[str, str] = {}
    try:
        ctx.app.handle(views.command(FileAppeal, event=event, appellant=appellant,
                                     reason=reason), ctx.actor(), tid,
                       key=views.form_key(form))
    except views.REFUSED as exc:
        errors[views.error_field(exc.field, ("reason",), "event")] = i18n.error(exc, book)
    else:
        return views.done(request, f"/t/{tid}/appeals?filed={event}")
    return render(ctx, t, book, roles, status=422, errors={f"{event}/{appellant}": errors},
                  values={"form": "file", "event": event, "appellant": appellant,
                          "reason": reason})


@router.post("/t/{tid}/appeals/decide")
def decide(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not hear appeals
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    back = BACK.get(str(form.get("back", "")), "appeals")
    key = views.form_key(form)
    of = str(form.get("of", ""))
    outcome = str(form.get("outcome", ""))
    values = {"form": "appeal", "of": of, "outcome": outcome,
              "choice": str(form.get("choice", "")),
              "choice_points": str(form.get("choice_points", ""))}
    errors: dict[str, str] = {}
    request_row = next((a for a in ctx.read(service.requests, tid) if a["event"] == of),
                       None)
    decided = request_row is not None and request_row["decision"] is not None
    if request_row is None:
        errors["of"] = _("Nobody has appealed this ruling.")
    elif decided:
        errors["of"] = _("This appeal is already decided.")
    if outcome not in OUTCOMES:
        errors["outcome"] = _("Choose the decision on the appeal.")
    choice = None
    if outcome == "frivolous":
        choice, problem = views.parse_choice(form)
        if problem:
            errors["choice"] = problem
    # decided already, and only that is wrong: if by this very form (a double submit), the
    # ledger answers the retry of its key with the first answer; anything else it refuses
    double = decided and key is not None and set(errors) == {"of"}
    if not errors or double:
        try:
            cmd = command("appeal", {"of": of, "outcome": outcome,
                                     "judge": roles.judge_handle, "choice": choice})
            ctx.app.handle(cmd, ctx.actor(), tid, key=key)
        except views.REFUSED as exc:
            if not double:
                errors[views.error_field(exc.field, ("outcome", "choice"), "of")] = \
                    i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/{back}" if double
                              else f"/t/{tid}/{back}?appealed={of}")
    if back == "pending":
        from sudya.edges.web.pages_pending import render as render_pending

        return render_pending(ctx, t, book, roles, status=422, errors={f"appeal/{of}": errors},
                              values=values)
    return render(ctx, t, book, roles, status=422, errors={f"appeal/{of}": errors},
                  values=values)
