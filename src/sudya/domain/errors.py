"""One error hierarchy with stable codes; the edges turn it into exit codes or HTTP statuses.

An error is data: a code (a key of the message catalogues), the field it is about and the
parameters of its message. `str(error)` renders it in English from the catalogue; the edges
render it in the reader's language (`sudya.i18n.messages.render_error`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

Renderer = Callable[[str, Mapping[str, Any], str, Any], str]
_render: Renderer | None = None


def use_renderer(render: Renderer) -> None:
    """The message catalogues (sudya.i18n.messages) render errors once they are loaded."""
    global _render
    _render = render


def one_line(text: str) -> str:
    """Ids and values from the input may hold line breaks: a message is always one line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


class SudyaError(Exception):
    """A problem the user can fix: a stable code, the field it names and its parameters."""

    code = "error"

    def __init__(self, code: str | None = None, *, field: str = "", where: str = "",
                 **params: Any) -> None:
        super().__init__(code)
        if code is not None:
            self.code = code
        self.field = field
        self.where = where  # what the field belongs to: a file, an event of a scenario
        self.params = params

    def text(self, lang: str = "en", book: Any = None) -> str:
        """The message alone (without where and field), in a language."""
        if _render is None:  # no catalogue loaded (the engine alone): the code says it
            return one_line(f"{self.code} {self.params}" if self.params else self.code)
        return one_line(_render(self.code, self.params, lang, book))

    def where_text(self, lang: str = "en") -> str:
        return self.where

    def render(self, lang: str = "en", book: Any = None) -> str:
        """`where: field: message`, one line."""
        parts = [p for p in (self.where_text(lang), self.field) if p]
        return one_line(": ".join([*parts, self.text(lang, book)]))

    @property
    def message(self) -> str:
        return self.render()

    def __str__(self) -> str:
        return self.render()


class RulebookError(SudyaError):
    """A rulebook file that cannot be loaded (names the file, line and key path)."""

    code = "rulebook"


class ScenarioError(SudyaError):
    """A scenario that is wrong: names the event (its id and 1-based position) and the field."""

    code = "scenario"

    def __init__(self, code: str | None = None, *, field: str = "", where: str = "",
                 at: tuple[str | None, int] | None = None, **params: Any) -> None:
        super().__init__(code, field=field, where=where, **params)
        self.at = at  # the event: its id (None when it has none) and 1-based position

    def where_text(self, lang: str = "en") -> str:
        if self.at is None:
            return self.where
        event, position = self.at
        if _render is None:
            return f"event {event} (#{position})" if event else f"event #{position}"
        if event is None:
            return _render("where.position", {"position": position}, lang, None)
        return _render("where.event", {"event": event, "position": position}, lang, None)


class RuleError(SudyaError):
    """An event the rules refuse (not applicable, role may not, choice out of range...)."""

    code = "rule"


# Cyrillic letters that look like Latin ones (а, е, о, р, с, у, х, …): an id typed on a
# Russian keyboard layout, or pasted from a Russian text, looks right and is not
_LOOKALIKE = str.maketrans("аеорсухкмтвнАЕОРСУХКМТВН", "aeopcyxkmtbhAEOPCYXKMTBH")


def unknown_id(known: Iterable[str], given: str) -> tuple[str, dict[str, str]]:
    """The hint for an id that is none of `known`: the Cyrillic letters typed in a Latin id
    (and the id meant, when that is one), or the nearest known id («did you mean»), or none
    (an empty code)."""
    import difflib  # (pure: no I/O; imported when an id is refused)

    ids = list(known)
    cyrillic = sorted({ch for ch in given if "\u0400" <= ch <= "\u04ff"})
    if cyrillic and any(ch.isascii() and ch.isalpha() for ch in given):
        meant = given.translate(_LOOKALIKE)
        return "id.mixed-script", {"letters": " ".join(cyrillic),
                                   "suggestion": meant if meant in ids else ""}
    close = difflib.get_close_matches(given, ids, n=1, cutoff=0.75)
    return ("id.did-you-mean", {"suggestion": close[0]}) if close else ("", {})


def unknown_infraction(known: Iterable[str], given: str, rulebook: str
                       ) -> tuple[str, dict[str, str]]:
    """The message code and parameters refusing an infraction id a rulebook has not:
    `infraction.unknown-in`, or with a hint (`unknown_id`) `…-mixed`, `…-did-you-mean`."""
    hint, params = unknown_id(known, given)
    suffix = {"id.mixed-script": "-mixed", "id.did-you-mean": "-did-you-mean"}.get(hint, "")
    return "infraction.unknown-in" + suffix, {"infraction": given, "rulebook": rulebook,
                                              **params}
