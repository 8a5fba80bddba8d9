"""Every scenario file runs through the real engine and must give its expected result.

A case is `NAME.yaml` with either `NAME.expected.json` (the replay result) or `NAME.error.txt`
(the scenario is refused: a line `code: X` pins the error's code, `field: Y` its field, and
every other line must be contained in the one-line message).

What an expected file is compared on (shared/spec/scenarios.md, "Output"):
- the rulings, in order and as many: `event`, `subject`, `infraction`, `cause` and the
  `sanctions` (each: `kind`, `amount`, `score`, `subject`, `valid_until`, `attached`) always;
  `pending`, `offered`, `aggravated`, `applies_to`, `revokes`, `resolves`, `resolved_by`,
  `round` and `edition` whenever the expected ruling states the key (a key the output leaves
  out counts as its default: `false` for `pending` and `aggravated`, `null` for the others);
- `reasons` when stated: the codes of the ruling's reasons in order (the text may change, the
  code may not), leaving out `rule.source` and `rule.interpretation`, which every ruling of an
  infraction carries from its rulebook;
- the same subjects, each on the keys its expected entry states;
- `standings` when stated (with the order of each table), and `rulebook.id` (and
  `rulebook.edition` when stated).

A case listed in DISAGREES_WITH_REGULATIONS states what regulations.md says where the program
does not (yet): it is a strict xfail, so it turns red the day the program agrees.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sudya.app.rulebook_cases import differences  # the comparison `sudya rulebook test` makes too
from sudya.app.scenario import replay
from sudya.domain.errors import ScenarioError

try:  # the file reader is moving to its own module
    from sudya.adapters.scenario_file import load_scenario_file
except ImportError:
    from sudya.app.scenario import load_scenario_file  # type: ignore[attr-defined,no-redef]

HERE = Path(__file__).parent
SHARED = HERE.parents[1].parent / "shared" / "scenarios"
OWN_CASES = sorted(HERE.glob("*/*.yaml"))
SHARED_CASES = sorted(SHARED.glob("*.yaml"))
CASES = OWN_CASES + SHARED_CASES

# Cases where the program disagrees with regulations.md. The expectation states what the
# regulation says; the case is expected to fail until the engine or the rulebook is fixed
# (strict: it turns red the day they agree, so this entry can be removed).
DISAGREES_WITH_REGULATIONS: dict[str, str] = {}


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def case_id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def run_case(path: Path) -> None:
    error_file = path.with_suffix(".error.txt")
    expected_file = path.with_name(path.stem + ".expected.json")
    if error_file.exists():
        with pytest.raises(ScenarioError) as info:
            replay(load_scenario_file(path))
        message = str(info.value)
        assert "\n" not in message
        pinned = {"code": info.value.code, "field": info.value.field}
        for needle in error_file.read_text(encoding="utf-8").splitlines():
            key, sep, value = needle.partition(": ")
            if sep and key in pinned:
                assert pinned[key] == value.strip(), (key, message)
            elif needle.strip():
                assert needle.strip() in message
        return
    assert expected_file.exists(), f"{path.name} has neither .expected.json nor .error.txt"
    expected = json.loads(expected_file.read_text(encoding="utf-8"))
    result = replay(load_scenario_file(path))
    found = differences(result, expected)
    assert not found, f"{case_id(path)} differs from {expected_file.name}:\n  " + \
        "\n  ".join(found)


def params() -> list[Any]:
    out = []
    for path in CASES:
        reason = DISAGREES_WITH_REGULATIONS.get(case_id(path))
        marks = [pytest.mark.xfail(reason=reason, strict=True,
                                   raises=(AssertionError, ScenarioError))] if reason else []
        out.append(pytest.param(path, id=case_id(path), marks=marks))
    return out


@pytest.mark.parametrize("path", params())
def test_scenario(path: Path) -> None:
    run_case(path)


def test_known_disagreements_name_real_cases() -> None:
    assert sorted(set(DISAGREES_WITH_REGULATIONS) - {case_id(p) for p in OWN_CASES}) == []


def test_public_worked_examples_are_present() -> None:
    """The public examples in shared/scenarios run with the cases; missing, they were not run."""
    if SHARED_CASES:
        return
    message = (f"the public worked examples were NOT run: {SHARED} is missing or has no "
               "*.yaml (they live beside the project, in shared/scenarios)")
    if in_ci():
        pytest.fail(message + " — under CI they are required")
    pytest.skip(message)
