"""What bench/http_record.py and bench/http_instructions.py share: a demo database with more
players, `sudya serve` and the bare endpoint started in a process group of their own (and
ended, with everything they started, whatever happens), a bearer token, the servers' logged
exceptions.

The bare endpoint is the baseline of both: a Starlette app under the same uvicorn as `sudya
serve` (one process, or N workers sharing a TCP socket), that reads the JSON body on the event
loop and does one durable insert per request in the thread pool (as FastAPI runs a plain
`def` endpoint), one connection per thread: on SQLite WAL with the ledger's `synchronous`
setting and BEGIN IMMEDIATE, on PostgreSQL one committed INSERT.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import sqlalchemy as sa

HOST = "127.0.0.1"

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

SUDYA_READY = "/api/v1/rulebooks"
BARE_READY = "/ready"
SUDYA_PATH = "/api/v1/tournaments/{tid}/infractions"
BARE_PATH = "/insert"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def server_env() -> dict[str, str]:
    """This environment without the SUDYA_ settings (the servers get theirs on the command
    line), unbuffered."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDYA_")}
    env["PYTHONUNBUFFERED"] = "1"
    return env


def sudya_argv(url: str, port: int, workers: int) -> list[str]:
    """`sudya serve` on the database `url` (this Python's, as `python -m sudya`)."""
    more = ["--workers", str(workers)] if workers != 1 else []
    return [sys.executable, "-m", "sudya", "serve", "--db", url, "--host", HOST,
            "--port", str(port), *more]


def bare_argv(workdir: Path, port: int, workers: int) -> list[str]:
    """The bare endpoint's server (its two files written into `workdir`)."""
    (workdir / "bare_app.py").write_text(BARE_APP, encoding="utf-8")
    (workdir / "bare_serve.py").write_text(BARE_SERVE, encoding="utf-8")
    return [sys.executable, str(workdir / "bare_serve.py"), HOST, str(port), str(workers)]


def bare_env(url: str) -> dict[str, str]:
    from sudya.adapters.db import session as db_session

    synchronous = getattr(db_session, "SQLITE_SYNCHRONOUS", "FULL")
    return {**server_env(), "BENCH_BARE_URL": url, "BENCH_BARE_SYNCHRONOUS": synchronous}


def wait_ready(url: str, proc: subprocess.Popen[bytes], log: Path, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited ({proc.returncode}):\n{log.read_text()}")
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url, timeout=5).status_code == 200:
                return
        time.sleep(0.2)
    raise SystemExit(f"the server did not answer {url} in {seconds:.0f} s:\n{log.read_text()}")


def end_group(proc: subprocess.Popen[bytes], grace: float = 30.0) -> None:
    """End the process group `proc` leads (the server and every worker it started): SIGTERM,
    then SIGKILL after `grace` seconds."""
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=wait)
            break
        except subprocess.TimeoutExpired:
            continue
    with contextlib.suppress(ProcessLookupError):  # workers left behind by the leader
        os.killpg(proc.pid, signal.SIGKILL)


@contextlib.contextmanager
def server(argv: list[str], ready: str, env: dict[str, str], log: Path,
           start_seconds: float = 90.0) -> Iterator[subprocess.Popen[bytes]]:
    """A server started in a new session (its own process group), up once `ready` answers
    200; ended, with its whole group, when the block ends however it ends."""
    with log.open("wb") as out:
        proc = subprocess.Popen(argv, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True, cwd=log.parent)
    try:
        wait_ready(ready, proc, log, start_seconds)
        yield proc
    finally:
        end_group(proc)


def login(base: str) -> str:
    """A bearer token of the demo's floor judge `sudya`."""
    from sudya.app.demo import PASSWORD

    answer = httpx.post(f"{base}/api/v1/login", timeout=60,
                        json={"username": "sudya", "password": PASSWORD})
    answer.raise_for_status()
    return str(answer.json()["token"])


# ---------------------------------------------------------------------- the databases
def demo_database(url: str, players: int) -> tuple[int, list[str]]:
    """The demo in the empty database at `url`, its berserk tournament with `players` more
    players, igrok000 … (added through `Sudya.handle`, as the owner)."""
    from sudya.adapters.db import models as m
    from sudya.app.core import Actor, Sudya
    from sudya.app.demo import build_into
    from sudya.app.ledger import Ledger
    from sudya.domain import commands as c

    engine = build_into(url)
    app = Sudya(Ledger(engine))
    with app.reading() as s:
        tid = s.scalar(sa.select(m.Tournament.id).join(m.Series)
                       .where(m.Series.rulebook == "berserk"))
    assert tid is not None
    handles = [f"igrok{i:03}" for i in range(players)]
    owner = Actor("bench", owner=True)
    for handle in handles:
        app.handle(c.AddPlayer(handle=handle), owner, tid)
    engine.dispose()
    return tid, handles


@contextlib.contextmanager
def databases(server_url: str | None, workdir: Path) -> Iterator[tuple[str, str]]:
    """(Sudya's database, the bare endpoint's): two SQLite files in `workdir`, or two new
    PostgreSQL databases on the server named (dropped at the end, whatever happens)."""
    if server_url is None:
        yield f"sqlite:///{workdir / 'sudya.db'}", f"sqlite:///{workdir / 'bare.db'}"
        return
    from sudya.adapters.db.session import normalise_url  # postgresql:// means psycopg 3

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
