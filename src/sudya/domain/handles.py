"""People's and teams' handles: one spelling each, and none that looks like another.

A handle is what judges type and pick at a table, and what every record names: `ivаn` with
a Cyrillic «а» beside `ivan` would send a ruling to the wrong player, and every page would
show the two the same. So a handle is normalised (Unicode NFKC, lower case), holds only
letters, digits and `-`, `_`, `.` (no spaces or commas: lists and CSV files separate by
them), letters of one script only, and is refused when its skeleton — each character
replaced by one chosen representative of the characters that look like it (Unicode TR39
confusables, from the confusable-homoglyphs data) — is that of another handle.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from pathlib import Path

import confusable_homoglyphs
from confusable_homoglyphs import confusables

ALLOWED_MARKS = "-_."


def normal(handle: str) -> str:
    """The one spelling of a handle: NFKC, lower case, no surrounding spaces."""
    return unicodedata.normalize("NFKC", handle).strip().lower()


def problem(handle: str) -> str | None:
    """What is wrong with a (normalised) handle, as a message code; None: nothing."""
    if not handle:
        return "value.required"
    if any(not (ch.isalnum() or ch in ALLOWED_MARKS) for ch in handle):
        return "handle.characters"
    if confusables.is_mixed_script(handle):
        return "handle.mixed-scripts"
    return None


@functools.cache
def _table() -> dict[str, str]:
    """Each confusable character -> the representative of its class (the smallest)."""
    path = Path(confusable_homoglyphs.__file__).parent / "confusables.json"
    data: dict[str, list[dict[str, str]]] = json.loads(path.read_text(encoding="utf-8"))
    return {ch: min([ch, *(h["c"] for h in found if len(h["c"]) == 1)])
            for ch, found in data.items()}


def skeleton(handle: str) -> str:
    """What a handle looks like: equal skeletons are handles people cannot tell apart."""
    table = _table()
    return "".join(table.get(ch, ch) for ch in normal(handle))
