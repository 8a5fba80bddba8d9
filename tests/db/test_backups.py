"""Issue 35, with real processes: a SQLite database file alone is complete once the server
stopped cleanly (its write-ahead log folded in); `sudya backup` copies it whole while the
server runs, and `sudya restore` puts a copy back into an empty database — each verified,
every acknowledged ruling in it; and two workers sign tokens with one secret, so a preview
signed by one is recorded by the other."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa
from ledger_testkit import cli_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def _port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(db: Path, *extra: str, workers: int = 1) -> Iterator[str]:
    """`sudya serve` over `db` on a free port; stopped (SIGTERM: a clean stop) on leaving,
    its process group killed if it does not stop."""
    port = _port()
    log = open(db.with_suffix(".log"), "w")  # noqa: SIM115  (closed in the finally)
    server = subprocess.Popen(
        [sys.executable, "-m", "sudya", "serve", "--db", f"sqlite:///{db}", *extra,
         "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)],
        cwd=ROOT, env=cli_env(), stdout=log, stderr=subprocess.STDOUT,
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                if httpx.get(f"{url}/api/v1/rulebooks", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, db.with_suffix(".log").read_text()
            assert time.monotonic() < deadline, db.with_suffix(".log").read_text()
            time.sleep(0.2)
        yield url
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()


def _token(url: str, username: str = "sudya") -> str:
    r = httpx.post(f"{url}/api/v1/login", json={"username": username,
                                                 "password": "sudya-demo"}, timeout=30)
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def _record(url: str, token: str, n: int) -> list[str]:
    events = []
    for i in range(n):
        r = httpx.post(f"{url}/api/v1/tournaments/1/infractions", timeout=60,
                       headers={"authorization": f"Bearer {token}"},
                       json={"infraction": "procedure.minor",
                             "player": ["alisa", "vera", "dasha"][i % 3],
                             "idempotency_key": f"b{i}"})
        assert r.status_code == 200, r.text
        events.append(r.json()["event"])
    return events


def _events(db: Path) -> set[str]:
    engine = sa.create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as conn:
            return set(conn.execute(sa.text(
                "SELECT ext_id FROM event WHERE kind = 'infraction'")).scalars())
    finally:
        engine.dispose()


def _sudya(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sudya", *args], cwd=cwd, env=cli_env(),
                          capture_output=True, text=True, timeout=300)


def test_a_backup_while_serving_and_the_file_alone_after_a_clean_stop(tmp_path: Path) -> None:
    db = tmp_path / "club.db"
    with serving(db, "--demo") as url:
        told = _record(url, _token(url), 30)
        copy = _sudya("backup", str(tmp_path / "backup.db"), "--db", f"sqlite:///{db}",
                      cwd=tmp_path)
        assert copy.returncode == 0, copy.stderr
        assert "проверены" in copy.stdout  # verified: chain and rulings
    assert set(told) <= _events(tmp_path / "backup.db")
    # stopped cleanly: the file alone, no -wal beside it, holds every acknowledged ruling
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copyfile(db, alone / "club.db")
    assert set(told) <= _events(alone / "club.db")
    verify = _sudya("audit", "verify", "--db", f"sqlite:///{alone / 'club.db'}", cwd=alone)
    assert verify.returncode == 0, verify.stdout + verify.stderr
    # restored into an empty database, and verified; never over a ledger
    back = _sudya("restore", str(tmp_path / "backup.db"), "--db",
                  f"sqlite:///{tmp_path / 'restored.db'}", cwd=tmp_path)
    assert back.returncode == 0, back.stderr
    assert set(told) <= _events(tmp_path / "restored.db")
    again = _sudya("restore", str(tmp_path / "backup.db"), "--db", f"sqlite:///{db}",
                   cwd=tmp_path)
    assert again.returncode == 2 and "Traceback" not in again.stderr
    assert len(again.stderr.splitlines()) == 1


def test_two_workers_share_one_secret(tmp_path: Path) -> None:
    """A preview's token signed by one worker is good at the other (each request lands on
    either): 12 previews, each recorded with its token; none refused as expired."""
    db = tmp_path / "club.db"
    with serving(db, "--demo"):
        pass  # the demo made; served again below by two workers
    with serving(db, workers=2) as url:
        token = _token(url)
        headers = {"authorization": f"Bearer {token}"}
        for i in range(12):
            body = {"infraction": "procedure.minor", "player": "boris", "round": 2}
            seen = httpx.post(f"{url}/api/v1/tournaments/1/infractions", headers=headers,
                              json={**body, "preview": True}, timeout=60)
            assert seen.status_code == 200, seen.text
            done = httpx.post(f"{url}/api/v1/tournaments/1/infractions", headers=headers,
                              timeout=60, json={**body, "idempotency_key": f"w{i}",
                                                "preview_token": seen.json()["preview_token"]})
            assert done.status_code == 200, done.text
