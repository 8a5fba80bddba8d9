"""Text for spreadsheets: a cell a spreadsheet would run as a formula is written as text.

A player's name or a judge's note that begins with `=`, `+`, `-`, `@`, a tab or a carriage
return is a formula to Excel and LibreOffice when a CSV export is opened (CSV injection,
OWASP): such a cell gets a leading apostrophe, which they show as text and never run.
Numbers are numbers, not text, and stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe(value: Any) -> Any:
    """A cell's value as written: text that would start a formula, made plain text."""
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def safe_row(values: Iterable[Any]) -> list[Any]:
    return [safe(v) for v in values]


def safe_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: safe(v) for k, v in row.items()}
