"""Running the `sudya` command for the CLI tests.

In this process (`run`, `run_all`, the `sudya` fixture of conftest.py): Typer's CliRunner
captures stdout and stderr and sets the environment, and the command runs as the console
script runs it — `sudya.edges.cli.entry.main` with the command line in `sys.argv`, so a plain
`sudya replay FILE` takes the fast path and everything else goes through Typer, and a user's
error is one `sudya: …` line and exit 2 (`entry.guarded`). Only the replay's last step differs:
`entry.leave` ends a replay's process at once with `os._exit(0)`, which here would end the
test run, so it is an ordinary exit 0 instead (the real one is tested end to end).

As a real process (`process`, `run_process`), for the few end-to-end tests (marked slow): the
installed console script, `python -m sudya`, the replay's fast exit, Ctrl-C and a closed
pipe. Each process runs in a session of its own; one the test has not waited for is killed
with its whole group in a `finally`, whatever the test did.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from typer.testing import CliRunner

# compiled modules for the subprocesses, outside the checkout (see tests/db/ledger_testkit.py)
PYCACHE = Path(tempfile.gettempdir()) / f"sudya-tests-pycache-{os.getuid()}"
# engine snapshots are signed with a key kept in a file (sudya.app.settings): the tests' own,
# not the user's in their home
SNAPSHOT_KEY = Path(tempfile.gettempdir()) / f"sudya-tests-snapshot-{os.getuid()}.key"
# variables of the calling shell that would change what the CLI prints (and every SUDYA_*)
SCRUBBED = ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES",
            "PYTHONDONTWRITEBYTECODE")
# the console script the user runs (`.venv/bin/sudya`); `python -m sudya` where there is none
SCRIPT = Path(sys.executable).with_name("sudya")
COMMAND = [str(SCRIPT)] if SCRIPT.exists() else [sys.executable, "-m", "sudya"]


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()

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


def environment(lang: str | None = None, extra: Mapping[str, str] | None = None,
                base: Mapping[str, str] | None = None) -> dict[str, str | None]:
    """What a command's environment changes: no SUDYA_* variable (SUDYA_LANG only when `lang`
    is given) nor any of SCRUBBED, rich tables 200 columns wide, no colour; then `extra`.
    A None value unsets the variable."""
    current = os.environ if base is None else base
    out: dict[str, str | None] = {k: None for k in current
                                  if k.startswith("SUDYA_") or k in SCRUBBED}
    out.update({"COLUMNS": "200", "NO_COLOR": "1", "PYTHONIOENCODING": "utf-8",
                "SUDYA_SNAPSHOT_KEY_FILE": str(SNAPSHOT_KEY),
                # the entry point sets it (as the shell's may): given back after each run
                "PYDANTIC_DISABLE_PLUGINS": current.get("PYDANTIC_DISABLE_PLUGINS")})
    if lang is not None:
        out["SUDYA_LANG"] = lang
    out.update(extra or {})
    return out


def env(lang: str | None = None, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The whole environment of a real process (see `environment`)."""
    changes = environment(lang, extra)
    whole = {k: v for k, v in os.environ.items() if changes.get(k, v) is not None}
    whole.update({k: v for k, v in changes.items() if v is not None})
    whole["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return whole


# ---------------------------------------------------------------------- in this process
def _leave() -> NoReturn:
    """`entry.leave` without `os._exit`: the replay's output is written, exit 0."""
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(0)


@contextlib.contextmanager
def _in(cwd: Path, argv: list[str]) -> Iterator[None]:
    """The working directory, the command line and the replay's exit, as a command sees
    them, given back afterwards."""
    from sudya.edges.cli import entry, main

    saved = (os.getcwd(), sys.argv, entry.leave, main.leave)
    os.chdir(cwd)
    sys.argv = ["sudya", *argv]
    entry.leave = main.leave = _leave
    try:
        yield
    finally:
        os.chdir(saved[0])
        sys.argv = saved[1]
        entry.leave, main.leave = saved[2], saved[3]


def run(cwd: Path, *args: Any, lang: str | None = None, env: Mapping[str, str] | None = None,
        input: str | None = None) -> Run:
    """`sudya ARGS` in this process, in the folder `cwd`: the console script's
    `entry.main()` inside Typer's CliRunner isolation (its captured stdin, stdout, stderr and
    environment; `CliRunner.invoke` itself takes a Typer app and would leave out the entry
    point, which turns a user's error into one line and exit 2)."""
    from sudya.edges.cli import entry

    argv = [str(a) for a in args]
    code, problem = 0, ""
    with _in(cwd, argv), CliRunner().isolation(input=input,
                                               env=environment(lang, env)) as streams:
        try:
            entry.main()
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except Exception:  # noqa: BLE001  (what the user would see: a traceback, exit 1)
            code, problem = 1, traceback.format_exc()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
        out, err = (s.getvalue().decode("utf-8", "replace") for s in streams[:2])
    return Run(tuple(argv), code, out, err + problem)


def run_all(cwd: Path, *commands: tuple[Any, ...], lang: str | None = None) -> list[Run]:
    """The commands one after another (in this process they share sys.stdout); their runs."""
    return [run(cwd, *c, lang=lang) for c in commands]


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


# ---------------------------------------------------------------------- real processes
@contextlib.contextmanager
def process(argv: Sequence[Any], cwd: Path, *, environ: Mapping[str, str] | None = None,
            **popen: Any) -> Iterator[subprocess.Popen[Any]]:
    """A real process in a session (and process group) of its own; once the block is left,
    however, a process not waited for yet is killed with its whole group, and reaped."""
    proc = subprocess.Popen([str(a) for a in argv], cwd=cwd,
                            env=dict(env() if environ is None else environ),
                            start_new_session=True, **popen)
    try:
        yield proc
    finally:
        # not reaped yet (running, or ended unwaited for): its group id is still its own,
        # and the whole group goes, whatever the leader started
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=60)
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()


def run_process(cwd: Path, *args: Any, command: Sequence[str] | None = None,
                lang: str | None = None, extra: Mapping[str, str] | None = None,
                timeout: float = 120) -> Run:
    """`sudya ARGS` as a real process (the console script, or `command`)."""
    argv = [*(COMMAND if command is None else command), *map(str, args)]
    with process(argv, cwd, environ=env(lang, extra), stdout=subprocess.PIPE,
                 stderr=subprocess.PIPE, text=True, encoding="utf-8",
                 errors="replace") as proc:
        out, err = proc.communicate(timeout=timeout)
        return Run(tuple(map(str, args)), proc.returncode, out, err)
