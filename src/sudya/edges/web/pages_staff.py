"""Staff and accounts, for a tournament's organiser (issue 36): who holds which role, a role
given to an existing account or taken away, a new account invited, a password reset — each a
one-time code shown once to the organiser, who hands it over; nobody's password passes
through anyone else. `/welcome` is where a code sets a password."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError
from sudya.app.views import PasswordCodeView, TournamentView
from sudya.domain.commands import AssignRole, InviteUser, RemoveRole, ResetPassword
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import COOKIE, Ctx, get_ctx, see_other
from sudya.edges.web.pages import LOGIN_COOKIE, signed_out_form, signed_out_form_ok

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
ROLES = ("organiser", "scorekeeper", "player")
FIELDS = {"give": ("username", "role"), "invite": ("username", "name", "role"),
          "reset": ("username",), "remove": ("username", "role")}


def _role_names() -> dict[str, str]:
    return {"organiser": _("Organiser"), "scorekeeper": _("Scorekeeper"),
            "player": _("Player")}


def _page(ctx: Ctx, t: TournamentView, *, status: int = 200, form: str = "",
          values: dict[str, str] | None = None, errors: dict[str, str] | None = None,
          code: PasswordCodeView | None = None, done: str = "") -> Response:
    return ctx.render("staff.html", status=status, t=t,
                      accounts=ctx.app.account_list(ctx.actor(), t.id), roles=ROLES,
                      role_names=_role_names(), form=form, values=values or {},
                      errors=errors or {}, code=code, done=done)


@router.get("/t/{tid}/staff")
def staff(ctx: C, tid: int, done: str = "") -> Response:
    st = ctx.standing(tid, "manage")
    return _page(ctx, st.tournament, done=done[:100])


@router.post("/t/{tid}/staff")
def staff_change(ctx: C, tid: int, request: Request, posted: forms.Posted) -> Response:
    """One of the page's forms (`form`): give, invite, reset, remove. A refusal stands beside
    its field; a code is shown once, on the page this answers."""
    st = ctx.standing(tid)  # the core refuses one who may not manage the tournament
    ctx.check_csrf(str(posted.get("csrf", "")))
    which = str(posted.get("form", ""))
    fields = FIELDS.get(which)
    if fields is None:
        return _page(ctx, st.tournament, status=422)
    values = {k: str(posted.get(k, "")).strip() for k in fields}
    errors: dict[str, str] = {}
    if not values["username"]:
        errors["username"] = _("Required.")
    if "role" in values and which != "invite" and values["role"] not in ROLES:
        errors["role"] = _("Choose a role.")
    if errors:
        return _page(ctx, st.tournament, status=422, form=which, values=values, errors=errors)
    cmd: Any
    try:
        if which == "give":
            cmd = views.command(AssignRole, username=values["username"], role=values["role"])
        elif which == "invite":
            cmd = views.command(InviteUser, username=values["username"],
                                display_name=values["name"] or None,
                                role=values["role"] or None)
        elif which == "reset":
            cmd = views.command(ResetPassword, username=values["username"])
        else:
            cmd = views.command(RemoveRole, username=values["username"], role=values["role"])
        answer = ctx.app.handle(cmd, ctx.actor(), tid)
    except (*views.REFUSED, AuthError) as exc:
        if isinstance(exc, AuthError) and exc.status != 422:
            raise  # not the organiser's to do: the refusal's own page
        field = exc.field if exc.field in fields else "username"
        return _page(ctx, st.tournament, status=422, form=which, values=values,
                     errors={field: i18n.error(exc)})
    if isinstance(answer, PasswordCodeView):  # shown once, never kept in a URL or a log
        return _page(ctx, st.tournament, code=answer)
    return views.done(request, f"/t/{tid}/staff?done={values['username']}")


# ---------------------------------------------------------------------- /welcome
@router.get("/welcome")
def welcome(ctx: C, request: Request, code: str = "") -> Response:
    """Where a one-time code sets a password (an invitation, a reset)."""
    return signed_out_form(ctx, request, "welcome.html", code=code[:40], errors={})


@router.post("/welcome")
def welcome_submit(ctx: C, request: Request, posted: forms.Posted) -> Response:
    code = str(posted.get("code", "")).strip()[:40]
    password = str(posted.get("password", ""))
    again = str(posted.get("again", ""))
    errors: dict[str, str] = {}
    if not signed_out_form_ok(ctx, request, str(posted.get("csrf", ""))):
        errors["code"] = _("The form has expired; reload the page and try again.")
    elif not code:
        errors["code"] = _("Required.")
    if password != again:
        errors["again"] = _("The two passwords differ.")
    if not errors:
        address = request.client.host if request.client else "?"
        try:
            user, token = ctx.app.use_code(code=code, password=password,
                                           throttle=request.app.state.throttle,
                                           address=address)
        except AuthError as exc:
            errors[exc.field if exc.field in ("code", "password") else "code"] = \
                i18n.error(exc)
        else:
            response = see_other("/tournaments")
            response.delete_cookie(LOGIN_COOKIE)
            response.set_cookie(COOKIE, token, httponly=True, samesite="lax",
                                max_age=7 * 86400, secure=request.url.scheme == "https")
            return response
    return signed_out_form(ctx, request, "welcome.html", status=422, code=code, errors=errors)
