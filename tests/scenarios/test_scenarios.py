"""Every scenario file runs through the real engine and must give its expected result.

A case is `NAME.yaml` with either `NAME.expected.json` (the replay result, compared on the
fields the contract names) or `NAME.error.txt` (the scenario is refused; the one-line message
must contain each line of the file).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sudya.errors import ScenarioError
from sudya.scenario import load_scenario_file, replay

HERE = Path(__file__).parent
SHARED = HERE.parents[1].parent / "shared" / "scenarios"
CASES = sorted(HERE.glob("*/*.yaml")) + sorted(SHARED.glob("*.yaml"))


def normalise_sanction(s: dict[str, Any]) -> dict[str, Any]:
    out = {"kind": s["kind"]}
    for key in ("amount", "score", "subject", "valid_until"):
        if key in s:
            out[key] = s[key]
    if s.get("attached"):
        out["attached"] = True
    return out


def normalise(result: dict[str, Any], expected: dict[str, Any]) -> dict[str, Any]:
    """The compared fields of a result, shaped like the expected file."""
    rulings = []
    for r in result["rulings"]:
        item = {k: r[k] for k in ("event", "subject", "infraction", "cause")}
        item["sanctions"] = [normalise_sanction(s) for s in r["sanctions"]]
        rulings.append(item)
    out: dict[str, Any] = {"rulings": rulings, "subjects": result["subjects"]}
    extra_keys = [k for k in ("pending", "revokes", "resolves", "resolved_by")
                  if any(k in r for r in expected["rulings"])]
    for item, r in zip(rulings, result["rulings"], strict=False):
        for k in extra_keys:
            item[k] = r.get(k, False if k == "pending" else None)
    if "standings" in expected:
        out["standings"] = result.get("standings")
    return out


def expected_shape(expected: dict[str, Any]) -> dict[str, Any]:
    extra_keys = [k for k in ("pending", "revokes", "resolves", "resolved_by")
                  if any(k in r for r in expected["rulings"])]
    rulings = []
    for r in expected["rulings"]:
        item = {k: r.get(k) for k in ("event", "subject", "infraction", "cause")}
        item["sanctions"] = [normalise_sanction(s) for s in r["sanctions"]]
        for k in extra_keys:
            item[k] = r.get(k, False if k == "pending" else None)
        rulings.append(item)
    out: dict[str, Any] = {"rulings": rulings, "subjects": expected["subjects"]}
    if "standings" in expected:
        out["standings"] = expected["standings"]
    return out


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario(path: Path) -> None:
    error_file = path.with_suffix(".error.txt")
    expected_file = path.with_name(path.stem + ".expected.json")
    if error_file.exists():
        with pytest.raises(ScenarioError) as info:
            replay(load_scenario_file(path))
        message = str(info.value)
        assert "\n" not in message
        for needle in error_file.read_text(encoding="utf-8").splitlines():
            if needle.strip():
                assert needle.strip() in message
        return
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    result = replay(load_scenario_file(path))
    assert normalise(result, expected) == expected_shape(expected)
    if "rulebook" in expected:
        assert result["rulebook"]["id"] == expected["rulebook"]["id"]
