"""Importing players, teams and results from CSV: every row or none."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from sudya.errors import SudyaError
from sudya.services.ledger import Actor, Ledger

COLUMNS = {
    "players": ["handle", "name", "team", "table"],
    "teams": ["handle", "name", "members"],
    "results": ["round", "player_a", "player_b", "score"],
}


class ImportRejected(SudyaError):
    """Some rows were refused; nothing was imported."""

    code = "import"

    def __init__(self, rejected: list[str]) -> None:
        super().__init__(f"{len(rejected)} row(s) rejected; nothing was imported")
        self.rejected = rejected


def read_rows(kind: str, path: Path) -> list[dict[str, str]]:
    if kind not in COLUMNS:
        raise SudyaError(f"WHAT: players, teams or results, got {kind!r}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SudyaError(f"{path}: cannot read: {exc.strerror}") from exc
    except UnicodeDecodeError:
        raise SudyaError(f"{path}: not UTF-8 text") from None
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in COLUMNS[kind][:1] if c not in (reader.fieldnames or [])]
    if kind == "results":
        missing = [c for c in COLUMNS[kind] if c not in (reader.fieldnames or [])]
    if missing:
        raise SudyaError(f"{path}: missing column(s) {', '.join(missing)} "
                         f"(expected {', '.join(COLUMNS[kind])})")
    return list(reader)


def import_csv(ledger: Ledger, kind: str, path: Path, *, tournament: int, actor: Actor,
               progress: Callable[[int, int], None] | None = None) -> int:
    """Import every row in one transaction; any rejected row rolls all of them back."""
    rows = read_rows(kind, path)
    rejected: list[str] = []
    try:
        with ledger.uow().begin() as session:
            for i, row in enumerate(rows, start=2):  # line 1 is the header
                try:
                    with session.begin_nested():
                        _import_row(ledger, kind, row, tournament, actor, session)
                except SudyaError as exc:
                    rejected.append(f"line {i}: {exc}")
                except (SQLAlchemyError, OverflowError) as exc:  # the database refused it
                    first = str(getattr(exc, "orig", None) or exc).splitlines()[0]
                    rejected.append(f"line {i}: the database refused the row: {first}")
                if progress:
                    progress(i - 1, len(rows))
            if rejected:
                raise ImportRejected(rejected)
    except BaseException:
        # rows applied to the cached engines were rolled back with the transaction
        ledger.forget_all()
        raise
    return len(rows)


def _import_row(ledger: Ledger, kind: str, row: dict[str, Any], tournament: int,
                actor: Actor, session: Any) -> None:
    def field(name: str) -> str:
        return (row.get(name) or "").strip()

    if kind == "players":
        table = field("table")
        if table and not table.isdigit():
            raise SudyaError("table: must be a whole number")
        ledger.add_player(tournament=tournament, handle=field("handle"),
                          name=field("name") or None, team=field("team") or None,
                          table=int(table) if table else None, actor=actor, session=session)
    elif kind == "teams":
        members = [p for p in field("members").replace(";", " ").split() if p]
        ledger.add_team(tournament=tournament, handle=field("handle"),
                        name=field("name") or None, members=members, actor=actor,
                        session=session)
    else:
        try:
            a, b = (int(x) for x in field("score").split("-"))
        except ValueError:
            raise SudyaError(f"score: write it like 12-8, got {field('score')!r}") from None
        rnd = field("round")
        if rnd and not rnd.isdigit():
            raise SudyaError("round: must be a whole number")
        ledger.record_result(tournament=tournament, players=(field("player_a"),
                                                             field("player_b")),
                             score=(a, b), round=int(rnd) if rnd else None, actor=actor,
                             session=session)
