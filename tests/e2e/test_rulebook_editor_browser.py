"""The rulebook editor in a real browser (issues 17, 39): an organiser types a small rulebook
from scratch, sees the error beside its line once the YAML is broken (and Publish disabled),
mends it, publishes it, and a new tournament runs under the published edition; and on a phone
an organiser copies the berserk rulebook, changes one cell of its table, sees a case fail in
words, accepts the new result and publishes from a date, in at most 12 taps.

This module starts a demo server of its own: the rulebook it publishes shows in no other test.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_kit import PHONE, SCREENSHOTS, Server, demo_server, need_chromium, shot, sign_in
from playwright.sync_api import Browser, Locator, Page, expect

ROOT = Path(__file__).resolve().parents[2]
TINY = (ROOT / "tests" / "rulebooks" / "data" / "tiny.yaml").read_text("utf-8")
# the tiny rulebook under an id of its own, without its comment line (typed key by key)
TEXT = "\n".join(line for line in TINY.replace("id: tiny", "id: tiny-e2e").splitlines()
                 if not line.startswith("#")) + "\n"


@pytest.fixture(scope="module")
def editor_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_chromium()
    with demo_server(tmp_path_factory.mktemp("editor")) as running:
        yield running


@pytest.fixture
def organiser(browser: Browser, editor_server: Server) -> Iterator[Page]:
    context = browser.new_context(**PHONE, base_url=editor_server.url)
    page = context.new_page()
    sign_in(page, "glavsud")
    yield page
    context.close()


def test_a_rulebook_written_from_scratch_is_published_and_used(
        organiser: Page, editor_server: Server) -> None:
    page = organiser
    page.goto("/rulebooks")
    page.get_by_role("link", name="Написать регламент").click()
    page.wait_for_url("**/rulebooks/editor")
    text = page.get_by_label("Регламент (YAML)")
    # the text as a paste, its last line typed key by key (the check runs as one types)
    head, last = TEXT.rstrip("\n").rsplit("\n", 1)
    text.click()
    page.keyboard.insert_text(head + "\n")
    text.press_sequentially(last)
    report = page.locator("#problems")
    expect(report).to_contain_text("Регламент загружается", timeout=10_000)
    publish = page.get_by_role("button", name="Опубликовать")
    expect(publish).to_be_enabled()
    expect(page.locator("#catalogue")).to_contain_text("Шум")

    # broken: the level list's first item left open on line 5; the parser stops on line 6
    text.fill(TEXT.replace("  - {id: low, name: {ru: \"Низкий\", en: \"Low\"}}",
                           "  - {id: low, name: {ru: \"Низкий\", en: \"Low\"}"))
    text.press("End")
    problem = report.locator("tr.problem")
    expect(problem.first).to_contain_text("Ошибка YAML")
    expect(problem.first.locator("a.goto-line")).to_have_text("строка 6")
    expect(page.locator("#draft-lines")).to_contain_text("▶6")
    expect(publish).to_be_disabled()
    expect(page.locator("#publish-reasons")).to_contain_text("не загружается")
    shot(page, "rulebook-editor-error")

    text.fill(TEXT)
    text.press("End")
    expect(report).to_contain_text("Регламент загружается")
    expect(publish).to_be_enabled()
    page.get_by_label("Действует с").fill("2027-01-01")
    page.get_by_label("Что меняет редакция").fill("Первая редакция")
    publish.click()
    expect(page.locator("#publish-preview")).to_contain_text("Что изменится")
    page.get_by_role("button", name="Опубликовать с этого дня").click()
    expect(page.locator("main")).to_contain_text("Редакция 1 регламента tiny-e2e опубликована")

    # a new tournament takes the published edition
    db = f"sqlite:///{editor_server.db}"
    subprocess.run([sys.executable, "-m", "sudya", "tournament", "create", "--name",
                    "Кубок клуба", "--series", "Клуб", "--date", "2027-02-01", "--rulebook",
                    "tiny-e2e", "--level", "low", "--db", db], cwd=ROOT, check=True,
                   capture_output=True, timeout=60)
    with sqlite3.connect(editor_server.db) as conn:
        row = conn.execute("SELECT s.rulebook, t.edition FROM tournament t JOIN series s "
                           "ON s.id = t.series_id WHERE t.name = ?", ("Кубок клуба",)).fetchone()
    assert row == ("tiny-e2e", "1")


class Taps:
    """Counts what the organiser's finger does: a tap on a link, button or field, and a
    choice in a list (two: the list opens, then the choice)."""

    def __init__(self, page: Page) -> None:
        self.page, self.count = page, 0

    def tap(self, target: Locator) -> None:
        self.count += 1
        target.click()

    def choose(self, target: Locator, value: str) -> None:
        self.count += 2
        target.select_option(value)

    def type(self, target: Locator, text: str) -> None:
        self.tap(target)
        target.fill(text)


def viewport_shot(page: Page, name: str) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"))


def test_an_organiser_changes_one_cell_and_publishes_from_a_date_on_a_phone(
        organiser: Page) -> None:
    """Issue 39's task: copy, change one cell, see a case fail in words, fix the case, publish
    from a date — at most 12 taps besides typing, on a 390 px phone, no YAML."""
    page = organiser
    taps = Taps(page)
    page.goto("/rulebooks")
    taps.tap(page.locator('a[href="/rulebooks/editor?from=berserk"]'))  # «править»
    page.wait_for_url("**/rulebooks/editor?from=berserk")
    expect(page.locator("#yaml")).not_to_have_attribute("open", "")  # the YAML stays folded
    viewport_shot(page, "rulebook-form-top")
    taps.type(page.get_by_label("Найти нарушение"), "темп")
    row = page.locator(".rule-row").filter(has_text="Замедленный темп игры")
    expect(row).to_be_visible()
    expect(page.locator(".rule-row:visible")).to_have_count(1)
    viewport_shot(page, "rulebook-form-found")
    cell = row.get_by_label("Профессиональный")
    expect(cell).to_have_value("warning")
    taps.choose(cell, "game-loss")
    # written, checked and the cases run: the one that had slow play fails, in words
    case = page.locator("#cases .case").filter(has_text="berserk-basics")
    expect(case).to_contain_text("ожидали Предупреждение, получили Поражение в партии",
                                 timeout=20_000)
    expect(page.locator(".rule-row").filter(has_text="Замедленный темп игры")
           .get_by_label("Профессиональный")).to_have_value("game-loss")
    expect(page.locator(".rule-row:visible")).to_have_count(1)  # the search kept
    case.scroll_into_view_if_needed()
    viewport_shot(page, "rulebook-form-case-fails")
    taps.tap(case.get_by_role("button", name="Принять новый результат"))
    expect(page.locator("#cases .case").filter(has_text="berserk-basics")).to_contain_text(
        "проходит", timeout=20_000)
    expect(page.locator("#cases-result")).to_contain_text("Проходят: 8 из 8")
    taps.type(page.get_by_label("Действует с"), "2027-01-01")
    taps.type(page.get_by_label("Что меняет редакция"),
              "Замедленный темп на профессиональном уровне — поражение в партии")
    taps.tap(page.get_by_role("button", name="Опубликовать…"))
    preview = page.locator("#publish-preview")
    expect(preview).to_contain_text("Что изменится", timeout=20_000)
    expect(preview).to_contain_text("1 января 2027")
    expect(preview).to_contain_text("Кубок «Берсерк»")
    preview.scroll_into_view_if_needed()
    viewport_shot(page, "rulebook-form-preview")
    taps.tap(page.get_by_role("button", name="Опубликовать с этого дня"))
    expect(page.locator("main")).to_contain_text("Редакция 2 регламента berserk опубликована")
    assert taps.count <= 12, taps.count
    # nothing on the way scrolled the page sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
