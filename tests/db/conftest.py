"""Database fixtures: every ledger test runs on a real SQLite file and a real PostgreSQL.

PostgreSQL comes from SUDYA_TEST_POSTGRES_URL (CI starts a throwaway cluster and sets it),
or, when that is unset, from a throwaway cluster this session starts and stops itself
(the `postgres_server` fixture of tests/conftest.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from postgres_testkit import PostgresServer
from sudya.db.migrate import upgrade
from sudya.db.session import make_engine
from sudya.services.ledger import Ledger


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, dropped after the test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'sudya.db'}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = server.create()
    try:
        yield server.url_of(name)
    finally:
        server.drop(name)


@pytest.fixture
def db_engine(db_url: str) -> Iterator[sa.Engine]:
    """A migrated database."""
    engine = make_engine(db_url)
    upgrade(engine)
    yield engine
    engine.dispose()


@pytest.fixture
def ledger(db_engine: sa.Engine) -> Ledger:
    return Ledger(db_engine)


@pytest.fixture
def berserk(ledger: Ledger) -> tuple[int, int]:
    """(series id, tournament id): berserk, professional, alice/bob/carol, judges anna/oleg."""
    from ledger_testkit import setup_berserk

    return setup_berserk(ledger)
