"""Running the real `sudya` command in a subprocess, for the ledger and deck CLI tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# compiled modules for the subprocesses, outside the checkout (see tests/db/ledger_testkit.py)
PYCACHE = Path(tempfile.gettempdir()) / f"sudya-tests-pycache-{os.getuid()}"


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def ok(self) -> Run:
        assert self.returncode == 0, (self.args, self.returncode, self.stderr)
        assert "Traceback" not in self.stderr
        return self

    def json(self) -> Any:
        return json.loads(self.ok().stdout)

    def documents(self) -> list[Any]:
        """Every JSON document printed one after another (findings, then rulings)."""
        decoder, text, out = json.JSONDecoder(), self.ok().stdout, []
        at = 0
        while text[at:].strip():
            while text[at].isspace():
                at += 1
            value, at = decoder.raw_decode(text, at)
            out.append(value)
        return out


def env(lang: str | None = None) -> dict[str, str]:
    """The environment without SUDYA_* variables (SUDYA_LANG only when `lang` is given)."""
    out = {k: v for k, v in os.environ.items()
           if not k.startswith("SUDYA_") and k not in ("FORCE_COLOR", "COLUMNS", "LINES",
                                                       "PYTHONDONTWRITEBYTECODE")}
    out.update({"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8",
                "PYTHONPYCACHEPREFIX": str(PYCACHE)})
    if lang is not None:
        out["SUDYA_LANG"] = lang
    return out


def _start(args: tuple[Any, ...], cwd: Path, lang: str | None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sudya", *[str(a) for a in args]],
                            cwd=cwd, env=env(lang), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, encoding="utf-8")


def run_all(cwd: Path, *commands: tuple[Any, ...], lang: str | None = None) -> list[Run]:
    """Run the commands at the same time (they are independent); their runs, in order."""
    procs = [(tuple(str(a) for a in c), _start(c, cwd, lang)) for c in commands]
    runs = []
    for args, proc in procs:
        out, err = proc.communicate(timeout=120)
        runs.append(Run(args, proc.returncode, out, err))
    return runs


def run(cwd: Path, *args: Any, lang: str | None = None) -> Run:
    return run_all(cwd, args, lang=lang)[0]


def refused(r: Run, *needles: str) -> str:
    """Exit 2, nothing on stdout, one `sudya: ...` line on stderr holding every needle."""
    assert r.returncode == 2, (r.args, r.returncode, r.stdout, r.stderr)
    assert r.stdout == "", r.args
    assert "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1, (r.args, r.stderr)
    assert lines[0].startswith("sudya: "), lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]
