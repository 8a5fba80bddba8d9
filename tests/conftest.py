"""Fixtures shared by the test folders: the PostgreSQL server (tests/postgres_testkit.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

# the argon2 cost of the passwords in every test and every server a test starts: next to
# none (app.accounts._password_hasher), set before any test imports the application
os.environ.setdefault("SUDYA_PASSWORD_COST", "test")

import time
from pathlib import Path

import pytest

from postgres_testkit import PostgresServer, start_server

SCREENSHOTS = Path(__file__).parents[1] / "artifacts" / "screenshots"


def pytest_sessionstart(session: pytest.Session) -> None:
    """artifacts/screenshots/ emptied of the last run's pictures, once, before any test (with
    pytest-xdist: by the controller, before its workers start, so none deletes another's)."""
    if hasattr(session.config, "workerinput"):
        return
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The server the PostgreSQL tests make their databases on, once per session."""
    with start_server() as server:
        yield server


# what Python's multiprocessing starts for the interpreter itself, once, and ends when the
# interpreter does: not a test's
INTERPRETER_HELPERS = ("multiprocessing.resource_tracker", "multiprocessing.forkserver")


def _descendants(pid: int) -> list[tuple[int, str]]:
    """The live processes started (directly or not) by `pid`: (pid, command line)."""
    children: dict[int, list[int]] = {}
    commands: dict[int, str] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes().replace(b"\0", b" ")
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":  # a zombie is already gone: only its exit status is left
            child = int(stat.parent.name)
            children.setdefault(int(fields[1]), []).append(child)
            commands[child] = command.decode("utf-8", "replace").strip()
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if not any(helper in commands[child] for helper in INTERPRETER_HELPERS):
                found.append((child, commands[child]))
            todo.append(child)
    return found


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """No test leaves a process running (issue 38: a server started by a test listened 14
    minutes after CI ended): whatever this run started and still runs once every fixture
    is torn down fails the run, named."""
    config = session.config
    if not Path("/proc/self/stat").exists():
        return
    if not hasattr(config, "workerinput") and config.getoption("numprocesses", None):
        # pytest-xdist's controller: each worker checked its own (pytest_testnodedown)
        if _LEFT_BY_WORKERS:
            config.get_terminal_writer().line("\n".join(_LEFT_BY_WORKERS), red=True)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    deadline = time.monotonic() + 10
    left = _descendants(os.getpid())
    while left and time.monotonic() < deadline:  # one being stopped is given its seconds
        time.sleep(0.2)
        left = _descendants(os.getpid())
    if left:
        lines = "\n".join(f"  {pid}: {command[:200]}" for pid, command in left)
        message = f"processes the tests left running:\n{lines}"
        if hasattr(config, "workerinput"):  # a worker's exit status is not the run's
            config.workeroutput["left_processes"] = message  # type: ignore[attr-defined]
            return
        config.get_terminal_writer().line(message, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


_LEFT_BY_WORKERS: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: object, error: object) -> None:
    """A pytest-xdist worker ended: what it left running, for the controller to report."""
    left = getattr(node, "workeroutput", {}).get("left_processes")
    if left:
        _LEFT_BY_WORKERS.append(left)
