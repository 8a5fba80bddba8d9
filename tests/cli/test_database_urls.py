"""Issue 35: a database URL Sudya does not speak, a driver that is not installed, a SQLite
file that cannot be made, a server that does not answer: one line, exit 2 (bad input) or 1
(the database is down), never a traceback; and a command that reads never makes a file."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_kit import refused, run


@pytest.mark.parametrize(("url", "needle"), [
    ("mysql://x", "mysql"),
    ("postgresql+psycopg2://u:secret@h/d", "postgresql+psycopg2"),
    ("http://x", "http"),
    ("::not a url::", "::not a url::"),
])
def test_a_database_sudya_does_not_speak_is_bad_input(tmp_path: Path, url: str,
                                                      needle: str) -> None:
    r = run(tmp_path, "tournament", "list", "--db", url, lang="en")
    line = refused(r, "--db", needle)
    assert "secret" not in line  # a password is never shown


def test_a_missing_database_file_is_named_and_not_made(tmp_path: Path) -> None:
    db = tmp_path / "tuornament.db"  # mistyped
    r = run(tmp_path, "tournament", "list", "--db", f"sqlite:///{db}", lang="en")
    refused(r, "--db", str(db), "sudya db upgrade")
    assert not db.exists()
    r = run(tmp_path, "tournament", "list", "--db", f"sqlite:///{tmp_path}/no/such/x.db")
    refused(r, "--db")


def test_a_server_that_does_not_answer_is_the_database_down(tmp_path: Path) -> None:
    r = run(tmp_path, "tournament", "list", "--db", "postgresql://u@127.0.0.1:1/d")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert len(r.stderr.splitlines()) == 1
