"""`sudya report`: the paper reports as PDF (and HTML, JSON, CSV) files.

`sudya report judge TID --pdf FILE` (or shorter, `sudya report TID --pdf FILE`) prints the
judge report; `sudya report dq TID EVENT --pdf FILE` the report of a disqualification or
suspension; `slip` and `record` a ruling's penalty slip and a player's record in the series.
The files are the web app's pages and PDFs: the same views, the same templates.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Annotated, Any, Literal

import typer
from typer.core import TyperGroup

from sudya.domain.errors import SudyaError
from sudya.edges.cli.console import out
from sudya.edges.cli.core import opened
from sudya.edges.cli.ledger import Db, _date
from sudya.edges.cli.main import UsageError, app, chosen_lang


class _JudgeByDefault(TyperGroup):
    """`sudya report TID …` is `sudya report judge TID …`: a first argument that names no
    command is the judge report's tournament."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["judge", *args]
        return super().parse_args(ctx, args)


report_app = typer.Typer(
    cls=_JudgeByDefault, no_args_is_help=True,
    help="Отчёты на бумаге / paper reports: judge (the default: sudya report TID), dq, slip, "
         "record.")
app.add_typer(report_app, name="report")

Tournament = Annotated[int, typer.Argument(help="tournament id")]
PdfOpt = Annotated[Path | None, typer.Option("--pdf", help="write the PDF here")]
HtmlOpt = Annotated[Path | None, typer.Option("--html", help="write the HTML page here")]
JsonOpt = Annotated[Path | None, typer.Option("--json", help="write the report's data "
                                              "(JSON) here; - for stdout")]
ReportLang = Annotated[str, typer.Option("--lang", envvar="SUDYA_LANG", callback=chosen_lang,
                                         help="ru (default) or en: the report's language")]


def _lang(lang: str) -> Any:
    if lang not in ("ru", "en"):
        raise UsageError("report.bad-lang", field="--lang", lang=lang)
    return lang


def _write(path: Path, data: bytes | str, option: str) -> None:
    if str(path) == "-":
        out.file.write(data if isinstance(data, str) else data.decode("utf-8"))
        return
    try:
        if isinstance(data, str):
            path.write_text(data, encoding="utf-8")
        else:
            path.write_bytes(data)
    except OSError as exc:
        raise UsageError("report.cannot-write", field=option, path=str(path),
                         problem=exc.strerror or type(exc).__name__) from None


def _files(view: Any, *, pdf: Path | None, html: Path | None, json_: Path | None,
           csv: Path | None = None) -> None:
    """Each file asked for, from the one view; the PDF is made last (the slowest)."""
    from sudya.edges import reports

    if json_ is not None:
        _write(json_, json.dumps(view.as_json(), ensure_ascii=False, indent=2) + "\n", "--json")
    if csv is not None:
        _write(csv, reports.judge_csv(view), "--csv")
    if html is not None:
        _write(html, reports.render_html(view), "--html")
    if pdf is not None:
        _write(pdf, reports.render_pdf(view), "--pdf")


def _need_output(*files: Path | None) -> None:
    if all(f is None for f in files):
        raise UsageError("report.no-output", field="--pdf")


@report_app.command("judge")
def judge(tournament: Tournament, pdf: PdfOpt = None, html: HtmlOpt = None,
          json_: JsonOpt = None,
          csv: Annotated[Path | None, typer.Option("--csv", help="write the rulings (CSV) "
                                                   "here; - for stdout")] = None,
          standings: Annotated[str | None, typer.Option(
              "--standings", metavar="all|N|none",
              help="how much of the standings to print: the first N places (default "
                   "16), all, or none")] = None,
          lang: ReportLang = "ru", db: Db = None) -> None:
    """Судейский отчёт турнира. The judge report: the event, the staff, every ruling, appeals,
    decisions, corrections, disqualifications, what is open, counts and the standings' first
    16 places (--standings all: the whole table)."""
    from sudya.app.reports import TOP_STANDINGS, judge_report, standings_option

    _need_output(pdf, html, json_, csv)
    chosen = _lang(lang)
    try:
        places = TOP_STANDINGS if standings is None else standings_option(standings)
    except SudyaError as exc:
        raise UsageError(exc.code, field="--standings", **exc.params) from None
    with opened(db) as sudya:
        view = sudya.read(judge_report, tournament=tournament, lang=chosen,
                          standings=places)
    _files(view, pdf=pdf, html=html, json_=json_, csv=csv)


@report_app.command("dq")
def dq(tournament: Tournament,
       event: Annotated[str, typer.Argument(help="the event that disqualified or suspended")],
       pdf: PdfOpt = None, html: HtmlOpt = None, json_: JsonOpt = None,
       lang: ReportLang = "ru", db: Db = None) -> None:
    """Отчёт о дисквалификации или приостановлении: решения, заявления, строки для подписей.
    The report of a disqualification or suspension: its rulings, the statements, signature
    lines."""
    from sudya.app.reports import dq_report

    _need_output(pdf, html, json_)
    chosen = _lang(lang)
    with opened(db) as sudya:
        view = sudya.read(dq_report, tournament=tournament, event=event, lang=chosen)
    _files(view, pdf=pdf, html=html, json_=json_)


@report_app.command("slip")
def slip(tournament: Tournament,
         event: Annotated[str, typer.Argument(help="the ruling's event id (e13)")],
         pdf: PdfOpt = None, html: HtmlOpt = None, json_: JsonOpt = None,
         lang: ReportLang = "ru", db: Db = None) -> None:
    """Карточка наказания. The penalty slip of each ruling an event gave: one small page each."""
    from sudya.app.reports import penalty_slips

    _need_output(pdf, html, json_)
    chosen = _lang(lang)
    with opened(db) as sudya:
        view = sudya.read(penalty_slips, tournament=tournament, event=event, lang=chosen)
    _files(view, pdf=pdf, html=html, json_=json_)


@report_app.command("round")
def round_sheet_cmd(tournament: Tournament,
                    part: Annotated[str, typer.Argument(
                        help="tables (by table), names (alphabetical) or slips (result "
                             "slips)")],
                    round_: Annotated[int | None, typer.Option(
                        "--round", help="round number (default: the current round)")] = None,
                    pdf: PdfOpt = None, html: HtmlOpt = None, json_: JsonOpt = None,
                    lang: ReportLang = "ru", db: Db = None) -> None:
    """Тур на бумаге: пары по столам, по фамилиям, бланки результатов. A round on paper: its
    pairings by table or by name, or a result slip per table."""
    from sudya.app.reports import round_sheet

    parts: dict[str, Literal["tables", "names", "slips"]] = {
        "tables": "tables", "names": "names", "slips": "slips"}
    if part not in parts:
        raise UsageError("cli.report-part", field="PART", part=part)
    _need_output(pdf, html, json_)
    chosen = _lang(lang)
    with opened(db) as sudya:
        view = sudya.read(round_sheet, tournament=tournament, round=round_,
                          part=parts[part], lang=chosen)
    _files(view, pdf=pdf, html=html, json_=json_)


@report_app.command("record")
def record(tournament: Tournament,
           person: Annotated[str, typer.Argument(help="player id")],
           pdf: PdfOpt = None, html: HtmlOpt = None, json_: JsonOpt = None,
           on: Annotated[str | None, typer.Option(help="ISO date for valid/expired marks "
                                                  "(default: today)")] = None,
           lang: ReportLang = "ru", db: Db = None) -> None:
    """История игрока в серии турнира. A player's record across the tournament's series."""
    from sudya.app.reports import player_record

    _need_output(pdf, html, json_)
    chosen = _lang(lang)
    day = _date(on, "--on") or dt.date.today()
    with opened(db) as sudya:
        view = sudya.read(player_record, tournament=tournament, handle=person, on=day, lang=chosen)
    _files(view, pdf=pdf, html=html, json_=json_)
