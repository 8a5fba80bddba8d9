"""Helpers for the browser tests (conftest.py holds the fixtures)."""

from __future__ import annotations

import re
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
PASSWORD = "sudya-demo"  # sudya.web.demo.PASSWORD
BERSERK, CLAN, WARGAME = 1, 2, 3  # the demo tournaments' ids, in the order demo.build makes them


@dataclass(frozen=True)
class Server:
    url: str
    db: Path


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
    """The dashboard's line for one player (their record link and «нарушение»)."""
    return page.get_by_role("listitem").filter(
        has=page.get_by_role("link", name=handle, exact=True))


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
