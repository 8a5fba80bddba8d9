"""Statements for a disqualification's report (services.statements): the tournament's
disqualifications and suspensions, and per event its statements in the order written with
who typed each and when, and the form to add one — a judge types the player's own, the
opponent's or a witness's; the head judge also the statement of facts and the decision with
the rule cited; a player's own account writes in their own name."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError
from sudya.app.ledger import LedgerError
from sudya.app.people import display_names, staff_names, tournament_people
from sudya.app.statements import (
    Permission,
    dq_event,
    dq_events,
    permission,
    statements_of,
    visible,
)
from sudya.app.views import DisqualificationView, TournamentView
from sudya.domain.commands import (
    MAX_AUTHOR,
    MAX_DECISION,
    MAX_RULE,
    MAX_STATEMENT,
    decode_statement,
)
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, forbid, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
FIELDS = ("role", "author", "text", "rule_cited", "decision")


def role_names() -> dict[str, str]:
    """Whose statement, in the reader's language."""
    return {"player": _("the player's own"), "opponent": _("the opponent's"),
            "witness": _("a witness's"), "head-judge": _("the head judge's")}


def disqualification(ctx: Ctx, tid: int, event: str) -> DisqualificationView:
    """The event's disqualification; 404 naming the event when there is none."""
    try:
        return ctx.read(dq_event, tournament=tid, event=event[:100])
    except LedgerError as exc:
        raise AuthError(exc.code, status=404, field=exc.field, **exc.params) from None


@router.get("/t/{tid}/disqualifications")
def disqualifications_page(ctx: C, tid: int) -> Response:
    """Every disqualification and suspension of the tournament, with its statements."""
    st = ctx.standing(tid, "member")
    return ctx.render("disqualifications.html", t=st.tournament, roles=st.roles,
                      dqs=ctx.read(dq_events, tournament=tid))


def _page(ctx: Ctx, t: TournamentView, dq: DisqualificationView, may: Permission, *,
          status: int = 200, values: dict[str, str] | None = None,
          errors: dict[str, str] | None = None, written: int | None = None) -> Response:
    user = ctx.need_user()
    shown = visible(may, ctx.read(statements_of, tournament=t.id, event=dq.event),
                    user.username)
    people = ctx.read(tournament_people, tournament=t.id) if may.author is None else []
    first = may.roles[0] if may.roles else ""
    # the judge who ruled, who typed each statement and whose it is by their names, not
    # their logins and ids (a player's own account writes in their id's name)
    judges = ctx.read(staff_names, tournament=t.id,
                      handles=[dq.judge, *(st.written_by for st in shown)])
    authors = {st.author for st in shown} | ({may.author} if may.author else set())
    judges.update(ctx.read(display_names, tournament=t.id, only=authors))
    return ctx.render("statements.html", status=status, t=t, dq=dq, may=may,
                      statements=shown, role_names=role_names(), people=people, judges=judges,
                      values=values or {"role": first}, errors=errors or {},
                      written=written, most={"text": MAX_STATEMENT, "author": MAX_AUTHOR,
                                             "rule": MAX_RULE, "decision": MAX_DECISION})


def _statements(ctx: Ctx, tid: int, event: str, *, writes: bool = False
                ) -> tuple[TournamentView, DisqualificationView, Permission]:
    """The tournament, the event's disqualification and what the user may write and read of
    its statements; the page is refused to one who may do neither (a statement sent is
    refused by the core itself)."""
    st = ctx.standing(tid, None if writes else "member")
    dq = disqualification(ctx, tid, event)
    may = ctx.read(permission, st.roles, tournament=tid, subjects=dq.subjects)
    if not writes and not may.roles and not may.reads_all:
        raise forbid(_("Only the tournament's judges and its players write statements."))
    return st.tournament, dq, may


@router.get("/t/{tid}/events/{event}/statements")
def statements_page(ctx: C, tid: int, event: str, written: int | None = None) -> Response:
    t, dq, may = _statements(ctx, tid, event)
    return _page(ctx, t, dq, may, written=written)


@router.post("/t/{tid}/events/{event}/statements")
def statement_add(ctx: C, tid: int, event: str, request: Request, form: forms.Posted) -> Response:
    t, dq, may = _statements(ctx, tid, event, writes=True)
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")) for k in FIELDS}
    if may.author is not None:  # a player's own account writes in their own name
        values["author"] = may.author
    errors: dict[str, str] = {}
    raw: dict[str, Any] = {"tournament": tid, "event": dq.event, "role": values["role"],
                           "author": values["author"], "text": values["text"],
                           "idempotency_key": views.form_key(form)}
    if values["role"] == "head-judge" or values["rule_cited"].strip():
        raw["rule_cited"] = values["rule_cited"]
    if values["role"] == "head-judge" or values["decision"].strip():
        raw["decision"] = values["decision"]
    try:  # the core refuses a statement the user's role may not write (403)
        done = ctx.app.handle(decode_statement(raw), ctx.actor(), tid)
    except views.REFUSED as exc:
        errors[exc.field if exc.field in FIELDS else "text"] = i18n.error(exc)
    else:
        return views.done(request, f"/t/{tid}/events/{dq.event}/statements?written={done.id}"
                                   f"#statement-{done.id}")
    return _page(ctx, t, dq, may, status=422, values=values, errors=errors)


__all__ = ["router", "role_names", "disqualification"]
