"""Engine snapshots (services.snapshots): a restarted server starts from the stored state of a
series and replays only the events since, and never trusts a snapshot it should not.

Every test restarts as a server does: a new Ledger over the same database, nothing in memory.
"""

from __future__ import annotations

import gc

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from ledger_testkit import SLOW
from sqlalchemy import select

from sudya.adapters.db import models as m
from sudya.app import snapshots
from sudya.app.common import SeriesRef
from sudya.app.demo import build_into
from sudya.app.ledger import Ledger
from sudya.app.settings import Settings
from sudya.domain.engine.model import Ruling
from sudya.edges.web.app import create_app

KEY = b"k" * 32


def _record_some(ledger: Ledger, tid: int) -> None:
    for player in ("alice", "bob", "alice", "carol", "alice", "bob"):
        ledger.record(tournament=tid, infraction=SLOW, player=player, round=1)


def _shape(rulings: list[Ruling]) -> list[tuple[object, ...]]:
    return [(r.subject, r.infraction, r.cause, [s.kind for s in r.sanctions]) for r in rulings]


def _preview(ledger: Ledger, tid: int, player: str = "alice") -> list[tuple[object, ...]]:
    return _shape(ledger.preview(tournament=tid, infraction=SLOW, player=player, round=2))


def _events(ledger: Ledger, series: int) -> int:
    with ledger.factory() as s:
        return s.scalar(select(sa.func.max(m.Event.seq)).where(
            m.Event.series_id == series)) or 0


def test_a_restart_starts_from_the_snapshot_and_rules_as_a_full_replay(
        db_engine: sa.Engine, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    first = Ledger(db_engine, snapshot_key=KEY)
    _record_some(first, tid)
    assert first.save_snapshots() == 1
    assert first.save_snapshots() == 0  # as new as the stored one: not stored again
    first.record(tournament=tid, infraction=SLOW, player="carol", round=1)  # after it

    restarted = Ledger(db_engine, snapshot_key=KEY)
    rebuilt = Ledger(db_engine)  # snapshots off: every event replayed
    assert _preview(restarted, tid) == _preview(rebuilt, tid)
    assert restarted.projection.last_replayed == 1  # the one event after the snapshot
    assert rebuilt.projection.last_replayed == _events(rebuilt, sid)
    # and it goes on ruling: alice's next slow play escalates as it would
    expected = _preview(rebuilt, tid)
    assert _shape(restarted.record(tournament=tid, infraction=SLOW, player="alice",
                                   round=2)) == expected


def test_a_snapshot_of_an_older_version_is_replaced_even_with_no_new_event(
        db_engine: sa.Engine, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    first = Ledger(db_engine, snapshot_key=KEY)
    _record_some(first, tid)
    first.save_snapshots()
    with db_engine.begin() as conn:
        conn.execute(sa.text("UPDATE engine_snapshot SET code = 'an older version'"))
    upgraded = Ledger(db_engine, snapshot_key=KEY)
    _preview(upgraded, tid)  # rebuilt from the events: the snapshot is another version's
    assert upgraded.projection.last_replayed == _events(upgraded, sid)
    assert upgraded.save_snapshots() == 1
    again = Ledger(db_engine, snapshot_key=KEY)
    _preview(again, tid)
    assert again.projection.last_replayed == 0


# a hex digest's first two characters replaced by others (a fixed 'ab' left one digest in
# 256, the one that began with it, as it was: the chain covers the rows' times, so it differs
# from run to run)
_OTHER = "CASE WHEN {0} LIKE 'ab%' THEN 'cd' ELSE 'ab' END || substr({0}, 3)"


@pytest.mark.parametrize("forgery", [
    f"UPDATE engine_snapshot SET digest = {_OTHER.format('digest')}",  # not its signature
    f"UPDATE engine_snapshot SET chain = {_OTHER.format('chain')}",  # the ledger changed
    "UPDATE engine_snapshot SET code = 'an older version of the engine'",
])
def test_a_snapshot_that_cannot_be_trusted_is_ignored(
        db_engine: sa.Engine, berserk: tuple[int, int], forgery: str) -> None:
    sid, tid = berserk
    first = Ledger(db_engine, snapshot_key=KEY)
    _record_some(first, tid)
    first.save_snapshots()
    with db_engine.begin() as conn:
        conn.execute(sa.text(forgery))
    restarted = Ledger(db_engine, snapshot_key=KEY)
    assert _preview(restarted, tid) == _preview(Ledger(db_engine), tid)
    assert restarted.projection.last_replayed == _events(restarted, sid)  # all of them


def test_a_snapshot_signed_with_another_key_is_never_unpickled(
        db_engine: sa.Engine, berserk: tuple[int, int], monkeypatch: pytest.MonkeyPatch
        ) -> None:
    sid, tid = berserk
    first = Ledger(db_engine, snapshot_key=KEY)
    _record_some(first, tid)
    first.save_snapshots()

    def never(*_args: object) -> None:
        raise AssertionError("an unsigned snapshot was unpickled")

    monkeypatch.setattr(snapshots, "loads", never)
    restarted = Ledger(db_engine, snapshot_key=b"another server's key" + b"." * 12)
    assert _preview(restarted, tid) == _preview(Ledger(db_engine), tid)
    assert restarted.projection.last_replayed == _events(restarted, sid)


def test_the_server_stores_its_engines_when_it_stops(
        db_url: str, db_engine: sa.Engine, berserk: tuple[int, int]) -> None:
    """The web app's shutdown stores a snapshot of each engine it holds; the next server
    starts from it."""
    sid, tid = berserk
    settings = Settings(database_url=db_url, secret="a server's secret")
    with TestClient(create_app(settings, engine=db_engine)) as client:
        _record_some(client.app.state.ledger, tid)  # type: ignore[attr-defined]
        with db_engine.connect() as conn:
            assert snapshots.stored_seq(conn, sid) == 0
    with db_engine.connect() as conn:
        assert snapshots.stored_seq(conn, sid) == _events(Ledger(db_engine), sid)
    with TestClient(create_app(settings, engine=db_engine)) as client:
        again: Ledger = client.app.state.ledger  # type: ignore[attr-defined]
        assert _preview(again, tid) == _preview(Ledger(db_engine), tid)
        assert again.projection.last_replayed == 0


def test_every_rulebook_restores_to_the_state_a_replay_builds(tmp_path: object) -> None:
    """The demo's three series (a ladder, sanctions with windows and formulas, cards): the
    restored engine is, object for object, the one built from every event."""
    engine = build_into(f"sqlite:///{tmp_path}/demo.db")
    try:
        ledger = Ledger(engine, snapshot_key=KEY)
        with ledger.factory() as s:
            series = [SeriesRef(row.id, row.rulebook)
                      for row in s.execute(select(m.Series.id, m.Series.rulebook))]
            for ref in series:
                ledger.projection.warm(s, ref.id)
        assert {ref.rulebook for ref in series} >= {"berserk", "clan-championship",
                                                     "team-wargame"}
        assert ledger.save_snapshots() == len(series)
        for ref in series:
            with ledger.factory() as s:
                upto = _events(ledger, ref.id)
                restored = snapshots.restore(s.connection(), KEY, ref, upto)
                rebuilt = Ledger(engine).projection._build(s, ref, upto)
            assert restored is not None and restored.seq == upto
            assert _shape(restored.engine.rulings) == _shape(rebuilt.engine.rulings)
            # the same graph of objects (compared once both have been through one pickling:
            # pickle writes equal strings that happen to be one object only once)
            round_trip = snapshots.loads(ref, snapshots.dumps(rebuilt)[1])
            assert snapshots.dumps(restored) == snapshots.dumps(round_trip)
            # the restored engine shares the loaded rulebook, as a rebuilt one does
            assert restored.engine.book is rebuilt.engine.book
    finally:
        engine.dispose()


def test_a_restored_state_is_left_to_the_collectors_oldest_generation(
        db_engine: sa.Engine, berserk: tuple[int, int]) -> None:
    """A season's restored state is hundreds of thousands of objects: they go straight to
    the oldest generation, so the next collections do not walk them all (bulk.settle)."""
    sid, tid = berserk
    ledger = Ledger(db_engine, snapshot_key=KEY)
    _record_some(ledger, tid)
    state = ledger.projection.states[sid]
    restored = snapshots.loads(SeriesRef(sid, "berserk"), snapshots.dumps(state)[1])
    young = {id(o) for gen in (0, 1) for o in gc.get_objects(generation=gen)}
    assert restored.engine.rulings and not any(
        id(r) in young for r in [restored.engine, *restored.engine.rulings])
    assert _shape(restored.engine.rulings) == _shape(state.engine.rulings)
