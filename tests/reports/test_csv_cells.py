"""Issue 35: a cell of a CSV export that a spreadsheet would run as a formula (a name starting
with =, +, -, @, a tab or a carriage return) is written as text; numbers stay numbers."""

from __future__ import annotations

import csv
import io

import pytest

from sudya.domain.cells import safe, safe_row


@pytest.mark.parametrize("name", ["=HYPERLINK(\"http://x\")", "+7", "-1+2", "@SUM(A1)",
                                  "\t=1", "\r=1"])
def test_a_formula_is_written_as_text(name: str) -> None:
    buf = io.StringIO()
    csv.writer(buf).writerow(safe_row(["e1", name, 5, -5]))
    cells = next(csv.reader(io.StringIO(buf.getvalue())))
    assert cells[1] == "'" + name
    assert cells[2:] == ["5", "-5"]  # numbers are not text: as they were


def test_plain_text_is_left_alone() -> None:
    assert safe("Иван Петров") == "Иван Петров"
    assert safe(-5) == -5
