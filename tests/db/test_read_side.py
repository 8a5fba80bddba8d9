"""The read side reads only what it shows (issue 16): a tournament's summary, subjects and
standings read that tournament's rulings and results, not the series', and a person's record
reads the revocations of the sanctions it shows, not the whole table — and they say what
reading the whole series said.

Work is counted, not timed: every SELECT the call sends is run again afterwards and its rows
counted. An earlier tournament of the series holds far more rulings, results and revocations
than the one read, so reading the series again fails the bound.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import sqlalchemy as sa
from ledger_testkit import DAY, SLOW, setup_berserk
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger
from sudya.app.queries import (
    TABLES,
    person_history,
    rulings_json,
    standings_page,
    tournament_roster,
    tournament_standings,
    tournament_subjects,
    tournament_summary,
)
from sudya.app.queries import tournament_results as tournament_results_list
from sudya.app.readback import (
    ENTERED,
    series_results,
    series_rulings,
    tournament_results,
    tournament_rulings,
)
from sudya.app.views import ruling_json
from sudya.domain.rulebook import loader
from sudya.domain.standings import standings

BUSY = 12  # rulings (and results) of the first tournament, a few of them corrected


@contextmanager
def rows_read(engine: sa.Engine) -> Iterator[dict[str, int]]:
    """Rows the SELECTs sent inside the block return: in all, and of those that name a table
    (`revocation`, …); counted by running each again after the block."""
    sent: list[tuple[str, Any]] = []

    def before(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        if statement.lstrip().upper().startswith(("SELECT", "WITH")):
            sent.append((statement, parameters))

    counts: dict[str, int] = {"all": 0}
    sa.event.listen(engine, "before_cursor_execute", before)
    try:
        yield counts
    finally:
        sa.event.remove(engine, "before_cursor_execute", before)
    with engine.connect() as conn:
        for statement, parameters in sent:
            n = len(conn.exec_driver_sql(statement, parameters).fetchall())
            counts["all"] += n
            for table in ("ruling", "result", "revocation", "sanction", "event", "entry"):
                if f"FROM {table}" in statement or f"JOIN {table} " in statement:
                    counts[table] = counts.get(table, 0) + n


def season(ledger: Ledger) -> tuple[int, int]:
    """A busy first tournament (rulings, results, corrections) and a quiet second one."""
    sid, t1 = setup_berserk(ledger)
    for i in range(BUSY):
        ledger.record(tournament=t1, infraction=SLOW, player=("alice", "bob")[i % 2],
                      round=1 + i // 4, event_id=f"r{i}")
        ledger.record_result(tournament=t1, players=("alice", "bob"), score=(2, i % 3),
                             round=1 + i)
    for i in range(1, BUSY, 2):  # bob's rulings corrected: revocations of his sanctions
        ledger.correct(tournament=t1, of=f"r{i}", judge="anna", reason="wrong player")
    t2 = ledger.create_tournament(series=sid, name="Day 2", date=DAY.replace(day=20),
                                  level="professional")
    for p in ("alice", "bob", "carol"):
        ledger.add_player(tournament=t2, handle=p)
    ledger.add_judge(tournament=t2, handle="anna", role="head-judge", official=True)
    ledger.record(tournament=t2, infraction=SLOW, player="carol", round=1, event_id="q1")
    ledger.record_result(tournament=t2, players=("alice", "carol"), score=(2, 1), round=1)
    return t1, t2


def test_a_tournament_is_read_without_its_series(ledger: Ledger,
                                                 db_engine: sa.Engine) -> None:
    t1, t2 = season(ledger)
    engine = db_engine
    calls: dict[str, Callable[[Session], Any]] = {
        "summary": lambda s: tournament_summary(s, t2),
        "rulings": lambda s: rulings_json(s, t2),
        "standings": lambda s: tournament_standings(s, t2),
        "page": lambda s: standings_page(s, t2, page=1, limit=2),
        "subjects": lambda s: tournament_subjects(s, tournament=t2),
    }
    for name, call in calls.items():
        with Session(engine) as s, rows_read(engine) as counts:
            call(s)
        # the second tournament's one ruling and one result (and the row that counts its
        # results, readback.ENTERED), never the first one's dozen
        assert counts.get("ruling", 0) <= 3, (name, counts)
        assert counts.get("result", 0) <= 2, (name, counts)
        assert counts["all"] < BUSY, (name, sorted(counts.items()))
        if name == "summary":  # its people: no rulings read at all
            assert counts.get("ruling", 0) == 0 == counts.get("sanction", 0), counts


def test_a_person_record_reads_the_revocations_it_shows(ledger: Ledger,
                                                        db_engine: sa.Engine) -> None:
    t1, _t2 = season(ledger)
    with Session(db_engine) as s:
        bobs = s.scalar(sa.select(sa.func.count()).select_from(m.Revocation).join(
            m.SanctionRow, m.SanctionRow.id == m.Revocation.sanction_id).where(
            m.SanctionRow.subject == "bob"))
    assert bobs is not None and bobs >= BUSY // 2
    with Session(db_engine) as s, rows_read(db_engine) as counts:
        carol = person_history(s, "carol", DAY)
    assert [e.event for e in carol] == ["q1"]
    assert counts.get("revocation", 0) == 0, counts  # bob's revocations are not carol's
    with Session(db_engine) as s, rows_read(db_engine) as counts:
        bob = person_history(s, "bob", DAY)
    assert counts.get("revocation", 0) == bobs, counts
    assert {sn.state for e in bob if e.cause == "table" for sn in e.sanctions} == {"revoked"}


def test_a_tournament_read_alone_says_what_its_series_says(ledger: Ledger,
                                                           db_engine: sa.Engine) -> None:
    t1, t2 = season(ledger)
    book = loader.load("berserk")
    with Session(db_engine) as s:
        first = s.get(m.Tournament, t1)
        assert first is not None
        every, results = series_rulings(s, first.series_id), series_results(s, first.series_id)
        for tid in (t1, t2):
            t = s.get(m.Tournament, tid)
            assert t is not None
            alone = [ruling_json(r, False) for r in tournament_rulings(s, t)]
            assert alone == [ruling_json(r, False) for r in every
                             if r.tournament == t.position]
            assert tournament_results(s, t) == [(r, p) for r, p in results
                                                if p == t.position]
            whole = standings(book, tournament_roster(s, t),
                              [r for r in every if r.tournament == t.position],
                              [(r, p) for r, p in results if p == t.position], always=True)
            assert tournament_standings(s, tid) == whole


def test_standings_are_made_once_per_state_of_the_series(ledger: Ledger,
                                                         db_engine: sa.Engine) -> None:
    """A table made is kept while the series holds the same events: the next request reads
    no results or rulings; a result entered (or a ruling, a player) is a new state."""
    _t1, t2 = season(ledger)
    with Session(db_engine) as s:
        first = standings_page(s, t2)
    with Session(db_engine) as s, rows_read(db_engine) as counts:
        again = standings_page(s, t2)
        whole = tournament_standings(s, t2)
    assert again == first
    assert counts.get("result", 0) == 0 and counts.get("ruling", 0) == 0, counts
    whole["players"]["alice"]["games_won"] = -1  # a caller's copy: the kept table is not it
    ledger.record_result(tournament=t2, players=("bob", "carol"), score=(2, 0), round=1)
    with Session(db_engine) as s:
        after = standings_page(s, t2)
        assert after.players["bob"].matches == 1 != first.players["bob"].matches
        assert after.players["alice"].games_won != -1
        TABLES.clear()
        assert standings_page(s, t2) == after  # what making it afresh gives
    ledger.record(tournament=t2, infraction=SLOW, player="bob", round=1)
    with Session(db_engine) as s, rows_read(db_engine) as counts:
        standings_page(s, t2)
    assert counts.get("ruling", 0) >= 1, counts  # made again: its rulings read


def test_the_results_list_reads_the_corrections_of_its_results(ledger: Ledger,
                                                                db_engine: sa.Engine) -> None:
    """A corrected result is listed with its correction, found from this tournament's
    results: the first tournament's corrections (of rulings and of results) are not read."""
    t1, t2 = season(ledger)
    ledger.record_result(tournament=t1, players=("alice", "bob"), score=(0, 2), round=99,
                         event_id="old-fix")
    ledger.correct_result(tournament=t1, of="old-fix", judge="anna", reason="not this one")
    ledger.record_result(tournament=t2, players=("bob", "carol"), score=(2, 1), round=2,
                         event_id="mistake")
    ledger.correct_result(tournament=t2, of="mistake", score=(1, 2), judge="anna",
                          reason="swapped")
    with Session(db_engine) as s, rows_read(db_engine) as counts:
        rows = tournament_results_list(s, tournament=t2)
    assert [(r["event"], r["corrected"] and r["corrected"]["reason"]) for r in rows][1:] == [
        ("mistake", "swapped"), (rows[2]["event"], None)]
    assert rows[0]["corrected"] is None and (rows[0]["score_a"], rows[0]["score_b"]) == (1, 2)
    assert counts.get("event", 0) <= 2 * len(rows), counts  # its own, not the series'
    with Session(db_engine) as s:
        first = {r["event"]: r["corrected"] for r in tournament_results_list(s, tournament=t1)}
    assert first["old-fix"] is not None and first["old-fix"]["reason"] == "not this one"


def test_a_tournaments_results_are_read_once(ledger: Ledger, db_engine: sa.Engine) -> None:
    """The results read are kept (readback.ENTERED): after a ruling none is read again,
    after a result only the new one, after a correction of a result none (which count is
    read each time) — and they are what reading them whole gives."""
    _t1, t2 = season(ledger)

    def read() -> tuple[list[Any], dict[str, int]]:
        with Session(db_engine) as s, rows_read(db_engine) as counts:
            t = s.get(m.Tournament, t2)
            assert t is not None
            got = tournament_results(s, t)
        return got, counts

    def whole() -> list[Any]:
        ENTERED.clear()
        return read()[0]

    first, _counts = read()
    ledger.record(tournament=t2, infraction=SLOW, player="bob", round=1)
    again, counts = read()
    assert again == first and counts.get("result", 0) <= 1, counts  # the count only
    ledger.record_result(tournament=t2, players=("bob", "carol"), score=(2, 0), round=1,
                         event_id="new-one")
    more, counts = read()
    assert [r.id for r, _p in more] == [r.id for r, _p in first] + ["new-one"]
    assert counts.get("result", 0) <= 3, counts  # the count, the kept row's hash, the new
    assert more == whole()
    ledger.correct_result(tournament=t2, of="new-one", judge="anna", reason="wrong")
    fixed, counts = read()
    assert fixed == first and fixed == whole()
