"""Property tests for the clan-championship rules (shared/spec/regulations.md §2.3).

(a) validity: two calendar months later, clamped to the month's last day;
(b) penal labour by formula, on recidivism (earlier attacks summed, across a tournament) and
    with the once-per-character halving (rounded up);
(c) a warning is valid through add_months(D, 2) inclusive, and a later violation is
    aggravated exactly while it is valid.
"""

from __future__ import annotations

import calendar
import datetime as dt
import math
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sudya.app.scenario import replay
from sudya.domain.engine.validity import add_months

DATES = st.dates(min_value=dt.date(1901, 1, 1), max_value=dt.date(9000, 12, 31))
SCENARIO_DATES = st.dates(min_value=dt.date(2000, 1, 1), max_value=dt.date(2099, 12, 31))


def _last_day(year: int, month: int) -> int:
    return calendar.monthrange(year, month)[1]


# ----------------------------------------------------------------------------- (a)
@settings(max_examples=60, deadline=None)
@given(DATES)
@example(dt.date(2026, 3, 1))
@example(dt.date(2026, 12, 31))
@example(dt.date(2026, 1, 31))
@example(dt.date(2027, 12, 31))
@example(dt.date(2026, 8, 31))
def test_add_months_two_calendar_months_clamped(day: dt.date) -> None:
    later = add_months(day, 2)
    months = (later.year - day.year) * 12 + (later.month - day.month)
    assert months == 2
    assert later.day == min(day.day, _last_day(later.year, later.month))
    assert later > day
    # clamped: only shorter when the target month has no such day
    if later.day < day.day:
        assert later.day == _last_day(later.year, later.month)


def test_add_months_known_values() -> None:
    assert add_months(dt.date(2026, 3, 1), 2) == dt.date(2026, 5, 1)
    assert add_months(dt.date(2026, 12, 31), 2) == dt.date(2027, 2, 28)
    assert add_months(dt.date(2026, 1, 31), 2) == dt.date(2026, 3, 31)
    assert add_months(dt.date(2027, 12, 31), 2) == dt.date(2028, 2, 29)


# ----------------------------------------------------------------------------- (b)
def _attack(eid: str, level: int, attacks: int, repented: bool = False) -> dict[str, Any]:
    details: dict[str, Any] = {"level": level, "attacks": attacks}
    if repented:
        details["repented"] = True
    return {"id": eid, "infraction": "attack.undeclared-on-participant", "player": "grom",
            "details": details}


def _amounts(result: dict[str, Any]) -> list[tuple[str, str, int, Any]]:
    out = []
    for r in result["rulings"]:
        for s in r["sanctions"]:
            if s["kind"] == "penal-labour":
                out.append((r["event"], r["cause"], s["amount"], s["valid_until"]))
    return out


@settings(max_examples=60, deadline=None)
@given(
    level1=st.integers(1, 300), attacks1=st.integers(1, 50),
    level2=st.integers(1, 300), attacks2=st.integers(1, 50),
    repented=st.booleans(), gap_days=st.integers(1, 900),
)
@example(level1=7, attacks1=3, level2=7, attacks2=1, repented=True, gap_days=31)
def test_penal_labour_formula_and_recidivism(level1: int, attacks1: int, level2: int,
                                             attacks2: int, repented: bool,
                                             gap_days: int) -> None:
    start = dt.date(2026, 3, 1)
    scenario = {
        "rulebook": "clan-championship",
        "date": start.isoformat(),
        "players": ["grom"],
        "teams": {"north": ["grom"]},
        "events": [
            _attack("a1", level1, attacks1, repented),
            {"id": "t2", "tournament": {"date": (start + dt.timedelta(days=gap_days)).isoformat()}},
            _attack("a2", level2, attacks2),
        ],
    }
    result = replay(scenario)
    first = level1 * attacks1
    if repented:
        first = math.ceil(first / 2)
    second = level2 * (attacks1 + attacks2)
    assert _amounts(result) == [
        ("a1", "table", first, None),
        ("a2", "repeat", second, None),
    ]
    grom = result["subjects"]["grom"]
    assert grom["ore"] == first + second
    assert grom["sanctions"]["penal-labour"] == 2
    # penal labour lands on the character, never on the team
    assert result["subjects"]["north"]["ore"] == 0


@settings(max_examples=40, deadline=None)
@given(level=st.integers(1, 300), attacks=st.integers(1, 50))
def test_penal_labour_single_attack(level: int, attacks: int) -> None:
    scenario = {
        "rulebook": "clan-championship",
        "date": "2026-03-01",
        "players": ["grom"],
        "events": [_attack("a1", level, attacks)],
    }
    assert _amounts(replay(scenario)) == [("a1", "table", level * attacks, None)]


@settings(max_examples=40, deadline=None)
@given(level=st.integers(1, 300), attacks1=st.integers(1, 50), attacks2=st.integers(1, 50))
def test_second_halving_is_ignored(level: int, attacks1: int, attacks2: int) -> None:
    scenario = {
        "rulebook": "clan-championship",
        "date": "2026-03-01",
        "players": ["grom"],
        "events": [
            _attack("a1", level, attacks1, repented=True),
            {"id": "t2", "tournament": {"date": "2026-06-01"}},
            _attack("a2", level, attacks2, repented=True),
        ],
    }
    assert _amounts(replay(scenario)) == [
        ("a1", "table", math.ceil(level * attacks1 / 2), None),
        ("a2", "repeat", level * (attacks1 + attacks2), None),
    ]


# ----------------------------------------------------------------------------- (c)
@settings(max_examples=60, deadline=None)
@given(day=SCENARIO_DATES, gap_days=st.integers(1, 130))
@example(day=dt.date(2026, 3, 1), gap_days=61)   # 2026-05-01: the last valid day
@example(day=dt.date(2026, 3, 1), gap_days=62)   # 2026-05-02: expired
@example(day=dt.date(2026, 12, 31), gap_days=59)  # 2027-02-28: the last valid day
@example(day=dt.date(2026, 12, 31), gap_days=60)  # 2027-03-01: expired
def test_warning_validity_and_aggravation(day: dt.date, gap_days: int) -> None:
    later = day + dt.timedelta(days=gap_days)
    scenario = {
        "rulebook": "clan-championship",
        "date": day.isoformat(),
        "players": ["veda"],
        "teams": {"north": ["veda"]},
        "events": [
            {"id": "w1", "infraction": "interference", "player": "veda"},
            {"id": "t2", "tournament": {"date": later.isoformat()}},
            {"id": "h1", "infraction": "hoops", "player": "veda"},
        ],
    }
    result = replay(scenario)
    w1, h1 = result["rulings"]
    valid_until = add_months(day, 2)
    assert w1["cause"] == "table"
    assert w1["sanctions"] == [{"kind": "warning", "valid_until": valid_until.isoformat()}]
    aggravated = later <= valid_until
    if aggravated:
        assert h1["cause"] == "aggravation"
        assert h1["pending"] is True
        assert h1["sanctions"] == []
    else:
        assert h1["cause"] == "table"
        assert h1["pending"] is False
        until = add_months(later, 2).isoformat()
        assert h1["sanctions"] == [
            {"kind": "fighter-dq", "valid_until": until},
            {"kind": "technical-defeat", "subject": "north", "valid_until": until},
        ]
