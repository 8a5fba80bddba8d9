"""Deck checks and the overspend remedy for judges (002 §1.1–1.4, 000 §7.4).

Shown for a tournament whose rulebook has deck `formats` (the lists) or `squad` rules (the
remedy); only roles that may give rulings use them. Every finding and the remedy's warning
has a one-step button that records the infraction, with its sub-item, for the player.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import Response

from sudya.app.accounts import AuthError, Roles
from sudya.app.common import command
from sudya.app.decks import (
    card_list,
    cards_info,
    decklist,
    decklist_status,
    newest_decklist,
)
from sudya.app.people import display_names, fold, staff_names
from sudya.app.queries import tournament_players
from sudya.app.views import DecklistView, TournamentView
from sudya.domain.commands import RegisterDecklist
from sudya.domain.decks.decklist import Finding, check, compare, parse
from sudya.domain.decks.squad import SquadError, remedy
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import forms, i18n, views
from sudya.edges.web.context import Ctx, get_ctx
from sudya.i18n.messages import render

router = APIRouter(include_in_schema=False)
C = Annotated[Ctx, Depends(get_ctx)]
_ = i18n.gettext

OVERSPEND = "gameplay.overspend"  # 000 §7.4: the infraction the remedy ends with
MAX_TEXT = 20_000  # a deck list is a page of text, not a book
MAX_SEED = 2**53
ListId = Annotated[int | None, Query(alias="list", ge=1, le=forms.MOST)]  # a stored list


# ---------------------------------------------------------------------- shared
def _standing(ctx: Ctx, tid: int, part: str | None = None, *, writes: bool = False
              ) -> tuple[TournamentView, Rulebook, Roles]:
    """The user's standing for a deck page: a judge who gives rulings here (a form that
    `writes` is refused by the core itself); `part`: the rulebook part the page uses."""
    st = ctx.standing(tid, None if writes else "rule",
                      _("Only judges who give rulings in this tournament check decks."))
    book = st.book
    if (part == "formats" and not book.formats) or (part == "squad" and book.squad is None):
        raise AuthError(_("This tournament's rulebook has no deck checks."), status=404)
    return st.tournament, book, st.roles


def no_cards_message() -> str:
    return _("No card list is imported. The organiser imports the real one (sudya cards "
             "import FILE); until then you may check against the SAMPLE list.")


def players(ctx: Ctx, tid: int) -> list[str]:
    """The tournament's players, for the forms' choices."""
    return ctx.read(tournament_players, tournament=tid)


def names(ctx: Ctx, tid: int) -> dict[str, str]:
    """handle -> display name of the tournament's players: the pages show people by name."""
    return ctx.read(display_names, tournament=tid)


def choices(handles: list[str], known: dict[str, str]) -> list[dict[str, str]]:
    """Players as a form's choices, by name with the id beside it (forms.person_label)."""
    order = sorted(handles, key=lambda h: (fold(known.get(h) or h), h))
    return [{"value": h, "label": forms.person_label(h, known)} for h in order]


def say(code: str, params: Mapping[str, Any] | None, book: Rulebook | None = None) -> str:
    """A message code (a finding, a draw's reason) in the reader's language."""
    return render(code, params, i18n.current_lang.get(), book)


def findings_view(book: Rulebook, findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Findings as a page shows them: names, the sub-item's text, the message in words."""
    out = []
    for n, f in enumerate(findings, start=1):
        inf = book.infraction(f["infraction"])
        item_text = inf.items.get(f["item"]) if inf is not None else None
        out.append({**f, "n": n, "infraction_name": views.infraction_name(book, f["infraction"]),
                    "item_text": i18n.text(item_text) if item_text else "",
                    "text": say(f["code"], f.get("params"), book),
                    "recordable": inf is not None})
    return out


def as_dicts(findings: list[Finding]) -> list[dict[str, Any]]:
    return [asdict(f) for f in findings]


def seat_name(seat: str) -> str:
    return {"first": _("first player"), "second": _("second player")}.get(seat, seat)


def _text(form: Any, name: str) -> str:
    return str(form.get(name, "") or "").replace("\r\n", "\n")


# ---------------------------------------------------------------------- the status of lists
STATUS = ("missing", "unchecked", "problems", "ok")


def status_text(status: str) -> str:
    return {"missing": _("no deck list"), "unchecked": _("not checked"),
            "problems": _("problems found"), "ok": _("in order")}.get(status, status)


@router.get("/t/{tid}/decks")
def decks(ctx: C, tid: int) -> Response:
    t, book, roles = _standing(ctx, tid, "formats")
    rows = ctx.read(decklist_status, tid)
    for r in rows:
        fmt = book.formats.get(r["format"] or "")
        r["format_name"] = i18n.text(fmt.name) if fmt else (r["format"] or "—")
        r["status_text"] = status_text(r["status"])
    counts = {s: sum(1 for r in rows if r["status"] == s) for s in STATUS}
    return ctx.render("decks.html", t=t, book=book, rows=rows, counts=counts,
                      status_text=status_text, cards=ctx.read(cards_info),
                      names=names(ctx, tid))


# ---------------------------------------------------------------------- check a list
def _check_page(ctx: Ctx, t: TournamentView, book: Rulebook, *, status: int = 200,
                values: dict[str, str], errors: dict[str, str] | None = None,
                listed: DecklistView | None = None, findings: list[dict[str, Any]] | None = None,
                checked: bool = False, sample: bool = False) -> Response:
    info = ctx.read(cards_info)
    fmt = book.formats.get(listed.format or "") if listed is not None else None
    known = names(ctx, t.id)
    return ctx.render(
        "decks_check.html", status=status, t=t, book=book,
        listed_format=i18n.text(fmt.name) if fmt else (listed.format if listed else "") or "—",
        players=choices(players(ctx, t.id), known), names=known,
        stored_by=ctx.read(staff_names, tournament=t.id, handles=[listed.created_by])
        .get(listed.created_by) if listed is not None else None,
        values=values, errors=errors or {},
        formats=[(fid, i18n.text(f.name)) for fid, f in book.formats.items()],
        cards=info, listed=listed, findings=findings_view(book, findings or []),
        checked=checked, sample=sample or (listed is not None and info["sample"]))


@router.get("/t/{tid}/decks/check")
def check_form(ctx: C, tid: int, player: str = "",
               list_id: ListId = None,
               cards: str = "") -> Response:
    t, book, _roles = _standing(ctx, tid, "formats")
    first = next(iter(book.formats))
    values = {"player": player, "format": first, "text": "",
              "cards": "sample" if cards == "sample" else "imported"}
    if list_id is None:
        return _check_page(ctx, t, book, values=values)
    listed = ctx.read(decklist, tournament=t.id, decklist_id=list_id)
    if listed is None:
        raise AuthError(_("No such deck list."), status=404)
    values.update(player=listed.player, format=listed.format or first, text=listed.text)
    return _check_page(ctx, t, book, values=values, listed=listed,
                       findings=listed.findings or [], checked=listed.findings is not None,
                       sample=cards == "sample")


@router.post("/t/{tid}/decks/check")
def check_submit(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    t, book, _roles = _standing(ctx, tid, "formats", writes=True)
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {"player": str(form.get("player", "")).strip(),
              "format": str(form.get("format", "")).strip(), "text": _text(form, "text"),
              "cards": "sample" if form.get("cards") == "sample" else "imported"}
    errors: dict[str, str] = {}
    if values["player"] not in players(ctx, tid):
        errors["player"] = _("Choose the player.")
    if values["format"] not in book.formats:
        errors["format"] = _("Unknown format: %(format)s. Choose one of the list.",
                             format=values["format"] or "—")
    if not values["text"].strip():
        errors["text"] = _("Paste the deck list.")
    elif len(values["text"]) > MAX_TEXT:
        errors["text"] = _("The list is too long (at most %(n)s characters).", n=MAX_TEXT)
    cards, _sample = ctx.read(card_list, values["cards"])
    if cards is None:
        errors["cards"] = no_cards_message()
    if errors:
        return _check_page(ctx, t, book, status=422, values=values, errors=errors)
    assert cards is not None
    fmt = values["format"]
    findings = check(parse(values["text"]), cards, book.formats[fmt], fmt)
    try:
        lid = ctx.app.handle(views.command(RegisterDecklist, player=values["player"],
                                           text=values["text"], fmt=fmt, findings=findings),
                             ctx.actor(), tid, key=views.form_key(form))
    except views.REFUSED as exc:
        field = exc.field if exc.field in ("player",) else "text"
        errors[field] = i18n.error(exc)
        return _check_page(ctx, t, book, status=422, values=values, errors=errors)
    suffix = "&cards=sample" if values["cards"] == "sample" else ""
    return views.done(request, f"/t/{tid}/decks/check?list={lid}{suffix}")


# ---------------------------------------------------------------------- list against deck
@router.get("/t/{tid}/decks/compare")
def compare_form(ctx: C, tid: int, player: str = "",
                 list_id: ListId = None) -> Response:
    t, book, _roles = _standing(ctx, tid, "formats")
    values = {"player": player, "decklist": "", "deck": ""}
    listed = None
    if list_id is not None:
        listed = ctx.read(decklist, tournament=tid, decklist_id=list_id)
        if listed is None:
            raise AuthError(_("No such deck list."), status=404)
    elif player:  # the player's newest list
        listed = ctx.read(newest_decklist, tournament=tid, player=player)
    if listed is not None:
        values.update(player=listed.player, decklist=listed.text)
    known = names(ctx, tid)
    return ctx.render("decks_compare.html", t=t, book=book,
                      players=choices(players(ctx, tid), known), names=known,
                      values=values, errors={}, findings=None)


@router.post("/t/{tid}/decks/compare")
def compare_submit(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    t, book, _roles = _standing(ctx, tid, "formats")
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {"player": str(form.get("player", "")).strip(),
              "decklist": _text(form, "decklist"), "deck": _text(form, "deck")}
    errors: dict[str, str] = {}
    people = players(ctx, tid)
    if values["player"] and values["player"] not in people:
        errors["player"] = _("Choose the player.")
    for field, message in (("decklist", _("Paste the deck list.")),
                           ("deck", _("Write down the deck as you found it."))):
        if not values[field].strip():
            errors[field] = message
        elif len(values[field]) > MAX_TEXT:
            errors[field] = _("The list is too long (at most %(n)s characters).", n=MAX_TEXT)
    findings = None
    if not errors:
        findings = findings_view(book, as_dicts(compare(parse(values["decklist"]),
                                                        parse(values["deck"]))))
    known = names(ctx, tid)
    return ctx.render("decks_compare.html", status=422 if errors else 200, t=t, book=book,
                      players=choices(people, known), names=known, values=values,
                      errors=errors, findings=findings)


# ---------------------------------------------------------------------- the overspend remedy
def _lines(text: str) -> list[str]:
    """Cards one per line (commas separate too), blanks skipped."""
    return [part.strip() for line in text.splitlines() for part in line.split(",")
            if part.strip()]


def _squad_page(ctx: Ctx, t: TournamentView, book: Rulebook, *, status: int = 200,
                values: dict[str, str], errors: dict[str, str] | None = None,
                result: dict[str, Any] | None = None) -> Response:
    assert book.squad is not None
    known = names(ctx, t.id)
    return ctx.render("decks_squad.html", status=status, t=t, book=book,
                      players=choices(players(ctx, t.id), known), names=known,
                      values=values, errors=errors or {},
                      seats=[(s, seat_name(s)) for s in book.squad.budgets],
                      cards=ctx.read(cards_info), result=result,
                      can_record=book.infraction(OVERSPEND) is not None,
                      overspend=OVERSPEND)


@router.get("/t/{tid}/squad")
def squad_form(ctx: C, tid: int, player: str = "") -> Response:
    t, book, _roles = _standing(ctx, tid, "squad")
    assert book.squad is not None
    values = {"player": player, "squad": "", "seat": next(iter(book.squad.budgets)),
              "seed": "", "drawn": "", "cards": "imported"}
    return _squad_page(ctx, t, book, values=values)


@router.post("/t/{tid}/squad")
def squad_submit(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    t, book, _roles = _standing(ctx, tid, "squad")
    assert book.squad is not None
    ctx.check_csrf(str(form.get("csrf", "")))
    values = {"player": str(form.get("player", "")).strip(), "squad": _text(form, "squad"),
              "seat": str(form.get("seat", "")).strip(),
              "seed": str(form.get("seed", "")).strip(), "drawn": _text(form, "drawn"),
              "cards": "sample" if form.get("cards") == "sample" else "imported"}
    errors: dict[str, str] = {}
    if values["player"] and values["player"] not in players(ctx, tid):
        errors["player"] = _("Choose the player.")
    names = _lines(values["squad"])
    if not names:
        errors["squad"] = _("List the recruited cards, one per line.")
    elif len(names) > 100 or len(values["squad"]) > MAX_TEXT:
        errors["squad"] = _("At most 100 cards.")
    drawn = _lines(values["drawn"])
    if len(drawn) > 100:
        errors["drawn"] = _("At most 100 cards.")
    if values["seat"] not in book.squad.budgets:
        errors["seat"] = _("Choose the seat.")
    seed: int | None = None
    if values["seed"]:
        if forms.whole_number(values["seed"], MAX_SEED) is not None:
            seed = int(values["seed"])
        else:
            errors["seed"] = _("A whole number from 0 to %(n)s, or leave it empty.",
                               n=MAX_SEED)
    cards, sample = ctx.read(card_list, values["cards"])
    if cards is None:
        errors["cards"] = no_cards_message()
    if errors:
        return _squad_page(ctx, t, book, status=422, values=values, errors=errors)
    assert cards is not None
    if seed is None:
        seed = secrets.randbelow(2**31)
        values["seed"] = str(seed)
    try:
        done = remedy(names, cards, book.squad, values["seat"], seed, drawn or None)
    except SquadError as exc:
        field = exc.field.split("[", 1)[0] or "squad"
        errors[field if field in ("squad", "seat", "drawn") else "squad"] = \
            exc.text(i18n.current_lang.get(), book)
        return _squad_page(ctx, t, book, status=422, values=values, errors=errors)
    result = {
        "seat": seat_name(done.seat), "seed": done.seed, "squad": done.squad,
        "draws": [{"step": x.step, "group": x.group, "reason": say(x.code, x.params, book),
                   "card": x.card, "chosen_by": x.chosen_by,
                   "how": _("at random") if x.chosen_by == "random" else
                   _("drawn at the table")} for x in done.draws],
        "kept": done.kept, "returned": done.returned, "warning": done.warning,
        "groups": sorted({x.group for x in done.draws}), "sample": sample,
    }
    return _squad_page(ctx, t, book, values=values, result=result)


# ---------------------------------------------------------------------- record a finding
@router.post("/t/{tid}/decks/record")
def record_finding(ctx: C, tid: int, request: Request, form: forms.Posted) -> Response:
    """One step: the infraction with its sub-item (details.item) for the player."""
    t, book, roles = _standing(ctx, tid, writes=True)
    ctx.check_csrf(str(form.get("csrf", "")))
    key = views.form_key(form)  # a double submit gets the ledger's first answer
    player = str(form.get("player", "")).strip()
    infraction = str(form.get("infraction", "")).strip()
    item = str(form.get("item", "")).strip()
    inf = book.infraction(infraction)
    problems = []
    if inf is None:
        problems.append(_("Unknown infraction: %(id)s.", id=infraction or "—"))
    elif inf.items and item not in inf.items:
        problems.append(_("Unknown sub-item: %(item)s.", item=item or "—"))
    if player not in players(ctx, tid):
        problems.append(_("Choose the player."))
    details: dict[str, Any] = {"item": item} if item else {}
    if infraction == OVERSPEND:
        seed = str(form.get("seed", "")).strip()
        if forms.whole_number(seed, MAX_SEED) is not None:
            details["seed"] = int(seed)
        returned = str(form.get("returned", "")).strip()[:1000]
        if returned:
            details["returned"] = returned
    if problems:
        return ctx.render("error.html", status=422, message=" ".join(problems))
    try:
        done = ctx.app.handle(command("infraction", {
            "infraction": infraction, "player": player, "judge": roles.judge_handle,
            "details": details}), ctx.actor(), tid, key=key)
    except views.REFUSED as exc:
        if exc.code == "ledger.busy":
            raise  # 503 with Retry-After (the app's error page): nothing recorded, send again
        return ctx.render("error.html", status=422, message=i18n.error(exc))
    return views.done(request, f"/t/{tid}?recorded={done.event}")
