"""A throwaway database for a benchmark: a SQLite file in a folder, or a database made on the
PostgreSQL server named (and dropped at the end, whatever happens), so that a benchmark never
writes into a database someone keeps."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa

from sudya.adapters.db.session import normalise_url


@contextlib.contextmanager
def database(server_url: str | None, folder: Path, what: str) -> Iterator[str]:
    """The URL of an empty database: `folder/what.db` without a server, else a new database
    `sudya_bench_<what>_<pid>` on it."""
    if server_url is None:
        yield f"sqlite:///{folder / f'{what}.db'}"
        return
    server = sa.engine.make_url(normalise_url(server_url))
    admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
    name = f"sudya_bench_{what}_{os.getpid()}"
    try:
        with admin.connect() as conn:
            conn.execute(sa.text(f'CREATE DATABASE "{name}"'))
        yield server.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
