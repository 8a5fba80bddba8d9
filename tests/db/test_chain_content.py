"""The chain's canonical text is json.dumps's (sorted keys, no spaces, UTF-8 as is), however it
is made: rows hashed before orjson made the text must still verify, so the fast path must give
the same text for every value a row can hold, and fall back where orjson writes otherwise."""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import struct
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudya.adapters.db import chain

COLUMNS = chain._COLUMNS["ruling"]


def canonical(table: str, row: dict[str, Any], keys: dict[str, Any]) -> str:
    """The text as the chain first made it (json.dumps)."""
    data: dict[str, Any] = {c: row[c] for c in chain._COLUMNS[table]}
    data["~"] = dict(keys)
    return json.dumps([table, data], sort_keys=True, ensure_ascii=False,
                      separators=(",", ":"), default=chain._plain)


def a_row(value: Any) -> dict[str, Any]:
    row: dict[str, Any] = {c: None for c in COLUMNS}
    row["details"] = value
    row["created_at"] = dt.datetime(2026, 12, 2, 1, 2, 3, 4)
    return row


text = st.text(st.characters(exclude_categories=["Cs"]), max_size=12)
leaf = (st.none() | st.booleans() | st.integers(-2 ** 63, 2 ** 64 - 1)
        | st.floats(allow_nan=False, allow_infinity=False) | text
        | st.dates() | st.datetimes(timezones=st.none() | st.just(dt.UTC)))
values = st.recursive(leaf, lambda inner: st.lists(inner, max_size=4)
                      | st.dictionaries(text, inner, max_size=4), max_leaves=16)


@settings(max_examples=300, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_the_text_is_json_dumps_text_for_any_value(value: Any) -> None:
    row = a_row(value)
    assert chain.content("ruling", row, {"event": 3}) == canonical("ruling", row, {"event": 3})


def test_floats_orjson_writes_otherwise_are_written_as_json_dumps_writes_them() -> None:
    rng = random.Random(3)
    floats = [6.103515625e-05, 1e-4, 9.999e-5, 1e16, 1.5e300, -2.5e-10, 123456789012345.6,
              100.0, 0.1]
    while len(floats) < 5_000:
        f = struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]
        if math.isfinite(f):
            floats += [f, rng.random() * 10 ** rng.randint(-8, 20)]
    for f in floats:
        row = a_row({"x": f})
        assert chain.content("ruling", row, {}) == canonical("ruling", row, {}), f


def test_what_orjson_cannot_write_is_made_the_canonical_way() -> None:
    for value in [2 ** 70, {"1": [2 ** 64]}, -(2 ** 63) - 1]:
        row = a_row(value)
        assert chain.content("ruling", row, {}) == canonical("ruling", row, {})


def test_an_everyday_row_is_made_by_orjson(monkeypatch: Any) -> None:
    """The fast path is taken for what rows usually hold (hex request ids with digit-e in them,
    times, dates, plain numbers), not only for rows without any of it."""
    def not_called(*_a: Any, **_k: Any) -> str:
        raise AssertionError("made by json.dumps")

    row = a_row({"minutes": 12.5, "date": dt.date(2026, 3, 1), "n": [1, 2, 3]})
    row.update(request_id="e2a2d50485784865a1ee5fe6eb484d5d", judge="1e5", round=3)
    expected = canonical("ruling", row, {"event": 3})
    monkeypatch.setattr(chain.json, "dumps", not_called)
    assert chain.content("ruling", row, {"event": 3}) == expected
