"""A preview rules on the series' cached engine in a trial (issue 16): it copies nothing, leaves
the cached engine exactly as it was, and rules as a fresh replay of the stored events does,
also when other processes stored events the cached engine has not seen yet.
"""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from ledger_testkit import SLOW

from sudya.app import snapshots
from sudya.app.common import LedgerError
from sudya.app.ledger import Ledger
from sudya.domain.engine.model import Ruling


def _shape(rulings: list[Ruling]) -> list[tuple[object, ...]]:
    return [(r.event, r.subject, r.infraction, r.cause, r.seq,
             [(s.kind, s.attached, s.seq) for s in r.sanctions]) for r in rulings]


def _preview(ledger: Ledger, tid: int, player: str) -> list[tuple[object, ...]]:
    return _shape(ledger.preview(tournament=tid, infraction=SLOW, player=player, round=2))


def test_a_preview_leaves_the_cached_engine_as_it_was(
        ledger: Ledger, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    for player in ("alice", "bob", "alice", "carol"):
        ledger.record(tournament=tid, infraction=SLOW, player=player, round=1)
    cached = ledger.projection.states[sid]
    before = snapshots.dumps(cached)
    first = _preview(ledger, tid, "alice")
    assert ledger.projection.states[sid] is cached  # the same engine, not a copy
    assert snapshots.dumps(cached) == before
    assert _preview(ledger, tid, "alice") == first  # nothing of the first preview stayed
    assert [c for _, _, _, c, _, _ in first] == ["repeat"]
    # and recording it rules as the preview said
    assert _shape(ledger.record(tournament=tid, infraction=SLOW, player="alice",
                                round=2))[0][1:4] == first[0][1:4]


def test_a_preview_catches_up_with_what_other_processes_stored(
        db_engine: sa.Engine, ledger: Ledger, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="alice", round=1)
    assert _preview(ledger, tid, "bob")  # this process's engine, cached
    other = Ledger(db_engine)  # another process
    for player in ("bob", "alice", "carol"):
        other.record(tournament=tid, infraction=SLOW, player=player, round=1)
    behind = ledger.projection.states[sid].seq
    seen = _preview(ledger, tid, "alice")
    assert seen == _preview(Ledger(db_engine), tid, "alice")  # as a fresh replay
    assert ledger.projection.states[sid].seq > behind  # caught up with the stored events
    # the next record of this process rules as the other process would
    assert _shape(ledger.record(tournament=tid, infraction=SLOW, player="alice",
                                round=2))[0][1:4] == seen[0][1:4]


def test_a_refused_preview_leaves_the_cached_engine_as_it_was(
        ledger: Ledger, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="alice", round=1)
    cached = ledger.projection.states[sid]
    before = snapshots.dumps(cached)
    with pytest.raises(LedgerError):
        ledger.preview(tournament=tid, infraction="no-such-infraction", player="alice")
    assert ledger.projection.states[sid] is cached
    assert snapshots.dumps(cached) == before
