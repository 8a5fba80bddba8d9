"""The dashboard's tables on a phone (390×844, Debian's chromium): a judge taps a table of the
current round, then a player, and lands on the record form with the table, the player and the
round filled in; the search finds a player by a name typed with «е» for «ё».

The demo pairs round 2 of the «Берсерк» tournament: table 2 is Вера Кузнецова — Борис Петров.
Nothing is recorded here, so the shared demo server's other tests are not disturbed.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from e2e_kit import BERSERK, WARGAME, shot
from playwright.sync_api import Page, expect

SignedIn = Callable[..., Page]


def test_table_then_player_opens_the_record_form_filled_in(signed_in: SignedIn) -> None:
    page = signed_in("sudya")
    page.goto(f"/t/{BERSERK}")
    tables = page.locator("section.tables")
    expect(tables.get_by_role("heading", level=2)).to_have_text("Столы · тур 2")
    boris = tables.locator("a.seat-player[data-player='boris']")
    expect(boris).to_be_hidden()  # a table shows its players once tapped
    table = page.locator("#table-2 summary")
    expect(table).to_contain_text("Вера Кузнецова — Борис Петров")
    # the search comes first, on the first screen; the tables further down
    search = page.get_by_label("Стол, имя или фамилия")
    assert search.bounding_box()["y"] < 400  # type: ignore[index]
    table.click()  # tap 1
    expect(boris).to_be_visible()
    expect(boris).to_have_text("Борис Петров boris")
    shot(page, "tables-01-table-open")
    boris.click()  # tap 2
    page.wait_for_url(re.compile(rf"/t/{BERSERK}/record\?table=2&player=boris&round=2$"))
    form = page.locator("form.search")
    expect(form.locator("input[name=player]")).to_have_value("boris")
    expect(form.locator("input[name=round]")).to_have_value("2")
    expect(form.locator("input[name=table]")).to_have_value("2")
    # the infraction (tap 3) opens the ruling's form with the player and the round in it
    page.get_by_label("Найдите нарушение").fill("опозд")
    page.get_by_role("link", name="Опоздания").click()
    expect(page.get_by_label("Игрок", exact=True)).to_have_value("boris")
    expect(page.get_by_label("Тур", exact=True)).to_have_value("2")
    shot(page, "tables-02-record-form")


def test_search_finds_a_player_by_name_and_by_table(signed_in: SignedIn) -> None:
    page = signed_in("glavsud")
    page.goto(f"/t/{WARGAME}")
    search = page.get_by_label("Стол, имя или фамилия")
    search.fill("елкин")  # «Иван Ёлкин»: «е» finds «ё»
    found = page.locator("#people-found li[data-player]")
    expect(found).to_have_count(1)
    expect(found.first).to_contain_text("Иван Ёлкин")
    expect(found.first).to_contain_text("стол 1")
    search.fill("1")  # table 1: both teams
    expect(found).to_have_count(4)
    shot(page, "tables-03-search")
