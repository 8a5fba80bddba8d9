"""The Content-Security-Policy in a real browser: the main pages, htmx's swaps and the scripts
they load run with nothing refused. Chromium reports every refusal on the console
(«Refused to apply inline style…», «Refused to execute inline script…») and as a
`securitypolicyviolation` event; both are collected from the first byte of every page."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from e2e_kit import BERSERK, CLAN, Server, sign_in
from playwright.sync_api import BrowserContext, Page, expect

# recorded before any page script runs (an init script is not subject to the page's policy)
WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.violatedDirective + " " + (e.blockedURI || "inline") + " " +
                    (e.sourceFile || "") + ":" + e.lineNumber);
});
"""


class Refusals:
    """What the browser refused on one page: console messages and violation events."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.console: list[str] = []
        page.add_init_script(WATCH)
        page.on("console", lambda m: self.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: self.console.append(f"pageerror: {e}"))

    def check(self, where: str) -> None:
        events: list[str] = self.page.evaluate("window.__csp || []")
        refused = [m for m in self.console if "Refused to" in m
                   or "Content Security Policy" in m]
        assert (refused, events) == ([], []), where
        # htmx put no <style> of its own into the page
        assert self.page.locator("style").count() == 0, where


def test_the_main_pages_run_under_the_policy(new_context: Callable[..., BrowserContext],
                                            server: Server) -> None:
    context = new_context()
    page = context.new_page()
    watch = Refusals(page)

    response = page.goto("/login")
    assert response is not None
    assert "script-src 'self'" in (response.headers.get("content-security-policy") or "")
    watch.check("login")

    sign_in(page, "sudya")
    watch.check("tournaments")

    page.goto(f"/t/{BERSERK}")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    watch.check("dashboard")

    # the record form: htmx filters as the judge types, then swaps the preview in
    page.goto(f"/t/{BERSERK}/record?player=gleb")
    page.get_by_label("Найдите нарушение").fill("опозд")
    page.get_by_role("link", name="Опоздания").click()
    page.get_by_role("button", name="Предпросмотр решения").click()
    expect(page.get_by_role("heading", name="Решение", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Подтвердить и записать")).to_be_visible()
    watch.check("record preview")  # previewed only: nothing recorded

    for url in (f"/t/{BERSERK}/standings", f"/t/{BERSERK}/people/boris",
                f"/t/{BERSERK}/appeals", f"/t/{BERSERK}/pending", "/rulebooks/berserk"):
        response = page.goto(url)
        assert response is not None and response.status == 200, url
        expect(page.get_by_role("heading", level=1)).to_be_visible()
        watch.check(url)

    # the error page's «Back» goes back in the history by a script of its own
    page.goto(f"/t/{BERSERK}/standings")
    response = page.goto(f"/t/{CLAN}")  # sudya has no role in the clan championship
    assert response is not None and response.status == 403
    page.get_by_role("link", name="Назад").click()
    page.wait_for_url(f"**/t/{BERSERK}/standings")
    watch.check("error page")


def test_the_round_clock_runs_under_the_policy(signed_in: Callable[..., Page],
                                              server: Server) -> None:
    page = signed_in("glavsud")
    watch = Refusals(page)
    page.goto(f"/t/{BERSERK}/clock")
    # its stylesheet applies (the dark projector screen), from a file, not inline
    background: Any = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == "rgb(17, 17, 17)"
    watch.check("clock")
