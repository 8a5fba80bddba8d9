"""Ledger commands: run a whole event from the CLI over SQLite or PostgreSQL.

Every write is a command sent to the application (`Sudya.handle`, through
sudya.edges.cli.core) by whoever `--by` names, or by the owner of the database; every read
is one of the application's reads (`Sudya.read`). No command here opens a database session.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.table import Table

from sudya.domain.engine.model import Ruling
from sudya.edges.cli.console import out
from sudya.edges.cli.core import (
    By,
    actor,
    build,
    decode,
    judge_of,
    opened,
    owner,
    refuse,
    send,
)
from sudya.edges.cli.core import database_url as _url
from sudya.edges.cli.main import UsageError, app, cli_lang

if TYPE_CHECKING:
    from sudya.app.access import Permission
    from sudya.app.core import Sudya
    from sudya.domain.rulebook.schema import Rulebook

Db = Annotated[str | None, typer.Option("--db", envvar="SUDYA_DATABASE_URL",
                                        help="database URL (default sqlite:///sudya.db)")]
TournamentOpt = Annotated[int, typer.Option("--tournament", "-t", help="tournament id")]
JsonOpt = Annotated[bool, typer.Option("--json", help="print JSON")]

db_app = typer.Typer(help="База данных / database: upgrade.", no_args_is_help=True)
tournament_app = typer.Typer(help="Турниры / tournaments: create, list, show.",
                             no_args_is_help=True)
player_app = typer.Typer(help="Игроки / players.", no_args_is_help=True)
team_app = typer.Typer(help="Команды / teams.", no_args_is_help=True)
judge_app = typer.Typer(help="Судьи / judges.", no_args_is_help=True)
ledger_app = typer.Typer(help="Журнал / ledger: import-scenario.", no_args_is_help=True)
app.add_typer(db_app, name="db")
app.add_typer(tournament_app, name="tournament")
app.add_typer(player_app, name="player")
app.add_typer(team_app, name="team")
app.add_typer(judge_app, name="judge")
app.add_typer(ledger_app, name="ledger")


def _yaml_value(text: str, field: str) -> Any:
    """A command-line value read as YAML: 3, true, 2026-03-01, {a: 60, b: 20}, min."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe").load(text)
    except YAMLError:
        raise UsageError("cli.unreadable-value", field=field, value=text) from None
    return value


def _details(pairs: list[str], option: str = "--detail") -> dict[str, Any]:
    details: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError("cli.key-value", field=option, pair=pair)
        details[key.strip()] = _yaml_value(value, f"{option} {key}")
    return details


def _date(text: str | None, field: str) -> dt.date | None:
    if text is None:
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise UsageError("cli.not-a-date", field=field, value=text) from None


def _tournament_book(app: Sudya, tournament: int) -> Rulebook | None:
    """The rulebook (edition) a tournament is judged by; None for an unknown tournament."""
    from sudya.app.queries import find_tournament
    from sudya.domain.rulebook import loader

    t = app.read(find_tournament, tournament=tournament)
    return None if t is None else loader.load(t.series.rulebook, t.edition)


def _amount(book: Rulebook | None, kind: str, amount: int | None) -> str:
    """`: 75 руды` — an amount with its unit, as the pages write it (describe.amount_text)."""
    from sudya.domain.rulebook.describe import amount_text

    if amount is None:
        return ""
    try:
        spec = book.kind(kind) if book is not None else None
    except KeyError:
        spec = None
    return f": {amount_text(spec, amount, cli_lang()) if spec else amount}"


# the rulings' tables in the user's language (the JSON keeps the ids and codes)
RULING_COLUMNS = {"ru": ("событие", "кто", "нарушение", "причина", "наказания", "ожидает"),
                  "en": ("event", "who", "infraction", "cause", "sanctions", "pending")}


def _kind_name(book: Rulebook | None, kind: str) -> str:
    """A sanction kind by the rulebook's name for it in the user's language (its id without
    a rulebook, or for a kind the rulebook does not name)."""
    try:
        return book.kind(kind).name.get(cli_lang()) if book is not None else kind
    except KeyError:
        return kind


def _infraction_name(book: Rulebook | None, infraction: str | None) -> str:
    inf = book.infraction(infraction) if book is not None and infraction else None
    return inf.name.get(cli_lang()) if inf is not None else (infraction or "—")


def _cause_name(cause: str) -> str:
    from sudya.i18n.messages import render

    return render(f"cause.{cause}", None, cli_lang())


def _print_rulings(rulings: list[Ruling], as_json: bool, book: Rulebook | None = None) -> None:
    """The rulings as JSON, or as a table of names in the user's language (amounts with
    their units, from `book`)."""
    from sudya.app.scenario import ruling_json
    from sudya.i18n.messages import reason_text

    if as_json:
        sys.stdout.write(json.dumps([ruling_json(r, True) for r in rulings],
                                    ensure_ascii=False, indent=2) + "\n")
        return
    lang = cli_lang()
    table = Table(*RULING_COLUMNS[lang])
    for r in rulings:
        sanctions = ", ".join(
            _kind_name(book, s.kind) + _amount(book, s.kind, s.amount)
            + (f" {s.score}" if s.score else "") + (" (+)" if s.attached else "")
            + (f" → {s.subject}" if s.subject != r.subject else "") for s in r.sanctions)
        table.add_row(r.event, r.subject, _infraction_name(book, r.infraction),
                      _cause_name(r.cause), sanctions or "—",
                      ("да" if lang == "ru" else "yes") if r.pending else "")
    out.print(table)
    for r in rulings:
        for note in r.notes:
            out.print(f"  {r.event}/{r.subject}: {reason_text(note, cli_lang())}")


def _event(db: str | None, by: str | None, tournament: int, kind: str,
           payload: dict[str, Any], as_json: bool, *, judged: bool = True,
           key: str | None = None, event_id: str | None = None) -> None:
    """Send one ledger event (`kind`, through the one decoder) and print its rulings; its
    judge (`judged`), unless named, is whom `--by` names."""
    who = actor(by, db)
    with opened(db) as sudya:
        if judged:
            payload = {**payload, "judge": judge_of(sudya, who, tournament,
                                                    payload.get("judge"))}
        done = send(sudya, decode(kind, payload), who, tournament, key=key,
                    event_id=event_id)
        _print_rulings(done.rulings, as_json, _tournament_book(sudya, tournament))


# ---------------------------------------------------------------------- database
@db_app.command("upgrade")
def db_upgrade(db: Db = None) -> None:
    """Создать или обновить схему. Migrate the database to the newest schema."""
    from sudya.app.database import migrate

    out.print(f"schema {migrate(_url(db))}: {_url(db)}")


@app.command()
def backup(file: Annotated[Path, typer.Argument(help="the new backup file")],
           db: Db = None) -> None:
    """Резервная копия базы SQLite в новый файл (на ходу, целиком), затем её проверка.
    A whole copy of the SQLite database in a new file, made while it runs, then verified;
    PostgreSQL: use pg_dump."""
    from sudya.app.database import backup as make_backup
    from sudya.edges.cli.core import owner

    owner(db)  # the database's owner copies it
    _print_copy(make_backup(_url(db), file))


@app.command()
def restore(file: Annotated[Path, typer.Argument(help="a backup made by `sudya backup`")],
            db: Db = None) -> None:
    """Восстановить базу из резервной копии в пустую базу, затем проверить. Restore a backup
    into an empty database (never over a ledger), then verify it."""
    from sudya.app.database import restore as put_back
    from sudya.edges.cli.core import owner

    owner(db)
    _print_copy(put_back(file, _url(db)))


def _print_copy(done: Any) -> None:
    """What a copy holds and what its check found; exit 1 when the check found problems."""
    from sudya.i18n.messages import render

    lang = cli_lang()
    out.print(render("copy.made", {"path": done.path, "series": done.series,
                                   "records": done.records}, lang))
    for series, head, seq in done.heads:
        out.print(render("copy.head", {"series": series, "head": head or "—", "seq": seq},
                         lang))
    if done.problems:
        out.print(render("audit.summary-failed", {"records": done.records,
                                                  "problems": done.problems}, lang))
        raise typer.Exit(1)


@app.command()
def init(db: Db = None) -> None:
    """Создать базу данных турниров. Create (or migrate) the tournament database."""
    db_upgrade(db)


# ---------------------------------------------------------------------- tournaments
@tournament_app.command("create")
def tournament_create(
    name: Annotated[str, typer.Option(help="tournament name")],
    series: Annotated[str, typer.Option(help="series (championship) name")],
    date: Annotated[str, typer.Option(help="ISO date")],
    rulebook: Annotated[str | None, typer.Option(help="rulebook of a new series")] = None,
    level: Annotated[str | None, typer.Option()] = None,
    setting: Annotated[list[str] | None, typer.Option(help="key=value")] = None,
    rounds: Annotated[int | None, typer.Option(help="how many rounds")] = None,
    pairing: Annotated[str, typer.Option(
        help="swiss (Sudya pairs), teams (the judges enter matchups) or imported (CSV)")]
    = "imported",
    points: Annotated[str | None, typer.Option(
        help="match points WIN/DRAW/LOSS, e.g. 3/1/0 (default: the rulebook's)")] = None,
    tiebreaker: Annotated[list[str] | None, typer.Option(
        help="tie-breakers in order: omw, gw, ogw, buchholz, sb (default: the rulebook's)")]
    = None,
    top_cut: Annotated[int, typer.Option(help="top cut after the Swiss: 0, 2, 4 or 8")] = 0,
    self_report: Annotated[bool, typer.Option(
        "--self-report", help="players report their own results; the opponent confirms")]
    = False,
    by: By = None,
    db: Db = None,
) -> None:
    """Новый турнир (и серия, если её нет). A new tournament (and series if needed), with how
    it is run: rounds, pairing, match points, tie-breakers, a top cut."""
    from sudya.app.queries import series_exists
    from sudya.domain.commands import CreateTournament
    from sudya.domain.plan import Plan

    day = _date(date, "--date")
    settings = _details(setting or [], "--setting")
    win = draw = loss = None
    if points is not None:
        parts = points.split("/")
        if len(parts) != 3 or not all(p.isdigit() for p in parts):
            raise UsageError("cli.points-format", field="--points", points=points)
        win, draw, loss = (int(p) for p in parts)
    plan = build(Plan, rounds=rounds, pairing=pairing, win=win, draw=draw, loss=loss,
                 tiebreakers=tiebreaker or None, top_cut=top_cut, self_report=self_report)
    who = actor(by, db)
    with opened(db) as sudya:
        exists = sudya.read(series_exists, name=series)
        if not exists and rulebook is None:
            raise UsageError("cli.new-series-rulebook", field="--rulebook", series=series)
        cmd = build(CreateTournament, series=series, name=name, date=day, level=level,
                    settings=settings, new_series_rulebook=None if exists else rulebook,
                    plan=plan)
        tid = send(sudya, cmd, who)
    out.print(str(tid))


@tournament_app.command("list")
def tournament_list(db: Db = None) -> None:
    """Все турниры. Every tournament with its series, rulebook and edition."""
    from sudya.app.queries import all_tournaments

    with opened(db) as sudya:
        tournaments = sudya.read(all_tournaments)
    table = Table("id", "серия / series", "турнир / tournament", "дата", "регламент", "ред.",
                  "уровень")
    for t in sorted(tournaments, key=lambda t: t.id):
        table.add_row(str(t.id), t.series.name, t.name, t.date.isoformat(),
                      t.series.rulebook, t.edition, t.level or "—")
    out.print(table)


@tournament_app.command("show")
def tournament_show(tournament: Annotated[int, typer.Argument()], as_json: JsonOpt = False,
                    db: Db = None) -> None:
    """Турнир: участники, судьи, решения. A tournament: people, judges and rulings."""
    from sudya.app.queries import rulings_json, tournament_summary

    with opened(db) as sudya:
        summary = sudya.read(tournament_summary, tournament)
        rulings = sudya.read(rulings_json, tournament)
    if as_json:
        whole = {**summary.model_dump(mode="json"), "rulings": rulings}
        sys.stdout.write(json.dumps(whole, ensure_ascii=False, indent=2) + "\n")
        return
    out.print(f"{summary.name} ({summary.series}, {summary.rulebook} "
              f"ред. {summary.edition}, {summary.date.isoformat()})")
    out.print("игроки: " + ", ".join(
        p.handle + (f" [{p.team}]" if p.team else "") for p in summary.players))
    out.print("судьи: " + ", ".join(f"{j.handle} ({j.role})" for j in summary.judges))
    from sudya.domain.errors import SudyaError
    from sudya.domain.rulebook import loader

    try:
        book: Rulebook | None = loader.load(summary.rulebook, summary.edition)
    except SudyaError:  # an edition no longer at hand: the ids
        book = None
    table = Table(*RULING_COLUMNS[cli_lang()][:5])
    for r in rulings:
        table.add_row(r["event"], r["subject"], _infraction_name(book, r["infraction"]),
                      _cause_name(r["cause"]),
                      ", ".join(_kind_name(book, s["kind"]) for s in r["sanctions"]) or "—")
    out.print(table)


# ---------------------------------------------------------------------- people
def _setup(db: str | None, by: str | None, tournament: int, cmd: Any) -> Any:
    who = actor(by, db)
    with opened(db) as sudya:
        return send(sudya, cmd, who, tournament)


@player_app.command("add")
def player_add(handle: Annotated[str, typer.Argument()], tournament: TournamentOpt,
               name: Annotated[str | None, typer.Option()] = None,
               team: Annotated[str | None, typer.Option()] = None,
               table: Annotated[int | None, typer.Option()] = None,
               gender: Annotated[str | None, typer.Option(
                   help="m or f, for the Russian pages' agreement (none: unknown)")] = None,
               by: By = None, db: Db = None) -> None:
    """Зарегистрировать игрока. Register a player for a tournament."""
    from sudya.domain.commands import AddPlayer

    _setup(db, by, tournament, build(AddPlayer, handle=handle, name=name, team=team,
                                     table=table, gender=gender))


@team_app.command("add")
def team_add(handle: Annotated[str, typer.Argument()], tournament: TournamentOpt,
             members: Annotated[str, typer.Option(help="comma-separated players")] = "",
             name: Annotated[str | None, typer.Option()] = None,
             by: By = None, db: Db = None) -> None:
    """Команда и её игроки. A team (clan) with its members for this tournament."""
    from sudya.domain.commands import AddTeam

    people = [p.strip() for p in members.split(",") if p.strip()]
    _setup(db, by, tournament, build(AddTeam, handle=handle, name=name, members=people))


@judge_app.command("add")
def judge_add(handle: Annotated[str, typer.Argument()], tournament: TournamentOpt,
              role: Annotated[str, typer.Option()],
              official: Annotated[bool, typer.Option(help="official representative")] = False,
              name: Annotated[str | None, typer.Option()] = None,
              by: By = None, db: Db = None) -> None:
    """Судья турнира с ролью из регламента. A judge with a role from the rulebook."""
    from sudya.domain.commands import AddJudge

    _setup(db, by, tournament, build(AddJudge, handle=handle, role=role, official=official,
                                     name=name))


# ---------------------------------------------------------------------- events
Judge = Annotated[str | None, typer.Option(
    help="the judge who rules (default: the judge --by names)")]
EventId = Annotated[str | None, typer.Option("--id", help="the new event's id")]


@app.command()
def record(
    infraction: Annotated[str, typer.Argument(help="infraction id")],
    tournament: TournamentOpt,
    player: Annotated[str | None, typer.Option()] = None,
    team: Annotated[str | None, typer.Option()] = None,
    judge: Judge = None,
    round_: Annotated[int | None, typer.Option("--round")] = None,
    date: Annotated[str | None, typer.Option(help="ISO date (default: tournament's)")] = None,
    detail: Annotated[list[str] | None, typer.Option(help="key=value (YAML value)")] = None,
    choice: Annotated[str | None, typer.Option(help="judge's choice (YAML value)")] = None,
    event_id: EventId = None,
    key: Annotated[str | None, typer.Option(help="idempotency key (a retry records once)")]
    = None,
    as_json: JsonOpt = False, by: By = None, db: Db = None,
) -> None:
    """Записать нарушение и решение. Record an infraction; print the rulings."""
    payload = {"infraction": infraction, "player": player, "team": team, "judge": judge,
               "round": round_, "date": _date(date, "--date"), "details": _details(detail or []),
               "choice": None if choice is None else _yaml_value(choice, "--choice")}
    _event(db, by, tournament, "infraction", payload, as_json, key=key, event_id=event_id)


@app.command("end-match")
def end_match(tournament: TournamentOpt,
              round_: Annotated[int | None, typer.Option("--round")] = None,
              event_id: EventId = None,
              as_json: JsonOpt = False, by: By = None, db: Db = None) -> None:
    """Конец матча: сложение пенальти. End of match: stacking checks."""
    _event(db, by, tournament, "end-of-match", {"round": round_}, as_json, judged=False,
           event_id=event_id)


@app.command()
def appeal(tournament: TournamentOpt, of: Annotated[str, typer.Option(help="event id")],
           outcome: Annotated[str, typer.Option(help="upheld | overturned | frivolous")],
           judge: Judge = None,
           choice: Annotated[str | None, typer.Option()] = None,
           event_id: EventId = None,
           as_json: JsonOpt = False, by: By = None, db: Db = None) -> None:
    """Апелляция к главному судье. The head judge's decision on an appeal."""
    payload = {"of": of, "outcome": outcome, "judge": judge,
               "choice": None if choice is None else _yaml_value(choice, "--choice")}
    _event(db, by, tournament, "appeal", payload, as_json, event_id=event_id)


@app.command()
def decide(tournament: TournamentOpt, of: Annotated[str, typer.Option(help="event id")],
           judge: Judge = None,
           sanctions: Annotated[str | None, typer.Option(
               help="YAML list, e.g. \"[{kind: fighter-dq}]\"")] = None,
           choice: Annotated[str | None, typer.Option()] = None,
           result: Annotated[str | None, typer.Option(
               help="a frozen fight's result: release (it counts) or annul")] = None,
           until: Annotated[str | None, typer.Option(
               help="a suspension's last day (ISO date)")] = None,
           lift: Annotated[bool, typer.Option(help="lift a suspension now")] = False,
           event_id: EventId = None,
           as_json: JsonOpt = False, by: By = None, db: Db = None) -> None:
    """Решение по ожидающему решению. Decide a pending ruling (college / judge's choice), a
    frozen fight's result (--result) or a suspension's term (--until, --lift)."""
    decided = None if sanctions is None else _yaml_value(sanctions, "--sanctions")
    if decided is not None and not isinstance(decided, list):
        raise UsageError("cli.sanctions-list", field="--sanctions")
    payload: dict[str, Any] = {
        "of": of, "judge": judge, "sanctions": decided,
        "choice": None if choice is None else _yaml_value(choice, "--choice")}
    if result is not None:
        payload["result"] = result
    if until is not None:
        payload["until"] = _date(until, "--until")
    if lift:
        payload["lift"] = True
    _event(db, by, tournament, "decision", payload, as_json, event_id=event_id)


@app.command()
def correct(tournament: TournamentOpt, of: Annotated[str, typer.Option(help="event id")],
            reason: Annotated[str, typer.Option()],
            judge: Judge = None,
            as_json: JsonOpt = False, by: By = None, db: Db = None) -> None:
    """Исправить ошибочную запись (новой записью). Correct a mistaken record."""
    _event(db, by, tournament, "correction", {"of": of, "judge": judge, "reason": reason},
           as_json)


@app.command()
def result(tournament: TournamentOpt,
           given: Annotated[list[str], typer.Argument(
               metavar="[PLAYER_A PLAYER_B] SCORE",
               help="the two players and the score (2-1, 12-8), or the score alone with "
                    "--table (the first player of the table's pairing first)")],
           round_: Annotated[int | None, typer.Option("--round")] = None,
           table: Annotated[int | None, typer.Option(
               "--table", help="the round's table: its two players, from its pairings")]
           = None,
           by: By = None, db: Db = None) -> None:
    """Результат партии или матча. Record a game or match result: of two players, or of a
    table of the round's pairings (--table, with --round)."""
    if table is not None:
        if len(given) != 1:
            raise UsageError("cli.score-alone", field="SCORE")
        if round_ is None:
            raise UsageError("cli.table-round-required", field="--round")
        from sudya.app.swiss_rounds import seated_at

        with opened(db) as sudya:
            seated = sudya.read(seated_at, tournament, round_, table)
        if seated is None:
            raise UsageError("cli.no-such-table", field="--table", round=round_, table=table)
        player_a, player_b, score = *seated, given[0]
    elif len(given) == 3:
        player_a, player_b, score = given
    else:
        raise UsageError("cli.players-and-score", field="PLAYER_A PLAYER_B SCORE")
    try:
        a, b = (int(x) for x in score.split("-"))
    except ValueError:
        raise UsageError("import.score-format", field="SCORE", score=score) from None
    cmd = decode("result", {"players": [player_a, player_b], "score": [a, b],
                            "round": round_})
    _setup(db, by, tournament, cmd)


# ---------------------------------------------------------------------- reading
@app.command()
def standings(tournament: TournamentOpt, as_json: JsonOpt = False, db: Db = None) -> None:
    """Положение участников. Standings computed from stored results and rulings."""
    from sudya.app.queries import tournament_standings
    from sudya.i18n.messages import page_catalogue

    with opened(db) as sudya:
        table_data = sudya.read(tournament_standings, tournament)
    if as_json:
        sys.stdout.write(json.dumps(table_data, ensure_ascii=False, indent=2) + "\n")
        return
    # the columns named as the standings page names them (the pages' catalogue), a status
    # in words; the JSON keeps the keys
    words = page_catalogue(cli_lang()).gettext

    def cell(column: str, value: Any) -> str:
        if column == "status" and isinstance(value, str):
            return words(value)
        if isinstance(value, dict):
            return ""  # a team's breakdown by player: the JSON has it, as the page leaves it
        return "—" if value is None else str(value)

    rows = table_data["players"]
    columns = list(next(iter(rows.values()), {}))
    table = Table("#", words("Player"), *[words(c) for c in columns])
    for i, (player, row) in enumerate(rows.items(), start=1):
        table.add_row(str(i), player, *[cell(c, row.get(c)) for c in columns])
    out.print(table)
    if table_data.get("teams"):
        team_columns = list(next(iter(table_data["teams"].values())))
        teams = Table(words("Team"), *[words(c) for c in team_columns])
        for team, row in table_data["teams"].items():
            teams.add_row(team, *[cell(c, row.get(c)) for c in team_columns])
        out.print(teams)


@app.command()
def history(person: Annotated[str, typer.Argument(help="player id")],
            on: Annotated[str | None, typer.Option(help="ISO date for valid/expired marks")]
            = None,
            as_json: JsonOpt = False, db: Db = None) -> None:
    """История игрока во всех турнирах. A player's record across tournaments."""
    from sudya.app.queries import person_history

    day = _date(on, "--on") or dt.date.today()
    with opened(db) as sudya:
        entries = [e.as_json() for e in sudya.read(person_history, person, day)]
    if as_json:
        sys.stdout.write(json.dumps(entries, ensure_ascii=False, indent=2, default=str) + "\n")
        return
    table = Table(*HISTORY_COLUMNS[cli_lang()])
    from sudya.domain.rulebook import loader

    for e in entries:
        book = loader.load(e["rulebook"], e["edition"])
        for s_ in e["sanctions"] or [{"kind": "—", "valid_until": None, "state": ""}]:
            kind = s_["kind"]
            table.add_row(e["tournament"], e["date"], e["event"],
                          _infraction_name(book, e["infraction"]), _cause_name(e["cause"]),
                          (_kind_name(book, kind) if kind != "—" else kind)
                          + _amount(book, kind, s_.get("amount")),
                          str(s_.get("valid_until") or "—"), s_.get("state", ""))
    out.print(table)


HISTORY_COLUMNS = {"ru": ("турнир", "дата", "событие", "нарушение", "причина", "наказание",
                          "срок", "статус"),
                   "en": ("tournament", "date", "event", "infraction", "cause", "sanction",
                          "valid until", "state")}


@app.command("export")
def export(series: Annotated[str, typer.Option(help="series name")],
           fmt: Annotated[str, typer.Option("--format", help="json or csv")] = "json",
           output: Annotated[Path | None, typer.Option("--out", help="file (default stdout)")]
           = None,
           db: Db = None) -> None:
    """Выгрузить серию (JSON или CSV). Export a series: rulings, sanctions, results."""
    from sudya.app.exports import export_csv, export_json

    if fmt not in ("json", "csv"):
        raise UsageError("cli.export-format", field="--format", format=fmt)
    with opened(db) as sudya:
        text = sudya.read(export_json if fmt == "json" else export_csv, series)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")


@app.command("import")
def import_(what: Annotated[str, typer.Argument(help="players, teams or results")],
            file: Annotated[Path, typer.Argument(help="CSV file")],
            tournament: TournamentOpt, by: By = None, db: Db = None) -> None:
    """Загрузить игроков, команды или результаты. Import players or teams (CSV with commas,
    semicolons or tabs, UTF-8 or cp1251, Russian or English headers; or XLSX) or results
    (CSV); all rows or none: every refused row is named with its line."""
    from rich.progress import Progress

    from sudya.app.imports import ImportRejected, import_csv

    who = actor(by, db)
    if what in ("players", "teams"):
        _import_roster(what, file, tournament, who, db)
        return
    with opened(db) as sudya:
        if not who.owner:
            # (no command of the core imports a file of rows: the permission of the rows'
            # own commands, AddPlayer / AddTeam and RecordResult, is asked here)
            standing = sudya.standing(who, tournament)
            permission: Permission = "results" if what == "results" else "manage"
            if not standing.can(permission):
                raise refuse(who, permission, standing.tournament.name)
        with Progress(console=out, transient=True) as progress:
            task = progress.add_task(f"{what}: {file.name}", total=None)

            def tick(done: int, total: int) -> None:
                progress.update(task, completed=done, total=total)

            try:
                count = import_csv(sudya.ledger, what, file, tournament=tournament,
                                   actor=who, progress=tick)
            except ImportRejected as exc:
                progress.stop()
                for line in exc.rejected:
                    sys.stderr.write(f"rejected: {line}\n")
                raise UsageError("import.rejected", where=str(file),
                                 count=len(exc.rejected)) from None
    out.print(f"imported {count} row(s)")


def _import_roster(kind: str, file: Path, tournament: int, who: Any, db: str | None) -> None:
    """A list of players or teams through the core (ImportRoster), as the web app's upload."""
    from sudya.domain.commands import ImportRoster
    from sudya.i18n.messages import render

    try:
        data = file.read_bytes()
    except OSError as exc:
        raise UsageError("decks.file-unreadable", field="FILE", path=str(file),
                         error=exc.strerror or type(exc).__name__) from None
    cmd = build(ImportRoster, kind=kind, filename=file.name, data=data)
    with opened(db) as sudya:
        view = send(sudya, cmd, who, tournament)
    if not view.imported:
        lang = cli_lang()
        for p in view.problems:
            line = render("import.at-line", {"n": p.line}, lang)
            sys.stderr.write(f"rejected: {line}: {p.field}: "
                             f"{render(p.code, p.params, lang)}\n")
        raise UsageError("import.rejected", where=str(file),
                         count=len({p.line for p in view.problems}))
    out.print(f"imported {view.count} row(s)")


@ledger_app.command("import-scenario")
def import_scenario_cmd(file: Annotated[Path, typer.Argument(help="scenario file")],
                        name: Annotated[str | None, typer.Option(help="series name")] = None,
                        db: Db = None) -> None:
    """Записать сценарий в журнал и вывести прочитанное из базы (владелец базы). Record a
    scenario as a new series (the owner of the database); print the rulings and subjects
    read back from the database."""
    from sudya.adapters.scenario_file import load_scenario_file
    from sudya.app.readback import series_json
    from sudya.app.scenario_import import import_scenario

    scenario = load_scenario_file(file)
    who = owner(db)  # a new series: the owner's (CreateSeries), and no command imports one
    with opened(db) as sudya:
        series = import_scenario(sudya.ledger, scenario, name=name, actor=who)
        imported = sudya.read(series_json, series)
    sys.stdout.write(json.dumps(imported, ensure_ascii=False, indent=2) + "\n")


# ---------------------------------------------------------------------- audit
audit_app = typer.Typer(help="Проверка журнала / audit: verify the hash chain.",
                        no_args_is_help=True)
app.add_typer(audit_app, name="audit")


@audit_app.command("verify")
def audit_verify(db: Db = None,
                 series: Annotated[str | None, typer.Option(help="only this series")] = None,
                 tournament: Annotated[int | None, typer.Option(
                     "--tournament", "-t",
                     help="only this tournament's series (who --by names: its head judge "
                          "or organiser)")] = None,
                 as_json: JsonOpt = False, by: By = None,
                 head: Annotated[list[str] | None, typer.Option(
                     "--head", help="a chain head kept outside the database, HASH@SEQ as the "
                                    "judge report prints it (or the anchor file holds): "
                                    "is it still in the ledger, unchanged? (repeatable)")
                 ] = None) -> None:
    """Проверить цепочку хешей каждой серии и сверить решения с повторным разбором;
    exit 1 при нарушении. Verify every series' hash chain (or one series', or a tournament's
    series') and its rulings against a replay of its events; exit 1 naming the first record
    changed, removed or inserted, or a kept head (--head) the ledger no longer holds."""
    from sudya.app.audit import anchored, parse_head
    from sudya.app.queries import all_tournaments
    from sudya.domain.commands import VerifyLedger
    from sudya.i18n.messages import render

    heads = [parse_head(h) for h in head or []]
    if series is not None and tournament is not None:
        raise UsageError("cli.series-or-tournament", field="--series")
    if by and tournament is None:
        raise UsageError("cli.verify-by-needs-tournament", field="--tournament")
    who = actor(by, db)
    with opened(db) as sudya:
        if tournament is not None:
            tournaments = [tournament]
        else:
            # VerifyLedger verifies a tournament's series: each series (or the one named)
            # through its first tournament (a series with none has no record to verify)
            first: dict[int, Any] = {}
            for t in sorted(sudya.read(all_tournaments), key=lambda t: t.id):
                if series is None or t.series.name == series:
                    first.setdefault(t.series.id, t)
            if series is not None and not first:
                raise UsageError("series.unknown", field="--series", series=series)
            tournaments = [first[sid].id for sid in sorted(first)]
        audits = [a for tid in tournaments
                  for a in send(sudya, build(VerifyLedger), who, tid)]
    anchors = anchored(audits, heads)
    lang = cli_lang()
    if as_json:
        sys.stdout.write(json.dumps([{
            "series": a.series, "records": a.records, "ok": a.ok, "head": a.head,
            "problems": [{"code": p.code, "params": p.params,
                          "text": render(p.code, p.params, lang)} for p in a.problems]}
            for a in audits] + [{"anchor": f"{x.head}@{x.seq}" if x.seq is not None
                                 else x.head, "ok": x.ok, "code": x.code,
                                 "series": x.series, "at": x.at} for x in anchors],
            ensure_ascii=False, indent=2) + "\n")
    else:
        for a in audits:
            if a.ok:
                sys.stdout.write(render("audit.ok", {"series": a.series, "records": a.records},
                                        lang) + "\n")
            for p in a.problems:
                sys.stdout.write(render(p.code, p.params, lang) + "\n")
        for x in anchors:
            sys.stdout.write(render(x.code, {"head": x.head, "seq": "" if x.seq is None
                                             else x.seq, "series": x.series or "",
                                             "at": x.at or 0}, lang) + "\n")
        total = sum(a.records for a in audits)
        problems = sum(len(a.problems) for a in audits) + sum(not x.ok for x in anchors)
        sys.stdout.write(render("audit.summary-ok" if not problems else "audit.summary-failed",
                                {"records": total, "problems": problems}, lang) + "\n")
    if not all(a.ok for a in audits) or not all(x.ok for x in anchors):
        raise typer.Exit(1)


# ---------------------------------------------------------------------- web app
user_app = typer.Typer(help="Пользователи / users of the web app.", no_args_is_help=True)
app.add_typer(user_app, name="user")


def _roles(role: list[str] | None) -> list[tuple[int, str]]:
    roles: list[tuple[int, str]] = []
    for item in role or []:
        tid, sep, what = item.partition(":")
        if not sep or not tid.isdigit():
            raise UsageError("cli.role-format", field="--role", value=item)
        roles.append((int(tid), what))
    return roles


def _code(view: Any) -> None:
    """A one-time password code, shown once: where to use it and until when."""
    out.print(f"{view.username}: {view.code}")
    out.print(f"  /welcome (до {view.expires_at:%Y-%m-%d %H:%M} UTC; один раз / once)")


@user_app.command("add")
def user_add(username: Annotated[str, typer.Argument()],
             name: Annotated[str | None, typer.Option()] = None,
             person: Annotated[str | None, typer.Option(help="the player this user is")]
             = None,
             role: Annotated[list[str] | None, typer.Option(
                 help="TOURNAMENT:ROLE (organiser, scorekeeper, player)")] = None,
             organiser: Annotated[bool, typer.Option(
                 "--organiser", help="may start series of its own in the web app (the "
                                     "first organiser of an install)")] = False,
             invite: Annotated[bool, typer.Option(
                 "--invite", help="no password now: print a one-time code that sets it "
                                  "(the user opens /welcome)")] = False,
             db: Db = None) -> None:
    """Учётная запись веб-приложения (владелец базы). Add a web app account; the owner of the
    database does. Its password is never given on the command line: asked for (hidden), or
    read from SUDYA_NEW_PASSWORD; with --invite, or when there is no terminal to ask on, a
    one-time code is printed instead."""
    from sudya.domain.commands import AddUser, AllowSeries

    roles = _roles(role)
    password = os.environ.get("SUDYA_NEW_PASSWORD")
    if password is None and not invite and sys.stdin.isatty():
        password = typer.prompt("Пароль / password", hide_input=True,
                                confirmation_prompt=True)
    who = owner(db)
    with opened(db) as sudya:
        code = send(sudya, build(AddUser, username=username, person=person, display_name=name,
                                 roles=roles, password=password), who)
        if organiser:
            send(sudya, build(AllowSeries, username=username), who)
    if code is not None:
        _code(code)
    else:
        out.print(f"{username}")


@user_app.command("role")
def user_role(username: Annotated[str, typer.Argument()],
              role: Annotated[list[str], typer.Option(
                  help="TOURNAMENT:ROLE (organiser, scorekeeper, player)")],
              remove: Annotated[bool, typer.Option("--remove", help="take the roles away")]
              = False,
              by: By = None, db: Db = None) -> None:
    """Дать или снять роль (организатор турнира или владелец базы). Give an existing account
    roles in tournaments (or take them away with --remove)."""
    from sudya.domain.commands import AssignRole, RemoveRole

    who = actor(by, db)
    with opened(db) as sudya:
        for tid, what in _roles(role):
            kind = RemoveRole if remove else AssignRole
            send(sudya, build(kind, username=username, role=what), who, tid)
    out.print(f"{username}")


@user_app.command("reset")
def user_reset(username: Annotated[str, typer.Argument()], tournament: TournamentOpt,
               by: By = None, db: Db = None) -> None:
    """Одноразовый код для нового пароля (организатор — для учётных записей своих турниров).
    A one-time code that sets a new password (an organiser: for the accounts of their own
    events; the owner: any); the old password works until it is used."""
    from sudya.domain.commands import ResetPassword

    who = actor(by, db)
    with opened(db) as sudya:
        view = send(sudya, build(ResetPassword, username=username), who, tournament)
    _code(view)


@user_app.command("list")
def user_list(tournament: Annotated[int | None, typer.Option(
                  "--tournament", "-t", help="only the accounts of this tournament")] = None,
              by: By = None, db: Db = None, as_json: JsonOpt = False) -> None:
    """Учётные записи: имя, роли. The accounts and their roles (a tournament's, for its
    organiser; all of them, for the owner of the database)."""
    from rich.table import Table

    who = actor(by, db)
    with opened(db) as sudya:
        rows = sudya.account_list(who, tournament)
    if as_json:
        sys.stdout.write(json.dumps([r.as_json() for r in rows], ensure_ascii=False,
                                    indent=2) + "\n")
        return
    table = Table("username", "name", "roles", "series")
    for r in rows:
        table.add_row(r.username, r.display_name,
                      ", ".join(f"{t}:{role}" for t, role in r.roles),
                      "yes" if r.may_start_series else "")
    out.print(table)


@user_app.command("revoke-sessions")
def user_revoke(username: Annotated[str, typer.Argument()], db: Db = None) -> None:
    """Закрыть все сессии пользователя (владелец базы). Sign a user out everywhere (the owner
    of the database does)."""
    from sudya.app.accounts import sign_out_everywhere

    owner(db)  # no command of the core signs a user out everywhere: the owner's to do
    with opened(db) as sudya:
        count = sign_out_everywhere(sudya.ledger, username=username)
    if count is None:
        raise UsageError("user.unknown", field="USERNAME", username=username)
    out.print(f"{count}")


# seconds a stopping server lets its requests finish: the phones' live event streams
# (web.live) never finish by themselves, and uvicorn would wait for them for ever
SHUTDOWN_GRACE = 5


@app.command()
def serve(demo: Annotated[bool, typer.Option(help="a fresh demo database (SQLite)")] = False,
          host: Annotated[str, typer.Option()] = "127.0.0.1",
          port: Annotated[int, typer.Option()] = 8000,
          workers: Annotated[int, typer.Option(
              min=1, max=64, help="uvicorn processes (each its own pool and engine cache; "
                                  "the database keeps them in step)")] = 1,
          db: Db = None) -> None:
    """Веб-приложение судей. Serve the judges' web app (and the JSON API)."""
    import uvicorn

    if demo:
        from sudya.app.demo import PASSWORD, USERS, build

        path = Path(db.removeprefix("sqlite:///")) if db else Path("sudya-demo.db")
        build(path)
        db = f"sqlite:///{path}"
        out.print(f"Демо / demo: http://{host}:{port}/  база / database: {path}")
        for username, (display, _person, _roles) in USERS.items():
            out.print(f"  {username} / {PASSWORD}  — {display}")
    if db:
        os.environ["SUDYA_DATABASE_URL"] = db  # the app reads its Settings from the environment
    # the CLI names the web app and never imports it (the layers, docs/architecture.md);
    # uvicorn believes no X-Forwarded-For: the app does, from SUDYA_TRUSTED_PROXIES only
    if workers == 1:
        uvicorn.run("sudya.edges.web.app:create_app", factory=True, host=host, port=port,
                    log_level="info", proxy_headers=False,
                    timeout_graceful_shutdown=SHUTDOWN_GRACE)
        return
    import contextlib
    import socket

    from uvicorn.supervisors import Multiprocess

    config = uvicorn.Config("sudya.edges.web.app:create_app", factory=True, host=host, port=port,
                            workers=workers, log_level="info", proxy_headers=False,
                            timeout_graceful_shutdown=SHUTDOWN_GRACE)
    # uvicorn binds the workers' socket with proto 0, and asyncio sets TCP_NODELAY only on
    # IPPROTO_TCP sockets: marked as TCP here, or every keep-alive request past the first
    # waits ~40 ms for a delayed ACK (Kludex/uvicorn#3149)
    bound = config.bind_socket()
    sock = socket.socket(bound.family, bound.type, socket.IPPROTO_TCP, fileno=bound.detach())
    sock.set_inheritable(True)
    with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run does
        Multiprocess(config, sockets=[sock]).run()
