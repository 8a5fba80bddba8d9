"""Database fixtures: every ledger test runs on a real SQLite file and a real PostgreSQL.

PostgreSQL comes from SUDYA_TEST_POSTGRES_URL (CI starts a throwaway cluster and sets it),
or, when that is unset, from a throwaway cluster this session starts and stops itself.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from sudya.db.migrate import upgrade
from sudya.db.session import make_engine
from sudya.services.ledger import Ledger

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "postgres.sh"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    url = os.environ.get("SUDYA_TEST_POSTGRES_URL")
    if url:
        yield url
        return
    folder = tempfile.mkdtemp(prefix="sudya-pg-")
    started = subprocess.run(["bash", str(SCRIPT), "start", folder], capture_output=True,
                             text=True, check=True)
    try:
        yield started.stdout.strip()
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", folder], check=False)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, dropped after the test."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'sudya.db'}"
        return
    server = request.getfixturevalue("postgres_server")
    name = f"t_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
    base = server.rsplit("/", 1)[0]
    try:
        yield f"{base}/{name}"
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                f"WHERE datname = '{name}' AND pid <> pg_backend_pid()"))
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}"'))
        admin.dispose()


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
