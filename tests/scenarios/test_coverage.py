"""Every rule of every bundled rulebook is exercised by at least one scenario case."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from sudya.adapters.scenario_file import load_scenario_file
from sudya.domain.errors import ScenarioError
from sudya.domain.rulebook import loader

HERE = Path(__file__).parent


@functools.cache
def used_infractions() -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    for path in sorted(HERE.glob("*/*.yaml")):
        try:
            scenario = load_scenario_file(path)
        except ScenarioError:
            continue  # the malformed-YAML cases
        for event in scenario.get("events") or []:
            if isinstance(event, dict) and isinstance(event.get("infraction"), str):
                used.setdefault(str(scenario.get("rulebook")), set()).add(event["infraction"])
    return used


@pytest.mark.parametrize("rulebook", loader.bundled_ids())
def test_every_infraction_has_a_scenario(rulebook: str) -> None:
    book = loader.load(rulebook)
    missing = [i.id for i in book.infractions if i.id not in used_infractions().get(rulebook,
                                                                                     set())]
    assert missing == []


@pytest.mark.parametrize("rulebook", loader.bundled_ids())
def test_each_rulebook_has_its_own_folder_of_cases(rulebook: str) -> None:
    assert len(list((HERE / rulebook).glob("*.yaml"))) >= 25
