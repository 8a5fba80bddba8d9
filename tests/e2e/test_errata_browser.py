"""Erratum E11 (../shared/spec/regulations.md §4) in a real browser: a ruling pending the
judge's choice reads «ожидает решения» (never «Без наказания»), the choice is offered by the
options' names, and once the judge decides, the pending ruling shows the decided sanctions.

The demo's team wargame (tournament 3): olga's serious cheating (e11) waits for the senior
judge sudya's choice (004: from −10 points and a yellow card to 0-20 and a red card). This
module starts a demo server of its own, so the decision shows in no other test.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from e2e_kit import PHONE, WARGAME, Server, demo_server, need_chromium, shot, sign_in
from playwright.sync_api import Browser, Locator, Page, expect


@pytest.fixture(scope="module")
def errata_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_chromium()
    with demo_server(tmp_path_factory.mktemp("errata")) as running:
        yield running


@pytest.fixture
def judge(browser: Browser, errata_server: Server) -> Iterator[Page]:
    """The senior judge's phone, signed in through the login form."""
    context = browser.new_context(**PHONE, base_url=errata_server.url)
    page = context.new_page()
    sign_in(page, "sudya")
    yield page
    context.close()


def olga_on_the_dashboard(page: Page) -> Locator:
    """olga's e11 in the dashboard's latest rulings."""
    response = page.goto(f"/t/{WARGAME}")
    assert response is not None and response.status == 200
    latest = page.locator("h2:text-is('Последние решения') + ul")
    return latest.locator("li.ruling").filter(has_text="e11").filter(has_text="по таблице")


def test_a_pending_ruling_awaits_the_judge_then_shows_the_decision(judge: Page) -> None:
    olga = olga_on_the_dashboard(judge)
    expect(olga).to_have_count(1)
    expect(olga.locator(".pending")).to_have_text("ожидает решения")
    expect(olga).not_to_contain_text("Без наказания")

    judge.goto(f"/t/{WARGAME}/pending")
    item = judge.locator("#pending-e11-olga")
    expect(item).not_to_contain_text("(min)")
    expect(item).not_to_contain_text("(max)")
    least = item.get_by_role("radio", name=re.compile(r"^Наименьшее: "))
    expect(item.get_by_role("radio", name=re.compile(r"^Наибольшее: "))).to_have_count(1)
    expect(item.get_by_role("radio", name="Штраф от 10 до 20 очков и жёлтая карточка")
           ).to_have_count(1)
    shot(judge, "e11-pending")
    least.check()
    item.get_by_role("button", name="Записать решение").click()
    judge.wait_for_url(re.compile(r"/pending\?decided=e11$"))
    expect(judge.get_by_role("status")).to_have_text("Решение записано: e11")

    olga = olga_on_the_dashboard(judge)
    expect(olga.locator(".pending")).to_have_count(0)
    decided = olga.locator(".decided")
    expect(decided).to_contain_text(re.compile(r"^решено \(e\d+\):"))
    expect(decided).to_contain_text("Штрафные очки: −10 очков")
    expect(decided).to_contain_text("Жёлтая карточка")
    shot(judge, "e11-decided")

    judge.goto(f"/t/{WARGAME}/people/olga")
    row = judge.locator("table tbody tr").filter(has_text="e11").filter(has_text="по таблице")
    expect(row.locator(".decided")).to_contain_text("решено")
    expect(row).to_contain_text("Штрафные очки: −10 очков")
