"""Dark mode (issue 37): a phone set to dark gets the pages dark (`prefers-color-scheme`,
app.css's last block), and every text on them stays readable — a contrast of at least 4.5:1
with what it stands on (WCAG AA), errors, notices and buttons included.

On the session's demo server (conftest.py); nothing is recorded here. The reference picture
of the dark record form is test_layout.py's (tests/e2e/screenshots/record-dark.png).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from e2e_kit import BERSERK, shot
from playwright.sync_api import Page, expect

SignedIn = Callable[..., Page]
AA = 4.5

# every element with text of its own: its colour, and the colour of what it stands on (the
# first ancestor with a background that is not transparent), with its contrast ratio
CONTRASTS = """(selector) => {
  const rgb = (c) => {
    const m = c.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(',').map(Number);
    return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1};
  };
  const lum = ({r, g, b}) => {
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const under = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c && c.a > 0.5) return c;
    }
    const root = rgb(getComputedStyle(document.documentElement).backgroundColor);
    return root && root.a > 0.5 ? root : {r: 255, g: 255, b: 255};
  };
  const out = [];
  for (const el of document.querySelectorAll(selector)) {
    if (!el.checkVisibility()) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.nodeValue.trim())
      || ['INPUT', 'SELECT', 'TEXTAREA'].includes(el.tagName);
    if (!own) continue;
    const fg = rgb(getComputedStyle(el).color), bg = under(el);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    out.push({what: el.tagName.toLowerCase() + (el.className ? '.' + el.className : ''),
              text: (el.value || el.textContent).trim().slice(0, 40),
              ratio: Math.round((hi + 0.05) / (lo + 0.05) * 100) / 100});
  }
  return out;
}"""
BACKGROUND = "getComputedStyle(document.body).backgroundColor"


def luminance(css: str) -> float:
    """The relative luminance of a computed `rgb(…)` colour."""
    r, g, b = (int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])

    def f(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


def unreadable(page: Page) -> list[str]:
    found = page.evaluate(CONTRASTS, "main *, header *, #outbox *")
    return [f"{c['what']} «{c['text']}»: {c['ratio']}:1" for c in found if c["ratio"] < AA]


def dark(page: Page) -> Page:
    page.emulate_media(color_scheme="dark")
    return page


@pytest.mark.parametrize("color_scheme", ["light", "dark"])
def test_the_page_follows_the_phones_colour_scheme(signed_in: SignedIn,
                                                   color_scheme: str) -> None:
    page = signed_in("sudya")
    page.emulate_media(color_scheme=color_scheme)
    page.goto(f"/t/{BERSERK}/record?infraction=procedure.tardiness&player=boris")
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()
    body = luminance(page.evaluate(BACKGROUND))
    card = luminance(page.locator("form.record-form").evaluate(
        "f => getComputedStyle(f).backgroundColor"))
    if color_scheme == "dark":
        assert body < 0.02 and card < 0.03, (body, card)
        assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "dark"
    else:
        assert body > 0.9 and card > 0.9, (body, card)
    assert unreadable(page) == []


def test_dark_errors_notices_and_buttons_are_readable(signed_in: SignedIn) -> None:
    page = dark(signed_in("sudya"))
    # the ruling previewed: the primary button, muted notes, a pending mark, the header
    page.goto(f"/t/{BERSERK}/record?infraction=procedure.tardiness&player=boris")
    expect(page.get_by_role("button", name="Подтвердить и записать")).to_be_visible()
    assert unreadable(page) == []
    shot(page, "dark-record-preview")
    # an error beside its field
    page.goto(f"/t/{BERSERK}/record?infraction=procedure.tardiness")
    page.get_by_role("button", name="Предпросмотр решения").click()
    error = page.locator("#player-error")
    expect(error).to_have_text("Выберите игрока.")
    assert luminance(error.evaluate("e => getComputedStyle(e).color")) > 0.2  # a light red
    assert unreadable(page) == []
    shot(page, "dark-record-error")
    # the organiser's page: notices, fields, buttons, links; the dashboard
    organiser = dark(signed_in("glavsud"))
    organiser.goto(f"/t/{BERSERK}/people?added=x")
    expect(organiser.locator("p.notice").first).to_be_visible()
    shot(organiser, "dark-people")
    for url in (f"/t/{BERSERK}/people?added=x", f"/t/{BERSERK}", f"/t/{BERSERK}/decks",
                f"/t/{BERSERK}/standings"):
        organiser.goto(url)
        assert luminance(organiser.evaluate(BACKGROUND)) < 0.02, url
        assert unreadable(organiser) == [], url
