"""Browser tests: the real app (`python -m sudya serve --demo`) driven by Debian's chromium.

One server per test session, over a fresh demo database in a temporary folder; tests that
record something pick a player no other test records against, so their order does not matter.
Every context is phone-sized and Russian (390×844, ru-RU), like a judge's phone in the hall.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_kit import ROOT, SCREENSHOTS, Server, sign_in
from playwright.sync_api import Page

CHROMIUM = "/usr/bin/chromium"
PHONE = {"viewport": {"width": 390, "height": 844}, "locale": "ru-RU"}


def _free_port() -> int:
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


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`sudya serve --demo` on a free port of 127.0.0.1, stopped when the session ends."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    folder = tmp_path_factory.mktemp("e2e")
    db = folder / "demo.db"
    port = _free_port()
    log = (folder / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "sudya", "serve", "--demo", "--db", f"sqlite:///{db}",
         "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
        env={**os.environ, "PYTHONUNBUFFERED": "1"})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while not _answers(f"{url}/login"):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail("the demo server did not start:\n"
                            + (folder / "server.log").read_text())
            time.sleep(0.1)
        yield Server(url=url, db=db)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def base_url(server: Server) -> str:
    return server.url


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    """Debian's chromium, never a downloaded one (no `playwright install` here)."""
    return {"executable_path": CHROMIUM, "headless": True,
            "args": ["--no-sandbox", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-gpu"]}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any], base_url: str
                         ) -> dict[str, Any]:
    return {**browser_context_args, **PHONE, "base_url": base_url}


@pytest.fixture(scope="session", autouse=True)
def screenshots_folder() -> Path:
    """artifacts/screenshots/, emptied of the last run's pictures."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()
    return SCREENSHOTS


@pytest.fixture
def signed_in(new_context: Callable[..., Any]) -> Callable[..., Page]:
    """A new phone (browser context) signed in as a demo user through the login form."""

    def open_as(username: str, **context_args: Any) -> Page:
        page: Page = new_context(**context_args).new_page()
        sign_in(page, username)
        return page

    return open_as
