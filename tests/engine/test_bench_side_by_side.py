"""bench/replay.py's replays side by side make the rulings the same replays make one after the
other: each engine takes its own next events in turn (the first N one chunk for every three
of the others'), whatever the others do between them.

A figure of the benchmark is a ratio of two replays; if interleaving them fed either the
wrong events, the ratio would compare other work (a first version gave the full history the
first N's chunks: clan-championship's 300,000 events made 175,782 rulings instead of
240,597). Small seasons, no timing asserted.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "bench"))

from replay import CHUNK, SEASONS, admissible, side_by_side  # noqa: E402

from sudya.domain.engine.core import RulesEngine  # noqa: E402
from sudya.domain.engine.model import Event  # noqa: E402
from sudya.domain.errors import RuleError  # noqa: E402


def one_after_the_other(book_id: str, events: list[Event], window: int | None) -> int:
    """The rulings of a replay of `events` alone (a new engine every `window` events)."""
    season = SEASONS[book_id](20261130)
    engine = RulesEngine(season.book, season.roster(), season.tournament())
    made = 0
    for i, ev in enumerate(events):
        if window and i % window == 0:
            made += len(engine.rulings)
            engine = RulesEngine(season.book, engine.roster, engine.t)
        try:
            engine.apply(ev)
        except RuleError:
            if window is None:
                raise
    return made + len(engine.rulings)


@pytest.mark.parametrize("book_id", sorted(SEASONS))
def test_side_by_side_replays_what_each_replays_alone(book_id: str) -> None:
    n = 2 * CHUNK + 500  # a last chunk cut short, as a season's may be
    season = SEASONS[book_id](20261130)
    events, _ = admissible(season, 3 * n)
    first, full, resets = side_by_side(season, events, n, (CHUNK, 2 * CHUNK, 10 * n))
    assert first.rulings == one_after_the_other(book_id, events[:n], None)
    assert full.rulings == one_after_the_other(book_id, events, None)
    for timed, window in zip(resets, (CHUNK, 2 * CHUNK, 10 * n), strict=True):
        assert timed.rulings == one_after_the_other(book_id, events, window), window
    # a window longer than the season is its full history
    assert resets[-1].rulings == full.rulings
    # every chunk of each replay was timed once: the first N's 3, the others' 8
    assert len(first.chunks) == -(-n // CHUNK)
    assert all(len(t.chunks) == -(-3 * n // CHUNK) for t in (full, *resets))
