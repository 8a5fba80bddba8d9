"""Helpers for the browser tests (conftest.py holds the fixtures)."""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
PASSWORD = "sudya-demo"  # sudya.app.demo.PASSWORD
BERSERK, CLAN, WARGAME = 1, 2, 3  # the demo tournaments' ids, in the order demo.build makes them
CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "locale": "ru-RU"}


def in_ci() -> bool:
    """Under CI (CI=true) a missing browser fails the run instead of skipping it."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@dataclass(frozen=True)
class Server:
    url: str
    db: Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


def need_chromium() -> None:
    """Skip the browser tests without Debian's chromium; under CI, fail instead."""
    if Path(CHROMIUM).exists():
        return
    message = (f"browser tests (tests/e2e) NOT run: {CHROMIUM} is not installed "
               "(`make browser`, or apt-get install -y chromium)")
    if in_ci():
        pytest.fail(message + " — under CI they are required", pytrace=False)
    pytest.skip(message)


@contextmanager
def demo_server(folder: Path) -> Iterator[Server]:
    """`sudya serve --demo` over a fresh demo database in `folder`, on a free port of
    127.0.0.1; stopped on leaving."""
    with serving(folder, folder / "demo.db", demo=True) as running:
        yield running


@contextmanager
def serving(folder: Path, db: Path, *, demo: bool = False, port: int | None = None,
            env: dict[str, str] | None = None) -> Iterator[Server]:
    """`sudya serve` over the SQLite file `db` (a fresh demo one with `demo`) on `port` (a
    free one when None) of 127.0.0.1, with `env` added to the environment; stopped (SIGTERM,
    a clean stop) on leaving: the same database and port serve again after it (a restart)."""
    port = port or free_port()
    log = (folder / "server.log").open("a")
    process = subprocess.Popen(
        [sys.executable, "-m", "sudya", "serve", *(["--demo"] if demo else []),
         "--db", f"sqlite:///{db}", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})}, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120  # a guard: a loaded machine starts it slowly
        while not _answers(f"{url}/login"):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("the server did not start:\n" + (folder / "server.log").read_text())
            time.sleep(0.1)
        yield Server(url=url, db=db)
    finally:
        process.terminate()  # a clean stop first (its checkpoint); then its whole group
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        log.close()


def wait_until(page: Page, expression: str, timeout_ms: float = 30_000) -> None:
    """Wait until a JavaScript expression is true in the page. Polled with `evaluate` (sent
    over the debugging protocol): `wait_for_function`'s polling evals its string in the page,
    which the pages' Content-Security-Policy refuses whenever the first look finds it false."""
    deadline = time.monotonic() + timeout_ms / 1000
    while page.evaluate(expression) is not True:
        assert time.monotonic() < deadline, f"not true in time: {expression}"
        page.wait_for_timeout(100)


def shot(page: Page, name: str) -> Path:
    """A full-page screenshot in artifacts/screenshots/NAME.png."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def sign_in(page: Page, username: str, next_url: str = "/tournaments") -> None:
    """Through the Russian login form, as a judge would."""
    page.goto(f"/login?next={next_url}")
    page.get_by_label("Имя пользователя").fill(username)
    page.get_by_label("Пароль").fill(PASSWORD)
    page.get_by_role("button", name="Войти").click()
    page.wait_for_url(f"**{next_url}")
    expect(page.get_by_role("button", name=f"Выйти ({username})")).to_be_visible()


def player_row(page: Page, handle: str) -> Locator:
    """The dashboard's line for one player in its list of players (their name, a link to
    their record, and «нарушение»)."""
    return page.locator(f"#people-found li[data-player='{handle}']")


def record_heading(handle: str) -> re.Pattern[str]:
    """A person's record page's heading: «История: <name> <handle>»."""
    return re.compile(rf"^История: .*\b{re.escape(handle)}$")


def record_rows(page: Page) -> Locator:
    """The rows of a person's record page (one per ruling about them)."""
    return page.locator("table tbody tr[class^='cause-']")


def rulings_in_db(server: Server) -> int:
    """How many rulings the ledger holds (read straight from the server's SQLite file)."""
    with sqlite3.connect(server.db) as conn:
        (n,) = conn.execute("SELECT count(*) FROM ruling").fetchone()
    return int(n)


def recorded_event(page: Page) -> str:
    """The event id in the dashboard's `?recorded=eN` after a confirmed ruling."""
    match = re.search(r"[?&]recorded=(e\d+)", page.url)
    assert match, f"not back on the dashboard with a recorded ruling: {page.url}"
    return match.group(1)
