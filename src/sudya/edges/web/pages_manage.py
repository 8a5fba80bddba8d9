"""The organiser's page: register players, teams and judges for a tournament, one by one or
from an uploaded list (CSV or XLSX, previewed first, then every row or none)."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from starlette.datastructures import UploadFile

from sudya.app.queries import tournament_subjects, tournament_summary
from sudya.app.swiss_rounds import dropped
from sudya.app.views import TournamentView
from sudya.domain import commands
from sudya.domain.commands import (
    AddJudge,
    AddPlayer,
    AddTeam,
    DropPlayer,
    ImportRoster,
    ReplacePlayer,
)
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, forbid, get_ctx

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
FORMS = {
    "player": ("handle", "name", "team", "table", "gender"),
    "team": ("handle", "name", "members"),
    "judge": ("handle", "name", "role", "official"),
}


REPLACEMENT = ("replace", "by", "name", "army", "coach")


def _page(ctx: Ctx, t: TournamentView, book: Rulebook, status: int = 200,
          **data: Any) -> Response:
    summary = ctx.read(tournament_summary, t.id)
    roles = [(rid, i18n.text(role.name)) for rid, role in book.roles.items()]
    # who may be replaced: the players removed from this tournament (§4 E9)
    removed = [p for p, v in ctx.read(tournament_subjects, tournament=t.id).items()
               if v.status == "removed" and p not in summary.teams]
    defaults: dict[str, Any] = {"form": "", "values": {}, "errors": {}, "added": None,
                                "replaced": None, "preview": None, "preview_problems": {},
                                "upload_data": "", "upload_name": ""}
    return ctx.render("manage.html", status=status, t=t, book=book, summary=summary,
                      role_names=roles, role_of=dict(roles), removed=removed,
                      dropped=ctx.read(dropped, t.id), **{**defaults, **data})


@router.get("/t/{tid}/people")
def people(ctx: C, tid: int, added: str | None = None,
           replaced: str | None = None) -> Response:
    st = ctx.standing(tid, "manage")
    return _page(ctx, st.tournament, st.book, added=added, replaced=replaced)


@router.post("/t/{tid}/people/replacement")
def replacement(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    """A removed player's replacement (regulations.md §4 E9), registered with the roster
    change in one transaction: a refusal stands beside its field and records nothing."""
    st = ctx.standing(tid)  # the core refuses one who may not manage the tournament
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in REPLACEMENT}
    errors: dict[str, str] = {}
    for field in ("replace", "by"):
        if not values[field]:
            errors[field] = _("Required.")
    for field, most in (("by", 100), ("name", 200)):  # the columns' widths
        if len(values[field]) > most:
            errors[field] = _("At most %(n)s characters.", n=most)
    if not errors:
        try:  # the limits of a roster change are the commands', as in the API
            cmd = commands.decode("roster", {
                "replace": values["replace"], "by": values["by"],
                "army": values["army"] or None, "coach": bool(values["coach"])})
        except commands.CommandError as exc:
            errors[views.error_field(exc.field, REPLACEMENT, "replace")] = i18n.error(exc)
    if not errors:
        assert isinstance(cmd, commands.ChangeRoster) and cmd.replace and cmd.by
        try:
            ctx.app.handle(views.command(ReplacePlayer, replace=cmd.replace, by=cmd.by,
                                         army=cmd.army, coach=cmd.coach,
                                         name=values["name"] or None),
                           ctx.actor(), tid, key=views.form_key(form))
        except views.REFUSED as exc:
            errors[views.error_field(exc.field, REPLACEMENT, "replace")] = i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/people?replaced={cmd.by}")
    return _page(ctx, t, book, status=422, form="replacement", values=values, errors=errors)


@router.post("/t/{tid}/people")
def people_add(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses one who may not manage the tournament
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    which = str(form.get("form", ""))
    if which not in FORMS:
        raise forbid(_("Unknown form."))
    values = {k: str(form.get(k, "")).strip() for k in FORMS[which]}
    errors: dict[str, str] = {}
    if not values["handle"]:
        errors["handle"] = _("Required.")
    for field, most in (("handle", 100), ("name", 200)):  # the columns' widths
        if len(values.get(field, "")) > most:
            errors[field] = _("At most %(n)s characters.", n=most)
    if any(len(handle) > 100 for handle in values.get("members", "").replace(",", " ").split()):
        errors["members"] = _("At most %(n)s characters.", n=100)
    table = values.get("table", "")
    if table and forms.whole_number(table) is None:
        errors["table"] = _("A whole number.")
    gender = values.get("gender", "")
    if gender not in ("", "m", "f"):
        errors["gender"] = _("Choose one of the list.")
    if not errors:
        cmd: AddPlayer | AddTeam | AddJudge
        try:
            if which == "player":
                cmd = views.command(AddPlayer, handle=values["handle"],
                                    name=values["name"] or None, team=values["team"] or None,
                                    table=int(table) if table else None,
                                    gender=gender or None)
            elif which == "team":
                members = [p for p in values["members"].replace(",", " ").split() if p]
                cmd = views.command(AddTeam, handle=values["handle"],
                                    name=values["name"] or None, members=members)
            else:
                cmd = views.command(AddJudge, handle=values["handle"], role=values["role"],
                                    official=bool(values["official"]),
                                    name=values["name"] or None)
            ctx.app.handle(cmd, ctx.actor(), tid)
        except views.REFUSED as exc:
            errors[exc.field if exc.field in FORMS[which] else "handle"] = \
                i18n.error(exc)
        else:
            return views.done(request, f"/t/{tid}/people?added={values['handle']}")
    return _page(ctx, t, book, status=422, form=which, values=values, errors=errors)


@router.post("/t/{tid}/people/upload")
def people_upload(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    """An uploaded list: first its preview (every row, each refused one named beside its line,
    nothing stored), then — the same file sent back by the preview's button — every row or
    none."""
    st = ctx.standing(tid)  # the core refuses one who may not manage the tournament
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    kind = "teams" if form.get("kind") == "teams" else "players"
    upload = form.get("file")
    if isinstance(upload, UploadFile) and upload.filename:
        data, filename = upload.file.read(), upload.filename
    else:  # the preview's button sends the file back as it was read
        try:
            data = base64.b64decode(str(form.get("data", "")), validate=True)
        except (binascii.Error, ValueError):
            data = b""
        filename = str(form.get("filename", ""))[:200]
    if not data:
        return _page(ctx, t, book, status=422, form="upload", values={"kind": kind},
                     errors={"file": _("Choose the file with the list.")})
    try:
        view = ctx.app.handle(views.command(ImportRoster, kind=kind, filename=filename,
                                            data=data, dry_run=form.get("confirm") != "1"),
                              ctx.actor(), tid)
    except (*views.REFUSED, SudyaError) as exc:
        return _page(ctx, t, book, status=422, form="upload", values={"kind": kind},
                     errors={"file": i18n.error(exc)})
    if view.imported:
        return views.done(request, f"/t/{tid}/people?added={view.count}")
    problems: dict[int, list[str]] = {}
    for p in view.problems:
        problems.setdefault(p.line, []).append(
            i18n.error(SudyaError(p.code, field=p.field, **p.params), book))
    return _page(ctx, t, book, status=200 if not problems else 422, form="upload",
                 values={"kind": kind}, preview=view, preview_problems=problems,
                 upload_data=base64.b64encode(data).decode(), upload_name=filename)


@router.post("/t/{tid}/people/drop")
def people_drop(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    """A player drops after a round (never paired after it), or is entered again (`back`)."""
    st = ctx.standing(tid)  # the core refuses one who may not manage the tournament
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {k: str(form.get(k, "")).strip() for k in ("player", "after")}
    back = form.get("back") == "1"
    errors: dict[str, str] = {}
    if not values["player"]:
        errors["player"] = _("Required.")
    after = forms.whole_number(values["after"], 100) if values["after"] else None
    if not back and after is None:
        errors["after"] = _("The round they played last: a whole number.")
    if not errors:
        try:
            ctx.app.handle(views.command(DropPlayer, player=values["player"],
                                         after=None if back else after), ctx.actor(), tid)
        except views.REFUSED as exc:
            errors["player" if exc.field != "after" else "after"] = i18n.error(exc, book)
        else:
            return views.done(request, f"/t/{tid}/people")
    return _page(ctx, t, book, status=422, form="drop", values=values, errors=errors)
