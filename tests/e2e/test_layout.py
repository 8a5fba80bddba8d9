"""The phone layout, measured in the browser at 390×844 on every main page.

For each page (signed in as the demo user who uses it):
- nothing is wider than the screen: the document does not scroll sideways and no element's box
  reaches past 390 px, except inside an element that scrolls sideways on purpose (`.scroll`);
- every visible tap target (link, button, field, select, summary, the label of a checkbox or a
  radio) is at least 44×44 px;
- the page's primary action (the main submit button of a form page) starts on the first screen.

A few main pages are also compared with reference screenshots (tests/e2e/screenshots/), with a
tolerance; `make screenshots` (SUDYA_UPDATE_SCREENSHOTS=1) stores new ones. The pictures are
made deterministic: DejaVu Sans is checked to be the font in use, animations, transitions and
the caret are off, and the demo's dates (the demo is built "today") are replaced by a fixed one.

These tests run on a demo server of their own, started fresh for this module, so what the
other browser tests record does not change the pages measured and photographed here.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

import pytest
from babel.dates import format_date
from e2e_kit import (
    BERSERK,
    CLAN,
    PHONE,
    ROOT,
    SCREENSHOTS,
    WARGAME,
    Server,
    demo_server,
    need_chromium,
    sign_in,
)
from PIL import Image, ImageChops
from playwright.sync_api import Browser, Page, expect

WIDTH, HEIGHT = PHONE["viewport"]["width"], PHONE["viewport"]["height"]
TAP = 44  # px: the smallest comfortable tap target (WCAG 2.5.5, Apple's HIG)
REFERENCES = Path(__file__).parent / "screenshots"
UPDATE = os.environ.get("SUDYA_UPDATE_SCREENSHOTS", "") not in ("", "0")
PIXEL_THRESHOLD = 32  # a pixel differs when a channel differs by more than this (of 255)
MAX_DIFFERING = 0.02  # a screenshot fails when more than this share of its pixels differ
FONT = "DejaVu Sans"  # what the references were made with (Debian's fonts-dejavu-core)


@dataclass(frozen=True)
class Screen:
    name: str
    url: str
    user: str | None  # the demo user signed in (sudya.app.demo.USERS); None: signed out
    primary: str | None = None  # CSS selector of the primary action, on the first screen
    then: Callable[[Page], None] | None = None  # what to do on the page before measuring
    shot: bool = False  # compared with tests/e2e/screenshots/NAME.png
    dark: bool = False  # the phone set to dark (prefers-color-scheme: dark)


def _preview(page: Page) -> None:
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()
    # record.js scrolls the preview into view once htmx has settled it: the picture is taken
    # once its confirm button is on the screen, not at whatever moment the swap came
    expect(page.get_by_role("button", name="Подтвердить и записать")).to_be_in_viewport(
        ratio=1)


def _open_table(page: Page) -> None:
    """The dashboard with the current round's table 2 opened on its players."""
    page.locator("#table-2 summary").click()
    expect(page.locator("#table-2 a.seat-player").first).to_be_visible()


TARDINESS = f"/t/{BERSERK}/record?infraction=procedure.tardiness&player=boris"
SCREENS = [
    Screen("login", "/login", None, primary="form button.primary", shot=True),
    Screen("tournaments", "/tournaments", "sudya", shot=True),
    Screen("dashboard", f"/t/{BERSERK}", "sudya", primary="a.button.primary", shot=True),
    Screen("dashboard-organiser", f"/t/{CLAN}", "glavsud"),
    Screen("dashboard-table", f"/t/{BERSERK}", "sudya", then=_open_table),
    Screen("dashboard-teams", f"/t/{WARGAME}", "glavsud"),
    Screen("pairings", f"/t/{BERSERK}/pairings", "glavsud", primary="form.card button.primary"),
    Screen("incidents", f"/t/{WARGAME}/incidents", "glavsud", primary="a.button.primary"),
    Screen("incidents-report", f"/t/{WARGAME}/incidents?player=olga&table=1&round=2",
           "mladshiy", primary="form.card button.primary"),
    Screen("dashboard-player", f"/t/{BERSERK}", "igrok"),
    Screen("record-search", f"/t/{BERSERK}/record?player=boris", "sudya", primary="#q"),
    Screen("record", TARDINESS, "sudya", primary="form.card button.primary", shot=True),
    Screen("record-preview", TARDINESS, "sudya", then=_preview),
    Screen("record-dark", TARDINESS, "sudya", then=_preview, shot=True, dark=True),
    Screen("record-inputs", f"/t/{BERSERK}/record?infraction=gameplay.missed-trigger"
           "&player=boris", "sudya", primary="form.card button.primary"),
    Screen("pending", f"/t/{WARGAME}/pending", "sudya"),
    Screen("pending-college", f"/t/{CLAN}/pending", "glavsud"),
    Screen("appeals", f"/t/{BERSERK}/appeals", "glavsud"),
    Screen("appeals-wargame", f"/t/{WARGAME}/appeals", "glavsud"),
    Screen("person", f"/t/{BERSERK}/people/boris", "sudya"),
    Screen("person-clan", f"/t/{CLAN}/people/veda", "glavsud"),
    Screen("team", f"/t/{CLAN}/teams/sever", "glavsud"),
    Screen("team-wargame", f"/t/{WARGAME}/teams/volki", "sudya"),
    Screen("standings", f"/t/{BERSERK}/standings", "sudya", shot=True),
    Screen("standings-clan", f"/t/{CLAN}/standings", "glavsud"),
    Screen("standings-wargame", f"/t/{WARGAME}/standings", "sudya"),
    Screen("results", f"/t/{BERSERK}/results", "glavsud", primary="form.card button.primary",
           shot=True),
    Screen("rounds", f"/t/{BERSERK}/rounds", "glavsud", primary="form.card button.primary"),
    Screen("match", f"/t/{BERSERK}/match?round=1", "sudya"),
    Screen("corrections", f"/t/{BERSERK}/corrections", "glavsud"),
    Screen("correct", f"/t/{BERSERK}/corrections/e13", "glavsud",
           primary="form.card button.primary"),
    Screen("rulebooks", "/rulebooks", "sudya"),
    Screen("rulebook", "/rulebooks/berserk?level=professional", "sudya", shot=True),
    Screen("rulebook-clan", "/rulebooks/clan-championship", "sudya"),
    Screen("rulebook-wargame", "/rulebooks/team-wargame", "sudya"),
    Screen("people", f"/t/{BERSERK}/people", "glavsud", primary="form.card button.primary"),
    Screen("decks", f"/t/{BERSERK}/decks", "sudya", primary="a.button.primary"),
    Screen("decks-check", f"/t/{BERSERK}/decks/check", "sudya",
           primary="form.card button.primary"),
    Screen("decks-check-list", f"/t/{BERSERK}/decks/check?list=2", "sudya"),
    Screen("decks-compare", f"/t/{BERSERK}/decks/compare", "sudya",
           primary="form.card button.primary"),
    Screen("squad", f"/t/{BERSERK}/squad", "sudya", primary="form.card button.primary"),
    Screen("clock", f"/t/{BERSERK}/clock", None, shot=True),
    Screen("record-offline", f"/t/{BERSERK}/record/offline", "sudya",
           primary="form.card button.primary"),
    Screen("offline", "/offline", None),
    Screen("matchups", f"/t/{WARGAME}/matchups?round=2&table=1", "glavsud",
           primary="form.card button.primary"),
    Screen("rulebook-editor", "/rulebooks/editor?from=berserk", "glavsud"),
]

# -------------------------------------------------------------------- measured in the page
MEASURE = """([width, tap]) => {
  const describe = (el) => {
    const parts = [];
    for (let e = el; e && e !== document.body && parts.length < 5; e = e.parentElement) {
      let s = e.tagName.toLowerCase();
      if (e.id) { parts.unshift(s + '#' + CSS.escape(e.id)); break; }
      if (e.classList.length) s += '.' + [...e.classList].join('.');
      const same = e.parentElement
        ? [...e.parentElement.children].filter((c) => c.tagName === e.tagName) : [];
      if (same.length > 1) s += ':nth-of-type(' + (same.indexOf(e) + 1) + ')';
      parts.unshift(s);
    }
    const text = (el.value || el.textContent || el.getAttribute('aria-label') || '')
      .replace(/\\s+/g, ' ').trim().slice(0, 40);
    return parts.join(' > ') + (text ? ' «' + text + '»' : '');
  };
  const size = (r) => Math.round(r.width) + '×' + Math.round(r.height) + ' px';
  const shown = (el) => el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true});
  // an ancestor that scrolls sideways on purpose and itself fits the screen
  const scroller = (el) => {
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === 'auto' || ox === 'scroll') {
        const b = p.getBoundingClientRect();
        return b.left >= -0.5 && b.right <= width + 0.5 ? p : null;
      }
    }
    return null;
  };
  const wide = [];
  const out = (r) => r.right > width + 0.5 || r.left < -0.5;
  for (const el of document.body.querySelectorAll('*')) {
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || !out(r) || scroller(el)) continue;
    // only the outermost offender: its children say nothing new
    const p = el.parentElement;
    if (p && p !== document.body && shown(p) && out(p.getBoundingClientRect())) continue;
    wide.push(describe(el) + ': ' + size(r) + ', from x=' + Math.round(r.left)
              + ' to x=' + Math.round(r.right));
  }
  // text that spills out of a box that itself fits (a long word, a long number)
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const p = n.parentElement;
    if (!n.nodeValue.trim() || !p || !shown(p) || out(p.getBoundingClientRect())) continue;
    range.selectNodeContents(n);
    const r = range.getBoundingClientRect();
    if (r.width === 0 || !out(r) || scroller(n)) continue;
    wide.push('the text of ' + describe(p) + ': from x=' + Math.round(r.left)
              + ' to x=' + Math.round(r.right));
  }
  const small = [];
  const targets = document.body.querySelectorAll(
    'a[href], button, input:not([type=hidden]), select, textarea, summary, label');
  for (const el of targets) {
    if (el.tagName === 'LABEL') {
      const c = el.control;
      if (!c || !['checkbox', 'radio'].includes(c.type)) continue;  // a plain field label
    }
    if (el.tagName === 'INPUT' && ['checkbox', 'radio'].includes(el.type)
        && el.labels && el.labels.length) continue;  // its label is the tap target
    if (!shown(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    if (r.height < tap - 0.01 || r.width < tap - 0.01) small.push(describe(el) + ': ' + size(r));
  }
  return {scrollWidth: document.documentElement.scrollWidth, wide, small};
}"""


# -------------------------------------------------------------------- the module's server
@pytest.fixture(scope="module")
def layout_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A demo server of this module's own: the pages as the demo builds them."""
    need_chromium()
    with demo_server(tmp_path_factory.mktemp("layout")) as running:
        yield running


@pytest.fixture(scope="module")
def phones(browser: Browser, layout_server: Server) -> Iterator[Callable[[str | None], Page]]:
    """A new page in a phone-sized context, signed in as `user` (one context per user,
    reused by this module's tests); reduced motion, light colours."""
    contexts: dict[str | None, Any] = {}

    def open_as(user: str | None) -> Page:
        if user not in contexts:
            context = browser.new_context(**PHONE, base_url=layout_server.url,
                                          reduced_motion="reduce", color_scheme="light",
                                          device_scale_factor=1)
            contexts[user] = context
            if user is not None:
                page = context.new_page()
                sign_in(page, user)
                page.close()
        page: Page = contexts[user].new_page()
        return page

    yield open_as
    for context in contexts.values():
        context.close()


def open_screen(phones: Callable[[str | None], Page], screen: Screen) -> Page:
    page = phones(screen.user)
    if screen.dark:
        page.emulate_media(color_scheme="dark")
    response = page.goto(screen.url)
    assert response is not None and response.status == 200, (screen.url, response)
    page.wait_for_load_state("networkidle")
    if screen.then is not None:
        screen.then(page)
        page.wait_for_load_state("networkidle")
    return page


# -------------------------------------------------------------------- 1. the layout
@pytest.mark.parametrize("screen", SCREENS, ids=[s.name for s in SCREENS])
def test_page_fits_a_phone(phones: Callable[[str | None], Page], screen: Screen) -> None:
    page = open_screen(phones, screen)
    found = page.evaluate(MEASURE, [WIDTH, TAP])
    problems: list[str] = []
    if found["scrollWidth"] > WIDTH:
        problems.append(f"the page scrolls sideways: {found['scrollWidth']} px wide on a "
                        f"{WIDTH} px screen")
    problems += [f"wider than the screen: {w}" for w in found["wide"]]
    problems += [f"tap target under {TAP}×{TAP}: {s}" for s in found["small"]]
    if screen.primary is not None:
        page.evaluate("window.scrollTo(0, 0)")
        primary = page.locator(screen.primary).first
        expect(primary).to_be_visible()
        box = primary.bounding_box()
        assert box is not None
        if box["y"] >= HEIGHT:
            problems.append(f"the primary action {screen.primary} starts at y={box['y']:.0f}, "
                            f"below the first screen ({HEIGHT} px)")
    page.close()
    if problems:
        pytest.fail(f"{screen.name} ({screen.url}) at {WIDTH}×{HEIGHT}, {len(problems)} "
                    "problems:\n  " + "\n  ".join(problems), pytrace=False)


# -------------------------------------------------------------------- 2. the screenshots
STILL = """() => {
  const style = document.createElement('style');
  style.textContent = '*, *::before, *::after { animation: none !important; '
    + 'transition: none !important; caret-color: transparent !important; }';
  document.head.appendChild(style);
  if (document.activeElement) document.activeElement.blur();
  // the demo is built today: its dates change from day to day, so they are replaced
  const dates = [
    [/\\d{1,2}\\s[а-яё]+\\.?\\s\\d{4}\\s?г\\./g, '1 янв. 2026 г.'],
    [/\\d{2}\\.\\d{2}\\.\\d{4},\\s\\d{1,2}:\\d{2}/g, '01.01.2026, 12:00'],
    [/\\d{2}\\.\\d{2}\\.\\d{4}/g, '01.01.2026'],
    [/\\d{4}-\\d{2}-\\d{2}/g, '2026-01-01'],
  ];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    let text = n.nodeValue;
    for (const [re, fixed] of dates) text = text.replace(re, fixed);
    if (text !== n.nodeValue) n.nodeValue = text;
  }
  return document.fonts.ready.then(() => true);
}"""


def fonts_in_use(page: Page) -> set[str]:
    """The platform fonts chromium draws the page's headings and text with (DevTools)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("DOM.enable")
    cdp.send("CSS.enable")
    root = cdp.send("DOM.getDocument")["root"]["nodeId"]
    families: set[str] = set()
    for selector in ("h1", "main p", "main label", "main a", "main td", "body"):
        node = cdp.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        if node:
            fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
            families |= {f["familyName"] for f in fonts}
    cdp.detach()
    return families


def differing(actual: Image.Image, reference: Image.Image) -> tuple[int, Image.Image]:
    """How many pixels differ beyond the threshold, and a picture of where (red on grey)."""
    channels = ImageChops.difference(actual, reference).split()
    most = ImageChops.lighter(ImageChops.lighter(channels[0], channels[1]), channels[2])
    mask = most.point(lambda v: 255 if v > PIXEL_THRESHOLD else 0)
    count = mask.histogram()[255]
    grey = reference.convert("L").point(lambda v: 160 + v * 95 // 255).convert("RGB")
    picture = Image.composite(Image.new("RGB", reference.size, (220, 0, 0)), grey, mask)
    return count, picture


SHOTS = [s for s in SCREENS if s.shot]


@pytest.mark.parametrize("screen", SHOTS, ids=[s.name for s in SHOTS])
def test_screenshot_matches_the_reference(phones: Callable[[str | None], Page],
                                          screen: Screen) -> None:
    page = open_screen(phones, screen)
    page.evaluate(STILL)
    text = page.inner_text("body")
    today = dt.date.today()
    for form in (format_date(today, "medium", locale="ru"), today.strftime("%d.%m.%Y"),
                 today.isoformat()):
        assert form not in text, f"today's date {form!r} is still on the page (see STILL)"
    fonts = fonts_in_use(page)
    assert fonts == {FONT}, (
        f"the page is drawn with {sorted(fonts)}, the reference screenshots with {FONT} "
        "only: install Debian's fonts-dejavu-core (`make browser`) so the comparison means "
        "something")
    png = page.screenshot(animations="disabled", caret="hide", scale="css")
    page.close()
    actual = Image.open(BytesIO(png)).convert("RGB")
    assert actual.size == (WIDTH, HEIGHT), actual.size
    reference_path = REFERENCES / f"{screen.name}.png"
    if UPDATE:
        REFERENCES.mkdir(parents=True, exist_ok=True)
        actual.save(reference_path, optimize=True)
        return
    where = reference_path.relative_to(ROOT)
    assert reference_path.exists(), (f"no reference screenshot {where}: "
                                     "`make screenshots` stores it")
    reference = Image.open(reference_path).convert("RGB")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    actual_path = SCREENSHOTS / f"layout-{screen.name}.png"
    actual.save(actual_path)
    assert reference.size == actual.size, (
        f"{where} is {reference.size}, the page {actual.size}: `make screenshots` to update")
    count, picture = differing(actual, reference)
    share = count / (WIDTH * HEIGHT)
    if share > MAX_DIFFERING:
        diff_path = SCREENSHOTS / f"layout-{screen.name}-diff.png"
        picture.save(diff_path)
        pytest.fail(
            f"{screen.name} ({screen.url}) differs from {where}: {count} pixels "
            f"({share:.1%}, more than {MAX_DIFFERING:.0%}) differ by more than "
            f"{PIXEL_THRESHOLD}/255; now: {actual_path.relative_to(ROOT)}, where: "
            f"{diff_path.relative_to(ROOT)}. If the change is meant, `make screenshots`.",
            pytrace=False)


# -------------------------------------------------------------------- 3. wide tables
STANDINGS = [(f"/t/{BERSERK}/standings", "sudya"), (f"/t/{CLAN}/standings", "glavsud"),
             (f"/t/{WARGAME}/standings", "sudya")]


@pytest.mark.parametrize(("url", "user"), STANDINGS, ids=["berserk", "clan", "wargame"])
def test_standings_scroll_in_their_box_with_the_names_in_view(
        phones: Callable[[str | None], Page], url: str, user: str) -> None:
    """A table wider than the phone scrolls sideways inside its own box (the page does not);
    scrolled to its far end, each row's name is still in view, on top of the cells."""
    page = phones(user)
    page.goto(url)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH
    scrolled = 0
    for box in page.locator(".scroll").all():
        wide, seen = box.evaluate("b => [b.scrollWidth, b.clientWidth]")
        if wide <= seen:
            continue
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; }")
        scrolled += 1
        edge = box.bounding_box()
        assert edge is not None
        for cell in box.locator("tbody td.who").all():
            where = cell.bounding_box()
            assert where is not None
            assert abs(where["x"] - edge["x"]) < 1, (url, where, edge)
            on_top = page.evaluate(
                "([x, y]) => !!document.elementFromPoint(x, y)?.closest('td.who')",
                [where["x"] + 4, where["y"] + where["height"] / 2])
            assert on_top, (url, cell.inner_text())
    page.close()
    if url.endswith(f"/t/{BERSERK}/standings"):
        assert scrolled, "the berserk standings are wider than a phone: they should scroll"


def test_a_field_moved_to_is_not_under_the_sticky_button(
        phones: Callable[[str | None], Page]) -> None:
    """On a page of several forms (the People page), the primary button of the form in view
    sticks to the bottom of the screen; a field the judge moves to (Tab, or the phone's
    «next») is scrolled above it."""
    page = phones("glavsud")
    page.goto(f"/t/{BERSERK}/people")
    fields = page.locator("form.card input:not([type=hidden]):not([type=file]), "
                          "form.card select")
    for i in range(fields.count()):
        field = fields.nth(i)
        if not field.is_visible():
            continue
        field.focus()
        form = field.locator("xpath=ancestor::form[1]")
        button = form.locator("button.primary")
        if button.count() == 0:
            continue
        box, under = field.bounding_box(), button.bounding_box()
        assert box is not None and under is not None
        assert box["y"] + box["height"] <= under["y"] + 0.5 or \
            box["y"] >= under["y"] + under["height"] - 0.5, (i, box, under)
