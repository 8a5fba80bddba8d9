"""A PostgreSQL server the tests create and drop their own databases on.

tests/conftest.py gives it as the `postgres_server` fixture; the ledger tests (tests/db) and
the web tests (tests/web) each take fresh databases from it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from sudya.adapters.db.session import normalise_url

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "postgres.sh"


class PostgresServer:
    """Databases on one server, created (empty or from a template) and dropped by name."""

    def __init__(self, url: str) -> None:
        self.url = normalise_url(url)  # the server's maintenance database
        self._admin = sa.create_engine(self.url, isolation_level="AUTOCOMMIT")

    def url_of(self, name: str) -> str:
        return make_url(self.url).set(database=name).render_as_string(hide_password=False)

    def create(self, *, template: str | None = None, prefix: str = "t",
               name: str | None = None) -> str:
        """A new database (a copy of `template` if given; named `name`, or a new name with
        `prefix`): its name."""
        name = name or f"{prefix}_{uuid.uuid4().hex[:12]}"
        copy = f' TEMPLATE "{template}"' if template else ""
        with self._admin.connect() as conn:
            # cloning fails while anyone is connected to the template: its builder must
            # have disposed of its engine
            conn.execute(sa.text(f'CREATE DATABASE "{name}"{copy}'))
        return name

    def drop(self, name: str) -> None:
        """Drop `name`, ending whatever connections to it a failed test left open."""
        with self._admin.connect() as conn:
            conn.execute(sa.text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = :name AND pid <> pg_backend_pid()"), {"name": name})
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}"'))

    def dispose(self) -> None:
        self._admin.dispose()


@contextmanager
def start_server() -> Iterator[PostgresServer]:
    """SUDYA_TEST_POSTGRES_URL's server (CI starts one), or a throwaway cluster of our own."""
    url = os.environ.get("SUDYA_TEST_POSTGRES_URL")
    folder = None
    if not url:
        folder = tempfile.mkdtemp(prefix="sudya-pg-")
        started = subprocess.run(["bash", str(SCRIPT), "start", folder], capture_output=True,
                                 text=True, check=True)
        url = started.stdout.strip()
    server = PostgresServer(url)
    try:
        yield server
    finally:
        server.dispose()
        if folder:
            subprocess.run(["bash", str(SCRIPT), "stop", folder], check=False)
