"""Helpers for the web tests (conftest.py holds the fixtures)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

CSRF = re.compile(r'name="csrf" value="([0-9a-f]+)"')


def csrf_of(client: TestClient, url: str) -> str:
    """The CSRF token the page at `url` puts in its forms."""
    page = client.get(url)
    assert page.status_code == 200, page.text
    match = CSRF.search(page.text)
    assert match, f"no csrf token on {url}"
    return match.group(1)
