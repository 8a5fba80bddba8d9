"""The ledger's verification for the head judge: the last `sudya audit verify` of the
tournament's series, and a button to run it again (services.audit)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.audit import last_check, verify
from sudya.app.views import TournamentView
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, forbid, get_ctx, see_other
from sudya.i18n.messages import render

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


def _officer(ctx: Ctx, tid: int) -> TournamentView:
    """The head judge (who hears appeals) or the organiser."""
    ctx.need_user()
    t, _book, roles = ctx.tournament(tid)
    if not (roles.can("hear-appeals") or roles.can("manage")):
        raise forbid(_("Only the head judge or the organiser verifies the ledger."))
    return t


def check_view(ctx: Ctx, tid: int) -> dict[str, Any] | None:
    """The last verification, its words in the page's language."""
    last = last_check(ctx.ledger, tid)
    if last is None:
        return None
    lang = i18n.current_lang.get()
    text = render("audit.summary-ok", {"records": last.records}, lang) if last.ok else \
        render(last.code, last.params, lang)
    return {"at": last.at, "by": last.by, "ok": last.ok, "text": text,
            "head": (last.head or "")[:16]}


@router.get("/t/{tid}/audit")
def audit_page(ctx: C, tid: int) -> Response:
    t = _officer(ctx, tid)
    return ctx.render("audit.html", t=t, check=check_view(ctx, tid))


@router.post("/t/{tid}/audit")
def audit_run(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    t = _officer(ctx, tid)
    ctx.check_csrf(str(form.get("csrf", "")))
    verify(ctx.ledger, series=t.series.name, actor=views.actor(ctx))
    return see_other(f"/t/{tid}/audit")
