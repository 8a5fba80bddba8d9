"""The replay output's fast JSON of a ruling (views.ruling_json, views.offer_json: dicts made
directly, for a season's 100,000s of rulings) is the typed view's JSON (RulingView, Offer:
what the API and the pages give), key for key and in the same order, for every ruling of
every scenario case and the rulings the bundled rulebooks' own cases make — pending rulings'
offers among them. Either made alone could drift from the contract; this ties them."""

from __future__ import annotations

from pathlib import Path

import pytest

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import Replay
from sudya.app.views import RulingView, _offer, offer_json, ruling_json
from sudya.domain.errors import ScenarioError

HERE = Path(__file__).parent
SHARED = HERE.parents[1].parent / "shared" / "scenarios"
BUNDLED = HERE.parents[1] / "src" / "sudya" / "domain" / "rulebook" / "bundled" / "cases"
CASES = (sorted(HERE.glob("*/*.yaml")) + sorted(SHARED.glob("*.yaml"))
         + sorted(BUNDLED.rglob("*.yaml")))


def _rulings(path: Path) -> list[tuple[object, bool]]:
    try:
        prepared = Replay(load_scenario_file(path))
        engine, rulings = prepared.run()
    except ScenarioError:
        return []  # a case that is refused: no rulings to compare
    with_validity = engine.book.validity is not None
    return [(r, with_validity) for r in rulings]


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_fast_json_is_the_views_json(path: Path) -> None:
    for ruling, with_validity in _rulings(path):
        fast = ruling_json(ruling, with_validity)  # type: ignore[arg-type]
        typed = RulingView.of(ruling, with_validity).as_json()  # type: ignore[arg-type]
        assert list(fast.items()) == list(typed.items())
        for offered in ruling.offered or ():  # type: ignore[attr-defined]
            assert list(offer_json(offered, with_validity).items()) == \
                list(_offer(offered, with_validity).as_json().items())


def test_the_cases_hold_pending_rulings_with_offers() -> None:
    """Offers of each kind are among the cases compared (else the test above says little)."""
    kinds = {type(o).__name__ for path in CASES for r, _ in _rulings(path)
             for o in (r.offered or ())}  # type: ignore[attr-defined]
    assert {"Sanction", "ChoiceOption", "PointsOption"} <= kinds, kinds
