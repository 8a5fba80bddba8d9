"""The commands' one way to the application (sudya.app.core.Sudya): open it over `--db`, say
who is writing, send it a command, build a command from the options.

Who is writing: `--by NAME` (SUDYA_USER) names an account or a judge on a tournament's staff
list, who may do what their roles there allow; without it, the owner of the database, who may
do everything — for a SQLite file the OS user who owns the file (anyone else is told to say
who they are with --by), for a database server whoever holds its URL.
"""

from __future__ import annotations

import getpass
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from sudya.edges.cli.main import UsageError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from sudya.app.access import Permission
    from sudya.app.common import Actor
    from sudya.app.core import Sudya

    M = TypeVar("M", bound=BaseModel)

By = Annotated[str | None, typer.Option(
    "--by", envvar="SUDYA_USER",
    help="who is writing: an account or a judge of the tournament's staff (default: the "
         "owner of the database, who may do everything)")]


def database_url(db: str | None) -> str:
    """`--db`, else SUDYA_DATABASE_URL, else the default database."""
    from sudya.app.settings import Settings

    return db or Settings().database_url


@contextmanager
def opened(db: str | None) -> Iterator[Sudya]:
    """The application over the database `db` names (refused unless it is migrated), its
    connections closed once the command is done."""
    from sudya.app.core import Sudya
    from sudya.app.settings import Settings

    app = Sudya.open(Settings(database_url=database_url(db)))
    try:
        yield app
    finally:
        app.close()  # its writes done, the SQLite log folded into the file, connections closed


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names (None: another database, or SQLite in memory)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.split("+")[0].lower() != "sqlite":
        return None
    path = rest.partition("?")[0]
    path = path[1:] if path.startswith("/") else path  # sqlite:///rel.db, sqlite:////abs.db
    if path in ("", ":memory:") or path.startswith("file:"):
        return None
    return Path(path)


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):  # no login name and no passwd entry (a bare container)
        return f"uid-{os.getuid()}"


def actor(by: str | None, db: str | None) -> Actor:
    """Who is writing: the account or staff judge `by` names; else the owner of the database
    (refused for a SQLite file another OS user owns: they say who they are with --by)."""
    from sudya.app.common import Actor

    if by:
        return Actor(name=by)
    path = sqlite_file(database_url(db))
    if path is not None and path.exists():  # (a file not made yet would be this user's)
        owner = path.stat().st_uid
        if owner != os.getuid():
            raise UsageError("cli.database-not-yours", field="--by", path=str(path),
                             uid=owner)
    return Actor(name=_login(), owner=True)


def owner(db: str | None) -> Actor:
    """The owner of the database, for what only the owner does (refused for anyone else)."""
    return actor(None, db)


@contextmanager
def _by(who: Actor) -> Iterator[None]:
    """A refusal of whom `--by` names names that option."""
    from sudya.app.access import Refused

    try:
        yield
    except Refused as exc:
        if not who.owner and not exc.field:
            exc.field = "--by"
        raise


def send(app: Sudya, cmd: Any, who: Actor, tournament: int | None = None, *,
         key: str | None = None, event_id: str | None = None) -> Any:
    """`Sudya.handle`: the command's permission and scope checked, its handler run."""
    with _by(who):
        return app.handle(cmd, who, tournament, key=key, event_id=event_id)


def check(app: Sudya, cmd: Any, who: Actor, tournament: int) -> None:
    """`Sudya.check`: refused now unless `who` may send `cmd` (before something else is
    stored)."""
    with _by(who):
        app.check(cmd, who, tournament)


def refuse(who: Actor, permission: Permission, where: str = "") -> Exception:
    """The refusal of a permission the core checks for no command (see `send`)."""
    from sudya.app.access import refuse as refusal

    exc = refusal(who, permission, where)
    exc.field = exc.field or "--by"
    return exc


def build(kind: type[M], /, **fields: Any) -> M:
    """A set-up command from the options; bad input refused as the decoder refuses it,
    naming the field."""
    from pydantic import ValidationError

    from sudya.domain.commands import error_of

    try:
        return kind.model_validate(fields)
    except ValidationError as exc:
        raise error_of(exc) from None


def decode(kind: str, payload: dict[str, Any]) -> Any:
    """A ledger event's command (`infraction`, `appeal`, …) through the one decoder."""
    from sudya.domain.commands import decode as decoded

    return decoded(kind, payload)


def judge_of(app: Sudya, who: Actor, tournament: int, judge: str | None) -> str | None:
    """The judge a ruling is recorded by: `--judge`, else the judge `--by` names on the
    tournament's staff list (as the web app records a signed-in judge's rulings)."""
    if judge is not None or who.owner:
        return judge
    return app.standing(who, tournament).roles.judge_handle
