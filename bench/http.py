"""HTTP record rate of the real server, as a ratio to a bare Starlette endpoint in the same run.

Starts `sudya serve` (uvicorn on 127.0.0.1) on a demo database with 400 more players, signs in
as the demo floor judge and records infractions through the JSON API
(`POST /api/v1/tournaments/{tid}/infractions`, a fresh idempotency key each) from 1, 16 and 32
concurrent clients; beside it a bare Starlette app under the same uvicorn that does one
durable insert per request into the same kind of database (SQLite: WAL with the ledger's
`synchronous` setting, BEGIN IMMEDIATE; PostgreSQL: one committed INSERT) gets the same
requests. The two take turns within each level, in `--slices` slices (a minute of a busy
machine weighs on both, not on whichever ran then). Prints req/s, p50, p99 and errors of
both and the ratio of the rates.
Bounded: `--requests` per level, a per-request timeout and a deadline per level; traffic to
127.0.0.1 only.

    python -P bench/http.py [--requests 800] [--slices 4] [--clients 1,16,32] [--workers 1]
                            [--db postgresql+psycopg://…/postgres]

With `--db` naming a PostgreSQL server, a throwaway database is created there (and dropped
at the end) for each of the two servers.
"""

from __future__ import annotations

# `python bench/http.py` puts bench/ first on sys.path, where this file would shadow the
# standard library's `http` package for everything imported below
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]

import argparse  # noqa: E402
import contextlib  # noqa: E402
import datetime as dt  # noqa: E402
import itertools  # noqa: E402
import random  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import uuid  # noqa: E402
from collections.abc import Iterator  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import httpx  # noqa: E402
import sqlalchemy as sa  # noqa: E402

HOST = "127.0.0.1"
INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]

# the bare endpoint: Starlette reads the body on the event loop, then one durable insert in
# the thread pool (as FastAPI runs a plain `def` endpoint), one connection per thread
BARE_APP = '''
import json, os, threading
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.routing import Route

URL = os.environ["BENCH_BARE_URL"]
SYNCHRONOUS = os.environ.get("BENCH_BARE_SYNCHRONOUS", "FULL")
local = threading.local()


def connect():
    if URL.startswith("sqlite:///"):
        import sqlite3
        conn = sqlite3.connect(URL.removeprefix("sqlite:///"), timeout=30,
                               isolation_level=None, check_same_thread=False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={SYNCHRONOUS}")
        conn.execute("PRAGMA busy_timeout=30000")
        conn.execute("CREATE TABLE IF NOT EXISTS bare_row (id INTEGER PRIMARY KEY, "
                     "payload TEXT NOT NULL)")
        return conn
    import psycopg
    conn = psycopg.connect(URL.replace("postgresql+psycopg://", "postgresql://"))
    with conn.transaction():
        conn.execute("CREATE TABLE IF NOT EXISTS bare_row (id BIGSERIAL PRIMARY KEY, "
                     "payload TEXT NOT NULL)")
    return conn


def insert(payload):
    conn = getattr(local, "conn", None)
    if conn is None:
        conn = local.conn = connect()
    text = json.dumps(payload)
    if URL.startswith("sqlite:///"):
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("INSERT INTO bare_row (payload) VALUES (?) RETURNING id",
                               (text,)).fetchone()
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return row[0]
    with conn.transaction():
        return conn.execute("INSERT INTO bare_row (payload) VALUES (%s) RETURNING id",
                            (text,)).fetchone()[0]


async def record(request):
    payload = json.loads(await request.body())
    return JSONResponse({"event": await run_in_threadpool(insert, payload)})


async def ready(request):
    return JSONResponse({"ok": True})


app = Starlette(routes=[Route("/insert", record, methods=["POST"]), Route("/ready", ready)])
'''

# uvicorn for the bare app as `sudya serve` runs it: one process, or N workers sharing a socket
# marked as TCP (so that TCP_NODELAY is set, as in `sudya serve --workers`: Kludex/uvicorn#3149)
BARE_SERVE = '''
import contextlib, socket, sys
import uvicorn
from uvicorn.supervisors import Multiprocess


def main():
    host, port, workers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    if workers == 1:
        uvicorn.run("bare_app:app", host=host, port=port, log_level="info")
        return
    config = uvicorn.Config("bare_app:app", host=host, port=port, workers=workers,
                            log_level="info")
    bound = config.bind_socket()
    sock = socket.socket(bound.family, bound.type, socket.IPPROTO_TCP, fileno=bound.detach())
    sock.set_inheritable(True)
    with contextlib.suppress(KeyboardInterrupt):
        Multiprocess(config, sockets=[sock]).run()


if __name__ == "__main__":  # the workers are spawned: they import this file again
    main()
'''


@dataclass
class Level:
    clients: int
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0

    def percentile(self, p: float) -> float:
        if not self.latencies:
            return float("nan")
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(p * len(ordered)))]


@dataclass
class Target:
    name: str
    base: str
    path: str
    headers: dict[str, str]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}):\n{log.read_text()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=2).status_code == 200:
                return
        time.sleep(0.2)
    raise SystemExit(f"the server did not answer {url} in 90 s:\n{log.read_text()}")


@contextlib.contextmanager
def server(argv: list[str], ready: str, env: dict[str, str], log: Path
           ) -> Iterator[None]:
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        wait_ready(ready, proc, log)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def payloads(players: list[str], seed: int) -> Iterator[dict[str, Any]]:
    rng = random.Random(seed)
    for i in itertools.count():
        yield {"infraction": rng.choice(INFRACTIONS), "player": rng.choice(players),
               "round": 1 + i % 9, "idempotency_key": uuid.uuid4().hex}


def run_level(target: Target, clients: int, requests: int, players: list[str],
              timeout: float, deadline: float) -> Level:
    level = Level(clients)
    source = payloads(players, clients)
    lock = threading.Lock()
    left = itertools.count(requests, -1)
    barrier = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client() -> None:
        with httpx.Client(base_url=target.base, headers=target.headers,
                          timeout=timeout) as http:
            barrier.wait()
            while time.monotonic() < stop_at[0]:
                with lock:
                    if next(left) <= 0:
                        return
                    body = next(source)
                start = time.perf_counter()
                try:
                    response = http.post(target.path, json=body)
                    ok = response.status_code == 200
                    error = "" if ok else f"{response.status_code} {response.text[:200]}"
                except httpx.HTTPError as exc:
                    error = f"{type(exc).__name__} {exc}"[:200]
                elapsed = time.perf_counter() - start
                with lock:
                    (level.errors.append(error) if error else level.latencies.append(elapsed))

    threads = [threading.Thread(target=client, daemon=True) for _ in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.monotonic() + deadline
    barrier.wait()
    start = time.perf_counter()
    for t in threads:
        t.join(deadline + timeout + 5)
    level.seconds = time.perf_counter() - start
    unsent = max(0, requests - len(level.latencies) - len(level.errors))
    level.errors += ["not sent before the deadline"] * unsent
    return level


def run_all(targets: list[Target], levels: list[int], requests: int, players: list[str],
            timeout: float, deadline: float, slices: int) -> list[list[Level]]:
    """Each level for each target, the targets taking turns in `slices` slices of the
    level's requests (first one first, then the other: a disk or a neighbour slowing the
    machine for a minute weighs on both alike, not on whichever ran in that minute)."""
    for target in targets:
        run_level(target, 4, 40, players, timeout, deadline)  # warm up: caches, connections
    out: list[list[Level]] = [[] for _ in targets]
    for n in levels:
        whole = [Level(n) for _ in targets]
        for k in range(slices):
            part = requests // slices + (k < requests % slices)
            turn = list(enumerate(targets))
            for i, target in turn if k % 2 == 0 else reversed(turn):
                level = run_level(target, n, part, players, timeout, deadline / slices)
                whole[i].seconds += level.seconds
                whole[i].latencies += level.latencies
                whole[i].errors += level.errors
        for i, level in enumerate(whole):
            out[i].append(level)
    return out


# ---------------------------------------------------------------------- the databases
def demo_database(url: str, players: int) -> tuple[int, list[str]]:
    """The demo in the empty database at `url`, its berserk tournament with more players."""
    from sudya.adapters.db import models as m
    from sudya.app.demo import build_into
    from sudya.app.ledger import Actor, Ledger

    engine = build_into(url)
    ledger = Ledger(engine)
    with ledger.factory() as s:
        tid = s.scalar(sa.select(m.Tournament.id).join(m.Series)
                       .where(m.Series.rulebook == "berserk"))
    assert tid is not None
    handles = [f"igrok{i:03}" for i in range(players)]
    actor = Actor("bench")
    for handle in handles:
        ledger.add_player(tournament=tid, handle=handle, actor=actor)
    engine.dispose()
    return tid, handles


@contextlib.contextmanager
def databases(server_url: str | None, workdir: Path) -> Iterator[tuple[str, str]]:
    """(Sudya's database, the bare endpoint's): two SQLite files or two new PostgreSQL
    databases on the server named."""
    if server_url is None:
        yield f"sqlite:///{workdir / 'sudya.adapters.db'}", f"sqlite:///{workdir / 'bare.db'}"
        return
    from sudya.adapters.db.session import (
        normalise_url,  # postgresql:// means psycopg 3, as for sudya
    )

    server_url = normalise_url(server_url)
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    names = [f"sudya_bench_{os.getpid()}_{what}" for what in ("sudya", "bare")]
    base = sa.engine.make_url(server_url)
    try:
        with admin.connect() as conn:
            for name in names:
                conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        urls = [base.set(database=name).render_as_string(hide_password=False)
                for name in names]
        yield urls[0], urls[1]
    finally:
        with admin.connect() as conn:
            for name in names:
                conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def server_errors(log: Path) -> dict[str, int]:
    """The exceptions a server logged (their last line), counted."""
    seen: dict[str, int] = {}
    for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
        head = line.split(":", 1)[0]
        if head.endswith(("Error", "Exception", "Timeout")) and " " not in head:
            seen[line[:200]] = seen.get(line[:200], 0) + 1
    return seen


def report(levels: list[int], sudya: list[Level], bare: list[Level],
           logged: dict[str, dict[str, int]]) -> None:
    ms = 1000.0
    print(f"{'clients':>7} | {'Sudya req/s':>11} {'p50':>8} {'p99':>8} {'errors':>6} | "
          f"{'bare req/s':>10} {'p50':>8} {'p99':>8} {'errors':>6} | {'ratio':>5}")
    for n, a, b in zip(levels, sudya, bare, strict=True):
        ratio = a.rate / b.rate if b.rate else float("nan")
        print(f"{n:>7} | {a.rate:>11,.0f} {a.percentile(.5) * ms:>6.1f}ms "
              f"{a.percentile(.99) * ms:>6.1f}ms {len(a.errors):>6} | "
              f"{b.rate:>10,.0f} {b.percentile(.5) * ms:>6.1f}ms "
              f"{b.percentile(.99) * ms:>6.1f}ms {len(b.errors):>6} | {ratio:>5.2f}")
    for name, results in (("Sudya", sudya), ("bare", bare)):
        seen: dict[str, int] = {}
        for level in results:
            for error in level.errors:
                seen[error] = seen.get(error, 0) + 1
        for error, count in sorted(seen.items(), key=lambda kv: -kv[1])[:5]:
            print(f"  {name} error ×{count}: {error}")
        for error, count in sorted(logged[name].items(), key=lambda kv: -kv[1])[:3]:
            print(f"  {name} server log ×{count}: {error}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=800, help="per level and server")
    parser.add_argument("--clients", default="1,16,32")
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1, help="uvicorn processes")
    parser.add_argument("--timeout", type=float, default=60.0, help="per request, seconds")
    parser.add_argument("--deadline", type=float, default=120.0, help="per level, seconds")
    parser.add_argument("--db", default=None, help="a PostgreSQL server (default: SQLite)")
    parser.add_argument("--slices", type=int, default=4,
                        help="the two servers take turns in this many slices of a level")
    args = parser.parse_args()
    levels = [int(n) for n in args.clients.split(",")]
    from sudya.adapters.db import session as db_session

    synchronous = getattr(db_session, "SQLITE_SYNCHRONOUS", "FULL")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDYA_")}
    env["PYTHONUNBUFFERED"] = "1"
    workers = ["--workers", str(args.workers)] if args.workers != 1 else []
    with tempfile.TemporaryDirectory() as tmp, databases(args.db, Path(tmp)) as (url, bare):
        workdir = Path(tmp)
        tid, players = demo_database(url, args.players)
        from sudya.app.demo import PASSWORD

        port = free_port()
        (workdir / "bare_app.py").write_text(BARE_APP, encoding="utf-8")
        (workdir / "bare_serve.py").write_text(BARE_SERVE, encoding="utf-8")
        bare_port = free_port()
        bare_env = {**env, "BENCH_BARE_URL": bare, "BENCH_BARE_SYNCHRONOUS": synchronous}
        # both servers up at once, taking turns (run_all); the one waiting is idle
        with server([sys.executable, "-m", "sudya", "serve", "--db", url, "--host", HOST,
                     "--port", str(port), *workers], f"http://{HOST}:{port}/api/v1/rulebooks",
                    env, workdir / "sudya.log"), \
                server([sys.executable, str(workdir / "bare_serve.py"), HOST, str(bare_port),
                        str(args.workers)], f"http://{HOST}:{bare_port}/ready", bare_env,
                       workdir / "bare.log"):
            base = f"http://{HOST}:{port}"
            login = httpx.post(f"{base}/api/v1/login", timeout=30,
                               json={"username": "sudya", "password": PASSWORD})
            login.raise_for_status()
            token = login.json()["token"]
            targets = [Target("Sudya", base, f"/api/v1/tournaments/{tid}/infractions",
                              {"authorization": f"Bearer {token}"}),
                       Target("bare", f"http://{HOST}:{bare_port}", "/insert", {})]
            sudya, bare_levels = run_all(targets, levels, args.requests, players,
                                         args.timeout, args.deadline, args.slices)
        logged = {"Sudya": server_errors(workdir / "sudya.log"),
                  "bare": server_errors(workdir / "bare.log")}
    kind = "PostgreSQL" if args.db else f"SQLite (WAL, synchronous={synchronous})"
    print(f"HTTP record, {kind}, {args.workers} worker(s), {args.requests} requests per "
          f"level, {args.players} players, {dt.date.today()}")
    report(levels, sudya, bare_levels, logged)
    ratios = ", ".join(f"{a.rate / b.rate:.2f} at {n}" if b.rate else f"- at {n}"
                       for n, a, b in zip(levels, sudya, bare_levels, strict=True))
    errors = sum(len(a.errors) for a in sudya)
    print(f"HTTP: {ratios} clients x the bare endpoint, {errors} errors "
          "(goal 0.5 at 1 and 16, 0 errors)")


if __name__ == "__main__":
    main()
