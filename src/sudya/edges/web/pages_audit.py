"""The ledger's verification for the head judge: the last `sudya audit verify` of the
tournament's series, and a button to run it again (services.audit)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.domain.commands import VerifyLedger
from sudya.edges.web import forms, i18n
from sudya.edges.web.context import Ctx, get_ctx, see_other
from sudya.i18n.messages import render

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]


def check_view(ctx: Ctx, tid: int) -> dict[str, Any] | None:
    """The last verification, its words in the page's language."""
    # (app.audit reads it in a session of its own: it takes the application's ledger)
    last = ctx.app.last_check(tid)
    if last is None:
        return None
    lang = i18n.current_lang.get()
    text = render("audit.summary-ok", {"records": last.records}, lang) if last.ok else \
        render(last.code, last.params, lang)
    return {"at": last.at, "by": last.by, "ok": last.ok, "text": text,
            "head": (last.head or "")[:16]}


@router.get("/t/{tid}/audit")
def audit_page(ctx: C, tid: int) -> Response:
    st = ctx.standing(tid, "audit")  # the head judge (who hears appeals) or the organiser
    return ctx.render("audit.html", t=st.tournament, check=check_view(ctx, tid))


@router.post("/t/{tid}/audit")
def audit_run(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    actor = ctx.actor()
    ctx.check_csrf(str(form.get("csrf", "")))
    ctx.app.handle(VerifyLedger(), actor, tid)  # the core refuses all but the officers
    return see_other(f"/t/{tid}/audit")
