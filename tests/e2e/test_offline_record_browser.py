"""Issue 37: the whole record flow with no network, from a cold reload. A judge opened the
tournament once; the Wi-Fi drops; a record link opens the record form kept for offline use
(the service worker's copy of /t/ID/record/offline), with the player and the table from the
link; the judge picks the infraction and sees the ruling on a first offence, marked
«предварительно — без учёта истории»; the confirm goes to the outbox; a page never kept shows
the app's own offline page. Back online, the server rules the infraction with the player's
history and records it once; the judge sees what it recorded beside the preliminary ruling.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from e2e_kit import BERSERK, PHONE, Server, demo_server, need_chromium, shot, sign_in, wait_until
from playwright.sync_api import Browser, Page, expect
from test_live_offline import rulings_of, wait_controlled

KEPT = ("caches.open('sudya-v1').then(c => c.keys()).then(rs => rs.some(r => "
        "new URL(r.url).pathname === '/t/{tid}/record/offline'))")


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    need_chromium()
    with demo_server(tmp_path_factory.mktemp("offline")) as running:
        yield running


@pytest.fixture
def judge(browser: Browser, live_server: Server) -> Iterator[Page]:
    context = browser.new_context(**PHONE, base_url=live_server.url)
    page = context.new_page()
    sign_in(page, "sudya")
    yield page
    context.close()


def test_the_record_flow_with_no_network_from_a_cold_reload(judge: Page) -> None:
    page = judge
    page.goto(f"/t/{BERSERK}")
    wait_controlled(page)
    page.reload()  # the page asks the worker to keep the offline form (controlled now)
    wait_until(page, KEPT.format(tid=BERSERK), 10_000)
    before = len(rulings_of(page, "gleb"))

    page.context.set_offline(True)
    response = page.goto(f"/t/{BERSERK}/record?player=gleb&table=3&round=2")
    assert response is not None and response.from_service_worker
    expect(page.get_by_role("heading", level=1)).to_have_text("Записать нарушение")
    expect(page.locator("#offline-note")).to_contain_text("работает без связи")
    expect(page.get_by_label("Игрок")).to_have_value("gleb")
    expect(page.locator("#off-table")).to_have_value("3")
    page.get_by_label("Нарушение").select_option(label="Опоздания")
    preview = page.locator("#off-preview")
    expect(preview).to_be_visible()
    expect(preview).to_contain_text("Глеб")
    expect(preview).to_contain_text("предварительно — без учёта истории")
    preliminary = page.locator(".off-ruling").inner_text()
    assert preliminary
    shot(page, "offline-form-preliminary")
    page.get_by_role("button", name="Подтвердить и записать").click()
    outbox = page.locator("#outbox .outbox-count")
    expect(outbox).to_have_text("не отправлено: 1")
    expect(page.locator(".confirm-bar .failure")).to_contain_text("Сохранено на телефоне")
    shot(page, "offline-form-kept")

    # a page the phone never kept: the app's own offline page, not the browser's error
    response = page.goto(f"/t/{BERSERK}/standings?page=7")
    assert response is not None and response.from_service_worker
    expect(page.get_by_role("heading", level=1)).to_have_text("Нет связи")
    expect(outbox).to_have_text("не отправлено: 1")

    page.context.set_offline(False)
    page.goto(f"/t/{BERSERK}")
    answer = page.locator("#outbox .outbox-answers li")
    expect(answer).to_contain_text(re.compile(r"Отправлено: e\d+"), timeout=15_000)
    expect(answer).to_contain_text("Сервер записал:")
    expect(answer).to_contain_text("предварительно — без учёта истории")
    expect(answer.locator(".server-answer")).to_contain_text("gleb")
    shot(page, "offline-form-sent")
    sent = re.search(r"Отправлено: (e\d+)", answer.inner_text())
    assert sent is not None
    mine = rulings_of(page, "gleb")
    assert len(mine) == before + 1
    assert [r["event"] for r in mine].count(sent.group(1)) == 1
    assert mine[-1]["infraction"] == "procedure.tardiness"
