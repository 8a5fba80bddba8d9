"""Run the real `sudya` command in a subprocess: no CliRunner, nothing mocked."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

BUNDLED = Path(__file__).parents[2] / "src" / "sudya" / "domain" / "rulebook" / "bundled"

# Variables of the calling shell that would change what the CLI prints.
SCRUBBED = ("SUDYA_LANG", "SUDYA_RULEBOOK_PATH", "SUDYA_DEBUG", "FORCE_COLOR",
            "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES")


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()


Sudya = Callable[..., Run]


@pytest.fixture
def sudya(tmp_path: Path) -> Sudya:
    """`sudya(*args, cwd=..., env={...})` runs `python -m sudya ARGS` and returns a Run.

    SUDYA_LANG (and the other SUDYA_* variables) are unset unless `env` sets them; the
    working directory is the test's tmp_path unless `cwd` says otherwise. Rich tables are
    rendered 200 columns wide so that ids and names are not cut.
    """

    def run(*args: str | Path, cwd: Path | None = None,
            env: dict[str, str] | None = None) -> Run:
        full_env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        full_env.update({"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})
        full_env.update(env or {})
        proc = subprocess.run(
            [sys.executable, "-m", "sudya", *[str(a) for a in args]],
            cwd=cwd or tmp_path, env=full_env, capture_output=True, text=True,
            encoding="utf-8", timeout=120, check=False,
        )
        return Run(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture(autouse=True)
def bundled_folder_untouched() -> Iterator[None]:
    """No CLI test may write into the bundled rulebook folder (precedents go to tmp)."""
    before = sorted(p.name for p in BUNDLED.iterdir())
    yield
    after = sorted(p.name for p in BUNDLED.iterdir())
    assert after == before, f"the bundled folder changed: {set(after) ^ set(before)}"
