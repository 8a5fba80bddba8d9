"""A ruling made a test case of its rulebook («сделать проверочным случаем»): from a ruling on
the dashboard, the rulebook editor opens on the tournament's rulebook with the case that
reproduces the ruling (app.ruling_case.case_from_ruling; the editor reads `case=TID:EVENT`).

Who may: one who writes rulebooks (`accounts.manages_any`, as the editor) and sees everything
in the tournament."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path
from fastapi.responses import Response

from sudya.app.accounts import AuthError, manages_any
from sudya.app.ruling_case import case_from_ruling
from sudya.domain.errors import SudyaError
from sudya.edges.web import i18n
from sudya.edges.web.context import Ctx, forbid, get_ctx, see_other

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext


# the causes of rulings made on an infraction event (a stacking's is the end of a match's; a
# decision's, an appeal's, a correction's, a cancellation's are of those events)
ON_INFRACTION = frozenset({"table", "repeat", "discretion", "none", "conversion",
                           "accumulation", "aggravation"})


def may_write_rulebooks(ctx: Ctx) -> bool:
    """Whether the signed-in user writes rulebooks (the link beside a ruling)."""
    return ctx.user is not None and bool(ctx.read(manages_any, ctx.user))


def case_events(ctx: Ctx, rulings: list[dict[str, Any]]) -> set[str]:
    """The events of `rulings` (the replay format) the user may make a test case of: those of
    infractions, for one who writes rulebooks."""
    made = {r["event"] for r in rulings if r["cause"] in ON_INFRACTION and r["infraction"]}
    return made if made and may_write_rulebooks(ctx) else set()


@router.get("/t/{tid}/rulings/{event}/case")
def ruling_case(ctx: C, tid: int, event: Annotated[str, Path(max_length=100)]) -> Response:
    """The editor, on the tournament's rulebook, with the case of the ruling on `event`."""
    st = ctx.standing(tid, "view-all")
    if not may_write_rulebooks(ctx):
        raise forbid(_("Only a tournament's organiser writes rulebooks."))
    try:
        ctx.read(case_from_ruling, tid, event)  # refused here, not in the editor
    except SudyaError as exc:
        status = 404 if exc.code == "event.no-ruling" else 422
        raise AuthError(i18n.error(exc), status=status) from None
    return see_other(f"/rulebooks/editor?from={quote(st.book.id, safe='')}"
                     f"&case={tid}:{quote(event, safe='')}")
