"""The reports as PDF: the text a judge reads (names, infractions, penalties in Russian),
fonts embedded, the first page drawn into artifacts/reports/ for a person to look at."""

from __future__ import annotations

import datetime as dt
import io
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfReader
from report_scene import BERSERK, CLAN, EMPTY, SUSPENSION, WARGAME
from sqlalchemy.orm import Session

from sudya.adapters.db.session import make_engine
from sudya.app.ledger import Ledger, LedgerError
from sudya.app.reports import dq_report, judge_report, penalty_slips, player_record
from sudya.edges.reports import judge_csv, render_html, render_pdf


@pytest.fixture(scope="module")
def session(scene_url: str) -> Iterator[Session]:
    engine = make_engine(scene_url)
    with Ledger(engine).factory() as s:
        yield s
    engine.dispose()


def text_of(pdf: bytes) -> str:
    """The PDF's text, words joined by single spaces (table cells wrap anywhere)."""
    reader = PdfReader(io.BytesIO(pdf))
    return " ".join(" ".join((page.extract_text() or "").split()) for page in reader.pages)


def fonts_of(pdf: bytes) -> set[str]:
    out = set()
    for page in PdfReader(io.BytesIO(pdf)).pages:
        for font in (page["/Resources"].get("/Font") or {}).values():
            obj = font.get_object()
            for inner in [obj, *(d.get_object() for d in obj.get("/DescendantFonts", []))]:
                descriptor = inner.get("/FontDescriptor")
                if descriptor is not None:  # the font's own file is in the PDF
                    assert {"/FontFile", "/FontFile2", "/FontFile3"} & set(
                        descriptor.get_object()), inner
            out.add(str(obj["/BaseFont"]).split("+")[-1])
    return out


def first_page(pdf: bytes, where: Path) -> None:
    """Rasterise the first page (pdftoppm) into artifacts/, and check it has ink."""
    pdf_path = where.with_suffix(".pdf")
    pdf_path.write_bytes(pdf)
    if shutil.which("pdftoppm") is None:
        pytest.fail("pdftoppm (poppler-utils) is missing: `make browser` installs it")
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", "1", "-l", "1", "-singlefile",
                    str(pdf_path), str(where)], check=True, timeout=60)
    png = where.with_suffix(".png")
    assert png.stat().st_size > 5000, png  # a blank page compresses to almost nothing


def words(html: str) -> str:
    """A page's text without its tags (where the PDF is not what the test is about)."""
    return " ".join(re.sub(r"<[^>]+>", " ", html.split("<body", 1)[1]).split())


def has(text: str, *needles: str) -> None:
    flat = re.sub(r"\s+", " ", text)
    missing = [n for n in needles if n not in flat]
    assert missing == [], (missing, flat[:3000])


JUDGE_REPORTS: dict[int, tuple[str, ...]] = {
    BERSERK: ("Судейский отчёт: Этап 1", "Кубок «Берсерк»", "Профессиональный",
              "Анна Главная", "Главный судья", "Олег Зальный", "Борис Петров",
              "Замедленный темп игры", "Предупреждение", "Дарья Волкова",
              "Приостановление членства", "Дисквалификация без призов",
              "Соперник сам тянул время.", "апелляция: решение оставлено в силе",
              "Ошибся игроком", "Положение", "Алиса Смирнова", "подпись"),
    CLAN: ("Весенний этап", "Клановый чемпионат", "Веда Соколова",
           "Использование запрещённых обычных и тёмных боевых элей", "Предупреждение",
           "ожидает решения", "Мастер Турниров"),
    WARGAME: ("Лига, тур 3", "Иван Ёлкин", "Предупреждение", "Жёлтая карточка",
              "Ольга Медведева", "Штрафные очки", "−10 очков",
              "сообщение об инциденте ждёт судью", "Волки"),
}


@pytest.mark.parametrize("tid", sorted(JUDGE_REPORTS), ids=["berserk", "clan", "wargame"])
def test_the_judge_report_prints_in_russian(session: Session, artifacts: Path,
                                            tid: int) -> None:
    view = judge_report(session, tournament=tid, lang="ru")
    pdf = render_pdf(view)
    assert pdf.startswith(b"%PDF-")
    text = text_of(pdf)
    has(text, *JUDGE_REPORTS[tid])
    assert {"DejaVu-Sans", "DejaVu-Sans-Bold"} <= fonts_of(pdf)  # embedded: prints anywhere
    # no page word left in English (the names in the catalogue: §4 E11)
    for english in ("Judge report", "Rulings", "Penalty", "Standings", "None."):
        assert english not in text, english
    first_page(pdf, artifacts / f"judge-report-{view.event.rulebook}")


def test_the_judge_report_in_english_keeps_the_rulebooks_words_in_english(
        session: Session) -> None:
    text = words(render_html(judge_report(session, tournament=BERSERK, lang="en")))
    has(text, "Judge report: Этап 1", "Slow play", "Warning", "Suspension of membership",
        "appeal: the ruling is upheld", "Борис Петров", "Standings")
    assert "Предупреждение" not in text and "Решения" not in text


def test_the_judge_report_holds_every_part_the_issue_asks(session: Session) -> None:
    view = judge_report(session, tournament=BERSERK)
    assert view.event.level_name == "Профессиональный" and view.event.edition == "1"
    head = next(p for p in view.staff if p.handle == "glavsud")
    assert head.role_names == ["Главный судья", "организатор"] and head.official
    events = [r.event for r in view.rulings]
    assert events.index("e13") < events.index(SUSPENSION)  # in the order ruled
    slow = next(r for r in view.rulings if r.event == "e13")
    assert (slow.round, slow.table, slow.judge_name) == (1, 1, "Олег Зальный")
    assert slow.at is not None and slow.source == "000 §7.5"
    struck = next(r for r in view.rulings if r.event == "e15")
    assert [s.revoked for s in struck.sanctions] == [True]  # corrected since
    [appeal] = view.appeals
    assert (appeal.outcome, appeal.decided_by_name) == ("upheld", "Анна Главная")
    assert [c.of for c in view.corrections] == ["e15"]
    assert {(d.kind, d.status, d.judge_name) for d in view.statuses} == {
        ("suspension", "suspended", "Анна Главная"),
        ("disqualification-without-prizes", "disqualified", "Анна Главная")}
    counts = {c.id: c.count for c in view.by_infraction}
    assert counts == {"gameplay.slow-play": 1, "gameplay.missed-trigger": 2,
                      "deck.careless-decklist": 1, "conduct.severe": 1}
    kinds = {c.id: c.count for c in view.by_sanction}
    assert kinds["caution"] == 2  # egor's revoked caution is not counted
    assert view.players is not None
    dasha = next(r for r in view.players.rows if r.subject == "dasha")
    assert dasha.status == "suspended" and "Приостановление членства" in dasha.penalties
    # CSV: one line per ruling, ids beside the words
    rows = judge_csv(view).splitlines()
    assert len(rows) == 1 + len(view.rulings)
    assert any(row.startswith("s1,") and "Приостановление членства" in row and
               "suspension" in row for row in rows)


def test_the_open_items_and_the_college_decisions(session: Session) -> None:
    clan = judge_report(session, tournament=CLAN)
    assert [(o.what, o.ref) for o in clan.open] == [("ruling", "e7")]
    wargame = judge_report(session, tournament=WARGAME)
    [decided] = wargame.decisions
    assert (decided.of, decided.subject, decided.decided_by) == ("e11", "olga", "glavsud")
    assert [o.what for o in wargame.open] == ["incident"]


def test_a_tournament_without_rulings_prints_an_empty_report(session: Session) -> None:
    view = judge_report(session, tournament=EMPTY)
    assert view.rulings == [] and view.by_infraction == [] and view.statuses == []
    text = words(render_html(view))
    has(text, "Судейский отчёт: Этап 2", "Любительский", "Решений пока нет.", "Нет.")


def test_the_dq_report_has_the_statements_and_lines_to_sign(session: Session,
                                                           artifacts: Path) -> None:
    view = dq_report(session, tournament=BERSERK, event=SUSPENSION)
    assert view.dq.status == "suspended"
    assert [s.statement.role for s in view.statements] == ["player", "opponent",
                                                           "head-judge"]
    assert [(s.capacity, s.name) for s in view.signatures] == [
        ("игрок", "Дарья Волкова"), ("соперник", "Глеб Орлов"),
        ("главный судья", "Анна Главная")]
    pdf = render_pdf(view)
    has(text_of(pdf), "Отчёт о приостановлении членства: Дарья Волкова",
        "Приостановление членства", "Я сорвалась", "После партии соперница оскорбила",
        "Пункт регламента: 002", "Решение главного судьи: Приостановление членства",
        "Оскорбил соперника после партии.", "Игрок: Дарья Волкова", "подпись")
    first_page(pdf, artifacts / "dq-report-berserk")
    with pytest.raises(LedgerError) as refused:
        dq_report(session, tournament=BERSERK, event="e13")
    assert refused.value.field == "event"


def test_a_slip_per_ruling_and_the_players_record(session: Session, artifacts: Path) -> None:
    slips = penalty_slips(session, tournament=BERSERK, event="e14")  # both players' cautions
    assert [s.ruling.subject for s in slips.slips] == ["vera", "gleb"]
    pdf = render_pdf(slips)
    assert len(PdfReader(io.BytesIO(pdf)).pages) == 2  # a small page each
    has(text_of(pdf), "Карточка наказания", "Вера Кузнецова", "Глеб Орлов", "Стол 2",
        "Пропущенные срабатывающие особенности", "Наказание: Замечание", "Олег Зальный")
    first_page(pdf, artifacts / "slip-berserk")
    mine = penalty_slips(session, tournament=BERSERK, event="e14", subject="gleb")
    assert [s.ruling.subject for s in mine.slips] == ["gleb"]
    with pytest.raises(LedgerError):
        penalty_slips(session, tournament=BERSERK, event="e14", subject="alisa")

    record = player_record(session, tournament=BERSERK, handle="egor", on=dt.date.today())
    pdf = render_pdf(record)
    has(text_of(pdf), "История: Егор Лебедев", "Халатное заполнение дек-листа",
        "Замечание", "отменено")
    first_page(pdf, artifacts / "record-berserk")


def test_the_page_is_the_same_document_as_the_pdf(session: Session) -> None:
    view = judge_report(session, tournament=BERSERK)
    page = render_html(view, css_url="/reports/report.css", links={"back": "/t/1"})
    printed = render_html(view)
    assert '<link rel="stylesheet" href="/reports/report.css">' in page
    assert "<script" not in page and "style=" not in page  # the pages' CSP holds
    body: Any = lambda html: html.split("</nav>", 1)[-1]  # noqa: E731
    assert body(page) == printed.split("</head>", 1)[1].split("<body class=\"report\">", 1)[1]


def test_sqlite_and_postgresql_give_the_same_report(session: Session,
                                                    scene_postgres: str) -> None:
    engine = make_engine(scene_postgres)
    try:
        with Ledger(engine).factory() as pg:
            for tid in (BERSERK, WARGAME):
                a = judge_report(session, tournament=tid).as_json()
                b = judge_report(pg, tournament=tid).as_json()
                assert strip_times(a) == strip_times(b)
    finally:
        engine.dispose()


def strip_times(value: Any) -> Any:
    """A report without its times, nor the chain head they are hashed into."""
    if isinstance(value, dict):
        return {k: strip_times(v) for k, v in value.items()
                if k not in ("made_at", "at", "filed_at", "decided_at", "chain_head")}
    if isinstance(value, list):
        return [strip_times(v) for v in value]
    return value
