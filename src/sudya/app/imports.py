"""Importing players, teams and results from CSV: every row or none."""

from __future__ import annotations

import csv
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from sudya.app.ledger import Actor, Ledger
from sudya.app.views import RosterImportView, RosterProblemView, RosterRowView
from sudya.domain.errors import SudyaError
from sudya.domain.roster_files import PlayerRow, RosterFile, TeamRow, gender

COLUMNS = {
    "players": ["handle", "name", "team", "table", "gender"],
    "teams": ["handle", "name", "members"],
    "results": ["round", "player_a", "player_b", "score"],
}


class ImportRejected(SudyaError):
    """Some rows were refused; nothing was imported. `problems`: each refused row's line
    and what was wrong with it."""

    code = "import.rejected"

    def __init__(self, problems: list[tuple[int, SudyaError]]) -> None:
        super().__init__("import.rejected", count=len(problems))
        self.problems = problems

    @property
    def rejected(self) -> list[str]:
        """Every refused row in English, `line 3: …`."""
        return self.lines("en")

    def lines(self, lang: str = "en") -> list[str]:
        """Every refused row in a language, `line 3: …`."""
        from sudya.i18n.messages import render  # the catalogues are read at the edge only

        return [f"{render('import.at-line', {'n': line}, lang)}: {error.render(lang)}"
                for line, error in self.problems]


def read_rows(kind: str, path: Path) -> list[dict[str, str]]:
    if kind not in COLUMNS:
        raise SudyaError("import.unknown-what", field="WHAT", what=kind)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise SudyaError("import.unreadable", where=str(path), error=exc.strerror) from exc
    except UnicodeDecodeError:
        raise SudyaError("import.not-utf8", where=str(path)) from None
    reader = csv.DictReader(text.splitlines())
    missing = [c for c in COLUMNS[kind][:1] if c not in (reader.fieldnames or [])]
    if kind == "results":
        missing = [c for c in COLUMNS[kind] if c not in (reader.fieldnames or [])]
    if missing:
        raise SudyaError("import.missing-columns", where=str(path), columns=missing,
                         expected=COLUMNS[kind])
    return list(reader)


class _DryRun(Exception):
    """Raised to roll a trial import back once every row went in."""


def import_roster(ledger: Ledger, roster: RosterFile[Any], *, tournament: int, actor: Actor,
                  dry_run: bool = False) -> RosterImportView:
    """An organiser's list of players or teams (domain.roster_files), every row or none: the
    reader's problems first, then what the ledger itself refuses (a handle taken, one that
    looks like a registered one, an unknown team). With `dry_run` (the preview), everything
    is tried in a transaction that is then rolled back: the preview names exactly the rows
    the import would refuse."""
    problems = [(p.line, p.error()) for p in roster.problems]
    bad = roster.bad_lines
    if roster.rows:  # the rows the reader took, tried too: the preview names every bad row
        try:
            with ledger.writing(tournament=tournament) as session:
                for row in (r for r in roster.rows if r.line not in bad):
                    try:
                        with session.begin_nested():
                            _roster_row(ledger, row, tournament, actor, session)
                    except SudyaError as exc:
                        problems.append((row.line, exc))
                    except (SQLAlchemyError, OverflowError) as exc:  # the database refused
                        first = str(getattr(exc, "orig", None) or exc).splitlines()[0]
                        problems.append((row.line, SudyaError("import.database-refused",
                                                              error=first)))
                if problems or dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        finally:
            ledger.forget_all()  # rows applied to cached engines went with the rollback
    return RosterImportView(
        kind=roster.kind, count=len(roster.rows), imported=not problems and not dry_run,
        rows=[RosterRowView(line=r.line, handle=r.handle, name=r.name,
                            team=getattr(r, "team", None), table=getattr(r, "table", None),
                            gender=getattr(r, "gender", None),
                            members=list(getattr(r, "members", ())))
              for r in roster.rows],
        problems=[RosterProblemView(line=line, field=e.field, code=e.code,
                                    params=dict(e.params)) for line, e in sorted(
                                        problems, key=lambda p: p[0])])


def _roster_row(ledger: Ledger, row: PlayerRow | TeamRow, tournament: int, actor: Actor,
                session: Any) -> None:
    if isinstance(row, PlayerRow):
        ledger.add_player(tournament=tournament, handle=row.handle, name=row.name,
                          team=row.team, table=row.table, gender=row.gender, actor=actor,
                          session=session)
    else:
        ledger.add_team(tournament=tournament, handle=row.handle, name=row.name,
                        members=list(row.members), actor=actor, session=session)


def import_csv(ledger: Ledger, kind: str, path: Path, *, tournament: int, actor: Actor,
               progress: Callable[[int, int], None] | None = None) -> int:
    """Import every row in one transaction; any rejected row rolls all of them back."""
    rows = read_rows(kind, path)
    rejected: list[tuple[int, SudyaError]] = []
    try:
        # the series' turn for the whole batch, so its rows go in one after the other
        with ledger.writing(tournament=tournament) as session:
            for i, row in enumerate(rows, start=2):  # line 1 is the header
                try:
                    with session.begin_nested():
                        _import_row(ledger, kind, row, tournament, actor, session)
                except SudyaError as exc:
                    rejected.append((i, exc))
                except (SQLAlchemyError, OverflowError) as exc:  # the database refused it
                    first = str(getattr(exc, "orig", None) or exc).splitlines()[0]
                    rejected.append((i, SudyaError("import.database-refused", error=first)))
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
            raise SudyaError("import.not-whole", field="table")
        try:
            sex = gender(field("gender"))
        except ValueError:
            raise SudyaError("roster.gender", field="gender", value=field("gender")) from None
        ledger.add_player(tournament=tournament, handle=field("handle"),
                          name=field("name") or None, team=field("team") or None,
                          table=int(table) if table else None, gender=sex, actor=actor,
                          session=session)
    elif kind == "teams":
        members = [p for p in field("members").replace(";", " ").split() if p]
        ledger.add_team(tournament=tournament, handle=field("handle"),
                        name=field("name") or None, members=members, actor=actor,
                        session=session)
    else:
        try:
            a, b = (int(x) for x in field("score").split("-"))
        except ValueError:
            raise SudyaError("import.score-format", field="score",
                             score=field("score")) from None
        rnd = field("round")
        if rnd and not rnd.isdigit():
            raise SudyaError("import.not-whole", field="round")
        ledger.record_result(tournament=tournament, players=(field("player_a"),
                                                             field("player_b")),
                             score=(a, b), round=int(rnd) if rnd else None, actor=actor,
                             session=session)
