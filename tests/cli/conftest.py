"""The `sudya` command for the CLI tests: run in this process through Typer's CliRunner
(cli_kit.run), as the console script runs it; a few end-to-end tests start real processes
(cli_kit.process) and are marked `slow`."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_kit import Run, run

BUNDLED = Path(__file__).parents[2] / "src" / "sudya" / "domain" / "rulebook" / "bundled"

Sudya = Callable[..., Run]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: starts real `sudya` processes (end to end: the console script, "
                   "python -m sudya, the replay's fast exit, signals, pipes)")


@pytest.fixture
def sudya(tmp_path: Path) -> Sudya:
    """`sudya(*args, cwd=..., env={...})` runs `sudya ARGS` in this process and returns a Run.

    SUDYA_LANG (and the other SUDYA_* variables) are unset unless `env` sets them; the
    working directory is the test's tmp_path unless `cwd` says otherwise. Rich tables are
    rendered 200 columns wide so that ids and names are not cut.
    """

    def sudya_(*args: str | Path, cwd: Path | None = None,
               env: dict[str, str] | None = None) -> Run:
        return run(cwd or tmp_path, *args, env=env)

    return sudya_


@pytest.fixture(autouse=True)
def stored_editions_forgotten() -> Iterator[None]:
    """A command run in this process registers the editions its ledger holds with the loader
    (a module's registry): forgotten after the test, or a later test in this process would
    see another test's stored edition (`berserk` edition 2 as the newest)."""
    yield
    from sudya.domain.rulebook import loader

    loader.keep_stored(set())


@pytest.fixture(autouse=True)
def bundled_folder_untouched() -> Iterator[None]:
    """No CLI test may write into the bundled rulebook folder (precedents go to tmp)."""
    before = sorted(p.name for p in BUNDLED.iterdir())
    yield
    after = sorted(p.name for p in BUNDLED.iterdir())
    assert after == before, f"the bundled folder changed: {set(after) ^ set(before)}"
