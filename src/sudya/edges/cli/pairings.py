"""`sudya pairings import`: a round's tables from a CSV file, every row or none; `sudya
pairings swiss`: Sudya pairs a Swiss round; `sudya pairings matchups`: a team table's games;
`sudya pairings drop`: a player leaves the pairings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sudya.edges.cli.console import out
from sudya.edges.cli.core import By, actor, build, opened, send
from sudya.edges.cli.ledger import Db, TournamentOpt
from sudya.edges.cli.main import UsageError, app, cli_lang

pairings_app = typer.Typer(help="Рассадка тура / pairings: swiss, import, matchups.",
                           no_args_is_help=True)
app.add_typer(pairings_app, name="pairings")


@pairings_app.command("import")
def import_(file: Annotated[Path, typer.Argument(help="CSV: table,player_a,player_b "
                                                      "(team events: table,team_a,team_b)")],
            tournament: TournamentOpt,
            round_: Annotated[int, typer.Option("--round", help="round number")],
            by: By = None, db: Db = None) -> None:
    """Загрузить рассадку тура из CSV: все строки или ни одной; повторная загрузка тура
    заменяет его рассадку. Import a round's pairings; all rows or none; a re-import
    replaces the round."""
    from sudya.app.people import ImportRejected, read_pairings_file
    from sudya.domain.commands import MAX_ROUND, ImportPairings

    if not 1 <= round_ <= MAX_ROUND:
        raise UsageError("value.between", field="--round", least=1, most=MAX_ROUND)
    cmd = build(ImportPairings, round=round_, text=read_pairings_file(file), where=str(file))
    who = actor(by, db)
    with opened(db) as sudya:
        try:
            count = send(sudya, cmd, who, tournament)
        except ImportRejected as exc:
            for line in exc.lines(cli_lang()):  # one line per refused row, then the summary
                sys.stderr.write(f"sudya: {file}: {line}\n")
            exc.where = str(file)
            raise
    if cli_lang() == "en":
        out.print(f"round {round_}: imported {count} table(s)")
    else:
        out.print(f"тур {round_}: загружено столов: {count}")


@pairings_app.command("swiss")
def swiss(tournament: TournamentOpt,
          round_: Annotated[int, typer.Option("--round", help="round number")],
          seed: Annotated[int | None, typer.Option(help="another random order of round 1")]
          = None,
          by: By = None, db: Db = None) -> None:
    """Составить пары тура по швейцарской системе (заново — пока в туре нет результатов).
    Pair a Swiss round from the standings (again, until its first result); prints its
    tables."""
    from sudya.domain.commands import PairRound
    from sudya.i18n.messages import render

    cmd = build(PairRound, round=round_, seed=seed)
    who = actor(by, db)
    with opened(db) as sudya:
        view = send(sudya, cmd, who, tournament)
    lang = cli_lang()
    for p in view.tables:
        out.print(f"{p.table}\t{p.a}\t{p.b}")
    if view.bye:
        out.print(f"{'bye' if lang == 'en' else 'пропуск'}\t{view.bye}")
    for code, handles in view.warnings:
        sys.stderr.write(render(code, {"a": handles[0], "b": handles[-1]}, lang) + "\n")


@pairings_app.command("drop")
def drop(player: Annotated[str, typer.Argument(help="the player's id")],
         tournament: TournamentOpt,
         after: Annotated[int | None, typer.Option(
             help="the last round they played (leave out with --back)")] = None,
         back: Annotated[bool, typer.Option("--back", help="entered again")] = False,
         by: By = None, db: Db = None) -> None:
    """Игрок выбывает после тура (или возвращается, --back). A player drops after a round
    (never paired again), or is entered again."""
    from sudya.domain.commands import DropPlayer

    if not back and after is None:
        raise UsageError("cli.drop-after-required", field="--after")
    cmd = build(DropPlayer, player=player, after=None if back else after)
    who = actor(by, db)
    with opened(db) as sudya:
        send(sudya, cmd, who, tournament)
    out.print(player)


@pairings_app.command("matchups")
def matchups(tournament: TournamentOpt,
             round_: Annotated[int, typer.Option("--round", help="round number")],
             table: Annotated[int, typer.Option(help="the team table")],
             game: Annotated[list[str], typer.Option(
                 help="a game, in the order matched: A:B, or A:B:a / A:B:b with the "
                      "defending side (A of the table's first team)")],
             by: By = None, db: Db = None) -> None:
    """Матчапы командного стола: кто с кем играет, по порядку, и защитник (если он есть
    в формате). Каждый игрок один раз, все игроки обеих команд. The captains' matchups of a
    team table; each player once, both teams complete."""
    from sudya.domain.commands import SetMatchups

    games = []
    for n, text in enumerate(game):
        parts = text.split(":")
        if len(parts) not in (2, 3) or (len(parts) == 3 and parts[2] not in ("a", "b")):
            raise UsageError("cli.game-format", field=f"--game {n + 1}", game=text)
        games.append({"a": parts[0], "b": parts[1],
                      "defender": parts[2] if len(parts) == 3 else None})
    cmd = build(SetMatchups, round=round_, table=table, games=games)
    who = actor(by, db)
    with opened(db) as sudya:
        stored = send(sudya, cmd, who, tournament)
    for g in stored:
        out.print(f"{g.game}\t{g.a}\t{g.b}" + (f"\t{g.defender}" if g.defender else ""))
