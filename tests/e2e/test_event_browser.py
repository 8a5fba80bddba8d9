"""Issue 36 in a real browser, on a phone: an organiser creates a tournament, uploads its 500
players from the list Russian Excel saves, pairs round 1 (250 tables), prints the result slips,
enters a result from a table card (the rest through the API, as scorekeepers' phones would),
and pairs round 2: nobody meets an opponent twice.

A demo server of the module's own, Debian's chromium, a phone-sized Russian context; the
390 px screenshots of the upload preview and the pairings go to artifacts/screenshots.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from e2e_kit import PHONE, Server, demo_server, need_chromium, shot, sign_in
from playwright.sync_api import Browser, Page, expect

PLAYERS = 500


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_chromium()
    with demo_server(tmp_path_factory.mktemp("event")) as running:
        yield running


@pytest.fixture
def organiser(browser: Browser, live_server: Server) -> Iterator[Page]:
    context = browser.new_context(**PHONE, base_url=live_server.url)
    page = context.new_page()
    sign_in(page, "glavsud")
    yield page
    context.close()


def tables_of(page: Page, tid: str, round: int) -> list[tuple[str, str]]:
    """The round's pairings, from its list by table (the page a venue prints)."""
    page.goto(f"/t/{tid}/round/tables?round={round}")
    rows = page.locator("table.pairings tbody tr")
    out = []
    for i in range(rows.count()):
        handles = rows.nth(i).locator(".handle").all_inner_texts()
        out.append((handles[0], handles[1]))
    return out


def test_an_organiser_runs_a_500_player_event_from_the_phone(organiser: Page,
                                                              tmp_path: Path) -> None:
    page = organiser
    page.goto("/tournaments")
    page.get_by_role("link", name="Новый турнир").click()
    page.get_by_label("Серия").select_option(label="Кубок «Берсерк» (berserk)")
    page.get_by_label("Название турнира").fill("Большой турнир")
    page.get_by_label("Уровень").select_option(label="Профессиональный")
    page.get_by_label("Рассадка").select_option("swiss")
    page.get_by_role("button", name="Создать турнир").click()
    page.wait_for_url(re.compile(r"/t/\d+/people$"))
    tid = re.search(r"/t/(\d+)/people", page.url).group(1)  # type: ignore[union-attr]

    rows = "".join(f"e{i:03d};Игрок {i:03d};;\n" for i in range(PLAYERS))
    players = tmp_path / "игроки.csv"
    players.write_bytes(("Ник;Имя;Команда;Стол\n" + rows).encode("cp1251"))
    page.get_by_label("Файл (CSV или XLSX)").set_input_files(str(players))
    page.get_by_role("button", name="Проверить список").click()
    expect(page.locator(".upload-preview")).to_contain_text("500 строк")
    shot(page, "event-upload-preview")
    page.get_by_role("button", name="Добавить 500 игроков").click()
    expect(page.get_by_role("status")).to_contain_text("Добавлено: 500")

    page.goto(f"/t/{tid}/pairings")
    page.locator("#swiss-round").fill("1")
    page.get_by_role("button", name="Составить пары тура").click()
    expect(page.get_by_role("status")).to_contain_text("столов — 250")
    shot(page, "event-pairings-round-1")
    first = tables_of(page, tid, 1)
    assert len(first) == PLAYERS // 2
    assert len({p for t in first for p in t}) == PLAYERS
    page.goto(f"/t/{tid}/round/slips?round=1")
    expect(page.locator("section.result-slip")).to_have_count(PLAYERS // 2)

    # a table card on the dashboard opens the result form filled in
    page.goto(f"/t/{tid}")
    page.locator("details#tables > summary").click()  # 250 tables: folded until asked
    card = page.locator(".table-card").first
    card.locator("summary").click()
    card.get_by_role("link", name="Внести результат").click()
    page.get_by_label("Счёт", exact=False).fill("2-0")
    page.get_by_role("button", name="Записать результат").click()
    expect(page.get_by_role("status")).to_contain_text("Результат записан")
    csrf = page.request.get("/api/v1/me").json()["csrf_token"]
    for i, (a, b) in enumerate(first[1:], start=1):
        r = page.request.post(f"/api/v1/tournaments/{tid}/results",
                              headers={"X-CSRF-Token": csrf},
                              data={"players": [a, b], "score": "2-1" if i % 2 else "0-2",
                                    "round": 1, "idempotency_key": f"r1-{i}"})
        assert r.status == 200, r.text()

    page.goto(f"/t/{tid}/pairings")
    page.locator("#swiss-round").fill("2")
    page.get_by_role("button", name="Составить пары тура").click()
    expect(page.get_by_role("status")).to_contain_text("столов — 250")
    second = tables_of(page, tid, 2)
    assert not {frozenset(t) for t in first} & {frozenset(t) for t in second}
