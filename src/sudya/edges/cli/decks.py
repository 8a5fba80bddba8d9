"""Deck checks and the squad overspend remedy from the command line."""

from __future__ import annotations

import json
import secrets
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from sudya.edges.cli.console import out
from sudya.edges.cli.core import By
from sudya.edges.cli.main import UsageError, app, cli_lang

deck_app = typer.Typer(help="Дек-листы / deck lists: check, compare.", no_args_is_help=True)
squad_app = typer.Typer(help="Отряд / squad: the overspend remedy.", no_args_is_help=True)
cards_app = typer.Typer(help="Списки карт / card lists: check, import.",
                        no_args_is_help=True)
app.add_typer(deck_app, name="deck")
app.add_typer(squad_app, name="squad")
app.add_typer(cards_app, name="cards")

SAMPLE = Path(__file__).resolve().parents[2] / "domain" / "decks" / "sample-cards.json"
CardsOpt = Annotated[str | None, typer.Option(
    "--cards", help="card list file (CSV/JSON), `sample` for the sample data, or the one "
                    "imported into --db")]
Db = Annotated[str | None, typer.Option("--db", envvar="SUDYA_DATABASE_URL")]
RulebookOpt = Annotated[str, typer.Option(help="rulebook with the formats")]
JsonOpt = Annotated[bool, typer.Option("--json")]


def card_list(cards: str | None, db: str | None) -> Any:
    from sudya.domain.decks.cards import CardList, parse_card_list

    if cards == "sample":
        sys.stderr.write("note: the SAMPLE card list (made-up costs), not the real cards\n")
        path = SAMPLE
    elif cards:
        path = Path(cards)
    else:
        from sudya.app.decks import stored_cards
        from sudya.edges.cli.core import opened

        with opened(db) as sudya:
            stored = sudya.read(stored_cards)
        if stored is None:
            raise UsageError("decks.no-cards-imported", field="--cards")
        return stored
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError("decks.file-unreadable", field="--cards", path=str(path),
                         error=exc.strerror) from None
    return CardList(parse_card_list(text, "json" if path.suffix == ".json" else "csv"))


def _format(rulebook: str, fmt: str) -> Any:
    from sudya.domain.rulebook import loader

    book = loader.load(rulebook)
    if fmt not in book.formats:
        if not book.formats:
            raise UsageError("decks.unknown-format-none", field="--format", format=fmt)
        raise UsageError("decks.unknown-format", field="--format", format=fmt,
                         formats=list(book.formats))
    return book.formats[fmt]


def _read(path: Path, field: str) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise UsageError("decks.file-unreadable", field=field, path=str(path),
                         error=exc.strerror) from None


def _print_findings(findings: list[Any], as_json: bool) -> None:
    """Findings with their codes; what is wrong in the CLI's language."""
    lang = cli_lang()
    if as_json:
        sys.stdout.write(json.dumps([{**asdict(f), "message": f.text(lang)}
                                     for f in findings], ensure_ascii=False, indent=2) + "\n")
        return
    if not findings:
        out.print("нарушений не найдено / no problems found")
        return
    table = Table("#", "нарушение", "подпункт", "правило", "строка", "что не так")
    for i, f in enumerate(findings, start=1):
        table.add_row(str(i), f.infraction, f.item, f.rule, str(f.line or ""), f.text(lang))
    out.print(table)


@deck_app.command("check")
def deck_check(
    file: Annotated[Path, typer.Argument(help="deck list (text)")],
    fmt: Annotated[str, typer.Option("--format", help="format id from the rulebook")],
    cards: CardsOpt = None, rulebook: RulebookOpt = "berserk", as_json: JsonOpt = False,
    tournament: Annotated[int | None, typer.Option(
        "--tournament", "-t", help="register the list for this tournament")] = None,
    player: Annotated[str | None, typer.Option(help="the player whose list it is")] = None,
    record: Annotated[int | None, typer.Option(
        help="record finding N as an infraction (needs --tournament, --player)")] = None,
    judge: Annotated[str | None, typer.Option()] = None,
    by: By = None,
    db: Db = None,
) -> None:
    """Проверить дек-лист. Check a deck list against a format; optionally register it and
    record a finding as an infraction."""
    from sudya.domain.decks.decklist import check, parse

    if (tournament is not None or record is not None) and (tournament is None
                                                           or player is None):
        raise UsageError("decks.register-needs-both", field="--tournament and --player")
    text = _read(file, "FILE")
    findings = check(parse(text), card_list(cards, db), _format(rulebook, fmt), fmt)
    if record is not None and not 1 <= record <= len(findings):
        if not findings:
            raise UsageError("decks.record-nothing", field="--record")
        raise UsageError("decks.record-out-of-range", field="--record", count=len(findings))
    if tournament is None or player is None:
        _print_findings(findings, as_json)
        return
    from sudya.domain.commands import RegisterDecklist
    from sudya.edges.cli import core
    from sudya.edges.cli.core import actor, build, decode, judge_of, opened, send
    from sudya.edges.cli.ledger import _print_rulings, _tournament_book

    # refusals come before anything is printed (or stored, where they can)
    listed = build(RegisterDecklist, player=player, text=text, fmt=fmt, findings=findings)
    who = actor(by, db)
    with opened(db) as sudya:
        infraction = None
        if record is not None:
            finding = findings[record - 1]
            infraction = decode("infraction", {
                "infraction": finding.infraction, "player": player,
                "judge": judge_of(sudya, who, tournament, judge),
                "details": {"item": finding.item}})
            core.check(sudya, infraction, who, tournament)  # before the list is stored
        send(sudya, listed, who, tournament)
        done = None if infraction is None else send(sudya, infraction, who, tournament)
        _print_findings(findings, as_json)
        if done is not None:
            _print_rulings(done.rulings, as_json, _tournament_book(sudya, tournament))


@deck_app.command("compare")
def deck_compare(
    decklist: Annotated[Path, typer.Argument(help="the registered deck list")],
    deck: Annotated[Path, typer.Argument(help="the deck as found (same text format)")],
    as_json: JsonOpt = False,
) -> None:
    """Сравнить колоду с дек-листом. Compare a deck with its list (002 §1.2 а–в)."""
    from sudya.domain.decks.decklist import compare, parse

    _print_findings(compare(parse(_read(decklist, "DECKLIST")), parse(_read(deck, "DECK"))),
                    as_json)


@deck_app.command("status")
def deck_status(tournament: Annotated[int, typer.Option("--tournament", "-t")],
                as_json: JsonOpt = False, db: Db = None) -> None:
    """Все дек-листы турнира и их состояние. Every player's list and whether it is checked."""
    from sudya.app.decks import decklist_status
    from sudya.edges.cli.core import opened

    with opened(db) as sudya:
        rows = sudya.read(decklist_status, tournament)
    if as_json:
        sys.stdout.write(json.dumps(rows, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    table = Table("игрок", "формат", "состояние", "нарушения", "проверен")
    for r in rows:
        table.add_row(r["player"], r["format"] or "—", r["status"], str(r["findings"]),
                      str(r["checked_at"] or "—"))
    out.print(table)


@squad_app.command("remedy")
def squad_remedy(
    squad: Annotated[list[str], typer.Argument(help="the recruited cards, in order")],
    seat: Annotated[str, typer.Option(help="first or second player")],
    seed: Annotated[int | None, typer.Option(help="random seed (recorded; new if omitted)")]
    = None,
    drawn: Annotated[str | None, typer.Option(
        help="the cards actually drawn at the table, comma-separated, in order")] = None,
    cards: CardsOpt = None, rulebook: RulebookOpt = "berserk", as_json: JsonOpt = False,
    db: Db = None,
) -> None:
    """Перебор: случайный возврат карт по группам А–Е. The overspend remedy (000 §7.4)."""
    from sudya.domain.decks.squad import remedy
    from sudya.domain.rulebook import loader

    book = loader.load(rulebook)
    if book.squad is None:
        raise UsageError("decks.no-squad-rules", field="--rulebook", rulebook=book.id)
    seed = seed if seed is not None else secrets.randbelow(2**31)
    picks = [d.strip() for d in drawn.split(",")] if drawn else None
    result = remedy(squad, card_list(cards, db), book.squad, seat, seed, picks)
    lang = cli_lang()
    if as_json:
        sys.stdout.write(json.dumps({
            "seat": result.seat, "seed": result.seed, "squad": result.squad,
            "draws": [{**asdict(d), "reason": d.text(lang)} for d in result.draws],
            "kept": result.kept, "returned": result.returned, "warning": result.warning},
            ensure_ascii=False, indent=2) + "\n")
        return
    out.print(f"seed {result.seed} · место / seat {seat}")
    table = Table("шаг", "группа", "причина", "карта в колоду", "как выбрана")
    for d in result.draws:
        table.add_row(str(d.step), d.group, d.text(lang), d.card, d.chosen_by)
    out.print(table)
    out.print("в отряде / kept: " + ", ".join(result.kept))
    out.print("предупреждение (000 §7.4) / warning" if result.warning else "нарушений нет")


@cards_app.command("check")
def cards_check(file: Annotated[Path, typer.Argument()]) -> None:
    """Проверить файл списка карт. Check a card list file without importing it."""
    cards = card_list(str(file), None)
    out.print(f"{len(cards)} card(s)")


@cards_app.command("import")
def cards_import(file: Annotated[Path, typer.Argument()], db: Db = None,
                 by: By = None) -> None:
    """Загрузить список карт (CSV/JSON): все строки или ничего. Import a card list (the
    owner of the database, or an organiser of a tournament, as who publishes rulebooks)."""
    from sudya.app.access import organises_any
    from sudya.app.decks import import_cards
    from sudya.edges.cli.core import actor, opened

    who = actor(by, db)
    with opened(db) as sudya:
        # no command of the core imports a card list: who may is asked as for the other
        # list every tournament shares, a rulebook (PublishRulebook: an organiser)
        if not who.owner and not sudya.read(organises_any, who):
            raise UsageError("decks.import-cards-by", field="--by", name=who.name)
        count = import_cards(sudya.ledger, file, actor=who.name)
    out.print(f"imported {count} card(s)")
