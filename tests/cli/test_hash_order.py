"""A replay gives the same rulings in the same order in every process.

Python orders a set of strings by their hashes, which differ from one process to the next
(PYTHONHASHSEED). A ruling's place in the series is its position in the ledger: a ledger
replayed after a restart, `sudya audit verify` and a scenario's expected output all compare
rulings in order, so no set's order may reach the order of the rulings. Here the end of a
match finds three of a kind for eight teams at once (each team the offender of three
infractions of one strength): the stacking rulings once came in the order of a set of their
names, a different order at each seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_kit import run_process

TEAMS = {f"team-{c}": [f"{c}1", f"{c}2"] for c in "abcdefgh"}
# three infractions a caution each at this level: three of a kind by different causes
CAUTIONS = ("procedure.minor", "cards.drawing-extra", "cards.looking-at-extra")


def _scenario(path: Path) -> Path:
    events: list[dict[str, object]] = [
        {"id": f"{team}-{i}", "infraction": infraction, "team": team, "round": 1}
        for team in TEAMS for i, infraction in enumerate(CAUTIONS)]
    events.append({"id": "end", "end-of-match": {"round": 1}})
    path.write_text(json.dumps({
        "rulebook": "berserk", "date": "2026-03-01", "level": "professional",
        "players": [m for members in TEAMS.values() for m in members], "teams": TEAMS,
        "events": events}), encoding="utf-8")
    return path


@pytest.mark.slow
def test_stacking_rulings_come_in_one_order_whatever_the_hash_seed(tmp_path: Path) -> None:
    """A real process per seed: the seed is the interpreter's, fixed when it starts."""
    scenario = _scenario(tmp_path / "teams.json")
    outputs = set()
    for seed in ("1", "2", "3", "4", "5"):
        run = run_process(tmp_path, "replay", scenario, extra={"PYTHONHASHSEED": seed})
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
        stacked = [r["subject"] for r in json.loads(run.stdout)["rulings"]
                   if r["cause"] == "stacking"]
        # teams have no place in the players' order: they come after the players, by name
        assert stacked == sorted(TEAMS)
    assert len(outputs) == 1
