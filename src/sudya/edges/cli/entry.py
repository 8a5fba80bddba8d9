"""The `sudya` command's entry point (the console script, and `python -m sudya`).

`sudya replay FILE`, the command an organiser testing a rulebook and a federation replaying
a season run again and again, goes straight to the replay: the command-line library (typer
and click, 40-50 ms of every start here) and the other commands are imported only for the
rest of the command line, for help and for usage errors, so that `sudya replay --help`,
`sudya replay` with no file and every other command read exactly as sudya.edges.cli.main makes
them. Every command's errors go through `guarded`: a user's error is one line and exit 2,
never a traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from contextvars import ContextVar
from pathlib import Path
from typing import NoReturn

from sudya.domain.errors import SudyaError

# the language the running command was given (--lang, or SUDYA_LANG read as its default):
# its error messages are in it too. None: no command has said (`cli_lang` reads SUDYA_LANG)
_chosen_lang: ContextVar[str | None] = ContextVar("sudya_cli_lang", default=None)


def main() -> None:
    """Entry point: user errors print one line and exit 2, never a traceback."""
    # pydantic looks for plugins in every installed package's entry points when it builds its
    # first model (40-80 ms of each start here, a tenth of a scenario's replay); Sudya uses
    # none. Whoever wants one sets the variable themself (empty: every plugin loads).
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # each command starts with no language of its own (the tests run many in one process)
    _chosen_lang.set(None)
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "replay" and not args[1].startswith("-"):
        file = Path(args[1])
        guarded(lambda: replay_file(file))
        leave()
    from sudya.edges.cli.main import command_line

    guarded(command_line())


def replay_file(file: Path) -> None:
    """Replay a scenario file and write its rulings as JSON to stdout, as they are made."""
    from sudya.domain.bulk import paused_gc

    # the events, the engine and the output all live until the command ends: the
    # collector's full collections would walk them again and again (a third of a season's
    # replay beside the engine), so it waits the whole command, not the engine's run alone;
    # and the imports, whose pydantic models and rulebook are many thousands of objects made
    # to stay (its collections during them: 25-55 ms of a start)
    with paused_gc():
        from sudya.app.scenario import replay_file_text

        chunks = replay_file_text(file)
        sys.stdout.flush()
        stream = sys.stdout.buffer
        for chunk in chunks:  # written as it is made: a season's output is never held whole
            stream.write(chunk)
        stream.flush()


def leave() -> NoReturn:
    """End the process now, its output written (`replay_file` flushes it): without the
    interpreter's teardown, which would free the replay's engine, events and rulings one
    object at a time (rulings and their sanctions refer to each other, so its last collection
    walks them all first): 0.5-0.6 s of a 100,000-event season's 3 s replay here, after the
    last byte is out. Nothing of a replay waits for the exit (no file, no database, no
    atexit handler of its own)."""
    sys.stderr.flush()
    os._exit(0)


def guarded(command: Callable[[], object]) -> None:
    """Run a command: a SudyaError is one line and exit 2; a database failure one line and
    exit 1; a closed pipe on stdout exit 1 and no word; Ctrl-C exit 130 (SUDYA_DEBUG=1: the
    traceback instead)."""
    if os.environ.get("SUDYA_DEBUG"):
        command()
        return
    try:
        command()
    except SudyaError as exc:
        sys.stderr.write(f"sudya: {_localised(exc)}\n")
        sys.exit(2)
    except BrokenPipeError:
        # the reader stopped reading (`sudya replay FILE | head`): exit 1 with no word, as
        # typer ends the commands it runs; what is left unwritten goes nowhere, so that the
        # interpreter's last flush of stdout at exit does not fail again
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)  # Ctrl-C: no traceback, typer's exit status for it
    except Exception as exc:
        # the last resort: a database failure (server down, disk full) is one line and exit
        # 1, not a traceback. Only a command that opened a ledger has imported SQLAlchemy,
        # and only it can meet one: the others (a scenario's replay) need not import it
        # (0.2 s of every start)
        errors = sys.modules.get("sqlalchemy.exc")
        if errors is None or not isinstance(exc, errors.SQLAlchemyError):
            raise
        first = (str(getattr(exc, "orig", None) or exc).splitlines() or [""])[0]
        sys.stderr.write(f"sudya: database error: {first}\n")
        sys.exit(1)


def use_lang(lang: str) -> None:
    """The running command's language (its --lang option's callback): its errors say it."""
    _chosen_lang.set(lang)


def cli_lang() -> str:
    """The command's --lang; without one, Russian first and SUDYA_LANG=en for English."""
    chosen = _chosen_lang.get()
    if chosen is not None:
        return chosen
    return "en" if os.environ.get("SUDYA_LANG") == "en" else "ru"


def _localised(exc: SudyaError) -> str:
    """An error's line in the CLI's language, from the message catalogues."""
    from sudya.i18n.messages import error_text

    return error_text(exc, cli_lang())
