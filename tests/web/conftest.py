"""Web tests: FastAPI's TestClient over a real database holding the demo tournaments.

Every test runs on SQLite; a test marked `postgresql` runs on PostgreSQL too (the `app`
fixture is parametrised like tests/db's `db_url`). The marked ones are a representative part
— whatever writes through the ledger or shows what it read back — because the whole folder
on both would double its time in CI; SUDYA_TEST_WEB_POSTGRES=all runs every test on both.

The demo (sudya.app.demo) is built once per session on each and copied for every test, so a
test may record whatever it likes: on SQLite the file is copied, on PostgreSQL a new database
is made with the demo's as its template.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from postgres_testkit import PostgresServer
from sudya.app.demo import PASSWORD, build, build_into
from sudya.app.ledger import Ledger
from sudya.app.settings import Settings
from sudya.edges.web.app import create_app


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "postgresql: a web test that runs on PostgreSQL too")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "database_url" in metafunc.fixturenames:
        both = (metafunc.definition.get_closest_marker("postgresql") is not None
                or os.environ.get("SUDYA_TEST_WEB_POSTGRES") == "all")
        metafunc.parametrize("database_url", ["sqlite", "postgresql"] if both else ["sqlite"],
                             indirect=True)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.db"
    engine = build(path)
    engine.dispose()
    with sqlite3.connect(path) as conn:  # everything in the main file: copies are whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture(scope="session")
def demo_postgres(postgres_server: PostgresServer) -> Iterator[str]:
    """The name of a PostgreSQL database holding the demo, to clone for each test."""
    name = postgres_server.create(prefix="demo")
    # CREATE DATABASE … TEMPLATE refuses while anyone is connected to the template
    build_into(postgres_server.url_of(name)).dispose()
    yield name
    postgres_server.drop(name)


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh copy of the demo on SQLite or PostgreSQL (request.param), dropped after."""
    if request.param == "sqlite":
        db = tmp_path / "sudya.db"
        shutil.copyfile(request.getfixturevalue("demo_template"), db)
        yield f"sqlite:///{db}"
        return
    server: PostgresServer = request.getfixturevalue("postgres_server")
    name = server.create(template=request.getfixturevalue("demo_postgres"))
    try:
        yield server.url_of(name)
    finally:
        server.drop(name)


@pytest.fixture
def app(database_url: str) -> Iterator[FastAPI]:
    application = create_app(Settings(database_url=database_url, secret="test-secret"))
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
                                   "next": "/tournaments", "csrf": csrf_of(c, "/login")},
                   follow_redirects=False)
        assert r.status_code == 303, r.text
        return c

    yield sign_in
    for c in clients:
        c.__exit__(None, None, None)


@pytest.fixture
def auth(client: TestClient) -> Callable[[str], dict[str, str]]:
    """Bearer headers for a demo user of the JSON API (one login per user per test)."""
    tokens: dict[str, str] = {}

    def headers(username: str) -> dict[str, str]:
        if username not in tokens:
            r = client.post("/api/v1/login", json={"username": username, "password": PASSWORD})
            assert r.status_code == 200, r.text
            tokens[username] = r.json()["token"]
        return {"Authorization": f"Bearer {tokens[username]}"}

    return headers
