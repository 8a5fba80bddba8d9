"""No writer waits while holding a connection: the writers of one series queue in Python, in
arrival order, before they check out a connection; another series never waits for them; reads
take no write lock; processes are kept in step by the database. Real threads, real processes
and the real server, on SQLite and PostgreSQL; nothing mocked."""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
import sqlalchemy as sa
from ledger_testkit import (
    SLOW,
    cached_json,
    cli_env,
    events,
    race,
    record_in_threads,
    scenario_of,
    setup_berserk,
)

from sudya.adapters.db.session import PoolSettings, make_engine
from sudya.app.ledger import Ledger, LedgerError
from sudya.app.projection import Turn
from sudya.app.readback import series_json
from sudya.app.scenario import replay, ruling_json
from sudya.domain.engine.model import Ruling

INFRACTIONS = [SLOW, "procedure.minor", "procedure.significant"]
PLAYERS = ["alice", "bob", "carol"]


def stored(ledger: Ledger, sid: int) -> dict[str, Any]:
    with ledger.factory() as s:
        return series_json(s, sid)


def js(rulings: list[Ruling]) -> list[dict[str, Any]]:
    return [ruling_json(r, False) for r in rulings]  # berserk: no validity windows


def key(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["event"], r["subject"], r["cause"],
            tuple((s["kind"], s.get("attached", False)) for s in r["sanctions"]))


def assert_serial(ledger: Ledger, sid: int, told: list[dict[str, Any]], new: int) -> None:
    """The series reads back as a serial replay of its stored events, gapless, and every
    caller was told what was stored."""
    evs = events(ledger.db, sid)
    assert [e.seq for e in evs] == list(range(1, len(evs) + 1))
    assert sum(e.kind == "infraction" for e in evs) == new
    data = stored(ledger, sid)
    assert data == replay(scenario_of(ledger.db, sid))
    assert sorted(key(r) for r in told) == sorted(key(r) for r in data["rulings"])


def call(i: int) -> dict[str, Any]:
    return {"infraction": INFRACTIONS[i % 3], "player": PLAYERS[(i // 3) % 3],
            "judge": "oleg", "round": 1 + i % 4}


@contextmanager
def checked_out(engine: sa.Engine) -> Iterator[list[int]]:
    """[now, most]: connections of the engine's pool checked out at once."""
    count = [0, 0]
    lock = threading.Lock()

    def out(*_: Any) -> None:
        with lock:
            count[0] += 1
            count[1] = max(count)

    def back(*_: Any) -> None:
        with lock:
            count[0] -= 1

    sa.event.listen(engine, "checkout", out)
    sa.event.listen(engine, "checkin", back)
    try:
        yield count
    finally:
        sa.event.remove(engine, "checkout", out)
        sa.event.remove(engine, "checkin", back)


def waiting(thread: threading.Thread, seconds: float = 0.5) -> bool:
    thread.join(seconds)
    return thread.is_alive()


def in_thread(fn: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as exc:  # the test looks at it
            box.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, box


def test_32_threads_on_one_series_queue_in_python_not_in_the_pool(
        db_url: str, ledger: Ledger, berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    # room for every thread in the pool: how many it hands out at once is what they chose
    engine = make_engine(db_url, PoolSettings(size=1, overflow=40, timeout=5))
    try:
        lg = Ledger(engine)
        lg.preview(tournament=tid, infraction=SLOW, player="bob")  # the engine and place
        with checked_out(engine) as count:
            answers = race([lambda i=i: lg.record(tournament=tid, **call(i))
                            for i in range(32)])
        assert count[1] == 1  # one connection at a time: the other 31 waited in Python
        assert all(len(a) == 1 for a in answers)
        assert_serial(ledger, sid, [r for a in answers for r in js(a)], 32)
        assert cached_json(lg, sid) == stored(ledger, sid)
    finally:
        engine.dispose()


def test_a_thread_gives_back_its_read_sessions_before_it_waits_for_its_turn(
        ledger: Ledger, berserk: tuple[int, int]) -> None:
    """A judge's request reads first (who they are, the form's choices), then records: while
    its write waits for the series' turn, its read session holds no connection, and reads
    again afterwards what the write stored (services.ledger.ReadSessions)."""
    sid, tid = berserk
    pool = ledger.db.pool
    ledger.preview(tournament=tid, infraction=SLOW, player="bob")  # the engine and place
    turn = ledger.projection.locks(sid).turn
    count = sa.select(sa.func.count()).select_from(sa.table("event"))
    seen: list[int] = []

    def judge() -> None:
        with ledger.factory() as s:
            before = s.scalar(count)
            assert pool.checkedout() == 1  # the read session's, until the write waits
            ledger.record(tournament=tid, **call(0))
            seen.append(s.scalar(count) - before)

    assert turn.acquire(5)  # another write of the series, long
    try:
        thread = threading.Thread(target=judge, daemon=True)
        thread.start()
        deadline = time.monotonic() + 30
        while not turn._waiting:
            assert time.monotonic() < deadline and thread.is_alive(), "never queued"
            time.sleep(0.01)
        assert pool.checkedout() == 0
    finally:
        turn.release()
    thread.join()
    assert seen == [1]
    assert pool.checkedout() == 0


def test_threads_of_two_ledgers_and_two_series_at_once(db_url: str, ledger: Ledger) -> None:
    """Two series, two Ledgers (two pools, two caches) on one database, 8 threads each."""
    a_sid, a_tid = setup_berserk(ledger, name="A")
    b_sid, b_tid = setup_berserk(ledger, name="B")
    other = Ledger(make_engine(db_url))
    try:
        calls = [lambda lg=lg, t=t, i=i: (t, lg.record(tournament=t, **call(i)))
                 for i in range(8) for lg in (ledger, other) for t in (a_tid, b_tid)]
        answers = race(calls)
        for sid, tid in ((a_sid, a_tid), (b_sid, b_tid)):
            told = [r for t, rulings in answers if t == tid for r in js(rulings)]
            assert_serial(ledger, sid, told, 16)
    finally:
        other.db.dispose()


def test_a_series_does_not_wait_for_another_and_reads_take_no_write_lock(
        ledger: Ledger) -> None:
    a_sid, a_tid = setup_berserk(ledger, name="A")
    b_sid, b_tid = setup_berserk(ledger, name="B")
    turn = ledger.projection.locks(a_sid).turn
    assert turn.acquire(1)  # a writer of A, as long as the test likes
    try:
        blocked, a_box = in_thread(lambda: ledger.record(tournament=a_tid, **call(0)))
        assert waiting(blocked)  # A's second writer waits for its turn
        # B is not held up by A's queue, nor is a preview or a page of A
        free, b_box = in_thread(lambda: ledger.record(tournament=b_tid, **call(0)))
        assert not waiting(free, 30), "a writer of series B waited for series A"
        assert [r.cause for r in b_box[0]] == ["table"]
        peek, p_box = in_thread(lambda: ledger.preview(tournament=a_tid, **call(0)))
        assert not waiting(peek, 30), "a preview waited for the write lock"
        assert [r.cause for r in p_box[0]] == ["table"]
        assert stored(ledger, a_sid)["rulings"] == []
        assert blocked.is_alive()
    finally:
        turn.release()
    assert not waiting(blocked, 30)
    assert [r.cause for r in a_box[0]] == ["table"]
    assert_serial(ledger, a_sid, js(a_box[0]), 1)
    assert_serial(ledger, b_sid, js(b_box[0]), 1)


def test_the_database_lock_of_another_process_holds_a_write_not_a_read(
        db_url: str, ledger: Ledger) -> None:
    """What another process's transaction holds: on PostgreSQL the series row (another series
    goes on); on SQLite the one write lock of the file (every writer waits, as SQLite has one
    writer at a time); on both, a preview answers at once."""
    a_sid, a_tid = setup_berserk(ledger, name="A")
    b_sid, b_tid = setup_berserk(ledger, name="B")
    first = ledger.record(tournament=a_tid, **call(0))
    elsewhere = sa.create_engine(db_url.replace("postgresql://", "postgresql+psycopg://"))
    try:
        with elsewhere.connect() as conn:
            if db_url.startswith("sqlite"):
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.execute(sa.text("SELECT id FROM series WHERE id = :id FOR UPDATE"),
                             {"id": a_sid})
            blocked, a_box = in_thread(lambda: ledger.record(tournament=a_tid, **call(0)))
            assert waiting(blocked)
            peek, p_box = in_thread(lambda: ledger.preview(tournament=a_tid, **call(0)))
            assert not waiting(peek, 30), "a preview waited for a writer's database lock"
            assert [r.cause for r in p_box[0]] == ["repeat"]
            other, b_box = in_thread(lambda: ledger.record(tournament=b_tid, **call(0)))
            if db_url.startswith("postgresql"):
                assert not waiting(other, 30), "series B waited for series A's row lock"
                assert [r.cause for r in b_box[0]] == ["table"]
            else:
                assert waiting(other)
            conn.rollback()
        assert not waiting(blocked, 30) and not waiting(other, 30)
    finally:
        elsewhere.dispose()
    assert [r.cause for r in a_box[0]] == ["repeat"]
    assert len(b_box[0]) == 1
    assert_serial(ledger, a_sid, js(first) + js(a_box[0]), 2)
    assert_serial(ledger, b_sid, js(b_box[0]), 1)


def test_a_write_that_waits_too_long_for_its_turn_is_refused(ledger: Ledger,
                                                              berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    patient = ledger.write_timeout
    ledger.write_timeout = 0.2
    turn = ledger.projection.locks(sid).turn
    assert turn.acquire(1)
    try:
        with pytest.raises(LedgerError) as refused:
            ledger.record(tournament=tid, **call(0))
        assert refused.value.code == "ledger.busy"
    finally:
        turn.release()
        ledger.write_timeout = patient
    assert [e.kind for e in events(ledger.db, sid)].count("infraction") == 0
    assert [r.cause for r in ledger.record(tournament=tid, **call(0))] == ["table"]


def test_the_turn_is_first_come_first_served() -> None:
    turn = Turn()
    assert turn.acquire(1)
    order: list[int] = []
    threads = []
    for i in range(8):
        def wait_then_note(i: int = i) -> None:
            assert turn.acquire(30)
            order.append(i)
            turn.release()

        thread = threading.Thread(target=wait_then_note, daemon=True)
        thread.start()
        deadline = time.monotonic() + 60
        while len(turn._waiting) < i + 1:  # in line before the next one comes
            assert time.monotonic() < deadline
            time.sleep(0.001)
        threads.append(thread)
    assert not turn.acquire(0.05)  # a timeout leaves the line as it was
    assert len(turn._waiting) == 8
    turn.release()
    for thread in threads:
        thread.join()
    assert order == list(range(8))
    assert turn.acquire(0.01)


def test_four_processes_of_four_threads_on_one_series(db_url: str, ledger: Ledger,
                                                      berserk: tuple[int, int]) -> None:
    sid, tid = berserk
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(4)
    queue = ctx.Queue()
    plans = [[[call(p * 16 + t * 4 + j) for j in range(4)] for t in range(4)]
             for p in range(4)]
    procs = [ctx.Process(target=record_in_threads, args=(db_url, tid, barrier, queue, plan))
             for plan in plans]
    for p in procs:
        p.start()
    try:
        outcomes = [queue.get(timeout=180) for _ in procs]
    finally:
        for p in procs:
            p.join(timeout=60)
            if p.is_alive():
                p.terminate()
    assert [status for status, _ in outcomes] == ["ok"] * 4, outcomes
    told = [r for _, per_thread in outcomes for calls in per_thread for rulings in calls
            for r in rulings]
    assert len(told) == 64
    assert_serial(ledger, sid, told, 64)
    # this process' Ledger, cached before, catches up with all of it
    last = ledger.record(tournament=tid, **call(0))
    assert_serial(ledger, sid, told + js(last), 65)
    assert cached_json(ledger, sid) == stored(ledger, sid)


# ---------------------------------------------------------------------- the real server
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_sudya_serve_with_two_workers_records_16_at_once(
        db_url: str, ledger: Ledger, berserk: tuple[int, int]) -> None:
    from sudya.app.accounts import add_user

    sid, tid = berserk
    add_user(ledger, username="oleg", password="oleg-secret-1")  # the floor judge
    port = free_port()
    env = cli_env()
    env["SUDYA_DB_POOL_SIZE"] = "2"  # the settings reach every worker
    server = subprocess.Popen([sys.executable, "-m", "sudya", "serve", "--db", db_url,
                               "--host", "127.0.0.1", "--port", str(port), "--workers", "2"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                              start_new_session=True)
    base = f"http://127.0.0.1:{port}/api/v1"
    try:
        log = ""
        deadline = time.monotonic() + 180  # two interpreters importing on a busy machine
        while log.count("Application startup complete") < 2:
            log += _output_so_far(server)
            assert server.poll() is None, log
            assert time.monotonic() < deadline, log
            time.sleep(0.2)
        assert httpx.get(f"{base}/rulebooks", timeout=30).status_code == 200
        token = httpx.post(f"{base}/login", json={"username": "oleg",
                                                  "password": "oleg-secret-1"},
                           timeout=30).json()["token"]

        def post(i: int) -> Any:
            body = {k: v for k, v in call(i).items() if k != "judge"}
            r = httpx.post(f"{base}/tournaments/{tid}/infractions", timeout=60,
                           json={**body, "idempotency_key": f"k{i}"},
                           headers={"authorization": f"Bearer {token}"})
            assert r.status_code == 200, r.text
            return r.json()

        answers = race([lambda i=i: post(i) for i in range(16)], timeout=120)
        pids = {int(line.split("[")[1].split("]")[0]) for line in log.splitlines()
                if "Started server process" in line}
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, 9)
            server.wait()
    assert len(pids) == 2, pids  # two uvicorn processes served
    told = [r for a in answers for r in a["rulings"]]
    assert len(told) == 16
    evs = events(ledger.db, sid)
    assert [e.seq for e in evs] == list(range(1, len(evs) + 1))
    data = stored(ledger, sid)
    assert data == replay(scenario_of(ledger.db, sid))
    assert sorted((r["event"], r["subject"], r["cause"]) for r in told) == sorted(
        (r["event"], r["subject"], r["cause"]) for r in data["rulings"])


def _output_so_far(server: subprocess.Popen[bytes]) -> str:
    """What the server wrote since the last call (it is still running: read without
    blocking)."""
    assert server.stdout is not None
    os.set_blocking(server.stdout.fileno(), False)
    return (server.stdout.read() or b"").decode(errors="replace")


def test_a_read_session_left_open_pins_no_snapshot(db_url: str, ledger: Ledger,
                                                   berserk: tuple[int, int]) -> None:
    """A request keeps its read session open while its ruling is written: each statement
    of it reads the newest commit (PostgreSQL's READ COMMITTED, and SQLite's read sessions
    open no transaction), so on SQLite a checkpoint reaches the end of the WAL and the WAL
    restarts instead of growing for ever."""
    sid, tid = berserk
    count = sa.select(sa.func.count()).select_from(sa.table("event"))
    with ledger.factory() as reading:
        before = reading.scalar(count)
        for i in range(5):
            ledger.record(tournament=tid, **call(i))
        assert reading.scalar(count) == before + 5  # the same session sees the new commits
        if db_url.startswith("sqlite"):
            with ledger.db.connect() as conn:
                busy, frames, done = conn.exec_driver_sql(
                    "PRAGMA wal_checkpoint(PASSIVE)").one()
            assert (busy, done) == (0, frames), "a read snapshot holds the WAL back"


def test_a_cold_engine_is_built_before_the_database_lock(db_url: str, ledger: Ledger,
                                                        berserk: tuple[int, int]) -> None:
    """A process's first write to a series replays its history outside the database's
    series lock, so the writers of other processes are not held up by the replay."""
    sid, tid = berserk
    ledger.record(tournament=tid, **call(0))
    cold = Ledger(make_engine(db_url))
    elsewhere = sa.create_engine(db_url)
    try:
        with elsewhere.connect() as conn:
            if db_url.startswith("sqlite"):
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            else:
                conn.execute(sa.text("SELECT id FROM series WHERE id = :id FOR UPDATE"),
                             {"id": sid})
            writer, box = in_thread(lambda: cold.record(tournament=tid, **call(0)))
            deadline = time.monotonic() + 30
            while sid not in cold.projection.states:
                assert time.monotonic() < deadline, "the engine was not built while waiting"
                time.sleep(0.01)
            assert waiting(writer)  # built, and still waiting for the database's lock
            conn.rollback()
        assert not waiting(writer, 30)
    finally:
        elsewhere.dispose()
        cold.db.dispose()
    assert [r.cause for r in box[0]] == ["repeat"]
