"""Report tests: the scene (report_scene.py) built once per session on a real SQLite file
and, for the one test that compares the two, on the PostgreSQL server."""

from __future__ import annotations

import shutil
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from report_scene import build_scene

from postgres_testkit import PostgresServer

ARTIFACTS = Path(__file__).parents[2] / "artifacts" / "reports"
# `sudya report` runs as the CLI tests run the command: through tests/cli/cli_kit.py
CLI_TESTS = str(Path(__file__).parents[1] / "cli")
if CLI_TESTS not in sys.path:
    sys.path.append(CLI_TESTS)


@pytest.fixture(scope="session")
def scene_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("scene") / "scene.db"
    build_scene(f"sqlite:///{path}").dispose()
    with sqlite3.connect(path) as conn:  # everything in the main file: copies are whole
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture(scope="session")
def scene_url(scene_file: Path) -> str:
    """The scene on SQLite, read only by the tests that use it."""
    return f"sqlite:///{scene_file}"


@pytest.fixture
def scene_copy(scene_file: Path, tmp_path: Path) -> str:
    """A copy of the scene on SQLite, for a test that writes."""
    db = tmp_path / "scene.db"
    shutil.copyfile(scene_file, db)
    return f"sqlite:///{db}"


@pytest.fixture(scope="session")
def scene_postgres(postgres_server: PostgresServer) -> Iterator[str]:
    name = postgres_server.create(prefix="reports")
    url = postgres_server.url_of(name)
    build_scene(url).dispose()
    yield url
    postgres_server.drop(name)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where the first pages of the PDFs are drawn for a person to look at."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
