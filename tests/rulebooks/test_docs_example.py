"""The custom rulebook example of docs/rulebooks.*.md loads and replays as documented."""

from __future__ import annotations

from pathlib import Path

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay
from sudya.domain.rulebook.lint import lint

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def test_club_example_replays() -> None:
    result = replay(load_scenario_file(EXAMPLES / "club-scenario.yaml"))
    got = [(r["event"], r["subject"], r["cause"], [s["kind"] for s in r["sanctions"]])
           for r in result["rulings"]]
    assert got == [
        ("e1", "ivan", "table", ["remark"]),
        ("e2", "ivan", "repeat", ["warning"]),
        ("e3", "maria", "none", []),
        ("e4", "maria", "discretion", ["game-loss", "warning"]),
    ]
    assert result["rulebook"]["id"] == "club-rules"


def test_club_example_lints_clean() -> None:
    findings = lint(str(EXAMPLES / "club-rules.yaml"))
    assert [f for f in findings if f.severity == "error"] == []
