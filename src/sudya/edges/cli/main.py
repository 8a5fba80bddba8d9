"""The `sudya` command: scenario replay and working with rulebooks."""

from __future__ import annotations

import datetime as dt
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from sudya.domain.errors import SudyaError
from sudya.edges.cli.entry import cli_lang as cli_lang  # the commands' language
from sudya.edges.cli.entry import leave, replay_file, use_lang

if TYPE_CHECKING:
    from sudya.domain.rulebook.schema import Rulebook

app = typer.Typer(
    help="Sudya (судья): правила пенальти как работающая система. "
         "Penalty regulations as a running system.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
rulebook_app = typer.Typer(help="Регламенты / rulebooks: show, lint, test, editions, schema, "
                                "diff, precedent, import, publish.", no_args_is_help=True)
app.add_typer(rulebook_app, name="rulebook")


class UsageError(SudyaError):
    code = "usage"


def chosen_lang(lang: str) -> str:
    """The --lang option's callback: ru or en (refused otherwise), and the command's errors
    are in it too."""
    if lang not in ("ru", "en"):
        raise UsageError("report.bad-lang", field="--lang", lang=lang)
    use_lang(lang)
    return lang


Lang = Annotated[str, typer.Option("--lang", envvar="SUDYA_LANG", callback=chosen_lang,
                                   help="ru (default) or en")]
RulebookRef = Annotated[str, typer.Argument(help="rulebook id or file")]
LevelOpt = Annotated[str | None, typer.Option(help="only this level")]
EditionOpt = Annotated[str | None, typer.Option(help="edition (default: newest)")]
StoreDb = Annotated[str | None, typer.Option(
    "--db", help="a ledger's database URL: its stored rulebook editions too")]


def _lang(lang: str) -> str:
    if lang not in ("ru", "en"):
        raise UsageError("report.bad-lang", field="--lang", lang=lang)
    return lang


def _book(ref: str, edition: str | None = None) -> Rulebook:
    from sudya.domain.rulebook import loader

    return loader.load(ref, edition)


def _check_level(book: Rulebook, level: str | None) -> None:
    levels = book.level_ids()
    if level is not None and not levels:
        raise UsageError("level.none", field="--level", rulebook=book.id)
    if level is not None and level not in levels:
        raise UsageError("level.unknown", field="--level", level=level, levels=list(levels))


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(help="scenario file (YAML or JSON)")],
) -> None:
    """Проиграть сценарий и вывести решения (JSON). Replay a scenario, print rulings as JSON."""
    replay_file(file)
    leave()


# `sudya replay` alone, which command_line() gives for that command (sudya.edges.cli.entry runs a
# plain `sudya replay FILE` without typer at all): a season's replay needs none of the others,
# and making every command's options from its signature (typer) and importing their modules
# is 0.1-0.2 s of a start. A group, as `app` is, so the command line, its help and its usage
# errors read as they do there.
replay_app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
replay_app.command()(replay)


@replay_app.callback()
def _replay_only() -> None:
    pass


@app.command()
def rulebooks(lang: Lang = "ru") -> None:
    """Список встроенных регламентов. List the bundled rulebooks."""
    from rich.table import Table

    from sudya.domain.rulebook import loader
    from sudya.edges.cli.console import out

    lang = _lang(lang)
    table = Table("id", "Название" if lang == "ru" else "Title",
                  "Редакции" if lang == "ru" else "Editions",
                  "Уровни" if lang == "ru" else "Levels")
    for rid in loader.bundled_ids():
        book = loader.load(rid)
        table.add_row(rid, book.title.get(lang), ", ".join(sorted(loader.edition_files(rid))),
                      ", ".join(book.level_ids()) or "—")
    out.print(table)


@rulebook_app.command("show")
def rulebook_show(
    ref: RulebookRef,
    level: LevelOpt = None,
    edition: EditionOpt = None,
    lang: Lang = "ru",
) -> None:
    """Таблица нарушений. The infraction table: penalties per level, sources, marks."""
    from rich.table import Column, Table

    from sudya.domain.rulebook.describe import explain, special_rules
    from sudya.edges.cli.console import out

    lang = _lang(lang)
    book = _book(ref, edition)
    levels = book.level_ids()
    _check_level(book, level)
    shown = [level] if level else (levels or ["*"])
    names = {lv.id: lv.name.get(lang) for lv in book.levels}
    table = Table(Column("id", overflow="fold", min_width=12),
                  "Нарушение" if lang == "ru" else "Infraction",
                  *[names.get(lv, "Пенальти" if lang == "ru" else "Penalty") for lv in shown],
                  "Источник" if lang == "ru" else "Source", "", show_lines=True,
                  title=f"{book.title.get(lang)} — ред. {book.edition}")
    for inf in book.infractions:
        exp = explain(book, inf, lang)
        marks = ("*" if exp.interpretations else "") + ("!" if exp.conflicts else "")
        table.add_row(inf.id, exp.name, *[exp.cells.get(lv, "") for lv in shown], inf.source,
                      marks)
    out.print(table)
    legend = ("* толкование, ! расхождение источников (sudya lookup ID НАРУШЕНИЕ)"
              if lang == "ru" else
              "* interpretation, ! conflict between sources (sudya lookup ID INFRACTION)")
    out.print(legend)
    for line in special_rules(book, lang):
        out.print(f"• {line}")
    for call in book.judge_calls:
        before = "Перед вызовом судьи" if lang == "ru" else "Before calling a judge"
        out.print(f"{before} — {call.reason.get(lang)}: {call.requirement.get(lang)} "
                  f"({call.penalty.get(lang)})")


@app.command()
def lookup(
    ref: RulebookRef,
    infraction: Annotated[str, typer.Argument(help="infraction id")],
    level: LevelOpt = None,
    edition: EditionOpt = None,
    lang: Lang = "ru",
) -> None:
    """Объяснить одно нарушение. Explain one infraction: penalty, source, special rules."""
    from sudya.domain.rulebook.describe import explain, label
    from sudya.edges.cli.console import out

    lang = _lang(lang)
    book = _book(ref, edition)
    inf = book.infraction(infraction)
    if inf is None:
        from sudya.domain.commands import unknown_infraction

        refusal = unknown_infraction(book, infraction, field="INFRACTION")
        raise UsageError(refusal.code, field=refusal.field, **refusal.params)
    _check_level(book, level)
    exp = explain(book, inf, lang)
    out.print(f"{exp.name} ({exp.id})", style="bold")
    if exp.description:
        out.print(exp.description)
    names = {lv.id: lv.name.get(lang) for lv in book.levels}
    for lv, cell in exp.cells.items():
        if level is None or lv == level:
            title = names.get(lv, label(lang, "penalty"))
            out.print(f"{title}: {cell}")
    for line in exp.lines:
        out.print(line)
    out.print(f"{label(lang, 'source')}: {exp.source}")
    for line in exp.interpretations:
        out.print(f"* {label(lang, 'interpretation')}: {line}")
    for line in exp.conflicts:
        out.print(f"! {label(lang, 'conflict')}: {line}")
    for line in exp.notes:
        out.print(f"- {label(lang, 'note')}: {line}")


@rulebook_app.command("schema")
def rulebook_schema() -> None:
    """JSON Schema формата регламента. Print the rulebook JSON Schema."""
    from sudya.domain.rulebook.schema import Rulebook

    sys.stdout.write(json.dumps(Rulebook.model_json_schema(), ensure_ascii=False, indent=2)
                     + "\n")


@rulebook_app.command("lint")
def rulebook_lint(
    ref: RulebookRef,
    lang: Lang = "ru",
    strict: Annotated[bool, typer.Option("--strict", help="warnings exit 1 too")] = False,
) -> None:
    """Проверить регламент. Lint: errors exit 1 (warnings too with --strict); interpretations
    and conflicts are notes."""
    from sudya.domain.rulebook.lint import lint
    from sudya.edges.cli.console import out

    findings = lint(ref, _lang(lang))
    for f in findings:
        out.print(f.line())
    errors = sum(1 for f in findings if f.severity == "error")
    warnings = sum(1 for f in findings if f.severity == "warning")
    notes = len(findings) - errors - warnings
    # warnings are counted only when there are some (the summary of a clean book is unchanged)
    if lang == "ru":
        summary = f"ошибок: {errors}, " + (f"предупреждений: {warnings}, " if warnings else "") \
            + f"заметок: {notes}"
    else:
        summary = f"{errors} error(s), " + (f"{warnings} warning(s), " if warnings else "") \
            + f"{notes} note(s)"
    out.print(summary)
    if errors or (strict and warnings):
        raise typer.Exit(1)


@rulebook_app.command("test")
def rulebook_test(
    ref: RulebookRef,
    edition: EditionOpt = None,
    lang: Lang = "ru",
    db: StoreDb = None,
) -> None:
    """Тесты регламента: его сценарии. Run the rulebook's own cases (cases/ID/ or FILE.cases/;
    with --db, a stored edition's published cases): exit 0 all pass, 1 some fail (their
    differences shown), 2 bad input."""
    from sudya.app.rulebook_cases import report, run
    from sudya.edges.cli.console import out

    lang = _lang(lang)
    stored = None
    if db is not None:
        from sudya.edges.cli.store import stored_test

        stored = stored_test(ref, edition, db)
    if stored is not None:
        total, failed, lines = stored
    else:
        outcomes = run(ref, edition)
        lines = report(outcomes)
        total, failed = len(outcomes), sum(1 for o in outcomes if not o.passed)
    for line in lines:
        out.print(line)
    outcomes_count = total
    passed = outcomes_count - failed
    out.print(f"случаев: {outcomes_count}, прошло: {passed}, не прошло: {failed}"
              if lang == "ru" else
              f"{outcomes_count} case(s), {passed} passed, {failed} failed")
    if failed:
        raise typer.Exit(1)


@rulebook_app.command("editions")
def rulebook_editions(
    ref: RulebookRef,
    lang: Lang = "ru",
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    db: StoreDb = None,
) -> None:
    """Редакции регламента и сроки их действия. The editions, the days each is in force and
    what changed (with --db, the editions stored in the ledger too)."""
    from rich.table import Table

    from sudya.domain.rulebook.editions import history
    from sudya.edges.cli.console import out

    lang = _lang(lang)
    if db is not None:
        from sudya.edges.cli.store import stored_editions

        stored_editions(ref, db, lang, as_json)
        return
    rows = history(ref)
    if as_json:
        sys.stdout.write(json.dumps([{
            "edition": e.id, "file": str(e.file),
            "date": e.date.isoformat() if e.date else None,
            "in_force_from": str(e.in_force_from),
            "in_force_until": e.in_force_until.isoformat() if e.in_force_until else None,
            "summary": {"ru": e.summary.ru, "en": e.summary.en} if e.summary else None,
        } for e in rows], ensure_ascii=False, indent=2) + "\n")
        return
    ru = lang == "ru"
    words = {"now": "сразу" if ru else "at once",
             "next-tournament": "со следующего турнира" if ru else "from the next tournament"}
    table = Table("ред." if ru else "edition", "принята" if ru else "decided",
                  "действует с" if ru else "in force from", "по" if ru else "until",
                  "что изменилось" if ru else "what changed", "файл" if ru else "file")
    for e in rows:
        start = e.in_force_from
        table.add_row(e.id, e.date.isoformat() if e.date else "—",
                      words.get(start, str(start)) if isinstance(start, str)
                      else start.isoformat(),
                      e.in_force_until.isoformat() if e.in_force_until else "—",
                      e.summary.get(lang) if e.summary else "—", e.file.name)
    out.print(table)


@rulebook_app.command("diff")
def rulebook_diff(
    ref: Annotated[str, typer.Argument(help="bundled rulebook id")],
    edition_a: Annotated[str, typer.Argument()],
    edition_b: Annotated[str, typer.Argument()],
) -> None:
    """Различия двух редакций. Differences between two editions."""
    from sudya.domain.rulebook.editions import diff
    from sudya.edges.cli.console import out

    lines = diff(_book(ref, edition_a), _book(ref, edition_b))
    for line in lines or ["no differences"]:
        out.print(line)


@rulebook_app.command("precedent")
def rulebook_precedent(
    ref: Annotated[str, typer.Argument(help="bundled rulebook id")],
    infraction: Annotated[str, typer.Option(help="the new infraction id")],
    name: Annotated[str, typer.Option(help="its Russian name")],
    sanctions: Annotated[str, typer.Option(help="comma-separated sanction kinds")],
    name_en: Annotated[str | None, typer.Option(help="its English name")] = None,
    source: Annotated[str, typer.Option(help="the decision it comes from")] =
        "решение коллегии (прецедент)",
    category: Annotated[str | None, typer.Option()] = None,
    decided_on: Annotated[str | None, typer.Option(help="ISO date (default: today)")] = None,
    out_dir: Annotated[Path | None, typer.Option(help="where to write the edition file")] = None,
) -> None:
    """Прецедент → новое правило в следующей редакции. Write the next edition with a new rule."""
    from sudya.domain.rulebook.editions import write_precedent
    from sudya.edges.cli.console import out

    kinds = [k.strip() for k in sanctions.split(",") if k.strip()]
    if not kinds:
        raise UsageError("cli.sanctions-required", field="--sanctions")
    try:
        day = dt.date.fromisoformat(decided_on) if decided_on else dt.date.today()
    except ValueError:
        raise UsageError("cli.not-a-date", field="--decided-on", value=decided_on) from None
    path = write_precedent(ref, infraction=infraction, name_ru=name, name_en=name_en or name,
                           sanctions=kinds, source=source, decided_on=day, category=category,
                           out_dir=out_dir)
    out.print(str(path))


@app.command()
def demo(lang: Lang = "ru") -> None:
    """Демонстрация: проиграть встроенный сценарий турнира. Replay a demo tournament."""
    from rich.table import Table

    from sudya.adapters.scenario_file import load_scenario_file
    from sudya.app.scenario import replay as run
    from sudya.edges.cli.console import out

    lang = _lang(lang)
    path = Path(__file__).resolve().parents[2] / "app" / "demo" / "berserk-demo.yaml"
    result = run(load_scenario_file(path))
    table = Table("event", "игрок" if lang == "ru" else "player",
                  "нарушение" if lang == "ru" else "infraction",
                  "причина" if lang == "ru" else "cause",
                  "пенальти" if lang == "ru" else "penalties",
                  title=("Демо-турнир «Берсерк» (professional)" if lang == "ru"
                         else "Demo tournament, Berserk (professional)"))
    for r in result["rulings"]:
        table.add_row(r["event"], r["subject"], r["infraction"] or "—", r["cause"],
                      ", ".join(s["kind"] + (" (+)" if s.get("attached") else "")
                                for s in r["sanctions"]) or "—")
    out.print(table)
    out.print(f"sudya replay {path}")


def command_line() -> typer.Typer:
    """The command the command line names, its modules imported (sudya.edges.cli.entry.main runs
    it; `sudya replay FILE` alone goes to the replay without it)."""
    if sys.argv[1:2] == ["replay"]:
        return replay_app
    import sudya.edges.cli.decks  # noqa: F401  (registers the deck commands)
    import sudya.edges.cli.ledger  # noqa: F401  (registers the ledger commands)
    import sudya.edges.cli.pairings  # noqa: F401  (registers the pairings commands)
    import sudya.edges.cli.reports  # noqa: F401  (registers the report commands)
    import sudya.edges.cli.store  # noqa: F401  (registers rulebook import and publish)

    return app
