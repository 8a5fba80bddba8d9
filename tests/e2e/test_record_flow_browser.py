"""The record flow on a phone (390×844, Russian), issue 14: a preview bound to what it
previewed, the taps from the dashboard to a recorded ruling, the confirm button on the screen,
a failed confirm said beside the button, the undo.

On the session's demo server (conftest.py); what these tests record is about boris only (the
other modules' tests record against other players, see test_browser.py). Refusals record
nothing, and are checked to.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from e2e_kit import BERSERK, PHONE, Server, recorded_event, rulings_in_db, shot, wait_until
from playwright.sync_api import Locator, Page, Route, expect

SignedIn = Callable[..., Page]
HEIGHT = PHONE["viewport"]["height"]
CONFIRM = "Подтвердить и записать"


def form_url(player: str, infraction: str = "procedure.tardiness") -> str:
    return f"/t/{BERSERK}/record?infraction={infraction}&player={player}"


class Taps:
    """Every tap of the test goes through here, so the test can count them."""

    def __init__(self) -> None:
        self.count = 0

    def tap(self, target: Locator) -> None:
        self.count += 1
        target.click()


def confirm_button(page: Page) -> Locator:
    return page.get_by_role("button", name=CONFIRM)


def on_screen(target: Locator) -> bool:
    """Whether the element is wholly inside the phone's screen as it is scrolled now."""
    box = target.bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT


# ---------------------------------------------------------------------- four taps
def test_taps_from_the_dashboard_to_a_recorded_ruling(signed_in: SignedIn,
                                                      server: Server) -> None:
    page = signed_in("sudya")
    before = rulings_in_db(server)
    page.goto(f"/t/{BERSERK}")
    taps = Taps()
    tables = page.locator("section.tables")
    if tables.count():  # the round's tables: the table, then the player at it
        taps.tap(tables.locator("summary").filter(has_text="Борис Петров"))
        taps.tap(tables.locator("a[data-player='boris']"))
    else:  # the list of players
        taps.tap(page.locator(f"a[href^='/t/{BERSERK}/record?'][href*='player=boris']").first)
    # the infraction, in the list as it opens: the tournament's most used first, no typing
    infractions = page.locator("ul.infractions a")
    expect(infractions.first).to_be_visible()
    taps.tap(infractions.filter(has_text=re.compile("^Опоздания$")))
    # the ruling is previewed at once, its confirm on the screen
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()
    confirm = confirm_button(page)
    expect(confirm).to_be_visible()
    assert on_screen(confirm)
    shot(page, "record-flow-previewed")
    taps.tap(confirm)
    page.wait_for_url(re.compile(rf"/t/{BERSERK}\?recorded=e\d+$"))
    recorded_event(page)
    status = page.locator(".recorded[role=status]")
    expect(status).to_contain_text("Записано")
    expect(status).to_contain_text(re.compile(r" — .+ \((по таблице|повтор)\)"))
    assert rulings_in_db(server) > before
    assert taps.count <= 4, f"{taps.count} taps from the dashboard to a recorded ruling"
    shot(page, "record-flow-recorded")


# ---------------------------------------------------------------------- a bound preview
def test_changing_any_field_clears_the_preview(signed_in: SignedIn, server: Server) -> None:
    page = signed_in("sudya")
    before = rulings_in_db(server)
    page.goto(form_url("boris"))
    preview = page.locator("#preview")
    expect(preview).to_contain_text("boris")
    page.get_by_label("Игрок", exact=True).select_option("egor")
    expect(preview).to_have_count(0)
    expect(confirm_button(page)).to_have_count(0)
    expect(page.locator("input[name=preview_token]")).to_have_count(0)

    # previewed again for egor: typing in the round clears it too (the note does not: below)
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(preview).to_contain_text("egor")
    page.get_by_label("Тур").fill("3")
    expect(preview).to_have_count(0)
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(preview).to_be_visible()
    page.get_by_label("Выдано между партиями").check()
    expect(preview).to_have_count(0)
    assert rulings_in_db(server) == before


def test_typing_the_note_keeps_the_preview_and_records_it(signed_in: SignedIn,
                                                          server: Server) -> None:
    """Issue 37: typing «Что произошло» cleared the preview; the note changes nothing of the
    ruling, so the judge types it with the ruling on the screen and confirms."""
    page = signed_in("sudya")
    before = rulings_in_db(server)
    page.goto(form_url("boris"))
    preview = page.locator("#preview")
    expect(confirm_button(page)).to_be_visible()
    note = page.get_by_label("Что произошло")
    note.click()
    note.press_sequentially("Опоздал на 7 минут.", delay=20)
    page.wait_for_timeout(300)  # anything the typing might set off
    expect(preview).to_be_visible()
    expect(confirm_button(page)).to_be_visible()
    confirm_button(page).click()
    page.wait_for_url(re.compile(rf"/t/{BERSERK}\?recorded=e\d+$"))
    event = recorded_event(page)
    assert rulings_in_db(server) > before
    response = page.request.get(f"/api/v1/tournaments/{BERSERK}")
    assert response.status == 200
    mine = [r for r in response.json()["rulings"] if r["event"] == event]
    assert mine and all(r["subject"] == "boris" for r in mine)
    expect(page.locator("main")).to_contain_text("Опоздал на 7 минут.")


def test_a_changed_form_cannot_confirm_the_old_preview(signed_in: SignedIn,
                                                       server: Server) -> None:
    """Even when the page does not clear the preview (its script did not run, or the field
    was changed some other way), the server refuses fields that are not the ones previewed."""
    page = signed_in("sudya")
    before = rulings_in_db(server)
    page.goto(form_url("boris"))
    expect(confirm_button(page)).to_be_visible()
    # the select changed without any event the page listens to
    page.locator("select#player").evaluate("el => { el.value = 'egor'; }")
    expect(page.locator("#preview")).to_be_visible()
    confirm_button(page).click()
    refusal = page.locator("#preview-error")
    expect(refusal).to_contain_text("форма изменилась после предпросмотра: ничего не записано")
    expect(page.locator("#preview")).to_have_count(0)
    expect(page.get_by_label("Игрок", exact=True)).to_have_value("egor")  # the form is kept
    assert on_screen(refusal)
    shot(page, "record-flow-refused")
    assert rulings_in_db(server) == before


def test_without_javascript_a_changed_form_cannot_confirm_the_old_preview(
        signed_in: SignedIn, server: Server) -> None:
    page = signed_in("sudya", java_script_enabled=False)
    before = rulings_in_db(server)
    page.goto(form_url("boris"))
    expect(confirm_button(page)).to_be_visible()
    page.get_by_label("Игрок", exact=True).select_option("egor")  # nothing clears the preview
    confirm_button(page).click()
    page.wait_for_url(f"**/t/{BERSERK}/record/confirm")
    expect(page.locator("#preview-error")).to_contain_text(
        "форма изменилась после предпросмотра: ничего не записано")
    expect(page.get_by_label("Игрок", exact=True)).to_have_value("egor")
    expect(confirm_button(page)).to_have_count(0)
    assert rulings_in_db(server) == before


# ---------------------------------------------------------------------- in view
def test_the_confirm_button_is_on_the_screen_after_a_preview(signed_in: SignedIn) -> None:
    page = signed_in("sudya")
    page.goto(form_url("boris"))  # previewed as it opens
    expect(confirm_button(page)).to_be_visible()
    assert on_screen(confirm_button(page))
    # a new preview asked for from the bottom of the form
    page.get_by_label("Тур").fill("4")
    preview_button = page.get_by_role("button", name="Предпросмотр решения")
    preview_button.scroll_into_view_if_needed()
    preview_button.click()
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()
    confirm = confirm_button(page)
    expect(confirm).to_be_visible()
    wait_until(page, "(() => { const b = document.querySelector('button.confirm');"
                     " const r = b && b.getBoundingClientRect();"
                     " return !!r && r.top >= 0 && r.bottom <= innerHeight; })()")
    assert on_screen(confirm)
    # the confirm stays on the screen while the judge reads the ruling's explanation
    page.mouse.wheel(0, 300)
    page.wait_for_timeout(200)
    assert on_screen(confirm)
    shot(page, "record-flow-confirm-in-view")


# ---------------------------------------------------------------------- failed confirms
def answering(status: int, kind: str, body: str) -> Callable[[Route], None]:
    """A route handler answering every request with this status and body."""
    def answer(route: Route) -> None:
        route.fulfill(status=status, content_type=kind, body=body)

    return answer


def test_a_failed_confirm_says_so_beside_the_button_and_keeps_the_form(
        signed_in: SignedIn, server: Server) -> None:
    page = signed_in("sudya")
    before = rulings_in_db(server)
    page.goto(form_url("boris"))
    page.get_by_label("Что произошло").fill("опоздал на 7 минут")
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(confirm_button(page)).to_be_visible()
    answers = [
        (500, "text/plain", "boom", "Сбой на сервере (ошибка 500)"),
        (409, "application/json", '{"detail": "key"}', "Сервер отказал (ошибка 409)"),
        # a 503 that is not the app's own page (a proxy's) must not replace the form
        (503, "text/html", "<html><body><h1>Service Unavailable</h1></body></html>",
         "Сбой на сервере (ошибка 503)"),
    ]
    for status, kind, body, said in answers:
        page.route(f"**/t/{BERSERK}/record/confirm", answering(status, kind, body))
        confirm_button(page).click()
        message = page.locator("#confirm-error")
        expect(message).to_be_visible()
        expect(message).to_contain_text(said)
        expect(message).to_contain_text("ничего не записано" if status == 409
                                        else "Форма сохранена")
        # beside the button, the form as it was filled, the button usable again
        box, button = message.bounding_box(), confirm_button(page).bounding_box()
        assert box and button and 0 <= box["y"] - (button["y"] + button["height"]) < 40
        expect(page.get_by_label("Игрок", exact=True)).to_have_value("boris")
        expect(page.get_by_label("Что произошло")).to_have_value("опоздал на 7 минут")
        expect(confirm_button(page)).to_be_enabled()
        page.unroute(f"**/t/{BERSERK}/record/confirm")
        if status == 500:
            shot(page, "record-flow-failed-confirm")
    assert rulings_in_db(server) == before


# ---------------------------------------------------------------------- undo
def test_undo_after_confirming(signed_in: SignedIn, server: Server) -> None:
    page = signed_in("sudya")
    page.goto(form_url("boris", "gameplay.slow-play"))
    confirm_button(page).click()
    page.wait_for_url(re.compile(rf"/t/{BERSERK}\?recorded=e\d+$"))
    after_record = rulings_in_db(server)
    undo = page.get_by_role("button", name=re.compile("^Отменить"))
    expect(undo).to_be_visible()
    expect(undo).to_contain_text(re.compile(r"[01]:\d\d"))  # the time left
    undo.click()
    page.wait_for_url(re.compile(rf"/t/{BERSERK}\?undone=e\d+$"))
    status = page.locator(".recorded[role=status]")
    expect(status).to_contain_text("Отменено")
    expect(status).to_contain_text(" — ")
    expect(page.get_by_role("button", name=re.compile("^Отменить"))).to_have_count(0)
    assert rulings_in_db(server) == after_record + 1  # a correction: nothing deleted
    shot(page, "record-flow-undone")
