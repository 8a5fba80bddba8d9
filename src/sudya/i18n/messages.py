"""Message codes rendered to text: the catalogues (ru, en) and the rulebook's own wording.

Every reason an engine gives and every error a user sees is a code with parameters
(`Reason`, `SudyaError`). Its text comes from `locale/codes/{lang}.po` (and `AREA.{lang}.po`
beside it for one area of the program, such as the deck checks), a gettext catalogue
whose msgid is the code and whose msgstr is a `str.format` template. Parameters that are ids
of a rulebook (an infraction, a sanction kind, a role, a level) are shown by their name when
the rulebook is at hand; a parameter written `{"ru": …, "en": …}` is the rulebook's own text.
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from babel.messages.pofile import read_po

from sudya.domain import errors
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook.schema import Rulebook

if TYPE_CHECKING:
    from babel.support import Translations

LANGS = ("ru", "en")
CATALOGUES = Path(__file__).resolve().parent / "locale" / "codes"
CODE = re.compile(r"^[a-z][a-z0-9-]*(\.[a-z0-9-]+)+$")

# parameter name -> what kind of rulebook id it holds (a list holds several)
KINDS = {"kind": "kind", "from": "kind", "to": "kind", "kinds": "kind", "offered": "kind",
         "infraction": "infraction", "infractions": "infraction",
         "role": "role", "roles": "role", "level": "level", "levels": "level",
         "have_level": "level", "setting": "setting"}


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """code -> template, for one language (`{lang}.po` and each `AREA.{lang}.po`)."""
    out: dict[str, str] = {}
    for path in sorted(CATALOGUES.glob(f"*{lang}.po")):
        if path.name not in (f"{lang}.po",) and not path.name.endswith(f".{lang}.po"):
            continue
        with path.open("rb") as f:
            cat = read_po(f, locale=lang)
        out.update({str(msg.id): str(msg.string) for msg in cat if msg.id and msg.string})
    return out


PAGES = Path(__file__).resolve().parent / "locale"  # the pages' catalogue: `{lang}.po`


@functools.cache
def page_catalogue(lang: str) -> Translations:
    """The catalogue of the pages, the reports and the CLI's tables (English msgids, the
    Russian texts in `locale/ru.po`), compiled in memory; English: the msgids themselves.
    (Babel's compiler is imported here: most CLI commands never need it.)"""
    from babel.messages.mofile import write_mo
    from babel.support import Translations

    path = PAGES / f"{lang}.po"
    if not path.exists():
        return Translations()
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = io.BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(fp=buf)


def is_code(value: str) -> bool:
    return bool(CODE.match(value))


def _name(book: Rulebook | None, kind: str, value: Any, lang: str) -> str:
    if book is None or not isinstance(value, str):
        return str(value)
    if kind == "kind":
        try:
            return book.kind(value).name.get(lang)
        except KeyError:
            return value
    if kind == "infraction":
        if "@" in value:  # a derived penalty counted as a reason of its own: cause@event
            cause, _, event = value.partition("@")
            return f"{catalogue(lang).get(f'cause.{cause}', cause)} ({event})"
        inf = book.infraction(value)
        return inf.name.get(lang) if inf is not None else value
    if kind == "role":
        role = book.roles.get(value)
        return role.name.get(lang) if role is not None else value
    if kind == "level":
        return next((lv.name.get(lang) for lv in book.levels if lv.id == value), value)
    if kind == "setting":
        setting = book.settings.get(value)
        return setting.name.get(lang) if setting is not None else value
    return value


# parameters whose values are words of the catalogue itself: a value type, a cause
WORDS = {"type": "type", "cause": "cause", "table": "record", "column": "column"}


def _param(name: str, value: Any, lang: str, book: Rulebook | None) -> Any:
    if isinstance(value, Mapping) and "ru" in value:
        return str(value.get(lang) or value.get("ru") or "")
    if lang != "en" and (value is None or isinstance(value, bool)):
        # a yes/no value in words (English templates show Python's True/False/None as is)
        return catalogue(lang).get(f"value.{str(value).lower()}", str(value))
    if name in WORDS and isinstance(value, str):
        return catalogue(lang).get(f"{WORDS[name]}.{value}", value)
    kind = KINDS.get(name)
    if isinstance(value, list | tuple):
        return ", ".join(str(_name(book, kind, v, lang)) if kind else str(v) for v in value)
    if kind is not None and book is not None:
        return _name(book, kind, value, lang)
    return value


def render(code: str, params: Mapping[str, Any] | None = None, lang: str = "en",
           book: Rulebook | None = None) -> str:
    """The text of a code in a language (English when the language lacks it)."""
    lang = lang if lang in LANGS else "en"
    template = catalogue(lang).get(code) or catalogue("en").get(code)
    if template is None:
        if is_code(code):
            raise KeyError(f"message code {code!r} is in no catalogue")
        return code  # a literal message not yet turned into a code
    values = {k: _param(k, v, lang, book) for k, v in (params or {}).items()}
    return template.format(**values)


# documents cited by their file name: how each is called in words
DOCUMENTS = {"regulations.md": "document.regulations"}


# an erratum of regulations.md §4 («§4 E3»), named in words
ERRATUM = re.compile(r"§4 E(\d+)")


def source_text(source: str, lang: str = "en") -> str:
    """A citation («002 §1.1», «regulations.md §2.3», «regulations.md §4 E3») with its
    documents and errata named in words."""
    for name, code in DOCUMENTS.items():
        if name in source:
            source = source.replace(name, render(code, None, lang))
    return ERRATUM.sub(lambda m: render("document.erratum", {"n": int(m.group(1))}, lang),
                       source)


def _render_error(code: str, params: Mapping[str, Any], lang: str, book: Any) -> str:
    return render(code, params, lang, book)


errors.use_renderer(_render_error)  # an error's text comes from these catalogues


class Coded(Protocol):
    """A reason as the engine gives it (`sudya.domain.engine.model.Reason`): a code, its
    parameters and its source. (A protocol: the texts know nothing of the engine.)"""

    @property
    def code(self) -> str: ...
    @property
    def params(self) -> Mapping[str, Any]: ...
    @property
    def source(self) -> str: ...


def reason_text(reason: Coded, lang: str = "en", book: Rulebook | None = None) -> str:
    """A reason in words: the catalogue's text, and its source where it names one."""
    text = render(reason.code, reason.params, lang, book)
    if reason.code == "rule.source":
        return source_text(text, lang)
    if reason.source:
        return f"{text} ({source_text(reason.source, lang)})"
    return text


def error_text(error: SudyaError, lang: str = "en", book: Rulebook | None = None) -> str:
    """An error's whole line in a language."""
    return error.render(lang, book)
