"""Issue 37 in a real browser: the report pages on a judge's phone (390 × 844, Debian's
chromium) at a 500-player, 250-table event with rulings, a suspension, an appeal and a
correction (`sudya.app.demo_large`, 3 rounds, built into a fresh demo database before the
server of this module starts; glavsud is its organiser and head judge).

Each page — the judge report (its first 16 places and the whole table), the DQ report, a
person's record page and its printable record, a penalty slip — is measured as test_layout.py
measures the main pages: the document does not scroll sideways, no box reaches past 390 px
(except inside a box that scrolls sideways on purpose), and every link is at least 44 × 44 px,
the report's own links (PDF, CSV, a ruling's slip, a disqualification's report, the whole
table) among them. The first screens of three of them are compared with reference screenshots
(tests/e2e/screenshots/, `make screenshots` stores new ones); every page's first screen is
also saved to artifacts/screenshots/ for a person to look at.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from dataclasses import dataclass
from io import BytesIO

import pytest
from e2e_kit import PHONE, ROOT, SCREENSHOTS, Server, need_chromium, serving, sign_in
from PIL import Image
from playwright.sync_api import Browser, Page
from sqlalchemy import select
from test_layout import (
    FONT,
    HEIGHT,
    MAX_DIFFERING,
    MEASURE,
    PIXEL_THRESHOLD,
    REFERENCES,
    STILL,
    TAP,
    UPDATE,
    WIDTH,
    differing,
    fonts_in_use,
)

from sudya.adapters.db import models as m
from sudya.app.accounts import assign
from sudya.app.demo import build
from sudya.app.demo_large import LargeEvent, add_large_event
from sudya.app.ledger import Ledger

ROUNDS = 3
DAY = dt.date(2026, 1, 1)  # the event's date: the same pictures every day


@dataclass(frozen=True)
class ReportPage:
    name: str
    path: str  # {t}: the tournament, {dq}: the suspension's event, {p}: the suspended player,
    # {e}: an appealed ruling's event
    links: str  # CSS selector of the report's own links on the page (at least one each)
    shot: bool = False  # compared with tests/e2e/screenshots/reports-500-NAME.png


PAGES = [
    ReportPage("judge-report", "/t/{t}/report", "nav.page-links a, a.slip-link, a.more, "
               "table.statuses a", shot=True),
    ReportPage("judge-report-all", "/t/{t}/report?standings=all",
               "nav.page-links a, a.slip-link, table.statuses a"),
    ReportPage("dq-report", "/t/{t}/report/dq/{dq}", "nav.page-links a", shot=True),
    ReportPage("person", "/t/{t}/people/{p}", "main a[href$='/record'], main a[href*='/slips/']"),
    ReportPage("person-record", "/t/{t}/people/{p}/record", "nav.page-links a", shot=True),
    ReportPage("slip", "/t/{t}/slips/{e}", "nav.page-links a"),
]


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, LargeEvent]]:
    """The demo and the 500-player event in one SQLite file, served."""
    need_chromium()
    folder = tmp_path_factory.mktemp("reports500")
    db = folder / "large.db"
    engine = build(db)
    ledger = Ledger(engine)
    event = add_large_event(ledger, rounds=ROUNDS, date=DAY)
    with ledger.uow().begin() as s:
        glavsud = s.scalars(select(m.User).where(m.User.username == "glavsud")).one()
        assign(s, user=glavsud, tournament_id=event.tournament, role="organiser")
    ledger.shutdown()
    engine.dispose()
    with serving(folder, db) as running:
        yield running, event


@pytest.fixture(scope="module")
def phone(browser: Browser, large: tuple[Server, LargeEvent]) -> Iterator[Page]:
    """glavsud's phone: light colours, reduced motion, one CSS pixel a pixel."""
    context = browser.new_context(**PHONE, base_url=large[0].url, reduced_motion="reduce",
                                  color_scheme="light", device_scale_factor=1)
    page = context.new_page()
    sign_in(page, "glavsud")
    yield page
    context.close()


def url_of(report: ReportPage, event: LargeEvent) -> str:
    return report.path.format(t=event.tournament, dq=event.suspension, p=event.suspended,
                              e=event.appealed)


def opened(phone: Page, report: ReportPage, event: LargeEvent) -> Page:
    response = phone.goto(url_of(report, event))
    assert response is not None and response.status == 200, (report.path, response)
    phone.wait_for_load_state("networkidle")
    return phone


@pytest.mark.parametrize("report", PAGES, ids=[p.name for p in PAGES])
def test_a_report_page_fits_a_phone_at_500_players(
        phone: Page, large: tuple[Server, LargeEvent], report: ReportPage) -> None:
    page = opened(phone, report, large[1])
    found = page.evaluate(MEASURE, [WIDTH, TAP])
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"reports-500-{report.name}.png"))
    problems = []
    if found["scrollWidth"] > WIDTH:
        problems.append(f"the page scrolls sideways: {found['scrollWidth']} px wide")
    problems += [f"wider than the screen: {w}" for w in found["wide"]]
    problems += [f"tap target under {TAP}×{TAP}: {s}" for s in found["small"]]
    heights = page.eval_on_selector_all(
        report.links, "els => els.map(e => e.getBoundingClientRect().height)")
    assert heights, f"no report link ({report.links}) on {report.name}"
    problems += [f"a report link {h:.0f} px high" for h in heights if h < TAP - 0.01]
    if problems:
        pytest.fail(f"{report.name} ({page.url}) at {WIDTH}×{HEIGHT}, {len(problems)} "
                    "problems:\n  " + "\n  ".join(problems[:20]), pytrace=False)


def test_the_judge_report_links_every_ruling_and_the_whole_table(
        phone: Page, large: tuple[Server, LargeEvent]) -> None:
    """The report's first 16 places, a tap from the whole table; a ruling's card a tap from
    its slip."""
    event = large[1]
    page = opened(phone, PAGES[0], event)
    assert page.locator("table.standings tbody tr").count() == 16
    assert page.locator("p.standings-part").inner_text().startswith("Места 1–16 из 500.")
    cards = page.locator("ol.rulings > li.ruling")
    assert cards.count() >= ROUNDS * 25 + 1
    assert page.locator("a.slip-link").count() == cards.count()
    page.get_by_role("link", name="Вся таблица", exact=True).click()
    page.wait_for_url(f"**/t/{event.tournament}/report?standings=all")
    assert page.locator("table.standings tbody tr").count() == len(event.players)
    assert page.evaluate("document.documentElement.scrollWidth") <= WIDTH


SHOTS = [p for p in PAGES if p.shot]


@pytest.mark.parametrize("report", SHOTS, ids=[p.name for p in SHOTS])
def test_report_screenshot_matches_the_reference(
        phone: Page, large: tuple[Server, LargeEvent], report: ReportPage) -> None:
    """The first screen, as test_layout.py compares the main pages (its tolerance, its
    still-making script: no animation, today's dates and times replaced)."""
    page = opened(phone, report, large[1])
    page.evaluate(STILL)
    fonts = fonts_in_use(page)
    assert fonts <= {FONT}, f"drawn with {sorted(fonts)}: install fonts-dejavu-core"
    png = page.screenshot(animations="disabled", caret="hide", scale="css")
    actual = Image.open(BytesIO(png)).convert("RGB")
    assert actual.size == (WIDTH, HEIGHT), actual.size
    name = f"reports-500-{report.name}"
    reference_path = REFERENCES / f"{name}.png"
    if UPDATE:
        REFERENCES.mkdir(parents=True, exist_ok=True)
        actual.save(reference_path, optimize=True)
        return
    where = reference_path.relative_to(ROOT)
    assert reference_path.exists(), f"no reference screenshot {where}: `make screenshots`"
    reference = Image.open(reference_path).convert("RGB")
    actual_path = SCREENSHOTS / f"layout-{name}.png"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    actual.save(actual_path)
    count, picture = differing(actual, reference)
    share = count / (WIDTH * HEIGHT)
    if share > MAX_DIFFERING:
        diff_path = SCREENSHOTS / f"layout-{name}-diff.png"
        picture.save(diff_path)
        pytest.fail(f"{name} differs from {where}: {count} pixels ({share:.1%}) differ by "
                    f"more than {PIXEL_THRESHOLD}/255; now: {actual_path.relative_to(ROOT)}, "
                    f"where: {diff_path.relative_to(ROOT)}. If the change is meant, "
                    "`make screenshots`.", pytrace=False)
