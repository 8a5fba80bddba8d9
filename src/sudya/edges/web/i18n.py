"""Russian first, English second: gettext catalogues (Babel), plurals and dates per request."""

from __future__ import annotations

import contextvars
import datetime as dt

from babel.dates import format_date, format_datetime
from babel.support import Translations

from sudya.domain.engine.model import Reason
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook.schema import Rulebook
from sudya.i18n.messages import page_catalogue, reason_text, render, source_text

LOCALES = ("ru", "en")
DEFAULT = "ru"

current_lang: contextvars.ContextVar[str] = contextvars.ContextVar("lang", default=DEFAULT)


def translations(lang: str) -> Translations:
    """The catalogue for a language (messages.page_catalogue: shared with the reports and
    the CLI)."""
    return page_catalogue(lang)


def gettext(message: str, **params: object) -> str:
    text = translations(current_lang.get()).ugettext(message)
    return text % params if params else text


def pgettext(context: str, message: str, **params: object) -> str:
    """A message in a context: the same English for another Russian (`m`, `f`: the
    masculine and the feminine forms of a word that names a person)."""
    text = translations(current_lang.get()).upgettext(context, message)
    return text % params if params else text


def ngettext(singular: str, plural: str, n: int, **params: object) -> str:
    text = translations(current_lang.get()).ungettext(singular, plural, n)
    return text % {"num": n, **params}


def pick(lang: str | None) -> str:
    return lang if lang in LOCALES else DEFAULT


def date(value: dt.date | None, fmt: str = "medium") -> str:
    if value is None:
        return "—"
    return format_date(value, format=fmt, locale=current_lang.get())


def isodate(value: str | None) -> str:
    """An ISO date string (as the JSON views carry it), localised."""
    return date(dt.date.fromisoformat(value)) if value else "—"


def datetime(value: dt.datetime | None, fmt: str = "short") -> str:
    if value is None:
        return "—"
    return format_datetime(value, format=fmt, locale=current_lang.get())


def text(value: object) -> str:
    """A rulebook text ({ru, en}) in the current language."""
    get = getattr(value, "get", None)
    if callable(get) and hasattr(value, "ru"):
        return str(get(current_lang.get()))
    return "" if value is None else str(value)


def cause(value: str) -> str:
    """A ruling's cause in words (the codes' catalogue, `cause.*`)."""
    return render(f"cause.{value}", None, current_lang.get())


def code(value: str, params: dict[str, object] | None = None) -> str:
    """A message code of the catalogues in the reader's language."""
    return render(value, params, current_lang.get())


def error(exc: SudyaError, book: Rulebook | None = None) -> str:
    """An error's message (without its field) in the reader's language."""
    return exc.text(current_lang.get(), book)


def reason(r: Reason, book: Rulebook | None = None) -> str:
    """A ruling's reason in the reader's language, ids shown by their names."""
    return reason_text(r, current_lang.get(), book)


def source(value: str | None) -> str:
    """A citation (or a text ending in one) with its documents and errata named in the
    reader's language: «разбор регламентов §4, поправка 9», not «regulations.md §4 E9»."""
    return source_text(value or "", current_lang.get())


def status(value: str | None, gender: str | None = None) -> str:
    """A player's or team's status in words (§4 E7, E9: disqualified, removed), agreeing with
    the person's gender where it is known (`m`, `f`: «дисквалифицирован», «дисквалифицирована»);
    otherwise, and for a team, in a form without one («дисквалификация»)."""
    names = {"active": gettext("active"), "disqualified": gettext("disqualified"),
             "suspended": gettext("suspended"), "removed": gettext("removed")}
    if gender == "m":
        names.update(disqualified=pgettext("m", "disqualified"),
                     removed=pgettext("m", "removed"))
    elif gender == "f":
        names.update(disqualified=pgettext("f", "disqualified"),
                     removed=pgettext("f", "removed"))
    return names.get(value or "", value or "")
