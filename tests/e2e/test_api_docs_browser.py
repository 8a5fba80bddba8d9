"""The API's Swagger page works with no network beyond the app: every request to another host
is aborted, and Swagger UI still draws the API's operations, the policy refusing nothing."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from e2e_kit import Server
from playwright.sync_api import BrowserContext, Route, expect


def test_the_api_docs_render_offline(new_context: Callable[..., BrowserContext],
                                     server: Server) -> None:
    context = new_context()
    outside: list[str] = []

    def local_only(route: Route) -> None:
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
            return
        outside.append(route.request.url)
        route.abort()

    context.route("**/*", local_only)
    page = context.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto("/api/v1/docs")
    # the operations, drawn by Swagger UI from the API's own document
    expect(page.locator(".opblock-summary-path", has_text="/api/v1/tournaments/{tid}/events"
                        "/{event}/statements").first).to_be_visible(timeout=15_000)
    assert page.locator(".opblock").count() > 20
    assert outside == [] and problems == []
