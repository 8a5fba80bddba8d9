"""The record form: finding an infraction, the inputs its rule declares, reading them back."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Collection, Mapping
from typing import Annotated, Any

from fastapi import Depends, Request
from starlette.datastructures import FormData

from sudya.app.people import fold
from sudya.app.views import TournamentSummaryView
from sudya.domain import commands
from sudya.domain.commands import CommandError
from sudya.domain.rulebook.schema import Infraction, Outcome, Rulebook, _outcomes
from sudya.domain.rulebook.search import find
from sudya.edges.web import i18n

_ = i18n.gettext
MOST = 2**31 - 1  # a database integer column (PostgreSQL `integer`)
SANE_NUMBER = 10**9  # larger numbers in a rule's inputs are typing mistakes (as in the API)


def whole_number(text: str, most: int = MOST) -> int | None:
    """A whole number typed into a form, from 0 to `most`; None for anything else (`²` and
    `١٢٣` are digits to str.isdigit, and 5,000 digits are too many for int)."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(most)):
        return None
    number = int(text)
    return number if number <= most else None


def is_htmx(request: Request) -> bool:
    return request.headers.get("hx-request") == "true"


def search(book: Rulebook, q: str, use: Mapping[str, int] | None = None) -> list[Infraction]:
    """Infractions whose names or id the typed words name (by their stems, see
    rulebooks.search), the tournament's most used first (`use`: times recorded)."""
    found = find(book, q)
    if not use:
        return found
    order = {inf.id: i for i, inf in enumerate(found)}
    return sorted(found, key=lambda inf: (-use.get(inf.id, 0), order[inf.id]))


def inputs(book: Rulebook, inf: Infraction | None, summary: TournamentSummaryView
           ) -> list[dict[str, Any]]:
    """Exactly the inputs the rule declares, ready for the template."""
    if inf is None:
        return []
    players = summary.handles()
    by_name = [o["value"] for o in people_options(summary)]
    out = []
    for name, d in {**book.common_details, **inf.details}.items():
        out.append({
            "name": f"details.{name}", "key": name, "type": d.type,
            "label": i18n.text(d.name) if d.name else name,
            "required": d.required,
            "required_if": d.required_if.source if d.required_if else "",
            "values": d.values if d.type == "enum" else by_name if d.type == "player" else [],
            # a player by their name, the id beside it (500 ids are no list to choose from)
            "labels": ({v: person_label(v, summary.names) for v in players} if d.type == "player"
                       else {v: d.value_text(v, i18n.current_lang.get()) for v in d.values}),
            "default": d.default, "min": d.min, "max": d.max,
        })
    return out


def person_label(handle: str, names: Mapping[str, str]) -> str:
    """A person as a list of choices shows them: «Борис Петров · boris» (just the id when
    they have no name of their own)."""
    name = names.get(handle)
    return f"{name} · {handle}" if name and name != handle else handle


def people_options(summary: TournamentSummaryView, first: Collection[str] = ()
                   ) -> list[dict[str, str]]:
    """The tournament's players as a list of choices: `first` (a table's players) first, in
    the order they entered, then everyone else by name; each with its label (person_label)."""
    names = summary.names
    wanted = set(first)
    ahead = [h for h in summary.handles() if h in wanted]
    rest = sorted((h for h in summary.handles() if h not in wanted),
                  key=lambda h: (fold(names.get(h) or h), h))
    teams = {p.handle: p.team for p in summary.players if p.team}
    return [{"value": h, "label": person_label(h, names)
             + (f" [{teams[h]}]" if h in teams else "")} for h in [*ahead, *rest]]


def choice_options(book: Rulebook, inf: Infraction | None, level: str | None
                   ) -> dict[str, Any] | None:
    """The judge's choices any table cell of this infraction offers (the engine checks),
    each with its name in the reader's language (§4 E11: no `min`/`max` on the page)."""
    if inf is None:
        return None
    from sudya.edges.web.views import option_name, points_name  # views reads forms: not at import

    options: dict[str, str] = {}
    points: dict[str, Any] | None = None
    amount = False
    for _path, outcome in _outcomes(inf):
        if not isinstance(outcome, Outcome):
            continue
        for name in outcome.options:
            options.setdefault(name, option_name(book, outcome, name) or name)
        if outcome.points:
            pr = outcome.points
            with_ = [i18n.text(book.kind(s.kind).name) for s in pr.with_]
            points = {"least": pr.least, "most": pr.most,
                      "name": points_name(book, outcome, pr.least, pr.most, with_)}
        amount = amount or outcome.amount
    if not options and points is None and not amount:
        return None
    return {"options": [{"value": v, "name": n} for v, n in options.items()],
            "points": points, "amount": amount}


def error_field(field: str) -> str:
    return field or "infraction"


def parse(book: Rulebook, summary: TournamentSummaryView, form: Mapping[str, Any]
          ) -> tuple[dict[str, Any], dict[str, str]]:
    """The form's values in the engine's terms, and an error beside each bad field."""
    errors: dict[str, str] = {}
    parsed: dict[str, Any] = {}
    inf = book.infraction(str(form.get("infraction", "")))
    if inf is None:
        errors["infraction"] = _("Choose an infraction.")
        return parsed, errors
    parsed["infraction"] = inf.id
    players = set(summary.handles())
    offender = str(form.get("player", "")).strip()
    if offender in summary.teams:
        parsed["team"] = offender
    elif offender:  # one not of this tournament: the core refuses it, beside this field
        parsed["player"] = offender
    else:
        errors["player"] = _("Choose the player.")
    rnd = str(form.get("round", "")).strip()
    if rnd:
        number = whole_number(rnd, 1000)  # the API's bound on rounds
        if number is not None:
            parsed["round"] = number
        else:
            errors["round"] = _("A whole number.")
    details: dict[str, Any] = {}
    for name, d in {**book.common_details, **inf.details}.items():
        raw = form.get(f"details.{name}")
        value = str(raw).strip() if raw is not None else ""
        field = f"details.{name}"
        if d.type == "bool":
            if raw is not None:
                details[name] = value not in ("", "false", "0", "off")
            continue
        if value == "":
            continue
        try:
            details[name] = _value(d.type, value, players)
        except ValueError:
            errors[field] = _expected(d.type)
    parsed["details"] = details
    choice = str(form.get("choice", "")).strip()
    if choice == "points":
        try:
            parsed["choice"] = {"points": -abs(int(str(form.get("choice_points", ""))))}
        except ValueError:
            errors["choice"] = _("Enter the points to deduct.")
    elif choice == "amount":
        try:
            parsed["choice"] = {"amount": int(str(form.get("choice_amount", "")))}
        except ValueError:
            errors["choice"] = _("Enter the amount.")
    elif choice:
        parsed["choice"] = choice
    note = str(form.get("note", "")).strip().replace("\r\n", "\n")
    if note:
        parsed["note"] = note
    if not errors:  # the limits of what may be recorded are the commands', as in the API
        try:
            commands.decode("infraction", parsed)
        except CommandError as exc:
            errors[error_field(exc.field)] = i18n.error(exc, book)
    return parsed, errors


def _value(kind: str, value: str, players: set[str]) -> Any:
    if kind in ("int", "number"):
        number = _number(value)
        return int(number) if kind == "int" or number.is_integer() else number
    if kind == "date":
        return dt.date.fromisoformat(value).isoformat()
    if kind == "map":
        out: dict[str, float] = {}
        for part in value.replace(";", ",").split(","):
            key, sep, amount = part.partition("=")
            if not sep:
                raise ValueError(part)
            number = _number(amount)
            out[key.strip()] = int(number) if number.is_integer() else number
        return out
    return value


def _number(text: str) -> float:
    """A number typed into a form (a decimal comma too); ValueError for nan, inf, 1e999 and
    digits other than ASCII ones (float reads `١٢٣`, as whole_number does not)."""
    if not text.isascii():
        raise ValueError(text)
    number = float(text.strip().replace(",", "."))
    if not math.isfinite(number) or abs(number) > SANE_NUMBER:
        raise ValueError(text)
    return number


def _expected(kind: str) -> str:
    return {
        "int": _("A whole number."),
        "number": _("A number."),
        "date": _("A date such as 2026-03-01."),
        "map": _("Write it as name=value, name=value."),
    }.get(kind, _("Check this value."))


async def read_form(request: Request) -> FormData:
    """The submitted form, read on the event loop by an async dependency (it takes no trip to
    the thread pool), so that a form's endpoint can be a plain `def`: FastAPI runs it in the
    thread pool, where its reads, its wait for the series' turn and its commit hold up no
    other request. (An `async def` endpoint would do all of that on the event loop: every
    other judge's request would wait behind it.)"""
    return await request.form()


Posted = Annotated[FormData, Depends(read_form)]
