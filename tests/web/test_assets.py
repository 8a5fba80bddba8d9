"""Bytes on the venue's Wi-Fi: HTML, CSS and JS gzipped (not the event stream), static files
under content-hashed names cached for a year, and a budget for the record page with its
assets (bytes transferred, gzip on).
"""

from __future__ import annotations

import hashlib
import re
import zlib
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from httpx import Response

from sudya.app.demo import PASSWORD
from sudya.edges.web.app import GZIP_FROM
from sudya.edges.web.assets import IMMUTABLE, SHORT

STATIC = Path(__file__).resolve().parents[2] / "src" / "sudya" / "edges" / "web" / "static"
GZIP = {"Accept-Encoding": "gzip"}
BUDGET = 150_000  # bytes: the record page with its CSS and scripts, as transferred
RECORD = "/t/1/record?infraction=procedure.tardiness&player=boris"
ASSET = re.compile(r'<(?:script|link)\b[^>]*?\b(?:src|href)="(/static/[^"]+)"')
SignIn = Callable[[str], TestClient]


def transferred(client: TestClient, url: str) -> tuple[Response, int, str]:
    """The response, how many bytes of body came over the wire (as sent, gzipped or not),
    and the body decoded."""
    with client.stream("GET", url, headers=GZIP) as r:
        raw = b"".join(r.iter_raw())
    gzipped = r.headers.get("content-encoding") == "gzip"
    body = zlib.decompress(raw, 16 + zlib.MAX_WBITS) if gzipped else raw
    return r, len(raw), body.decode("utf-8", "replace")


def assets_of(page: str) -> list[str]:
    return ASSET.findall(page)


def test_pages_styles_and_scripts_are_gzipped(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    page, _size, _text = transferred(judge, RECORD)
    assert page.status_code == 200
    assert page.headers["content-encoding"] == "gzip"
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert "accept-encoding" in page.headers.get("vary", "").lower()
    urls = assets_of(judge.get(RECORD).text)
    assert any(u.endswith(".css") for u in urls) and any(u.endswith(".js") for u in urls)
    for url in urls:
        r, wire, _text = transferred(judge, url)
        assert r.status_code == 200, url
        if (STATIC / original(url)).stat().st_size >= GZIP_FROM:
            assert r.headers["content-encoding"] == "gzip", url
            assert wire < (STATIC / original(url)).stat().st_size, url
    htmx = next(u for u in urls if "htmx-2" in u)
    r, wire, _text = transferred(judge, htmx)
    assert wire < 20_000  # 52 KB of htmx: about 16 KB gzipped
    # what a client that takes no gzip asks is sent as it is
    plain = judge.get(htmx, headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert len(plain.content) == (STATIC / original(htmx)).stat().st_size


def test_json_is_gzipped_and_small_answers_are_not(client: TestClient) -> None:
    r = client.get("/api/v1/openapi.json", headers=GZIP)
    assert r.status_code == 200 and r.headers["content-encoding"] == "gzip"
    small = client.get("/api/v1/tournaments/999999", headers=GZIP)  # a short refusal
    assert len(small.content) < GZIP_FROM and "content-encoding" not in small.headers


def test_the_event_stream_is_not_gzipped(app: FastAPI, client: TestClient) -> None:
    """Gzip would hold a stream's changes back in its buffer (Starlette leaves
    text/event-stream alone); the stream is made to end at once so the test can read it."""
    from sudya.edges.web.live import live_of

    live_of(app).max_age = 0.05
    token = client.post("/api/v1/login", json={"username": "sudya", "password": PASSWORD}
                        ).json()["token"]
    r = client.get("/api/v1/tournaments/1/events",
                   headers={**GZIP, "Authorization": f"Bearer {token}"})
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert "content-encoding" not in r.headers
    assert r.text.startswith("retry: ")


def original(url: str) -> str:
    """The file a hashed static URL names (`/static/app.0123456789.css` -> `app.css`)."""
    match = re.fullmatch(r"/static/(.+)\.([0-9a-f]{10})(\.[A-Za-z0-9]+)", url)
    return match[1] + match[3] if match else url.removeprefix("/static/")


def test_static_files_have_hashed_names_cached_for_a_year(signed_in: SignIn,
                                                          client: TestClient) -> None:
    page = signed_in("sudya").get("/t/1").text
    urls = assets_of(page)
    assert urls and all(re.search(r"\.[0-9a-f]{10}\.(css|js|svg)$", u) for u in urls), urls
    for url in urls:
        name = original(url)
        digest = hashlib.sha256((STATIC / name).read_bytes()).hexdigest()[:10]
        assert url == f"/static/{name.rsplit('.', 1)[0]}.{digest}.{name.rsplit('.', 1)[1]}"
        r = client.get(url)
        assert r.status_code == 200
        assert r.headers["cache-control"] == IMMUTABLE == "public, max-age=31536000, immutable"
        assert r.content == (STATIC / name).read_bytes()
        # the plain name is still served, for a short while only
        plain = client.get(f"/static/{name}")
        assert plain.status_code == 200 and plain.content == r.content
        assert plain.headers["cache-control"] == SHORT
        assert "immutable" not in plain.headers["cache-control"]
    # a hashed name that is no longer the file's (a page from before a deployment): the file
    # as it is now, not cached for a year
    stale = client.get("/static/app.0000000000.css")
    assert stale.status_code == 200
    assert stale.content == (STATIC / "app.css").read_bytes()
    assert stale.headers["cache-control"] == SHORT
    assert client.get("/static/nonesuch.0123456789.css").status_code == 404
    assert client.get("/static/nonesuch.css").status_code == 404
    # revalidation of a hashed name keeps its header
    r = client.get(urls[0])
    again = client.get(urls[0], headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304 and again.headers["cache-control"] == IMMUTABLE


def test_other_pages_link_their_own_static_files_by_hash(client: TestClient) -> None:
    clock = client.get("/t/1/clock").text
    assert re.search(r'href="/static/clock\.[0-9a-f]{10}\.css"', clock)
    for page in (clock, client.get("/rulebooks").text, client.get("/login").text):
        assert not re.search(r'(?:src|href)="/static/[^"]*?(?<!\.[0-9a-f]{10})\.(?:css|js)"',
                             page)


@pytest.mark.parametrize("url", [RECORD, "/t/1/record?player=boris", "/t/1"])
def test_the_record_page_with_its_assets_is_under_the_budget(signed_in: SignIn,
                                                              url: str) -> None:
    """The issue's budget: the record page and everything it loads, under 150 KB as
    transferred with gzip (bytes, not time: a venue's Wi-Fi is slow and shared)."""
    judge = signed_in("sudya")
    page, total, text = transferred(judge, url)
    assert page.status_code == 200
    sizes = {url: total}
    for asset in assets_of(text):
        r, wire, _text = transferred(judge, asset)
        assert r.status_code == 200, asset
        sizes[asset] = wire
        total += wire
    assert total < BUDGET, f"{total} bytes transferred, over {BUDGET}: {sizes}"
    # the same without gzip would be well over: the budget is met by compression
    assert sum((STATIC / original(a)).stat().st_size for a in assets_of(text)) > total


def test_gzip_reads_back_to_the_page(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    with judge.stream("GET", RECORD, headers=GZIP) as r:
        raw = b"".join(r.iter_raw())
    page = zlib.decompress(raw, 16 + zlib.MAX_WBITS).decode()
    assert page.startswith("<!doctype html>") and "Опоздани" in page
