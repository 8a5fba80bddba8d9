"""A rulebook with several accumulation rules: each team ruling is judged by its own rule.

003 «Дисквалификация с турнира/чемпионата команды» п.1 gives one rule; a rulebook may give
more (tests/rulebooks/data/two-accumulations.yaml: two fouls → team warning, three → team
DQ). When a ruling a team ruling counted is revoked, the team ruling stands only while the
rule that made it is still met — not the rulebook's first rule.
"""

from __future__ import annotations

from pathlib import Path

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay

DATA = Path(__file__).parent / "data"


def test_revoking_a_ruling_undoes_the_team_dq_of_the_rule_that_needs_it() -> None:
    result = replay(load_scenario_file(DATA / "two-accumulations-revoked.yaml"))
    got = [(r["event"], r["subject"], r["cause"], [s["kind"] for s in r["sanctions"]],
            r.get("revokes")) for r in result["rulings"]]
    assert got == [
        ("f1", "a", "table", ["foul"], None),
        ("f2", "b", "table", ["foul"], None),
        ("f2", "north", "accumulation", ["team-warning"], None),
        ("f3", "c", "table", ["foul"], None),
        ("f3", "north", "accumulation", ["team-dq"], None),
        ("ap", "c", "appeal", [], "f3"),
        # two fouls are left: enough for the team warning's rule, not for the team DQ's
        ("ap", "north", "accumulation", [], "f3"),
    ]
    north = result["subjects"]["north"]
    assert north["status"] == "active"
    assert north["sanctions"] == {"team-warning": 1}
