"""Every scenario in the repository, recorded through the service layer and read back from
the database, equals its replay (issue: the ledger must not drift from the engine)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.ledger import Ledger
from sudya.app.scenario import replay
from sudya.app.scenario_import import import_scenario, imported_json
from sudya.domain.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
FILES = sorted((ROOT / "tests" / "scenarios").glob("*/*.yaml")) + sorted(
    (ROOT.parent / "shared" / "scenarios").glob("*.yaml"))
GOOD = [f for f in FILES if not f.with_suffix(".error.txt").exists()]
BAD = [f for f in FILES if f.with_suffix(".error.txt").exists()]


def test_there_are_scenarios_to_check() -> None:
    assert len(GOOD) > 100 and len(BAD) > 40


def test_every_scenario_reads_back_as_replayed(ledger: Ledger, fresh_ledger: Any) -> None:
    """One ledger for them all, but a scenario that suspends someone gets one of its own: a
    suspension's term keeps its player out of the later tournaments of every series of the
    ledger under the rulebook (regulations.md §4 E13), and the scenarios share handles."""
    mismatches = []
    for path in GOOD:
        try:
            expected = replay(load_scenario_file(path))
        except ScenarioError as refused:  # a case of what the program does not do yet
            with pytest.raises(ScenarioError) as info:
                import_scenario(ledger, load_scenario_file(path), name=str(path))
            if str(info.value) != str(refused):
                mismatches.append(path.name)
            continue
        suspends = any(v["status"] == "suspended" or "suspension" in v["sanctions"]
                       for v in expected["subjects"].values())
        into = fresh_ledger() if suspends else ledger
        series = import_scenario(into, load_scenario_file(path), name=str(path))
        if imported_json(into, series) != expected:
            mismatches.append(path.name)
    assert mismatches == []


@pytest.mark.parametrize("path", BAD[:12], ids=lambda p: p.stem)
def test_wrong_scenarios_write_nothing(ledger: Ledger, path: Path) -> None:
    from sqlalchemy import func, select

    from sudya.adapters.db import models as m

    with pytest.raises(ScenarioError):
        import_scenario(ledger, load_scenario_file(path), name=str(path))
    with ledger.factory() as s:
        assert s.scalar(select(func.count()).select_from(m.Series)) == 0
        assert s.scalar(select(func.count()).select_from(m.Event)) == 0


def test_a_second_result_for_a_match_is_replayed_but_not_imported(ledger: Ledger) -> None:
    """The scenario contract counts every result a scenario gives (shared/spec/scenarios.md
    lists what is wrong, and a second result is not); the ledger takes a pair's result of a
    round once, so importing such a scenario is refused before anything is written, naming
    the event, as entering that result would be."""
    from sqlalchemy import func, select

    from sudya.adapters.db import models as m

    scenario = {"rulebook": "berserk", "level": "amateur", "date": "2026-03-01",
                "players": ["ada", "bob"], "events": [
                    {"id": "r1", "result": {"round": 1, "players": ["ada", "bob"],
                                            "score": "2-1"}},
                    {"id": "r2", "result": {"round": 1, "players": ["bob", "ada"],
                                            "score": "1-2"}}]}
    assert replay(scenario)["rulings"] == []  # replayed as given
    with pytest.raises(ScenarioError) as refused:
        import_scenario(ledger, scenario, name="twice")
    assert refused.value.code == "result.entered" and refused.value.field == "players"
    assert str(refused.value).startswith("event r2 (#2): players: the result of ada — bob in "
                                         "round 1 is already entered (r1, score 2-1)")
    with ledger.factory() as s:
        assert s.scalar(select(func.count()).select_from(m.Series)) == 0
