"""Fixtures shared by the test folders: the PostgreSQL server (tests/postgres_testkit.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from postgres_testkit import PostgresServer, start_server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The server the PostgreSQL tests make their databases on, once per session."""
    with start_server() as server:
        yield server
