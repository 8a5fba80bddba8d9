"""Web tests: FastAPI's TestClient over a real SQLite file holding the demo tournaments.

The demo database is built once (sudya.web.demo.build) and copied for every test, so a test
may record whatever it likes.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from sudya.services.ledger import Ledger
from sudya.settings import Settings
from sudya.web.app import create_app
from sudya.web.demo import PASSWORD, build


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    engine = build(path)
    engine.dispose()
    with sqlite3.connect(path) as conn:  # everything in the main file: copies are whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def app(demo_template: Path, tmp_path: Path) -> Iterator[FastAPI]:
    db = tmp_path / "sudya.db"
    shutil.copyfile(demo_template, db)
    application = create_app(Settings(database_url=f"sqlite:///{db}", secret="test-secret"))
    yield application
    application.state.ledger.db.dispose()


@pytest.fixture
def ledger(app: FastAPI) -> Ledger:
    """The app's own ledger, to set a scene or check what a request stored."""
    result: Ledger = app.state.ledger
    return result


@pytest.fixture
def client(app: FastAPI) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


@pytest.fixture
def signed_in(app: FastAPI) -> Iterator[Callable[[str], TestClient]]:
    """A client signed in as one of the demo users (each call: a new browser)."""
    clients: list[TestClient] = []

    def sign_in(username: str) -> TestClient:
        c = TestClient(app)
        c.__enter__()
        clients.append(c)
        r = c.post("/login", data={"username": username, "password": PASSWORD,
                                   "next": "/tournaments"}, follow_redirects=False)
        assert r.status_code == 303, r.text
        return c

    yield sign_in
    for c in clients:
        c.__exit__(None, None, None)
