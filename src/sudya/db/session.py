"""Database engines and the unit of work (one transaction per service call)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError
from sqlalchemy.orm import Session, sessionmaker

from sudya.errors import SudyaError

WRITE = "sudya_write"  # execution option: this connection is for a writing transaction


class DatabaseError(SudyaError):
    code = "database"


def normalise_url(url: str) -> str:
    """`postgresql://` means psycopg 3 here."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def make_engine(url: str) -> Engine:
    """An engine with SQLite set up for a ledger: WAL, foreign keys, BEGIN IMMEDIATE."""
    url = normalise_url(url)
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError(f"--db: not a database URL: {url!r}") from None
    if parsed.get_backend_name() == "sqlite":
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_setup(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA busy_timeout=30000")
            cur.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # writers queue up at BEGIN instead of failing at COMMIT: one writer at a time;
            # readers take no lock (WAL), so a page being read never blocks a ruling
            write = conn.get_execution_options().get(WRITE, False)
            conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True)


class UnitOfWork:
    """A session for one service call: commit on success, roll back on any error."""

    def __init__(self, factory: sessionmaker[Session]) -> None:
        self._factory = factory
        self.session: Session

    @contextmanager
    def begin(self) -> Iterator[Session]:
        with self._factory() as session, session.begin():
            self.session = session
            yield session


def session_factory(engine: Engine, *, write: bool = False) -> sessionmaker[Session]:
    """Sessions for reading, or (write=True) for one writing transaction each."""
    bind = engine.execution_options(**{WRITE: True}) if write else engine
    return sessionmaker(bind, expire_on_commit=False)
