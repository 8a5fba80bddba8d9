"""What the pages share: rulebook names for ids, the judge's choice from a form, redirects."""

from __future__ import annotations

from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import Response
from pydantic import BaseModel, ValidationError
from starlette.datastructures import FormData

from sudya.app.accounts import AuthError
from sudya.app.common import LedgerError
from sudya.domain import commands
from sudya.domain.rulebook.describe import amount_text
from sudya.domain.rulebook.schema import Outcome, Rulebook, _outcomes
from sudya.edges.web import forms, i18n
from sudya.edges.web.context import see_other

_ = i18n.gettext
M = TypeVar("M", bound=BaseModel)
# what a form shows beside its field: a value the core refuses (its command's limits, the
# ledger's and the engine's refusals, a name not of the tournament); a user the core refuses
# (access.Refused) gets the 403 page instead
REFUSED = (LedgerError, commands.CommandError)


def kind_name(book: Rulebook, kind: str) -> str:
    """A sanction kind's name in the reader's language (its id if the edition lacks it)."""
    try:
        return i18n.text(book.kind(kind).name)
    except KeyError:
        return kind


def infraction_name(book: Rulebook, infraction: str | None) -> str:
    inf = book.infraction(infraction) if infraction else None
    return i18n.text(inf.name) if inf is not None else (infraction or "")


def amount(book: Rulebook, kind: str, value: int | None) -> str:
    """An amount with its unit in the reader's language («75 руды», «−5 очков»; §4 E11)."""
    if value is None:
        return ""
    try:
        spec = book.kind(kind)
    except KeyError:
        return str(value)
    return amount_text(spec, value, i18n.current_lang.get())


def tally_amount(book: Rulebook, tally: str, value: int) -> str:
    """A subject's points or ore in words, with the unit of the kind that counts them."""
    kind = next((k.id for k in book.sanctions if k.tally == tally), None)
    return amount(book, kind, value) if kind is not None else str(value)


def unit_name(book: Rulebook, kind: str) -> str:
    """The word an amount of a kind is counted in («руды», «очков»), to label an input."""
    try:
        unit = book.kind(kind).unit
    except KeyError:
        return ""
    return unit.form(5, i18n.current_lang.get()) if unit is not None else ""


def sanctions(book: Rulebook, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sanctions (as in the replay format) with their names and amounts in words."""
    return [{**s, "name": kind_name(book, s["kind"]),
             "amount_text": amount(book, s["kind"], s.get("amount"))} for s in items]


def choice_outcome(book: Rulebook, infraction: str | None, options: list[str],
                   points: tuple[int, int] | None) -> Outcome | None:
    """The rulebook's cell a judge's choice comes from (its options' and range's names):
    the infraction's outcome, or the frivolous appeal's, offering exactly these."""
    inf = book.infraction(infraction) if infraction else None
    outcomes = [o for _path, o in _outcomes(inf)] if inf is not None else []
    if book.appeals is not None and book.appeals.frivolous is not None:
        outcomes.append(book.appeals.frivolous)
    for o in outcomes:
        offers = (o.points.least, o.points.most) if o.points else None
        if list(o.options) == options and offers == points:
            return o
    return None


def option_name(book: Rulebook, outcome: Outcome | None, option: str,
                kind_too: bool = True) -> str:
    """How an option of the judge's choice reads: its name, or (`kind_too`, where its
    sanctions are not shown beside it) the name of the sanction it is named after."""
    named = outcome.option_names.get(option) if outcome is not None else None
    if named is not None:
        return i18n.text(named)
    if kind_too:
        try:
            return i18n.text(book.kind(option).name)
        except KeyError:
            pass
    return ""  # the option's sanctions, shown beside it, say what it is


def points_name(book: Rulebook, outcome: Outcome | None, least: int, most: int,
                with_: list[str]) -> str:
    """A point range the judge picks from, in words («Штраф от 10 до 20 очков…»)."""
    pr = outcome.points if outcome is not None else None
    if pr is not None and pr.name is not None:
        return i18n.text(pr.name)
    spec = next((k for k in book.sanctions if k.tally == "points"), None)
    kind = pr.kind if pr is not None else (spec.id if spec is not None else "points")
    text = _("%(name)s: from %(least)s to %(most)s", name=kind_name(book, kind),
             least=f"−{-least}" if least < 0 else str(least), most=amount(book, kind, most))
    return " + ".join([text, *with_])


def named(items: list[dict[str, Any]], names: dict[str, str] | None) -> list[dict[str, Any]]:
    """Sanctions with the display name of whoever bears one that is not the ruling's
    subject (`subject_name`)."""
    if not names:
        return items
    return [{**s, "subject_name": names.get(s["subject"])} if s.get("subject") else s
            for s in items]


def ruling(book: Rulebook, r: dict[str, Any], decided: dict[str, Any] | None = None,
           names: dict[str, str] | None = None) -> dict[str, Any]:
    """A ruling (replay format) ready for a page: names instead of ids (the subject's
    display name from `names`: handle -> name), the choices offered, and for a settled
    pending ruling what settled it (`decided`: see `settlements`)."""
    out = {**r, "infraction_name": infraction_name(book, r.get("infraction")),
           "cause_text": i18n.cause(r["cause"]),
           "sanctions": named(sanctions(book, r.get("sanctions", [])), names),
           "subject_name": (names or {}).get(r["subject"]),
           "decided": decided}
    offered = r.get("offered") or []
    if r.get("aggravated"):
        out["table"] = sanctions(book, offered)
    else:
        choices = [o for o in offered if not isinstance(o.get("choice"), dict)]
        ranges = [o for o in offered if isinstance(o.get("choice"), dict)]
        span: tuple[int, int] | None = None
        if ranges:
            least, most = ranges[-1]["choice"]["points"]
            span = (least, most)
        outcome = choice_outcome(book, r.get("infraction"), [o["choice"] for o in choices],
                                 span)
        options, points = [], None
        for o in choices:
            options.append({"value": o["choice"],
                            "name": option_name(book, outcome, o["choice"], kind_too=False),
                            "sanctions": sanctions(book, o.get("sanctions", []))})
        if span is not None:
            least, most = span
            with_ = [kind_name(book, k) for k in ranges[-1].get("with", [])]
            points = {"least": least, "most": most, "with": with_,
                      "name": points_name(book, outcome, least, most, with_)}
        out["options"], out["points"] = options, points
    return out


def settlements(book: Rulebook, items: list[dict[str, Any]]
                ) -> dict[tuple[str, str], dict[str, Any]]:
    """(event, subject) of each settled pending ruling -> what settled it: the decision's
    sanctions (`resolves`), or the appeal or correction that revoked it while pending."""
    by_event: dict[str, list[dict[str, Any]]] = {}
    for r in items:
        by_event.setdefault(r["event"], []).append(r)
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in items:
        by = r.get("resolved_by")
        if not by:
            continue
        for later in by_event.get(by, []):
            if later["subject"] != r["subject"]:
                continue
            if later["cause"] == "decision" and later.get("resolves") == r["event"]:
                out[(r["event"], r["subject"])] = {
                    "event": by, "how": "decision",
                    "sanctions": sanctions(book, later.get("sanctions", []))}
            elif later.get("revokes") == r["event"]:
                out[(r["event"], r["subject"])] = {
                    "event": by, "how": later["cause"], "sanctions": [],
                    "cause_text": i18n.cause(later["cause"])}
    return out


def rulings(book: Rulebook, items: list[dict[str, Any]],
            among: list[dict[str, Any]] | None = None,
            names: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """Rulings ready for a page, each settled pending one with what settled it (looked up
    `among` the tournament's rulings: by default the same list); people by their display
    names (`names`, the tournament summary's)."""
    settled = settlements(book, items if among is None else among)
    return [ruling(book, r, settled.get((r["event"], r["subject"])), names) for r in items]


def settle_record(entries: list[dict[str, Any]]) -> None:
    """A person's record (its entries ready for the page): each pending ruling settled since
    gets what settled it, `decided` as `settlements` gives it (the decision's sanctions with
    their state in the record)."""
    by_event = {(e["series"], e["event"]): e for e in entries}
    for e in entries:
        later = by_event.get((e["series"], e.get("resolved_by")))
        if later is None:
            continue
        e["decided"] = {"event": later["event"], "how": later["cause"],
                        "sanctions": later["sanctions"] if later["cause"] == "decision" else [],
                        "cause_text": later.get("cause_text") or i18n.cause(later["cause"])}


def outcome_text(outcome: str) -> str:
    """The head judge's decision on an appeal, for people."""
    return {"upheld": _("upheld: the ruling stands"),
            "overturned": _("overturned: its sanctions no longer count"),
            "frivolous": _("frivolous: the appellant is penalised")}.get(outcome, outcome)


def parse_choice(form: FormData) -> tuple[Any, str | None]:
    """The judge's choice from a form: an option's name or {points: -N}; and an error."""
    choice = str(form.get("choice", "")).strip()
    if choice == "points":
        raw = str(form.get("choice_points", "")).strip()
        try:
            return {"points": -abs(int(raw))}, None
        except ValueError:
            return None, _("Enter the points to deduct.")
    return (choice or None), None


def error_field(field: str, known: tuple[str, ...], default: str) -> str:
    """The form field a ledger error belongs to (`sanctions[0].amount` -> `sanctions`)."""
    base = field.split("[", 1)[0].split(".", 1)[0]
    return base if base in known else default


def unshown(errors: dict[str, dict[str, str]] | None, shown: set[str]) -> list[str]:
    """Errors about a form the page no longer shows (say, a ruling decided meanwhile)."""
    return [message for key, fields in (errors or {}).items() if key not in shown
            for message in fields.values()]


def show_whole_page(request: Request, response: Response, problems: list[str]) -> Response:
    """Under htmx, errors with no form left to stand beside replace the whole <main>."""
    if problems and forms.is_htmx(request):
        response.headers.update({"HX-Retarget": "main", "HX-Reselect": "main",
                                 "HX-Reswap": "outerHTML"})
    return response


def form_key(form: FormData) -> str | None:
    """The form's idempotency key (the template's `new_key()`), None when it has none; one
    longer than its column is a damaged form, not a database error."""
    key = str(form.get("key", ""))
    if len(key) > 100:
        raise AuthError(_("This form is damaged: reload the page."), status=400)
    return key or None


def command(cls: type[M], **fields: Any) -> M:
    """A command of the core (domain.commands) made of a form's fields; CommandError naming
    the field when a value is beyond the command's limits."""
    try:
        return cls.model_validate(fields)
    except ValidationError as exc:
        raise commands.error_of(exc) from None


def done(request: Request, url: str) -> Response:
    """After a successful POST: 303 to `url`, or a full-page htmx redirect."""
    if forms.is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return see_other(url)
