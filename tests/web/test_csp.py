"""The Content-Security-Policy: on every page, and what the pages hold keeps to it (no inline
script or style, no inline handler, no `javascript:` link). The browser's own check of the
policy is tests/e2e/test_browser_csp.py."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

import sudya.edges.web
from sudya.edges.web.security import POLICY

SignIn = Callable[[str], TestClient]
WEB = Path(sudya.edges.web.__file__).parent
PAGES = ["/tournaments", "/t/1", "/t/1/record", "/t/1/record?infraction=gameplay.slow-play",
         "/t/1/people/boris", "/t/1/standings", "/t/1/appeals", "/t/1/pending",
         "/t/1/results", "/t/1/rounds", "/t/1/clock", "/t/1/people", "/t/1/decks",
         "/t/1/decks/check", "/t/1/decks/compare", "/t/1/squad", "/t/2/teams/sever",
         "/t/2/people/veda", "/rulebooks", "/rulebooks/berserk", "/t/2/clock",
         "/t/1/audit"]
# what a policy without 'unsafe-inline' refuses, as it appears in a page
INLINE = [re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),  # a script without src
          re.compile(r"<style\b", re.I),
          re.compile(r"\sstyle\s*=", re.I),
          re.compile(r"\son[a-z]+\s*=", re.I),  # onclick=, onload=, …
          re.compile(r"javascript:", re.I),
          re.compile(r"\shx-on", re.I)]  # htmx's inline handlers need eval


def test_every_page_has_the_policy_and_nothing_it_refuses(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    seen = 0
    for url in PAGES:
        page = head.get(url)
        if page.status_code == 404:  # a page another change has not brought yet
            continue
        seen += 1
        assert page.headers["content-security-policy"] == POLICY, url
        found = [p.pattern for p in INLINE if p.search(page.text)]
        assert found == [], (url, found)
    assert seen >= len(PAGES) - 1


def test_login_error_and_anonymous_pages_have_it_too(client: TestClient,
                                                     signed_in: SignIn) -> None:
    for page in (client.get("/login"), client.get("/t/1/standings"),
                 signed_in("sudya").get("/t/2"),  # no role there: the error page
                 client.post("/login", data={"username": "x", "password": "nope-nope"})):
        assert page.headers["content-type"].startswith("text/html")
        assert page.headers["content-security-policy"] == POLICY
        assert [p.pattern for p in INLINE if p.search(page.text)] == []
    # JSON answers are not pages
    assert "content-security-policy" not in client.get("/api/v1/rulebooks").headers


def test_the_policy_says_what_the_issue_asks() -> None:
    directives = dict(d.strip().split(" ", 1) for d in POLICY.split(";"))
    assert directives == {
        "default-src": "'self'", "script-src": "'self'", "style-src": "'self'",
        "img-src": "'self' data:", "connect-src": "'self'", "form-action": "'self'",
        "frame-ancestors": "'none'", "base-uri": "'self'", "object-src": "'none'"}


def test_htmx_is_told_not_to_inject_its_indicator_style(client: TestClient) -> None:
    page = client.get("/login").text
    config = re.search(r"<meta name=\"htmx-config\" content='([^']*)'>", page)
    assert config and '"includeIndicatorStyles": false' in config.group(1)
    css = client.get("/static/app.css").text
    assert ".htmx-indicator {" in css and ".htmx-request .htmx-indicator" in css


@pytest.mark.parametrize("folder", ["templates", "static"])
def test_no_template_or_static_page_holds_inline_code(folder: str) -> None:
    for path in sorted((WEB / folder).rglob("*.html")):
        text = re.sub(r"\{#.*?#\}", "", path.read_text(encoding="utf-8"), flags=re.DOTALL)
        assert [p.pattern for p in INLINE if p.search(text)] == [], path.name


def test_the_api_docs_have_a_policy_of_their_own(client: TestClient) -> None:
    r = client.get("/api/v1/docs")
    assert r.status_code == 200
    policy = dict(d.strip().split(" ", 1) for d in
                  r.headers["content-security-policy"].split(";"))
    [inline] = re.findall(r"<script>(.*?)</script>", r.text, re.DOTALL)
    digest = base64.b64encode(hashlib.sha256(inline.encode()).digest()).decode()
    # its one inline script by its hash: no unsafe-inline for scripts, no outside source
    assert policy["script-src"].split() == ["'self'", f"'sha256-{digest}'"]
    assert policy["img-src"] == "'self' data:" and "http" not in r.headers[
        "content-security-policy"]
    assert policy["frame-ancestors"] == "'none'" and policy["object-src"] == "'none'"
    assert "/api/v1/docs" not in client.get("/api/v1/openapi.json").json()["paths"]


def test_the_api_docs_load_nothing_from_outside(client: TestClient) -> None:
    """Swagger UI, its styles and the icon are the app's own static files (hashed names)."""
    page = client.get("/api/v1/docs").text
    urls = re.findall(r"""(?:src|href)=["']([^"']+)""", page) + re.findall(
        r"""url:\s*['"]([^'"]+)""", page)
    assert len(urls) == 4, urls  # the script, the styles, the icon, the API's document
    assert all(u.startswith("/") and not u.startswith("//") for u in urls), urls
    assert "http" not in page.lower().replace("http-equiv", "")
    for url in urls:
        r = client.get(url)
        assert r.status_code == 200, url
    js = [u for u in urls if u.endswith(".js")]
    assert js and "SwaggerUIBundle" in client.get(js[0]).text
    assert client.get(js[0]).headers["cache-control"].endswith("immutable")


def test_pages_link_the_apps_own_icon(client: TestClient) -> None:
    [icon] = re.findall(r'<link rel="icon" href="([^"]+)"', client.get("/login").text)
    assert icon.startswith("/static/favicon.") and icon.endswith(".svg")
    assert client.get(icon).headers["content-type"].startswith("image/svg+xml")
