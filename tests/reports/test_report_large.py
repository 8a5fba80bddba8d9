"""The judge report of a 500-player event (issue 37, `sudya.app.demo_large`): its PDF is a few
pages with the standings' first 16 places, the whole table on request (page, PDF, API, CLI);
the DQ report and a player's record of the same event print. The time is bench/report_pdf.py's
to measure (benchmarks are not tests); here the pages are counted, with pypdf."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_kit import refused, run
from pypdf import PdfReader
from sqlalchemy.orm import Session
from test_report_pdfs import first_page, has, text_of

from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import make_engine
from sudya.app.demo_large import LargeEvent, add_large_event
from sudya.app.ledger import Ledger, LedgerError
from sudya.app.reports import TOP_STANDINGS, dq_report, judge_report, standings_option
from sudya.edges.reports import render_html, render_pdf

PLAYERS = 500
ROUNDS = 3  # 250 tables a round; 25 rulings a round, a suspension, an appeal, a correction


@pytest.fixture(scope="module")
def large(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, LargeEvent]]:
    url = f"sqlite:///{tmp_path_factory.mktemp('large') / 'large.db'}"
    engine = make_engine(url)
    upgrade(engine)
    event = add_large_event(Ledger(engine), players=PLAYERS, rounds=ROUNDS)
    engine.dispose()
    yield url, event


@pytest.fixture(scope="module")
def session(large: tuple[str, LargeEvent]) -> Iterator[Session]:
    engine = make_engine(large[0])
    with Ledger(engine).factory() as s:
        yield s
    engine.dispose()


def pages(pdf: bytes) -> int:
    return len(PdfReader(io.BytesIO(pdf)).pages)


def test_the_report_holds_the_first_16_places_unless_asked(
        session: Session, large: tuple[str, LargeEvent], artifacts: Path) -> None:
    tid = large[1].tournament
    top = judge_report(session, tournament=tid)
    assert top.standings == TOP_STANDINGS == 16
    assert top.players is not None and top.players.total == PLAYERS
    assert [r.place for r in top.players.rows] == list(range(1, 17))
    assert len(top.rulings) >= ROUNDS * 25 + 1  # and the suspension, the appeal's…
    none = judge_report(session, tournament=tid, standings=0)
    assert none.players is None and none.standings == 0
    whole = judge_report(session, tournament=tid, standings="all")
    assert whole.players is not None and len(whole.players.rows) == PLAYERS
    assert whole.players.rows[:16] == top.players.rows

    short, bare, full = render_pdf(top), render_pdf(none), render_pdf(whole)
    # the first 16 places take the one landscape page; the rulings are ~14 a page
    assert pages(short) <= pages(bare) + 1 <= 9, (pages(short), pages(bare))
    assert pages(full) >= pages(bare) + PLAYERS // 40, pages(full)  # the whole table
    has(text_of(short), "Места 1–16 из 500.", f"sudya report judge {tid} --standings all",
        top.players.rows[15].name)
    # the whole table ends on the last page, with the last line's player
    last = " ".join((PdfReader(io.BytesIO(full)).pages[-1].extract_text() or "").split())
    has(last, whole.players.rows[-1].name, whole.players.rows[-1].subject)
    assert "Места 1–" not in render_html(whole)  # no note that a part is left out
    first_page(short, artifacts / "judge-report-500")


def test_the_dq_report_and_a_record_of_the_large_event(
        session: Session, large: tuple[str, LargeEvent]) -> None:
    event = large[1]
    dq = dq_report(session, tournament=event.tournament, event=event.suspension)
    assert dq.dq.subjects == [event.suspended]
    pdf = render_pdf(dq)
    has(text_of(pdf), event.names[event.suspended], "Прошу учесть, что это впервые.",
        "Приостановление членства", "подпись")
    assert pages(pdf) <= 2


@pytest.mark.parametrize(("typed", "places"), [("all", "all"), ("ALL", "all"), ("none", 0),
                                                ("0", 0), ("16", 16), (" 32 ", 32)])
def test_the_standings_option_as_typed(typed: str, places: object) -> None:
    assert standings_option(typed) == places


@pytest.mark.parametrize("typed", ["", "-1", "top", "1.5", "١٦", "100001", "all of it"])
def test_a_bad_standings_option_names_its_field(typed: str) -> None:
    with pytest.raises(LedgerError) as bad:
        standings_option(typed)
    assert bad.value.field == "standings" and bad.value.code == "report.bad-standings"


def test_the_cli_prints_what_standings_asks(large: tuple[str, LargeEvent],
                                            tmp_path: Path) -> None:
    url, event = large
    db = ("--db", url)
    done = run(tmp_path, "report", event.tournament, "--html", "three.html", "--json",
               "three.json", "--standings", "3", *db)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "Места 1–3 из 500." in (tmp_path / "three.html").read_text("utf-8")
    three = json.loads((tmp_path / "three.json").read_text("utf-8"))
    assert three["standings"] == 3 and len(three["players"]["rows"]) == 3
    assert three["players"]["total"] == PLAYERS
    done = run(tmp_path, "report", event.tournament, "--json", "none.json",
               "--standings", "none", *db)
    assert done.returncode == 0, done.stderr
    assert '"players": null' in (tmp_path / "none.json").read_text("utf-8")
    refused(run(tmp_path, "report", event.tournament, "--pdf", "x.pdf", "--standings",
                "many", *db), "--standings", "all, none")
    assert not (tmp_path / "x.pdf").exists()


def test_the_html_is_the_same_document_with_the_whole_table(
        session: Session, large: tuple[str, LargeEvent]) -> None:
    tid = large[1].tournament
    view = judge_report(session, tournament=tid)
    page = render_html(view, links={"standings_all": f"/t/{tid}/report?standings=all",
                                    "standings_all_pdf": f"/t/{tid}/report.pdf?standings=all"})
    assert f'href="/t/{tid}/report?standings=all"' in page
    assert f'href="/t/{tid}/report.pdf?standings=all"' in page
    assert page.count('<li class="ruling">') == len(view.rulings)
    assert "<table class=\"rulings\"" not in page  # a card each, no table (see the CSS)
