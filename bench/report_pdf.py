"""The judge report's PDF of a 500-player event, as a ratio to a one-page PDF in the same run.

Builds, in a fresh SQLite file, the large open tournament of `sudya.app.demo_large`:
`--players` players (500) at 250 tables, `--rounds` Swiss rounds (9) with their results and
`--rulings` rulings a round (25: about one per ten matches), a suspension with its statements,
an appeal and a correction. Then measures, interleaved and `--repeat` times each (the median):

- the baseline: WeasyPrint making a one-page PDF of a trivial HTML (a heading and a sentence
  in Russian) with the report's own stylesheet and fonts;
- the report's view (`sudya.app.reports.judge_report`, in a fresh session);
- its PDF (`sudya.edges.reports.render_pdf`), with the standings `--standings` asks (16, the
  report's default; `all`, `none` or a number), as `GET /t/ID/report.pdf` makes it.

Prints each with its ratio to the baseline and the PDF's pages; the last line reads
`REPORT PDF: X s for 500 players (goal 5 s)`, X the view and the PDF together (what a head
judge waits for after tapping «PDF»).

    python bench/report_pdf.py [--players 500] [--rounds 9] [--rulings 25] [--repeat 3]
                               [--standings 16|all|none|N]

The build takes 5–10 s; `--standings all` adds some 10 s a repeat (the whole table: why it is
no longer the default).
"""

from __future__ import annotations

import argparse
import io
import logging
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from pypdf import PdfReader
from timing import interleaved

from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import make_engine
from sudya.app.demo_large import add_large_event
from sudya.app.ledger import Ledger
from sudya.app.report_views import JudgeReportView
from sudya.app.reports import judge_report, standings_option
from sudya.edges.reports import render_pdf
from sudya.edges.reports.render import STYLESHEET

GOAL_S = 5.0
TRIVIAL = ('<!doctype html><html lang="ru"><head><meta charset="utf-8"><title>Отчёт</title>'
           '</head><body class="report"><h1>Судейский отчёт</h1><p>Решений пока нет.</p>'
           '</body></html>')


def baseline() -> bytes:
    """A one-page PDF of a trivial document: WeasyPrint's fixed cost (the fonts, the page)."""
    from weasyprint import CSS, HTML  # type: ignore[import-untyped]

    pdf: bytes = HTML(string=TRIVIAL).write_pdf(
        stylesheets=[CSS(string=STYLESHEET.read_text("utf-8"))])
    return pdf


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--rulings", type=int, default=25, help="rulings a round")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--standings", default="16", help="16 (default), all, none or N")
    args = parser.parse_args()
    places = standings_option(args.standings)
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'report.db'}")
        upgrade(engine)
        ledger = Ledger(engine)
        start = time.perf_counter()
        event = add_large_event(ledger, players=args.players, rounds=args.rounds,
                                rulings_per_round=args.rulings)
        built = time.perf_counter() - start
        tid = event.tournament

        def view() -> JudgeReportView:
            with ledger.factory() as s:
                return judge_report(s, tournament=tid, standings=places)

        report = view()
        rulings = len(report.rulings)
        print(f"built through the ledger in {built:.1f} s: {args.players} players, "
              f"{args.rounds} rounds, {rulings} rulings; standings: {args.standings}")
        pdf = render_pdf(report)
        pages = len(PdfReader(io.BytesIO(pdf)).pages)
        baseline()  # warm: the fonts, WeasyPrint's own stylesheets

        measures: dict[str, Callable[[], object]] = {
            "baseline": baseline, "view": view,
            "pdf": lambda: render_pdf(report)}
        took = interleaved(measures, args.repeat)
        engine.dispose()

    s = {name: statistics.median(samples) for name, samples in took.items()}
    print(f"baseline: a one-page PDF of a trivial document {s['baseline'] * 1000:.0f} ms "
          f"(median of {args.repeat})")
    print(f"the report's view: {s['view'] * 1000:.0f} ms = "
          f"{s['view'] / s['baseline']:.1f} x baseline")
    print(f"its PDF, {pages} pages: {s['pdf']:.2f} s = {s['pdf'] / s['baseline']:.1f} x "
          f"baseline ({s['pdf'] / pages * 1000:.0f} ms a page)")
    total = s["view"] + s["pdf"]
    print(f"REPORT PDF: {total:.1f} s for {args.players} players (goal {GOAL_S:g} s)")


if __name__ == "__main__":
    main()
