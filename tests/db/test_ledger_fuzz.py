"""Random well-formed scenarios, recorded through the ledger and read back, equal their replay."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings

from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import make_engine
from sudya.app.ledger import Ledger
from sudya.app.scenario import replay
from sudya.app.scenario_import import import_scenario, imported_json
from sudya.domain.errors import ScenarioError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "engine"))
from test_replay_fuzz import wellformed  # noqa: E402


def test_random_scenarios_read_back_as_replayed(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'fuzz.db'}")
    upgrade(engine)
    ledger = Ledger(engine)
    count = iter(range(10**6))
    imported: list[int] = []

    @settings(max_examples=40, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(wellformed())
    def check(sc: dict[str, Any]) -> None:
        try:
            expected = replay(sc)
        except ScenarioError:
            return
        try:
            series = import_scenario(ledger, sc, name=f"fuzz {next(count)}")
        except ScenarioError as exc:
            # the ledger takes a pair's result of a round once; the replay counts them all
            assert exc.code == "result.entered", exc
            assert any("result" in ev for ev in sc["events"])
            return
        imported.append(series)
        assert imported_json(ledger, series) == expected

    check()
    assert imported, "no random scenario got as far as the ledger"
    print(f"{len(imported)} random scenarios recorded and read back")
    engine.dispose()
