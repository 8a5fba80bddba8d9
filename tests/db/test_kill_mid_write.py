"""A writer killed in the middle of recording (SIGKILL: no exception, no rollback sent, no
`finally`) leaves the ledger as if it had never started, on SQLite and PostgreSQL.

A child process records an infraction with an idempotency key and kills itself at one of the
fault points of `sudya.app.faults` inside the write transaction: after the event row,
after the rulings (before their sanctions), or just before the commit. Afterwards no event is
without its rulings, the sequence is gapless, the database reads back as a fresh replay of its
events, and a retry with the same key records exactly once.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import Any

import pytest
import sqlalchemy as sa
from ledger_testkit import SLOW, cli_env, scenario_of, snapshot
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger
from sudya.app.readback import series_json
from sudya.app.scenario import replay, ruling_json
from sudya.domain.engine.model import Ruling

POINTS = ["after-event", "after-rulings", "before-commit"]

# the writer: its own engine and Ledger (cold cache: it replays the stored events), then the
# calls one after the other, each answer printed as soon as it is stored
CHILD = """
import json, sys
from sudya.adapters.db.session import make_engine
from sudya.app.scenario import ruling_json
from sudya.app.ledger import Ledger

url, tournament, calls = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
ledger = Ledger(make_engine(url))
for call in calls:
    rulings = ledger.record(tournament=tournament, **call)
    print(json.dumps([ruling_json(r, False) for r in rulings]), flush=True)
"""


def js(rulings: list[Ruling]) -> list[dict[str, Any]]:
    return [ruling_json(r, False) for r in rulings]


def writer(url: str, tournament: int, calls: list[dict[str, Any]], *,
           kill_at: str | None) -> tuple[int, list[Any]]:
    """Run the calls in a child process; its return code and the answers it printed."""
    env = cli_env()
    if kill_at is not None:
        env["SUDYA_TEST_KILL_AT"] = kill_at
    proc = subprocess.run([sys.executable, "-c", CHILD, url, str(tournament),
                           json.dumps(calls)], env=env, capture_output=True, text=True,
                          encoding="utf-8", timeout=120, check=False)
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode in (0, -signal.SIGKILL), proc.stderr
    return proc.returncode, answers


def wait_for_the_dead(db_url: str, engine: sa.Engine) -> None:
    """PostgreSQL ends a dead client's transaction (and frees its series lock) when it sees
    the connection drop; wait for that instead of queueing behind it. SQLite's lock is a
    file lock the kernel released with the process."""
    if not db_url.startswith("postgresql"):
        return
    deadline = time.monotonic() + 30
    while True:
        # a transaction of its own for each look: within one, pg_stat_activity is read once
        # and kept, so a loop in one transaction begun before the server saw the drop waited
        # out its deadline looking at the dead writer
        with engine.connect() as conn:
            still_open = conn.scalar(sa.text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'"))
        if not still_open:
            return
        assert time.monotonic() < deadline, "the killed writer's transaction is still open"
        time.sleep(0.05)


def assert_whole(engine: sa.Engine, series_id: int) -> None:
    """No event without its rulings, seq gapless, the stored rulings = a fresh replay."""
    with Session(engine) as s:
        stored = s.execute(select(m.Event.id, m.Event.seq, m.Event.kind)
                           .where(m.Event.series_id == series_id)
                           .order_by(m.Event.seq)).all()
        seqs = [seq for _id, seq, _kind in stored]
        assert seqs == list(range(1, len(seqs) + 1))
        assert s.scalar(select(m.Series.last_seq).where(m.Series.id == series_id)) == len(seqs)
        ruled = dict(s.execute(select(m.Ruling.event_id, func.count())
                               .where(m.Ruling.series_id == series_id)
                               .group_by(m.Ruling.event_id)).tuples().all())
        assert [seq for eid, seq, kind in stored if kind == "infraction" and eid not in ruled] \
            == []
        assert set(ruled) <= {eid for eid, _seq, _kind in stored}
        assert series_json(s, series_id) == replay(scenario_of(engine, series_id))


def stored_once(engine: sa.Engine, key: str, answer: list[Ruling]) -> None:
    """One event under the key, with exactly the rulings and sanctions it answered."""
    with Session(engine) as s:
        ids = list(s.scalars(select(m.Event.id).where(m.Event.idempotency_key == key)))
        assert len(ids) == 1
        rulings = list(s.scalars(select(m.Ruling.id).where(m.Ruling.event_id == ids[0])))
        assert len(rulings) == len(answer) > 0
        assert s.scalar(select(func.count()).select_from(m.SanctionRow).where(
            m.SanctionRow.ruling_id.in_(rulings))) == sum(len(r.sanctions) for r in answer) > 0


def max_id(engine: sa.Engine, model: Any) -> int:
    with engine.connect() as conn:
        return int(conn.scalar(select(func.max(model.id))) or 0)


@pytest.mark.parametrize("point", POINTS)
def test_a_write_killed_midway_leaves_nothing_and_the_retry_records_once(
        db_url: str, ledger: Ledger, db_engine: sa.Engine, berserk: tuple[int, int],
        point: str) -> None:
    sid, tid = berserk
    ledger.record(tournament=tid, infraction=SLOW, player="bob", judge="oleg", round=1)
    ledger.record(tournament=tid, infraction=SLOW, player="alice", judge="oleg", round=1)
    key = "tablet-3:0042"
    call = {"infraction": SLOW, "player": "bob", "judge": "oleg", "round": 2,
            "idempotency_key": key}
    before = snapshot(db_engine)
    last = [max_id(db_engine, model) for model in (m.Event, m.Ruling, m.SanctionRow)]

    code, answers = writer(db_url, tid, [call], kill_at=point)
    assert (code, answers) == (-signal.SIGKILL, [])
    wait_for_the_dead(db_url, db_engine)

    assert snapshot(db_engine) == before  # not a row, not even the sequence number
    assert_whole(db_engine, sid)

    # the retry, through the Ledger whose engine was cached before the kill
    first = ledger.record(tournament=tid, **call)
    assert [r.cause for r in first] == ["repeat"]
    assert first[0].event == "e9"  # numbered as if the killed write had never begun
    stored_once(db_engine, key, first)
    assert_whole(db_engine, sid)
    if db_url.startswith("postgresql"):
        # sequences are not transactional: the ids the killed transaction drew stay drawn,
        # which shows how far it had written when it died (the event; then its rulings;
        # then their sanctions)
        kept = [1, len(first), sum(len(r.sanctions) for r in first)]
        burnt = [max_id(db_engine, model) - was - n for model, was, n in
                 zip((m.Event, m.Ruling, m.SanctionRow), last, kept, strict=True)]
        assert burnt == {"after-event": kept[:1] + [0, 0], "after-rulings": kept[:2] + [0],
                         "before-commit": kept}[point]
    # and a retry of the retry, from a cold cache, is the same answer without a second record
    after = snapshot(db_engine)
    assert js(Ledger(db_engine).record(tournament=tid, **call)) == js(first)
    assert snapshot(db_engine) == after


@pytest.mark.parametrize("point", POINTS)
def test_a_kill_after_a_successful_record_keeps_its_answer(
        db_url: str, ledger: Ledger, db_engine: sa.Engine, berserk: tuple[int, int],
        point: str) -> None:
    sid, tid = berserk
    done = {"infraction": SLOW, "player": "bob", "judge": "oleg", "round": 1,
            "idempotency_key": "tablet-3:0001"}
    dying = {"infraction": SLOW, "player": "bob", "judge": "oleg", "round": 2,
             "idempotency_key": "tablet-3:0002"}
    first = ledger.record(tournament=tid, **done)
    answer = js(first)
    before = snapshot(db_engine)

    # the child retries the first (it gets the stored answer), then dies recording the second
    code, answers = writer(db_url, tid, [done, dying], kill_at=point)
    assert (code, answers) == (-signal.SIGKILL, [answer])
    wait_for_the_dead(db_url, db_engine)
    assert snapshot(db_engine) == before
    assert_whole(db_engine, sid)

    # retried elsewhere: the first is answered as first recorded; the second records once,
    # ruled with the first in its history (a repeat)
    fresh = Ledger(db_engine)
    assert js(fresh.record(tournament=tid, **done)) == answer
    second = fresh.record(tournament=tid, **dying)
    assert [r.cause for r in second] == ["repeat"]
    stored_once(db_engine, "tablet-3:0001", first)
    stored_once(db_engine, "tablet-3:0002", second)
    assert js(ledger.record(tournament=tid, **dying)) == js(second)
    assert_whole(db_engine, sid)
