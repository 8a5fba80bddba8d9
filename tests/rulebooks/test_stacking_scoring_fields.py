"""The rulebook fields of stacking and scoring that say where a loss lands and how the table
is ordered: each refused where it cannot work, with the key path."""

from __future__ import annotations

from pathlib import Path

import pytest
from rulebook_testkit import TINY, refusal, write

from sudya.app.scenario import replay
from sudya.domain.rulebook import loader

# a tiny rulebook whose warning carries over when given between matches, with stacking
CARRYING = TINY.replace(
    '  - {id: warning, rank: 2, name: {ru: "Предупреждение", en: "Warning"}}\n',
    '  - id: warning\n    rank: 2\n    name: {ru: "Предупреждение", en: "Warning"}\n'
    '    carry_over:\n      - detail: between_matches\n        applies_to: next-match\n'
    '        note: {ru: "Между матчами", en: "Between matches", source: "tiny §3"}\n'
).replace("repeats: {mode: escalate}\n",
          "repeats: {mode: escalate}\n"
          "stacking: {count: 2, given_with: [between_matches]}\n"
          "common_details:\n"
          "  between_matches: {type: bool, default: false}\n"
          "  minutes: {type: int, default: 0}\n")


def test_stacking_given_with_carries_the_upgrade(tmp_path: Path) -> None:
    path = write(tmp_path, CARRYING.replace(
        "  - id: digging\n",
        "  - id: shouting\n    name: {ru: \"Крик\", en: \"Shouting\"}\n"
        "    source: \"tiny §4\"\n    penalty: caution\n  - id: digging\n"))
    out = replay({"rulebook": str(path), "level": "low", "date": "2026-03-01",
                  "players": ["a"], "events": [
                      {"id": "n1", "infraction": "noise", "player": "a", "round": 1},
                      {"id": "s1", "infraction": "shouting", "player": "a", "round": 1},
                      {"id": "m1", "end-of-match": {"round": 1}}]})
    made = out["rulings"][-1]
    assert (made["cause"], [s["kind"] for s in made["sanctions"]]) == ("stacking", ["warning"])
    assert made["applies_to"] == {"warning": "next-match"}
    assert [r["code"] for r in made["reasons"]] == ["stacking.made"]


@pytest.mark.parametrize("detail", ["later", "minutes"])
def test_stacking_given_with_needs_a_declared_bool_detail(tmp_path: Path, detail: str) -> None:
    text = CARRYING.replace("given_with: [between_matches]", f"given_with: [{detail}]")
    message = refusal(write(tmp_path, text))
    assert f"stacking.given_with: {detail!r} is not a declared common detail of type bool" \
        in message


def with_scoring(scoring: str) -> str:
    return TINY.replace("repeats: {mode: escalate}\n",
                        f"repeats: {{mode: escalate}}\nscoring: {scoring}\n")


def test_a_scoring_order_and_unplaced_statuses_load(tmp_path: Path) -> None:
    book = loader.load_file(write(tmp_path, with_scoring(
        "{kind: points, scale: 20, order: [total, game_points], unplaced: [disqualified]}")))
    assert book.scoring is not None
    assert (book.scoring.order, book.scoring.unplaced) == (["total", "game_points"],
                                                           ["disqualified"])


@pytest.mark.parametrize(("scoring", "says"), [
    ("{kind: match-points, order: [total]}", "order needs kind: points"),
    ("{kind: points, order: []}", "order names at least one key"),
    ("{kind: points, order: [wins]}", "scoring.order"),
    ("{kind: points, unplaced: [gone]}", "scoring.unplaced"),
])
def test_a_scoring_order_or_unplaced_status_that_cannot_work_is_refused(
        tmp_path: Path, scoring: str, says: str) -> None:
    assert says in refusal(write(tmp_path, with_scoring(scoring)))
