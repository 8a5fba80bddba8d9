"""The judges' app in a real browser on a phone-sized screen, in Russian.

Elements are found by their Russian labels and roles, so these tests also prove the Russian
UI is wired up (labels tied to fields, buttons named, errors described). Each test saves a
full-page screenshot of the main page it visits to artifacts/screenshots/.

Demo tournaments (sudya.app.demo): 1 — «Берсерк» (glavsud head judge, sudya floor judge,
igrok is the player alisa); 2 — the clan championship (glavsud organiser);
3 — the team wargame (sudya senior judge, mladshiy junior judge, who may not rule).
Players recorded against, one per test: dasha (1), vera and egor (2), alisa (4), gleb (9).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest
from e2e_kit import (
    BERSERK,
    CLAN,
    WARGAME,
    Server,
    player_row,
    record_heading,
    record_rows,
    recorded_event,
    rulings_in_db,
    shot,
    sign_in,
)
from playwright.sync_api import BrowserContext, Locator, Page, Request, Response, expect

SignedIn = Callable[..., Page]
Form = dict[str, str | float | bool]


def form_fields(form: Locator) -> Form:
    """What the form posts as it is on the screen: its hidden inputs, the values of its
    fields and selects, its checked boxes (the confirm button sends the whole record form)."""
    fields: Form = {}
    for i in form.locator("input[type=hidden]").all():
        fields[i.get_attribute("name") or ""] = i.get_attribute("value") or ""
    for i in form.locator("select, textarea, input:not([type=hidden])").all():
        name = i.get_attribute("name")
        if not name:
            continue
        if i.get_attribute("type") == "checkbox":
            if i.is_checked():
                fields[name] = i.get_attribute("value") or "on"
            continue
        fields[name] = i.input_value()
    return fields


def _requests_of(page: Page) -> list[Request]:
    """Every request the page makes from now on."""
    requests: list[Request] = []
    page.on("request", lambda r: requests.append(r))
    return requests


def _responses_of(page: Page) -> list[Response]:
    """Every response the page receives from now on."""
    responses: list[Response] = []
    page.on("response", lambda r: responses.append(r))
    return responses


def open_dashboard(page: Page, tid: int = BERSERK) -> None:
    page.goto(f"/t/{tid}")
    expect(page.get_by_role("heading", level=1)).to_be_visible()


def record_count(page: Page, tid: int, handle: str) -> int:
    response = page.goto(f"/t/{tid}/people/{handle}")
    assert response is not None and response.status == 200
    expect(page.get_by_role("heading", name=record_heading(handle))).to_be_visible()
    return record_rows(page).count()


def preview_tardiness(page: Page, handle: str) -> None:
    """From the dashboard: «нарушение» by the player, find «Опоздания»: the form opens with
    the ruling previewed (2 taps)."""
    player_row(page, handle).get_by_role("link", name="нарушение").click()  # tap 1
    page.get_by_label("Найдите нарушение").fill("опозд")  # typing, not a tap
    page.get_by_role("link", name="Опоздания").click()  # tap 2
    expect(page.get_by_label("Игрок", exact=True)).to_have_value(handle)
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()


# ---------------------------------------------------------------------- 1. record in 4 taps
def test_record_infraction_in_four_taps_with_preview(signed_in: SignedIn,
                                                     server: Server) -> None:
    page = signed_in("sudya")
    before_db = rulings_in_db(server)
    before = record_count(page, BERSERK, "dasha")
    open_dashboard(page)
    shot(page, "01-dashboard")

    preview_tardiness(page, "dasha")
    preview = page.locator("section.preview")
    ruling = preview.locator(".card.ruling")
    expect(ruling).to_contain_text("dasha")
    expect(ruling).to_contain_text("Опоздания")
    expect(ruling.locator(".cause")).to_have_text("по таблице")  # the cause
    expect(ruling.locator("ul.sanctions li")).to_have_text(["Штрафное очко"])  # professional
    expect(ruling).to_contain_text(re.compile(r"Источник: 00[02] "))  # «000 Приложение №2»
    expect(ruling).to_contain_text("Толкование")  # the rulebook's reading of a merged cell
    shot(page, "01-record-preview")

    # nothing is stored before the judge confirms: the record (another tab) does not have it
    other = page.context.new_page()
    assert record_count(other, BERSERK, "dasha") == before
    expect(other.locator("table")).not_to_contain_text("Опоздания")
    assert rulings_in_db(server) == before_db
    other.close()

    page.get_by_role("button", name="Подтвердить и записать").click()  # tap 3
    page.wait_for_url(re.compile(r"/t/1\?recorded=e\d+$"))
    event = recorded_event(page)
    # the ruling in words (the person's name, the sanction, the cause), not an event id
    status = page.locator(".recorded[role=status]")
    expect(status).to_contain_text("Записано")
    expect(status).to_contain_text(" — Штрафное очко (по таблице)")
    expect(status).not_to_contain_text(event)
    assert rulings_in_db(server) == before_db + 1

    assert record_count(page, BERSERK, "dasha") == before + 1
    row = record_rows(page).filter(has_text=event)
    expect(row).to_contain_text("Опоздания")
    expect(row).to_contain_text("Штрафное очко")
    expect(row).to_contain_text("по таблице")
    shot(page, "01-person-dasha")

    response = page.goto(f"/t/{BERSERK}/standings")
    assert response is not None and response.status == 200
    expect(page.get_by_role("heading", name="Положение")).to_be_visible()
    expect(page.get_by_role("row").filter(has_text="dasha")).to_have_count(1)
    shot(page, "01-standings")


# ---------------------------------------------------------------------- 2. double tap
@pytest.mark.parametrize(("javascript", "handle"), [(True, "vera"), (False, "egor")],
                         ids=["htmx", "no-js"])
def test_double_tap_on_confirm_records_once(signed_in: SignedIn, server: Server,
                                            javascript: bool, handle: str) -> None:
    page = signed_in("sudya", java_script_enabled=javascript)
    before = record_count(page, BERSERK, handle)
    before_db = rulings_in_db(server)
    open_dashboard(page)
    if javascript:
        preview_tardiness(page, handle)
    else:  # the search box filters as you type only with JavaScript
        page.goto(f"/t/{BERSERK}/record?infraction=procedure.tardiness&player={handle}")
        page.get_by_role("button", name="Предпросмотр решения").click()
        expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()

    confirm = page.locator("form.record-form")
    fields = form_fields(confirm)
    assert fields["key"] and fields["preview_token"] and fields["player"] == handle
    page.get_by_role("button", name="Подтвердить и записать").dblclick()
    page.wait_for_url(re.compile(r"/t/1\?recorded=e\d+$"))
    page.wait_for_load_state("networkidle")
    event = recorded_event(page)
    shot(page, f"02-double-tap-{'htmx' if javascript else 'nojs'}")

    # the second tap reaching the server anyway (a slow network, a resent form): the same
    # form with the same key is answered with the first ruling, not a second one
    again = page.request.post(f"/t/{BERSERK}/record/confirm", form=fields, max_redirects=0)
    assert again.status == 303
    assert again.headers["location"] == f"/t/{BERSERK}?recorded={event}"

    assert record_count(page, BERSERK, handle) == before + 1
    assert rulings_in_db(server) == before_db + 1


# ---------------------------------------------------------------------- 3. error beside field
def test_preview_without_player_shows_error_beside_the_select(signed_in: SignedIn,
                                                              server: Server) -> None:
    page = signed_in("sudya")
    before_db = rulings_in_db(server)
    open_dashboard(page)
    page.get_by_role("link", name="Записать нарушение").click()
    page.get_by_label("Найдите нарушение").fill("темп")
    page.get_by_role("link", name="Замедленный темп игры").click()
    player = page.get_by_label("Игрок", exact=True)
    expect(player).to_have_value("")
    page.get_by_role("button", name="Предпросмотр решения").click()

    player = page.get_by_label("Игрок", exact=True)  # the form was swapped in again
    expect(player).to_have_attribute("aria-invalid", "true")
    expect(player).to_have_accessible_description("Выберите игрока.")
    error = page.locator("#player + p.error")  # right after the select, not at the top
    expect(error).to_have_text("Выберите игрока.")
    expect(error).to_have_attribute("id", "player-error")
    select_box, error_box = player.bounding_box(), error.bounding_box()
    assert select_box and error_box
    assert 0 <= error_box["y"] - (select_box["y"] + select_box["height"]) < 40
    expect(page.get_by_role("button", name="Подтвердить и записать")).to_have_count(0)
    shot(page, "03-error-beside-player")
    assert rulings_in_db(server) == before_db


# ---------------------------------------------------------------------- 4. appeal
def test_player_appeals_and_head_judge_overturns(signed_in: SignedIn, server: Server) -> None:
    judge = signed_in("sudya")
    open_dashboard(judge)
    preview_tardiness(judge, "alisa")
    judge.get_by_role("button", name="Подтвердить и записать").click()
    judge.wait_for_url(re.compile(r"recorded=e\d+"))
    event = recorded_event(judge)

    player = signed_in("igrok")
    player.goto(f"/t/{BERSERK}/appeals")
    card = player.locator(f"#file-{event}-alisa")
    expect(card).to_contain_text("Опоздания")
    card.get_by_label("Почему Алиса Смирнова обжалует").fill("Я пришла вовремя")
    card.get_by_role("button", name="Подать апелляцию").click()
    player.wait_for_url(f"**/appeals?filed={event}")
    expect(player.get_by_role("status")).to_have_text(f"Апелляция подана: {event}")
    expect(player.locator(".card").filter(has_text="Алиса Смирнова обжалует")).to_contain_text(
        "Ждёт решения главного судьи.")
    shot(player, "04-appeal-filed")

    head = signed_in("glavsud")
    head.goto(f"/t/{BERSERK}/appeals")
    appeal = head.locator(".card").filter(
        has_text=f"Алиса Смирнова обжалует решение {event}")
    expect(appeal).to_contain_text("Я пришла вовремя")
    appeal.get_by_label("Отменить решение").check()
    appeal.get_by_role("button", name="Записать решение по апелляции").click()
    head.wait_for_url(f"**/appeals?appealed={event}")
    expect(head.get_by_role("status")).to_have_text(f"Решение по апелляции записано: {event}")
    shot(head, "04-appeal-decided")

    player.goto(f"/t/{BERSERK}/people/alisa")
    row = record_rows(player).filter(has_text=event).filter(has_text="Опоздания")
    sanction = row.locator(".sanction")
    expect(sanction).to_have_text("Штрафное очко")
    expect(sanction).to_have_class(re.compile(r"\bstate-revoked\b"))
    expect(row).to_contain_text("(отменено)")
    assert "line-through" in sanction.evaluate(
        "el => getComputedStyle(el).textDecorationLine")
    expect(record_rows(player).filter(has_text="апелляция")).to_contain_text(
        "решение отменено")
    shot(player, "04-person-alisa-revoked")


# ---------------------------------------------------------------------- 5. junior judge
def test_junior_judge_is_refused(signed_in: SignedIn, server: Server) -> None:
    page = signed_in("mladshiy")
    before_db = rulings_in_db(server)
    open_dashboard(page, WARGAME)
    expect(page.get_by_role("link", name="Записать нарушение")).to_have_count(0)
    expect(page.get_by_role("link", name="нарушение", exact=True)).to_have_count(0)
    csrf = page.locator("input[name=csrf]").first.get_attribute("value")

    response = page.goto(f"/t/{WARGAME}/record?player=ivan")
    assert response is not None and response.status == 403
    expect(page.get_by_role("alert")).to_contain_text("Невозможно")
    expect(page.get_by_role("alert")).to_contain_text(  # the core's refusal, in Russian
        "ваша роль не даёт выносить решения в турнире «Лига, тур 3»")
    expect(page.get_by_role("button", name="Предпросмотр решения")).to_have_count(0)
    shot(page, "05-junior-judge-refused")

    # nor by posting the form by hand (with a valid CSRF token)
    form: Form = {"csrf": csrf or "", "infraction": "disruptive-behaviour", "player": "ivan",
                  "key": "e2e-junior"}
    for step in ("preview", "confirm"):
        posted = page.request.post(f"/t/{WARGAME}/record/{step}", form=form,
                                   max_redirects=0)
        assert posted.status == 403, step
    assert rulings_in_db(server) == before_db


# ---------------------------------------------------------------------- 6. player's own record
def test_player_sees_only_their_own_record(signed_in: SignedIn) -> None:
    page = signed_in("igrok")
    open_dashboard(page)
    expect(page.get_by_role("link", name="Записать нарушение")).to_have_count(0)
    page.get_by_role("link", name="Моя история").click()
    page.wait_for_url(f"**/t/{BERSERK}/people/alisa")
    expect(page.get_by_role("heading", name=record_heading("alisa"))).to_be_visible()
    shot(page, "06-own-record")

    response = page.goto(f"/t/{BERSERK}/people/boris")
    assert response is not None and response.status == 403
    expect(page.get_by_role("alert")).to_contain_text("Игроку видна только своя история.")
    expect(page.locator("main")).not_to_contain_text("Замедленный темп игры")  # boris's
    shot(page, "06-other-record-refused")

    response = page.goto(f"/t/{BERSERK}/standings")
    assert response is not None and response.status == 200
    expect(page.get_by_role("heading", name="Положение")).to_be_visible()
    for handle in ("alisa", "boris"):
        expect(page.get_by_role("row").filter(has_text=handle)).to_have_count(1)
    shot(page, "06-standings")


# ---------------------------------------------------------------------- 7. English
def test_en_link_switches_the_ui_to_english(page: Page) -> None:
    page.goto("/login")
    expect(page.get_by_role("heading", name="Войти")).to_be_visible()
    expect(page.locator("html")).to_have_attribute("lang", "ru")
    page.get_by_role("link", name="EN", exact=True).click()
    expect(page.locator("html")).to_have_attribute("lang", "en")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    page.get_by_label("Username").fill("sudya")
    page.get_by_label("Password").fill("sudya-demo")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/tournaments")
    page.goto(f"/t/{BERSERK}")  # the choice is remembered (a cookie)
    expect(page.get_by_role("link", name="Record an infraction")).to_be_visible()
    expect(page.get_by_role("heading", name="Latest rulings", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="RU", exact=True)).to_be_visible()
    shot(page, "07-dashboard-english")


# ---------------------------------------------------------------------- 8. offline, light
def test_no_external_requests_and_light_pages(page: Page,
                                              new_context: Callable[..., BrowserContext]
                                              ) -> None:
    seen: list[str] = []
    page.context.on("request", lambda request: seen.append(request.url))
    sign_in(page, "sudya")  # the login page and its post count too
    for url in ("/tournaments", f"/t/{BERSERK}", f"/t/{BERSERK}/record",
                f"/t/{BERSERK}/people/boris", f"/t/{BERSERK}/appeals",
                f"/t/{BERSERK}/standings", f"/t/{BERSERK}/clock", "/rulebooks",
                "/rulebooks/berserk"):
        response = page.goto(url)
        assert response is not None and response.status == 200, url
    page.goto(f"/t/{BERSERK}/record?player=boris")  # htmx requests: search and preview
    page.get_by_label("Найдите нарушение").fill("темп")
    page.get_by_role("link", name="Замедленный темп игры").click()
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert len(seen) > 20
    outside = [u for u in seen if urlsplit(u).hostname != "127.0.0.1"]
    assert not outside, outside

    # page weight: each page loaded afresh (nothing cached) with its css and js
    state = page.context.storage_state()
    weights: dict[str, int] = {}
    for url in (f"/t/{BERSERK}", f"/t/{BERSERK}/record", f"/t/{BERSERK}/standings"):
        fresh = new_context(storage_state=state).new_page()
        responses = _responses_of(fresh)
        fresh.goto(url)  # waits for the load event: the css and the (deferred) js are in
        counted = [r for r in responses
                   if r.request.resource_type in ("document", "stylesheet", "script")]
        kinds = {r.request.resource_type for r in counted}
        assert kinds == {"document", "stylesheet", "script"}, (url, kinds)
        weights[url] = sum(len(r.body()) for r in counted)
        fresh.context.close()
    shot(page, "08-record-preview")
    heavy = {url: w for url, w in weights.items() if w >= 150 * 1024}
    assert not heavy, weights


# ---------------------------------------------------------------------- 9. no JavaScript
def test_core_forms_work_without_javascript(signed_in: SignedIn, server: Server) -> None:
    page = signed_in("sudya", java_script_enabled=False)  # the login form, posted plainly
    requests = _requests_of(page)
    before_db = rulings_in_db(server)
    open_dashboard(page)
    player_row(page, "gleb").get_by_role("link", name="нарушение").click()
    page.get_by_label("Найдите нарушение").fill("опозд")
    page.get_by_role("button", name="Найти").click()  # shown inside <noscript>
    page.wait_for_url("**/record?*q=*")
    page.get_by_role("link", name="Опоздания").click()
    expect(page.get_by_label("Игрок", exact=True)).to_have_value("gleb")
    page.get_by_label("Тур").fill("2")
    page.get_by_role("button", name="Предпросмотр решения").click()
    page.wait_for_url(f"**/t/{BERSERK}/record/preview")  # a plain form post, whole page
    ruling = page.locator("section.preview .card.ruling")
    expect(ruling).to_contain_text("gleb")
    expect(ruling.locator("ul.sanctions li")).to_have_text(["Штрафное очко"])
    expect(ruling).to_contain_text(re.compile(r"Источник: 00[02] "))
    shot(page, "09-nojs-preview")
    assert rulings_in_db(server) == before_db

    page.get_by_role("button", name="Подтвердить и записать").click()
    page.wait_for_url(re.compile(r"/t/1\?recorded=e\d+$"))  # 303 after the post
    event = recorded_event(page)
    expect(page.locator(".recorded[role=status]")).to_contain_text(
        " — Штрафное очко (по таблице)")
    assert rulings_in_db(server) == before_db + 1
    assert not [r for r in requests if r.headers.get("hx-request")]  # no htmx involved

    page.goto(f"/t/{BERSERK}/people/gleb")
    expect(record_rows(page).filter(has_text=event)).to_contain_text("Опоздания")
    shot(page, "09-nojs-person-gleb")


# ---------------------------------------------------------------------- 10. clock, rulebook
def test_projector_clock_and_rulebook_browser(signed_in: SignedIn, page: Page) -> None:
    organiser = signed_in("glavsud")
    organiser.goto(f"/t/{CLAN}/rounds")
    organiser.get_by_label("Тур").fill("1")
    organiser.get_by_label("Минут").fill("50")
    organiser.get_by_role("button", name="Начать тур сейчас").click()
    expect(organiser.get_by_role("status")).to_have_text("Тур начался.")

    page.goto(f"/t/{CLAN}/clock")  # public: the projector is not signed in
    expect(page.get_by_role("heading", level=1)).to_have_text("Весенний этап · Тур 1")
    clock = page.locator("#time")
    expect(clock).to_have_text(re.compile(r"^(50:00|49:[0-5]\d)$"))
    expect(page.locator("#state")).to_have_text("50 мин")
    first = clock.inner_text()
    expect(clock).not_to_have_text(first, timeout=3000)  # it counts down by itself
    shot(page, "10-clock")

    page.goto("/rulebooks")
    page.get_by_role("link", name="«Берсерк» — уложение о пенальти").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("«Берсерк» — уложение о пенальти")
    page.get_by_role("link", name="Профессиональный").click()
    expect(page.get_by_role("heading", name="Нарушения · Профессиональный")).to_be_visible()
    expect(page.get_by_text("Замедленный темп игры").first).to_be_visible()
    expect(page.locator("main")).to_contain_text("Источник: 000 Приложение №2")
    shot(page, "10-rulebook")


# ---------------------------------------------------------------------- found and fixed
def test_preview_names_levels_in_russian(signed_in: SignedIn) -> None:
    page = signed_in("sudya")
    page.goto(f"/t/{BERSERK}/record?infraction=procedure.tardiness&player=boris")
    page.get_by_role("button", name="Предпросмотр решения").click()
    table = page.locator("section.preview p").filter(has_text="Таблица пенальти:")
    expect(table).to_be_visible()
    expect(table).to_contain_text("Любительский — Предупреждение", timeout=300)


def test_preview_history_in_russian(signed_in: SignedIn) -> None:
    page = signed_in("sudya")
    page.goto(f"/t/{BERSERK}/record?infraction=procedure.tardiness&player=boris")
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(page.get_by_role("heading", name="Важная история")).to_be_visible()
    history = page.locator("section.preview ul.list").filter(has_text="e13")
    expect(history).to_contain_text("Замедленный темп игры", timeout=300)
    expect(history).to_contain_text("Предупреждение", timeout=300)


def test_standings_status_in_russian(page: Page) -> None:
    page.goto(f"/t/{BERSERK}/standings")
    row = page.get_by_role("row").filter(has_text="alisa")
    expect(row).to_be_visible()
    expect(row).not_to_contain_text("active", timeout=300)


def test_refusal_page_keeps_the_signed_in_header(signed_in: SignedIn) -> None:
    page = signed_in("mladshiy")
    page.goto(f"/t/{WARGAME}/record")
    expect(page.get_by_role("alert")).to_contain_text("Невозможно")
    expect(page.get_by_role("button", name="Выйти (mladshiy)")).to_be_visible(timeout=300)


def test_sign_in_lands_on_the_page_asked_for(page: Page) -> None:
    """A judge sent to the login page from a tournament comes back to it."""
    page.goto(f"/t/{BERSERK}/record")
    page.wait_for_url(f"**/login?next=/t/{BERSERK}/record")
    sign_in(page, "sudya", next_url=f"/t/{BERSERK}/record")
    expect(page.get_by_role("heading", name="Записать нарушение")).to_be_visible()
