"""Browser tests: the real app (`python -m sudya serve --demo`) driven by Debian's chromium.

One server per test session, over a fresh demo database in a temporary folder; tests that
record something pick a player no other test records against, so their order does not matter.
(test_layout.py starts a server of its own, so what these tests record never shows in its
measurements and screenshots.)
Every context is phone-sized and Russian (390×844, ru-RU), like a judge's phone in the hall.

Without /usr/bin/chromium the browser tests are skipped with a reason saying so, except under
CI (CI=true), where that fails the run: a CI run must not pass without its browser tests.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from e2e_kit import CHROMIUM, PHONE, Server, demo_server, need_chromium, sign_in
from playwright.sync_api import Page


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here drives a browser: marked so (`pytest -m "not browser"`)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The session's demo server, shared by the tests of test_browser.py."""
    need_chromium()
    with demo_server(tmp_path_factory.mktemp("e2e")) as running:
        yield running


@pytest.fixture(scope="session")
def base_url(server: Server) -> str:
    return server.url


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    """Debian's chromium, never a downloaded one (no `playwright install` here)."""
    need_chromium()
    return {"executable_path": CHROMIUM, "headless": True,
            "args": ["--no-sandbox", "--disable-background-networking",
                     "--disable-component-update", "--disable-sync", "--disable-gpu"]}


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict[str, Any], base_url: str
                         ) -> dict[str, Any]:
    return {**browser_context_args, **PHONE, "base_url": base_url}


@pytest.fixture
def signed_in(new_context: Callable[..., Any]) -> Callable[..., Page]:
    """A new phone (browser context) signed in as a demo user through the login form."""

    def open_as(username: str, **context_args: Any) -> Page:
        page: Page = new_context(**context_args).new_page()
        sign_in(page, username)
        return page

    return open_as
