"""Rulebooks in the ledger from the CLI: import a file, publish the next edition, the editions
and cases of a stored rulebook (services.rulebook_store; the web editor's twins)."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sudya.edges.cli.console import out
from sudya.edges.cli.core import By, actor, build, opened, send
from sudya.edges.cli.ledger import Db, JsonOpt
from sudya.edges.cli.main import UsageError, rulebook_app

if TYPE_CHECKING:
    from sudya.app.views import EditionView

FromOpt = Annotated[str, typer.Option(
    "--from", help="the first day in force (ISO date), or next-tournament (default): from "
                   "the first tournament dated on or after today")]
SummaryOpt = Annotated[str | None, typer.Option(help="what changed in this edition")]
SeriesOpt = Annotated[str | None, typer.Option(
    "--series", "-s", help="the series the edition is for (its name or id): in force in its "
                           "tournaments only; a bundled rulebook is never changed for all")]


def _series(value: str | None) -> int | str | None:
    """A series named by its id or its name."""
    return int(value) if value is not None and value.isdigit() else value


def _start(text: str) -> dt.date | None:
    if text in ("next-tournament", "next"):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UsageError("cli.not-a-date-or-next", field="--from", value=text) from None


def _file_text(path: Path, option: str) -> str:
    from sudya.domain.errors import RulebookError
    from sudya.domain.rulebook import loader

    try:
        return loader.read_text(path, loader.MAX_YAML_BYTES)
    except RulebookError as exc:
        raise UsageError(exc.code, field=option, where=exc.where, **exc.params) from None


def _cases_beside(path: Path) -> Any:
    """The cases kept beside a rulebook file (`club.cases/`), or None: then the previous
    edition's are run."""
    from sudya.app.rulebook_cases import folder
    from sudya.app.rulebook_store import cases_in

    return cases_in(folder(str(path))) or None


def _published(view: EditionView, as_json: bool) -> None:
    if as_json:
        sys.stdout.write(json.dumps(view.as_json(), ensure_ascii=False, indent=2) + "\n")
        return
    start = (view.in_force_from.isoformat() if view.in_force_from is not None
             else "next-tournament")
    out.print(f"{view.rulebook} edition {view.edition} published, in force from {start} "
              f"(sha256 {view.sha256})")


@rulebook_app.command("import")
def rulebook_import(
    file: Annotated[Path, typer.Argument(help="a rulebook YAML file")],
    start: FromOpt = "next-tournament",
    summary: SummaryOpt = None,
    series: SeriesOpt = None,
    db: Db = None,
    by: By = None,
    as_json: JsonOpt = False,
) -> None:
    """Импорт регламента в журнал. Publish a rulebook file into the ledger as the next edition
    of its id for a --series, after the checks (it loads, lints without errors, passes its
    cases: FILE.cases/, else the series' previous edition's)."""
    from sudya.domain.commands import PublishRulebook

    cmd = build(PublishRulebook, text=_file_text(file, "FILE"), in_force_from=_start(start),
                summary=summary or f"imported from {file.name}", cases=_cases_beside(file),
                series=_series(series))
    who = actor(by, db)
    with opened(db) as sudya:
        view = send(sudya, cmd, who)
    _published(view, as_json)


@rulebook_app.command("publish")
def rulebook_publish(
    ref: Annotated[str, typer.Argument(help="rulebook id")],
    start: FromOpt = "next-tournament",
    file: Annotated[Path | None, typer.Option(help="the new edition's YAML")] = None,
    decision: Annotated[str | None, typer.Option(
        help="or: the college decision (event id) whose precedent becomes a rule")] = None,
    tournament: Annotated[int | None, typer.Option(
        "--tournament", "-t", help="the tournament of --decision")] = None,
    summary: SummaryOpt = None,
    series: SeriesOpt = None,
    db: Db = None,
    by: By = None,
    as_json: JsonOpt = False,
) -> None:
    """Опубликовать следующую редакцию. Publish the next edition of a rulebook into the ledger
    for a series: from --file (for --series), or the precedent of a college --decision (003,
    in force from the next tournament; for the tournament's series); refused unless it passes
    the checks. A published edition never changes."""
    from sudya.app import rulebook_store as store
    from sudya.domain.commands import PublishRulebook

    if (file is None) == (decision is None):
        raise UsageError("cli.publish-file-or-decision", field="--file")
    if file is None and tournament is None:
        raise UsageError("cli.decision-tournament-required", field="--tournament")
    who = actor(by, db)
    with opened(db) as sudya:
        cases = None
        if file is not None:
            text = _file_text(file, "--file")
            cases = _cases_beside(file)
        else:
            assert tournament is not None  # (refused above)
            text = sudya.read(store.precedent_draft, tournament=tournament,
                              decision_event=str(decision))
            summary = summary or f"college precedent: decision {decision}"
        check = store.check_text(text, name=str(file or "draft"))
        if check.loads and check.rulebook != ref:
            raise UsageError("cli.file-other-rulebook", field="--file",
                             file_rulebook=check.rulebook, rulebook=ref)
        if not summary:
            raise UsageError("rulebook.summary-required", field="--summary")
        cmd = build(PublishRulebook, text=text, in_force_from=_start(start), summary=summary,
                    cases=cases, series=_series(series) if file is not None else None)
        # a college decision's precedent is published for its tournament's series (its head
        # judge may); a file, for the --series its organiser names
        view = send(sudya, cmd, who, tournament if file is None else None)
    _published(view, as_json)


def stored_editions(ref: str, db: str | None, lang: str, as_json: bool) -> None:
    """`sudya rulebook editions ID --db URL`: bundled and stored editions."""
    from rich.table import Table

    from sudya.app.rulebook_store import editions

    with opened(db) as sudya:
        rows = sudya.read(editions, ref)
    if as_json:
        sys.stdout.write(json.dumps([r.as_json() for r in rows], ensure_ascii=False,
                                    indent=2) + "\n")
        return
    ru = lang == "ru"
    table = Table("ред." if ru else "edition", "принята" if ru else "decided",
                  "действует с" if ru else "in force from", "по" if ru else "until",
                  "что изменилось" if ru else "what changed", "где" if ru else "kept")
    for r in rows:
        start = (r.in_force_from.isoformat() if r.in_force_from else
                 ("со следующего турнира" if ru else "from the next tournament")
                 if r.from_next_tournament else ("сразу" if ru else "at once"))
        table.add_row(r.edition, r.decided.isoformat() if r.decided else "—", start,
                      r.in_force_until.isoformat() if r.in_force_until else "—",
                      r.summary or "—",
                      (f"журнал, {r.published_by}" if ru else f"ledger, {r.published_by}")
                      if r.stored else ("файл" if ru else "file"))
    out.print(table)


def stored_test(ref: str, edition: str | None, db: str | None
                ) -> tuple[int, int, list[str]] | None:
    """`sudya rulebook test ID --db URL`: a stored edition's cases (total, failed, report
    lines); None when that edition is no stored one (the files' cases are run instead)."""
    from sudya.app.rulebook_store import editions, run_stored_cases

    with opened(db) as sudya:
        rows = sudya.read(editions, ref)
        wanted = edition or (rows[-1].edition if rows else None)
        if wanted is None or not any(r.stored and r.edition == wanted for r in rows):
            return None
        results = sudya.read(run_stored_cases, ref, wanted)
    lines: list[str] = []
    for r in results:
        if not r.passed:
            lines.append(f"FAIL {r.name}")
            lines += [f"  {p}" for p in r.problems[:10]]
    return len(results), sum(1 for r in results if not r.passed), lines
