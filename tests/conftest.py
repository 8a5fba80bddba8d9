"""Fixtures shared by the test folders: the PostgreSQL server (tests/postgres_testkit.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

# the argon2 cost of the passwords in every test and every server a test starts: next to
# none (app.accounts._password_hasher), set before any test imports the application
os.environ.setdefault("SUDYA_PASSWORD_COST", "test")

import pytest

from postgres_testkit import PostgresServer, start_server


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The server the PostgreSQL tests make their databases on, once per session."""
    with start_server() as server:
        yield server
