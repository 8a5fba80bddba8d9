"""Database engines and the unit of work (one transaction per service call)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.orm import Session, sessionmaker

from sudya.domain.errors import SudyaError

WRITE = "sudya_write"  # execution option: this connection is for a writing transaction
READ = "sudya_read"  # execution option: this connection only reads (the services' read side)

# The durability promised for SQLite (docs/ledger.*.md): WAL with synchronous=FULL, so the
# WAL is fsynced at every commit and an acknowledged ruling survives a power cut, not only
# a crash of the process. (NORMAL would sync only at checkpoints: faster, but the last
# commits before a power cut could be lost.)
SQLITE_SYNCHRONOUS = "FULL"


@dataclass(frozen=True)
class PoolSettings:
    """How many connections an engine keeps and how long a caller waits (Settings: SUDYA_DB_*).

    Keep `size + overflow` at least the web server's thread pool (40 threads): a request's
    thread holds one connection at a time (its reads give theirs back before it writes:
    services.ledger.ReadSessions). With N worker processes on PostgreSQL the server must accept
    N × (size + overflow) connections."""

    size: int = 10
    overflow: int = 40
    timeout: float = 30.0  # seconds a checkout waits for a free connection
    busy_timeout: float = 30.0  # SQLite: seconds a writer waits for the database's write lock


class DatabaseError(SudyaError):
    code = "database"


def _shown(url: str) -> str:
    """A URL as it may be shown: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url

def normalise_url(url: str) -> str:
    """`postgresql://` means psycopg 3 here."""
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()  # as json.dumps: 1 -> "1"


# JSON columns (payloads, offered sanctions, notes, details) written and read by orjson: the
# json module's encoder and decoder were a few per cent of a recorded ruling, and the
# decoder most of reading a series' events back. The values are the same; the stored text
# is compact. (Input hardening keeps NaN, Infinity and integers past 64 bits out.)
JSON_CODEC: dict[str, Any] = {"json_serializer": _json_text, "json_deserializer": orjson.loads}


def _begin(conn: Connection, sql: str) -> None:
    """BEGIN on the DBAPI connection itself: through `exec_driver_sql` SQLAlchemy's execution
    context cost 40 µs of every writing transaction (about 5 % of a recorded ruling); an
    error is raised as SQLAlchemy's, as `exec_driver_sql` would raise it."""
    dbapi = conn.connection.dbapi_connection
    assert dbapi is not None, "the connection was invalidated"
    try:
        dbapi.execute(sql)  # sqlite3.Connection.execute
    except conn.dialect.loaded_dbapi.Error as exc:
        raise DBAPIError.instance(sql, (), exc, conn.dialect.loaded_dbapi.Error) from exc


DRIVERS = {"sqlite": ("pysqlite",), "postgresql": ("psycopg",)}  # what Sudya speaks


def make_engine(url: str, pool: PoolSettings | None = None, *, create: bool = True) -> Engine:
    """An engine with SQLite set up for a ledger: WAL, synchronous=FULL, foreign keys,
    BEGIN IMMEDIATE for writers, a busy timeout; the pool sized by `pool`. A URL of another
    database or driver, or a SQLite file that cannot be there, is refused naming `--db`; with
    `create=False` (every use but making a database) a SQLite file that is not there is
    refused rather than made empty."""
    url = normalise_url(url)
    pool = pool or PoolSettings()
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise DatabaseError("db.url-malformed", field="--db", url=_shown(url)) from None
    # from the URL's text: asking SQLAlchemy for the driver would load it (or fail to)
    backend, _plus, driver = parsed.drivername.partition("+")
    if backend not in DRIVERS or (driver or DRIVERS[backend][0]) not in DRIVERS[backend]:
        raise DatabaseError("db.url-unsupported", field="--db", url=_shown(url),
                            scheme=parsed.drivername)
    if backend == "sqlite" and parsed.database not in (None, "", ":memory:"):
        path = Path(parsed.database or "")
        if not path.exists():
            if not create:
                raise DatabaseError("db.file-missing", field="--db", path=str(path))
            if not path.parent.is_dir():
                raise DatabaseError("db.file-unopenable", field="--db", path=str(path))
    sizes: dict[str, Any] = {"pool_size": pool.size, "max_overflow": pool.overflow,
                             "pool_timeout": pool.timeout}
    if backend == "sqlite":
        if parsed.database in (None, "", ":memory:"):
            sizes = {}  # one shared in-memory connection (SingletonThreadPool): no sizes
        busy_ms = int(pool.busy_timeout * 1000)
        engine = create_engine(url, connect_args={"check_same_thread": False,
                                                  "timeout": pool.busy_timeout},
                               **JSON_CODEC, **sizes)

        @event.listens_for(engine, "connect")
        def _sqlite_setup(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # we issue BEGIN ourselves
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA foreign_keys=ON")
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute(f"PRAGMA synchronous={SQLITE_SYNCHRONOUS}")
            cur.execute(f"PRAGMA busy_timeout={busy_ms}")
            cur.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(conn: Any) -> None:
            # writers queue up at BEGIN instead of failing at COMMIT: one writer at a time;
            # readers take no lock (WAL), so a page being read never blocks a ruling.
            # A read session opens no transaction: each statement reads the newest commit,
            # as under PostgreSQL's READ COMMITTED. A read snapshot kept for a whole request
            # (the request's session stays open while its ruling is written) would stop every
            # checkpoint short of the end of the WAL: the WAL would never restart, grow
            # without bound, and every commit would checkpoint again (two more fsyncs).
            options = conn.get_execution_options()
            if options.get(WRITE, False):
                _begin(conn, "BEGIN IMMEDIATE")
            elif not options.get(READ, False):
                _begin(conn, "BEGIN")

        return engine
    return create_engine(url, pool_pre_ping=True, **JSON_CODEC, **sizes)


def checkpoint(engine: Engine) -> None:
    """SQLite: fold the write-ahead log into the database file and empty it (TRUNCATE), so
    the file alone holds every commit; nothing for another database."""
    if engine.dialect.name != "sqlite":
        return
    with engine.connect() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")


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
    """Sessions for reading, or (write=True) for one writing transaction each.

    A read session holds no transaction: on SQLite it sends no BEGIN (`_sqlite_begin`), on
    PostgreSQL its connection is in autocommit. Each statement then reads the newest commit,
    as it does in a READ COMMITTED transaction, and a request's reads cost no BEGIN and no
    ROLLBACK (two round trips each). What must hold together is written in a writing one."""
    if write:
        return sessionmaker(engine.execution_options(**{WRITE: True}), expire_on_commit=False)
    options: dict[str, Any] = {READ: True}
    if engine.dialect.name != "sqlite":
        options["isolation_level"] = "AUTOCOMMIT"
    return sessionmaker(engine.execution_options(**options), expire_on_commit=False)
