"""What the pages share: rulebook names for ids, the judge's choice from a form, redirects."""

from __future__ import annotations

import uuid
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from starlette.datastructures import FormData

from sudya.rulebooks.schema import Rulebook
from sudya.services.accounts import AuthError
from sudya.services.ledger import Actor
from sudya.web import forms, i18n
from sudya.web.context import Ctx, see_other

_ = i18n.gettext


def kind_name(book: Rulebook, kind: str) -> str:
    """A sanction kind's name in the reader's language (its id if the edition lacks it)."""
    try:
        return i18n.text(book.kind(kind).name)
    except KeyError:
        return kind


def infraction_name(book: Rulebook, infraction: str | None) -> str:
    inf = book.infraction(infraction) if infraction else None
    return i18n.text(inf.name) if inf is not None else (infraction or "")


def sanctions(book: Rulebook, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sanctions (as in the replay format) with their names."""
    return [{**s, "name": kind_name(book, s["kind"])} for s in items]


def ruling(book: Rulebook, r: dict[str, Any]) -> dict[str, Any]:
    """A ruling (replay format) ready for a page: names instead of ids, the choices offered."""
    out = {**r, "infraction_name": infraction_name(book, r.get("infraction")),
           "cause_text": i18n.cause(r["cause"]),
           "sanctions": sanctions(book, r.get("sanctions", []))}
    offered = r.get("offered") or []
    if r.get("aggravated"):
        out["table"] = sanctions(book, offered)
    else:
        options, points = [], None
        for o in offered:
            if isinstance(o.get("choice"), dict):
                least, most = o["choice"]["points"]
                points = {"least": least, "most": most,
                          "with": [kind_name(book, k) for k in o.get("with", [])]}
            else:
                options.append({"value": o["choice"],
                                "sanctions": sanctions(book, o.get("sanctions", []))})
        out["options"], out["points"] = options, points
    return out


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


def actor(ctx: Ctx) -> Actor:
    user = ctx.need_user()
    return Actor(name=user.username,
                 request_id=ctx.request.headers.get("x-request-id", "")[:64] or uuid.uuid4().hex)


def done(request: Request, url: str) -> Response:
    """After a successful POST: 303 to `url`, or a full-page htmx redirect."""
    if forms.is_htmx(request):
        return Response(status_code=204, headers={"HX-Redirect": url})
    return see_other(url)
