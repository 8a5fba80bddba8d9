"""Database fixtures: every ledger test runs on a real SQLite file and a real PostgreSQL.

PostgreSQL comes from SUDYA_TEST_POSTGRES_URL (CI starts a throwaway cluster and sets it),
or, when that is unset, from a throwaway cluster this session starts and stops itself
(the `postgres_server` fixture of tests/conftest.py).
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from postgres_testkit import PostgresServer
from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import make_engine
from sudya.app.ledger import Ledger


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


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file migrated once to the newest schema, copied for each test."""
    path = tmp_path_factory.mktemp("migrated") / "migrated.db"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    engine.dispose()
    with sqlite3.connect(path) as conn:  # everything in the main file: a copy is whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture(scope="session")
def migrated_postgres(postgres_server: PostgresServer) -> str:
    """A PostgreSQL database migrated once to the newest schema, cloned for each test."""
    name = postgres_server.create(prefix="migrated")
    engine = make_engine(postgres_server.url_of(name))
    upgrade(engine)
    engine.dispose()  # CREATE DATABASE … TEMPLATE refuses while anyone is connected to it
    return name


@pytest.fixture
def db_engine(request: pytest.FixtureRequest, db_url: str) -> Iterator[sa.Engine]:
    """A migrated database: `db_url`'s, made a copy of one migrated once per session (the
    migrations themselves are tested from an empty database in test_ledger_migrations)."""
    url = sa.engine.make_url(db_url)
    if url.get_backend_name() == "sqlite":
        assert url.database and not Path(url.database).exists()
        shutil.copyfile(request.getfixturevalue("migrated_sqlite"), url.database)
    else:
        server: PostgresServer = request.getfixturevalue("postgres_server")
        assert url.database
        server.drop(url.database)
        server.create(template=request.getfixturevalue("migrated_postgres"),
                      name=url.database)
    engine = make_engine(db_url)
    yield engine
    engine.dispose()


@pytest.fixture
def ledger(db_engine: sa.Engine) -> Ledger:
    return Ledger(db_engine)


@pytest.fixture
def fresh_ledger(request: pytest.FixtureRequest, db_url: str,
                 tmp_path: Path) -> Iterator[Callable[[], Ledger]]:
    """Makes more migrated, empty ledgers of `db_url`'s kind, each its own database."""
    engines: list[sa.Engine] = []
    made: list[str] = []
    backend = sa.engine.make_url(db_url).get_backend_name()

    def make() -> Ledger:
        if backend == "sqlite":
            path = tmp_path / f"fresh-{len(engines)}.db"
            shutil.copyfile(request.getfixturevalue("migrated_sqlite"), path)
            url = f"sqlite:///{path}"
        else:
            server: PostgresServer = request.getfixturevalue("postgres_server")
            name = server.create(template=request.getfixturevalue("migrated_postgres"))
            made.append(name)
            url = server.url_of(name)
        engine = make_engine(url)
        engines.append(engine)
        return Ledger(engine)

    yield make
    for engine in engines:
        engine.dispose()
    if made:
        server = request.getfixturevalue("postgres_server")
        for name in made:
            server.drop(name)


@pytest.fixture
def berserk(ledger: Ledger) -> tuple[int, int]:
    """(series id, tournament id): berserk, professional, alice/bob/carol, judges anna/oleg."""
    from ledger_testkit import setup_berserk

    return setup_berserk(ledger)
