"""Two judges recording at the same moment get the rulings they would get one after the
other: real threads and real processes on SQLite and PostgreSQL, nothing mocked."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from typing import Any

import pytest
import sqlalchemy as sa
from ledger_testkit import (
    SLOW,
    cached_json,
    events,
    race,
    record_in_process,
    scenario_of,
)

from sudya.adapters.db.session import make_engine
from sudya.app.ledger import Ledger
from sudya.app.readback import series_json
from sudya.app.scenario import replay, ruling_json
from sudya.domain.engine.model import Ruling

TABLE = [{"kind": "warning"}]
REPEAT = [{"kind": "game-loss"}, {"kind": "warning", "attached": True}]


def stored(ledger: Ledger, sid: int) -> dict[str, Any]:
    with ledger.factory() as s:
        return series_json(s, sid)


def sanctions(r: dict[str, Any]) -> list[dict[str, Any]]:
    return [{k: v for k, v in x.items() if k in ("kind", "attached")} for x in r["sanctions"]]


def js(rulings: list[Ruling]) -> list[dict[str, Any]]:
    return [ruling_json(r, False) for r in rulings]  # berserk: no validity windows


@pytest.mark.parametrize("ledgers", ["one-ledger", "two-ledgers"])
def test_two_judges_record_the_same_infraction_at_once(db_url: str, ledger: Ledger,
                                                       berserk: tuple[int, int],
                                                       ledgers: str) -> None:
    sid, tid = berserk
    other = Ledger(make_engine(db_url)) if ledgers == "two-ledgers" else ledger
    try:
        for player in ("alice", "bob", "carol"):
            calls: list[Callable[[], Any]] = [
                lambda lg=lg, p=player: lg.record(tournament=tid, infraction=SLOW, player=p,
                                                  judge="oleg", round=1)
                for lg in (ledger, other)]
            got = [js(rulings) for rulings in race(calls)]
            assert all(len(r) == 1 for r in got), got
            by_cause = {r[0]["cause"]: sanctions(r[0]) for r in got}
            assert by_cause == {"table": TABLE, "repeat": REPEAT}, got

        evs = [e for e in events(ledger.db, sid) if e.kind == "infraction"]
        assert len(evs) == 6
        assert len({e.seq for e in events(ledger.db, sid)}) == len(events(ledger.db, sid))
        data = stored(ledger, sid)
        # the one stored first is the table ruling, the later one sees it as a repeat
        seq = {e.ext_id: e.seq for e in evs}
        for player in ("alice", "bob", "carol"):
            mine = sorted((r for r in data["rulings"] if r["subject"] == player),
                          key=lambda r: seq[r["event"]])
            assert [r["cause"] for r in mine] == ["table", "repeat"]
        assert data == replay(scenario_of(ledger.db, sid))
    finally:
        if other is not ledger:
            other.db.dispose()


def test_many_concurrent_records_equal_a_sequential_replay(db_url: str, ledger: Ledger,
                                                           berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    other = Ledger(make_engine(db_url))
    ledgers = [ledger, other, ledger, other]
    infractions = [SLOW, "procedure.minor", "procedure.significant"]
    players = ["alice", "bob", "carol"]

    def judge(i: int) -> list[list[Ruling]]:
        lg = ledgers[i]
        out = []
        for j in range(5):
            if (i, j) == (0, 2):
                out.append(lg.end_match(tournament=tid, round=1))
            else:
                out.append(lg.record(tournament=tid, infraction=infractions[(i + j) % 3],
                                     player=players[(2 * i + j) % 3], judge="oleg", round=1))
        return out

    try:
        results = race([lambda i=i: judge(i) for i in range(4)])
        new = [e for e in events(ledger.db, sid) if e.kind in ("infraction", "end-of-match")]
        assert len(new) == 20
        assert len({e.seq for e in new}) == 20
        data = stored(ledger, sid)
        assert data == replay(scenario_of(ledger.db, sid))

        # what each caller was told is what the ledger stored
        def key(r: dict[str, Any]) -> tuple[Any, ...]:
            return (r["event"], r["subject"], r["cause"], repr(r["sanctions"]))

        told = sorted(key(r) for per_thread in results for call in per_thread
                      for r in js(call))
        assert told == sorted(key(r) for r in data["rulings"])
        assert {r["event"] for r in data["rulings"]} >= {
            e.ext_id for e in new if e.kind == "infraction"}

        # the engines kept in memory agree with the database once caught up, and a fresh
        # Ledger that replays the stored events rules on the next event as they do
        fresh = Ledger(make_engine(db_url))
        try:
            for player in players:
                expected = js(fresh.preview(tournament=tid, infraction=SLOW, player=player))
                for lg in (ledger, other):
                    assert js(lg.preview(tournament=tid, infraction=SLOW,
                                         player=player)) == expected
            for lg in (ledger, other, fresh):
                assert cached_json(lg, sid) == data
        finally:
            fresh.db.dispose()
    finally:
        other.db.dispose()


def test_two_processes_record_at_once(db_url: str, ledger: Ledger,
                                      berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    queue = ctx.Queue()
    bob = {"infraction": SLOW, "player": "bob", "judge": "oleg", "round": 1}
    plans = [[bob, {"infraction": "procedure.minor", "player": "alice", "round": 1}],
             [bob, {"infraction": SLOW, "player": "carol", "round": 1}]]
    procs = [ctx.Process(target=record_in_process, args=(db_url, tid, barrier, queue, plan))
             for plan in plans]
    for p in procs:
        p.start()
    try:
        outcomes = [queue.get(timeout=120) for _ in procs]
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.terminate()
    assert [status for status, _ in outcomes] == ["ok", "ok"], outcomes
    firsts = [out[0] for _, out in outcomes]
    assert {r[0]["cause"]: sanctions(r[0]) for r in firsts} == {"table": TABLE,
                                                                 "repeat": REPEAT}
    # this process' Ledger (its cache from before) catches up with what they stored
    third = ledger.record(tournament=tid, infraction=SLOW, player="bob", round=2)
    assert third[0].cause == "repeat"
    data = stored(ledger, sid)
    assert data == replay(scenario_of(ledger.db, sid))
    assert cached_json(ledger, sid) == data
    evs = events(ledger.db, sid)
    assert len({e.seq for e in evs}) == len(evs)
    assert sum(e.kind == "infraction" for e in evs) == 5


def test_the_engine_is_shared_by_nothing_but_the_database(db_engine: sa.Engine) -> None:
    """Two Ledgers on one database do not share memory: each sees the other only through
    the stored events (the premise of the tests above)."""
    a, b = Ledger(db_engine), Ledger(db_engine)
    from ledger_testkit import setup_berserk

    sid, tid = setup_berserk(a)
    assert a.record(tournament=tid, infraction=SLOW, player="bob")[0].cause == "table"
    assert b.record(tournament=tid, infraction=SLOW, player="bob")[0].cause == "repeat"
    assert a.record(tournament=tid, infraction=SLOW, player="bob")[0].cause == "repeat"
    assert a._states[sid] is not b._states[sid]
