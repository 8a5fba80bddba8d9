"""Making and migrating the database, and copying it whole (the application's side of
`sudya db upgrade`, `sudya backup` and `sudya restore`)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from sudya.adapters.db.migrate import current, head, require_current, upgrade
from sudya.adapters.db.session import make_engine, normalise_url
from sudya.domain.errors import SudyaError


def migrate(url: str) -> str:
    """Make the database at `url` (a SQLite file is made if need be) or bring it to the
    newest schema; the schema's revision."""
    engine = make_engine(url)
    try:
        upgrade(engine)
    finally:
        engine.dispose()
    return head() or ""


# ---------------------------------------------------------------------- copies
@dataclass(frozen=True)
class Copy:
    """A copy made (a backup, a restore): where, and what `audit verify` found in it."""

    path: str
    series: int
    records: int
    problems: int
    heads: list[tuple[str, str | None, int]]  # (series, chain head, last event) of each


def backup(url: str, target: Path) -> Copy:
    """A whole, consistent copy of the SQLite database at `url` in the new file `target`
    (SQLite's online backup: made while the server runs, every commit up to its start
    included), then verified. A server database is copied with its own tools (pg_dump)."""
    source = _sqlite_path(url, "backup.postgresql")
    if target.exists():
        raise SudyaError("backup.target-exists", field="FILE", path=str(target))
    if not target.parent.is_dir():
        raise SudyaError("db.file-unopenable", field="FILE", path=str(target))
    make_engine(url, create=False).dispose()  # refused, naming --db, when there is none
    _copy(source, target)
    return verified(f"sqlite:///{target}", target)


def restore(source: Path, url: str) -> Copy:
    """The backup file `source` becomes the database at `url`, which must not hold a
    ledger yet (a restore never overwrites one), then verified."""
    target = _sqlite_path(url, "restore.postgresql")
    if not source.is_file():
        raise SudyaError("restore.source-missing", field="FILE", path=str(source))
    if target.exists() and target.stat().st_size > 0:
        engine = make_engine(url)
        try:
            if current(engine) is not None:
                raise SudyaError("restore.target-not-empty", field="--db", path=str(target))
        finally:
            engine.dispose()
    check = make_engine(f"sqlite:///{source}", create=False)
    try:
        require_current(check)
    finally:
        check.dispose()
    _copy(source, target)
    return verified(url, target)


def verified(url: str, path: Path) -> Copy:
    """`audit verify` of the database at `url` (nothing stored: a check of a copy)."""
    from sudya.app.audit import verify
    from sudya.app.ledger import Ledger

    engine = make_engine(url, create=False)
    try:
        audits = verify(Ledger(engine), keep=False)
    finally:
        engine.dispose()
    return Copy(path=str(path), series=len(audits), records=sum(a.records for a in audits),
                problems=sum(len(a.problems) for a in audits),
                heads=[(a.series, a.head, a.last_seq) for a in audits])


def _copy(source: Path, target: Path) -> None:
    """SQLite's online backup API: page by page, consistent as of its start; the copy's
    write-ahead log folded in, so the file alone is whole."""
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
            dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            dst.close()
    finally:
        src.close()


def _sqlite_path(url: str, server_code: str) -> Path:
    """The SQLite file `url` names; a server database is refused, naming its own tools."""
    try:
        parsed = make_url(normalise_url(url))
    except ArgumentError:
        raise SudyaError("db.url-malformed", field="--db", url=url) from None
    if parsed.drivername.partition("+")[0] != "sqlite" or not parsed.database:
        engine = make_engine(url)  # the URL checked, and the server: is it there?
        try:
            with engine.connect():
                pass
        finally:
            engine.dispose()
        raise SudyaError(server_code, field="--db")
    return Path(parsed.database)
