"""The judge's record form: find the infraction, see the ruling, confirm it, take it back.

Four taps from the dashboard: a table (the pairings' links, `?table=N&player=…`), the player,
the infraction (the tournament's most used first; found by the stems of the words typed), and
confirm — with the player and the infraction known, the form opens with the ruling already
previewed, the round prefilled from the round clock or the last ruling.

A preview is bound to what it previewed. The preview and the confirm are one form: the confirm
button sends the fields as they are on the screen, with the preview's token (web.preview_token:
an HMAC over the decoded command, the tournament and the user). The server decodes the fields
again and refuses a confirm whose command is not the one previewed (422, the form again,
nothing recorded); static/record.js also clears the preview as soon as a field changes.
"""

from __future__ import annotations

import contextlib
import uuid
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import Response

from sudya.app.accounts import Roles
from sudya.app.appeals import under_appeal
from sudya.app.ledger import LedgerError
from sudya.app.people import opponent_of
from sudya.app.queries import rulings_json, tournament_summary
from sudya.app.recording import current_round, display_names, infraction_use
from sudya.app.recording import table_players as players_at
from sudya.app.views import TournamentSummaryView, TournamentView
from sudya.domain import commands
from sudya.domain.engine.model import Ruling
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook.schema import Infraction, Rulebook
from sudya.edges.web import forms, i18n, preview_token, recorded, views
from sudya.edges.web.app import BUSY_RETRY_AFTER
from sudya.edges.web.context import Ctx, get_ctx
from sudya.edges.web.pages import _explained, _history

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext
MOST_TABLES = 100_000  # as the people form's table number


def _table(raw: object) -> int | None:
    number = forms.whole_number(str(raw or "").strip(), MOST_TABLES)
    return number if number else None


def _round(raw: object) -> int | None:
    return forms.whole_number(str(raw or "").strip(), commands.MAX_ROUND)


def _defaults(book: Rulebook, inf: Infraction, player: str, round_: int | None
              ) -> dict[str, str]:
    """The form's fields as the page first shows them, exactly as the browser would send
    them back (a checked box, a selected option), so that a preview made of them is the
    preview of what the confirm sends."""
    values = {"infraction": inf.id, "player": player}
    if round_ is not None:
        values["round"] = str(round_)
    for name, d in {**book.common_details, **inf.details}.items():
        if d.default is None:
            continue
        if d.type == "bool":
            if d.default is True:
                values[f"details.{name}"] = "true"
        elif d.type in ("enum", "player"):
            values[f"details.{name}"] = str(d.default)
    return values


def _prefill(ctx: Ctx, tid: int, book: Rulebook, inf: Infraction, player: str,
             values: dict[str, str]) -> None:
    """The fields the rulebook fills in from the pairings (a detail's `prefill`): the
    player's opponent in the current round, when they are seated in it."""
    wanted = [name for name, d in {**book.common_details, **inf.details}.items()
              if d.prefill == "opponent" and f"details.{name}" not in values]
    if not wanted:
        return
    opponent = ctx.read(opponent_of, tournament=tid, player=player)
    if opponent is not None:
        values.update({f"details.{name}": opponent for name in wanted})


def _page(ctx: Ctx, t: TournamentView, book: Rulebook, summary: TournamentSummaryView, *,
          inf: Infraction | None, player: str, table: int | None, values: dict[str, Any],
          errors: dict[str, str], q: str = "", found: list[Infraction] | None = None,
          round_: int | None = None) -> dict[str, Any]:
    """What record.html shows (the preview is added by _preview_into)."""
    # the players by name, those of the table first (the dashboard's table links)
    at = ctx.read(players_at, t.id, table) if table is not None else []
    people = forms.people_options(summary, at)
    teams = [{"value": team, "label": forms.person_label(team, summary.names)}
             for team in summary.teams]
    return dict(t=t, book=book, summary=summary, player=player, q=q, table=table, round=round_,
                people=people, teams=teams,
                found=found or [], inf=inf,
                inputs=forms.inputs(book, inf, summary) if inf else [],
                choice=forms.choice_options(book, inf, t.level) if inf else None,
                values=values, errors=errors)


def _record_args(parsed: dict[str, Any]) -> dict[str, Any]:
    keys = ("infraction", "player", "team", "round", "details", "choice", "note")
    return {k: parsed.get(k) for k in keys if k in parsed}


def _command(parsed: dict[str, Any], judge: str | None) -> commands.RecordInfraction:
    """The command the form's fields make (the one decoder, as the ledger stores it)."""
    cmd = commands.decode("infraction", {**_record_args(parsed), "judge": judge})
    assert isinstance(cmd, commands.RecordInfraction)
    return cmd


def _preview_into(ctx: Ctx, t: TournamentView, book: Rulebook, roles: Roles,
                  data: dict[str, Any], parsed: dict[str, Any], *, key: str | None = None,
                  ) -> None:
    """The preview of the parsed form, its token and idempotency key, into the page's data
    (LedgerError when the engine refuses it, or the core a name not of the tournament;
    access.Refused when the user may not rule here)."""
    cmd = _command(parsed, roles.judge_handle)
    rulings = ctx.app.preview(cmd, ctx.actor(), t.id)
    user = ctx.need_user()
    explained = [_repeat(ctx, t, book, r, _explained(book, r)) for r in rulings]
    handles = {r.subject for r in rulings} | {s.subject for r in rulings for s in r.sanctions}
    data.update(rulings=explained, parsed=parsed, key=key or uuid.uuid4().hex,
                token=preview_token.token(ctx.request.app.state.secret, t.id, user.username,
                                          cmd),
                names=ctx.read(display_names, t.id, handles),
                history=_history(ctx, parsed.get("player") or parsed.get("team")))


def _repeat(ctx: Ctx, t: TournamentView, book: Rulebook, r: Ruling, x: dict[str, Any]
            ) -> dict[str, Any]:
    """A repeat's preview cites the rule of repeats (the rulebook's `repeats.source`: for
    «Берсерк» 002 «Сложение пенальти», not the infraction's own section) and says which
    earlier rulings it counts are under appeal, not decided yet."""
    if r.cause != "repeat" or not r.infraction:
        return x
    if book.repeats.source:
        x["source"] = i18n.source(book.repeats.source)
    key = book.repeat_key(r.infraction)
    group = [i.id for i in book.infractions if book.repeat_key(i.id) == key]
    x["under_appeal"] = ctx.read(under_appeal, tournament=t.id, subject=r.subject,
                                 infractions=group,
                                 series_wide=book.repeats.scope == "validity")
    return x


def _render(ctx: Ctx, request: Request, data: dict[str, Any], status: int) -> Response:
    if forms.is_htmx(request):
        return ctx.render("record.html", block="record", status=status, **data)
    return ctx.render("record.html", status=status, **data)


@router.get("/t/{tid}/record")
def record_form(ctx: C, tid: int, player: str = "", infraction: str = "", q: str = "",
                table: str = "", round: str = "",
                hx: Annotated[bool, Depends(forms.is_htmx)] = False) -> Response:
    """The record form; `table`, `player` and `round` prefill it (the links of the
    dashboard's tables), `infraction` opens the ruling, previewed when the player is known."""
    st = ctx.standing(tid, "rule")
    t, book, roles = st.tournament, st.book, st.roles
    summary = ctx.read(tournament_summary, tid)
    inf = book.infraction(infraction) if infraction else None
    number = _table(table)
    if inf is None:
        found = forms.search(book, q, ctx.read(infraction_use, tid))
        data = _page(ctx, t, book, summary, inf=None, player=player, table=number, values={},
                     errors={}, q=q, found=found, round_=_round(round))
        if hx:
            return ctx.render("record.html", block="found", **data)
        return ctx.render("record.html", **data)
    given = _round(round)
    values = _defaults(book, inf, player,
                       given if given is not None else ctx.read(current_round, tid))
    if player:
        _prefill(ctx, tid, book, inf, player, values)
    data = _page(ctx, t, book, summary, inf=inf, player=player, table=number, values=values,
                 errors={})
    if player:  # the ruling at once: one tap fewer (what the preview button would show)
        parsed, errors = forms.parse(book, summary, values)
        if not errors:
            # refused (a fact the rule needs is missing): the form asks for it first
            with contextlib.suppress(LedgerError):
                _preview_into(ctx, t, book, roles, data, parsed)
    return ctx.render("record.html", **data)


@router.post("/t/{tid}/record/preview")
def record_preview(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)  # the core refuses the preview of one who may not rule
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    summary = ctx.read(tournament_summary, tid)
    parsed, errors = forms.parse(book, summary, form)
    inf = book.infraction(str(form.get("infraction", "")))
    data = _page(ctx, t, book, summary, inf=inf, player=parsed.get("player", ""),
                 table=_table(form.get("table")), values=_plain(form), errors=errors)
    if not errors:
        try:
            _preview_into(ctx, t, book, roles, data, parsed)
        except LedgerError as exc:
            errors[forms.error_field(exc.field)] = i18n.error(exc, book)
    return _render(ctx, request, data, 422 if errors else 200)


def _plain(form: Any) -> dict[str, Any]:
    """The submitted fields to show again (not the token and key of an old preview)."""
    return {k: v for k, v in dict(form).items() if k not in ("preview_token", "key")}


@router.post("/t/{tid}/record/confirm")
def record_confirm(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    st = ctx.standing(tid)
    t, book, roles = st.tournament, st.book, st.roles
    ctx.check_csrf(str(form.get("csrf", "")))
    user = ctx.need_user()
    summary = ctx.read(tournament_summary, tid)
    parsed, errors = forms.parse(book, summary, form)
    key = views.form_key(form)
    inf = book.infraction(str(form.get("infraction", "")))
    data = _page(ctx, t, book, summary, inf=inf, player=parsed.get("player", ""),
                 table=_table(form.get("table")), values=_plain(form), errors=errors)
    if errors:  # the form again, each error beside its field
        return _render(ctx, request, data, 422)
    cmd = _command(parsed, roles.judge_handle)
    given = str(form.get("preview_token", ""))
    if not preview_token.same(request.app.state.secret, tid, user.username, cmd, given):
        # the fields are not the ones previewed (changed after it, or never previewed); but
        # first what the core says of the command itself: one who may not rule here is
        # refused as such (403), a name not of this tournament beside its field
        try:
            ctx.app.check(cmd, ctx.actor(), tid)
        except LedgerError as exc:
            errors[forms.error_field(exc.field)] = i18n.error(exc, book)
            return _render(ctx, request, data, 422)
        errors["preview"] = i18n.error(SudyaError("preview.changed", field="preview_token"),
                                       book)
        page = _render(ctx, request, data, 422)
        page.headers["Sudya-Code"] = "preview.changed"  # the phone's outbox previews anew
        return page
    try:
        done = ctx.app.handle(cmd, ctx.actor(), tid, key=key)
    except LedgerError as exc:
        errors["confirm"] = i18n.error(exc, book)
        if exc.code != "ledger.busy":
            # beside its field too: the form comes back without the preview it confirmed
            errors[forms.error_field(exc.field)] = errors["confirm"]
            return _render(ctx, request, data, 422)
        # nothing recorded: the same form, preview, key and token, to send again
        with contextlib.suppress(LedgerError):
            _preview_into(ctx, t, book, roles, data, parsed, key=key)
        response = _render(ctx, request, data, 503)
        response.headers["Retry-After"] = str(BUSY_RETRY_AFTER)
        return response
    return views.done(request, f"/t/{tid}?recorded={done.event}")


@router.get("/t/{tid}/record/answer/{event}")
def record_answer(ctx: C, tid: int, event: Annotated[str, Path(max_length=100)]) -> Response:
    """What the server recorded for an event, people by name: the outbox (static/outbox.js)
    shows it once a ruling confirmed offline has been sent («Сервер записал»)."""
    st = ctx.standing(tid, "view-all")
    every = ctx.read(rulings_json, tid)
    mine = [r for r in every if r["event"] == event]
    rulings = views.rulings(st.book, mine, among=every,
                            names=recorded.names_of(ctx, tid, mine))
    return ctx.render("_answer.html", t=st.tournament, event=event, rulings=rulings)


@router.post("/t/{tid}/record/undo")
def record_undo(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    """Take back a ruling just recorded: a correction by the judge who recorded it."""
    st = ctx.standing(tid)
    t, book = st.tournament, st.book
    ctx.check_csrf(str(form.get("csrf", "")))
    event = str(form.get("event", "")).strip()[:commands.MAX_ID]
    try:
        ctx.app.handle(views.command(commands.Undo, event=event, reason=_(
            "undone by the judge right after recording it")), ctx.actor(), tid)
    except views.REFUSED as exc:
        if exc.code == "ledger.busy":
            raise  # 503 with Retry-After: nothing recorded, send it again
        message = i18n.error(exc, book)
        if forms.is_htmx(request):  # beside the undo button, in place of the notice
            rulings = views.rulings(book, ctx.read(rulings_json, tid))
            notice = recorded.notice(ctx, tid, book, rulings, event, may_undo=False)
            return ctx.render("_recorded.html", status=422, t=t, notice=notice,
                              undo_error=message)
        return ctx.render("error.html", status=422, message=message)
    return views.done(request, f"/t/{tid}?undone={event}")
