"""Rulebooks in the ledger (issue 17), on SQLite and PostgreSQL: a rulebook written from scratch
is published, a tournament on a date uses the edition in force then, a second edition takes
over from a later date, and the series replayed across the change applies each edition on its
dates; the publishing gate refuses a YAML error, a lint error or a failing case and stores
nothing; a published edition is never changed; a college decision becomes a draft rule of the
next edition, published «со следующего турнира»."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from sqlalchemy import select

from sudya.adapters.db import models as m
from sudya.adapters.scenario_file import load_scenario_file
from sudya.app import audit
from sudya.app import rulebook_store as store
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.scenario_import import import_scenario
from sudya.domain.rulebook import loader

TINY = (Path(__file__).parents[1] / "rulebooks" / "data" / "tiny.yaml").read_text("utf-8")
CLUB = TINY.replace("id: tiny", "id: club-store", 1) + """\
  - id: odd
    name: {ru: "Странное", en: "Something odd"}
    source: "club §3"
    penalty:
      options:
        min: [caution]
        max: [warning]
"""
DIGGING = json.dumps({"rulings": [{"event": "e1", "subject": "ann", "infraction": "digging",
                                   "cause": "table", "pending": False,
                                   "sanctions": [{"kind": "ore", "amount": 20}]}],
                      "subjects": {"ann": {"status": "active"}, "bob": {"status": "active"}}})
CASE = """\
date: 2026-03-01
level: low
players: [ann, bob]
events:
  - {id: e1, infraction: digging, player: ann, details: {depth: 2}}
"""
TODAY = m.now().date()
FIRST = TODAY - dt.timedelta(days=300)  # edition 1 in force from
SECOND = TODAY - dt.timedelta(days=100)  # edition 2 in force from
ORGANISER = Actor(name="organiser")


@pytest.fixture(autouse=True)
def _forget_stored() -> Iterator[None]:
    """The loader's registry is the process's: no stored rulebook outlives its database."""
    yield
    loader.keep_stored(set())


def publish(ledger: Ledger, text: str, start: dt.date | None, summary: str = "edition",
            cases: store.Cases | None = None) -> str:
    return store.publish(ledger, text=text, in_force_from=start, summary=summary,
                         actor=ORGANISER, cases=cases).edition


def stored(engine: sa.Engine) -> list[tuple[str, str]]:
    with engine.connect() as conn:
        return [tuple(r) for r in conn.execute(  # type: ignore[misc]
            select(m.RulebookEdition.rulebook, m.RulebookEdition.edition)
            .order_by(m.RulebookEdition.id))]


def rulings_of(engine: sa.Engine, tournament: int) -> list[tuple[str, str, list[int | None]]]:
    with sa.orm.Session(engine) as s:
        return [(r.event_ext_id, r.edition, [x.amount for x in r.sanctions])
                for r in s.scalars(select(m.Ruling).where(m.Ruling.tournament_id == tournament)
                                   .order_by(m.Ruling.position))]


def test_editions_by_date_and_a_replay_across_the_change(ledger: Ledger,
                                                         db_engine: sa.Engine) -> None:
    assert publish(ledger, CLUB, FIRST, "first edition", {"digging": (CASE, DIGGING)}) == "1"
    sid = ledger.create_series(name="Club league", rulebook="club-store")
    t1 = ledger.create_tournament(series=sid, name="Spring", date=FIRST + dt.timedelta(10),
                                  level="low")
    ledger.add_player(tournament=t1, handle="ann")
    ledger.record(tournament=t1, infraction="digging", player="ann", details={"depth": 2},
                  event_id="s1")
    # the second edition: digging costs twice as much; its cases are the ones it passes
    second = CLUB.replace("depth * 10", "depth * 20")
    doubled = DIGGING.replace('"amount": 20', '"amount": 40')
    assert publish(ledger, second, SECOND, "digging costs double",
                   {"digging": (CASE, doubled)}) == "2"
    t2 = ledger.create_tournament(series=sid, name="Autumn", date=SECOND + dt.timedelta(5),
                                  level="low")
    ledger.add_player(tournament=t2, handle="ann")
    ledger.record(tournament=t2, infraction="digging", player="ann", details={"depth": 2},
                  event_id="a1")
    # a tournament dated back, before the change, still takes the first edition; one pinned
    # to the first edition keeps it
    t3 = ledger.create_tournament(series=sid, name="Late report", date=SECOND - dt.timedelta(1),
                                  level="low")
    t4 = ledger.create_tournament(series=sid, name="Pinned", date=TODAY, level="low",
                                  edition="1")
    with ledger.factory() as s:
        eds = {t.name: t.edition for t in s.scalars(select(m.Tournament))}
        views = store.editions(s, "club-store")
        assert store.text_of(s, "club-store", "2").count("depth * 20") == 1
    assert eds == {"Spring": "1", "Autumn": "2", "Late report": "1", "Pinned": "1"}
    assert [(v.edition, v.in_force_from, v.summary, v.published_by) for v in views] == [
        ("1", FIRST, "first edition", "organiser"),
        ("2", SECOND, "digging costs double", "organiser")]
    assert rulings_of(db_engine, t1) == [("s1", "1", [20])]
    assert rulings_of(db_engine, t2) == [("a1", "2", [40])]

    # another process: a cold engine replays the series across the change of edition
    loader.keep_stored(set())
    fresh = Ledger(db_engine)
    ledger.add_player(tournament=t4, handle="ann")
    fresh.add_player(tournament=t4, handle="bob")
    rulings = fresh.record(tournament=t4, infraction="digging", player="bob",
                           details={"depth": 1}, event_id="p1")
    assert [(r.edition, [x.amount for x in r.sanctions]) for r in rulings] == [("1", [10])]
    assert fresh.projection.last_replayed > 0
    assert [a.ok for a in audit.verify(fresh, keep=False)] == [True]
    _ = t3


@pytest.mark.parametrize("change, field, code", [
    ("id: [", "text", "rulebook.does-not-load"),
    ('source: "tiny §1"|source: "tiny §1"\n    repeats: [warning]', "text",
     "rulebook.lint-errors"),  # rows the ladder never reads (repeats.mode: escalate)
    ("depth * 10|depth * 30", "cases.digging", "rulebook.case-fails"),
])
def test_the_gate_refuses_and_stores_nothing(ledger: Ledger, db_engine: sa.Engine, change: str,
                                             field: str, code: str) -> None:
    old, _, new = change.partition("|")
    text = CLUB.replace(old, new) if new else CLUB + old + "\n"
    with pytest.raises(LedgerError) as info:
        publish(ledger, text, FIRST, cases={"digging": (CASE, DIGGING)})
    assert (info.value.code, info.value.field) == (code, field)
    assert stored(db_engine) == []
    assert "club-store" not in loader.bundled_ids()


def test_check_text_names_lines_and_an_overlap_is_refused(ledger: Ledger,
                                                          db_engine: sa.Engine) -> None:
    broken = CLUB.replace("rank: 2", "rank: two")
    check = store.check_text(broken, name="club.yaml")
    assert not check.loads and not check.ok
    assert [(p.line, p.where) for p in check.problems] == [(10, "sanctions[warning].rank")]
    publish(ledger, CLUB, SECOND)
    with pytest.raises(LedgerError) as info:
        publish(ledger, CLUB.replace("depth * 10", "depth * 20"), FIRST)
    assert (info.value.code, info.value.field) == ("rulebook.lint-errors", "in_force_from")
    with pytest.raises(LedgerError) as info:
        publish(ledger, CLUB, SECOND + dt.timedelta(1), summary=" ")
    assert info.value.field == "summary"
    assert stored(db_engine) == [("club-store", "1")]


def test_a_published_edition_is_never_changed(ledger: Ledger, db_engine: sa.Engine) -> None:
    publish(ledger, CLUB, FIRST)
    for sql in ("UPDATE rulebook_edition SET text = 'id: x'",
                "UPDATE rulebook_edition SET in_force_from = NULL",
                "DELETE FROM rulebook_edition"):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), db_engine.begin() as conn:
            conn.execute(sa.text(sql))
    assert stored(db_engine) == [("club-store", "1")]


def test_a_college_precedent_from_a_decision_to_the_next_tournament(
        ledger: Ledger, db_engine: sa.Engine) -> None:
    publish(ledger, CLUB, FIRST)
    sid = ledger.create_series(name="Club cup", rulebook="club-store")
    t1 = ledger.create_tournament(series=sid, name="Cup 1", date=FIRST + dt.timedelta(1),
                                  level="low")
    ledger.add_player(tournament=t1, handle="ann")
    pending = ledger.record(tournament=t1, infraction="odd", player="ann", event_id="o1")
    assert [r.pending for r in pending] == [True]
    ledger.decide(tournament=t1, of="o1", choice="max", event_id="college-1")
    with ledger.factory() as s:
        draft = store.precedent_draft(s, tournament=t1, decision_event="college-1")
        with pytest.raises(LedgerError) as info:
            store.precedent_draft(s, tournament=t1, decision_event="o1")
        assert info.value.code == "precedent.not-a-decision"
    book = loader.load_text(draft)
    rule = book.infraction("odd.precedent-college-1")
    assert book.edition == "2" and rule is not None
    assert "003" in rule.source and "college-1" in rule.source
    assert rule.penalty is not None and "warning" in json.dumps(
        rule.model_dump(mode="json")["penalty"])
    # published «со следующего турнира»: the next tournament rules under it, the first keeps
    # its edition
    view = store.publish(ledger, text=draft, in_force_from=None, summary="precedent",
                         actor=ORGANISER)
    assert (view.edition, view.from_next_tournament, view.in_force_from) == ("2", True, None)
    t2 = ledger.create_tournament(series=sid, name="Cup 2", date=TODAY, level="low")
    ledger.add_player(tournament=t2, handle="ann")
    ruled = ledger.record(tournament=t2, infraction="odd.precedent-college-1", player="ann")
    assert [(r.edition, [x.kind for x in r.sanctions]) for r in ruled] == [("2", ["warning"])]
    with ledger.factory() as s:
        assert s.scalar(select(m.Tournament.edition).where(m.Tournament.id == t1)) == "1"


def test_no_precedent_from_aggravation(ledger: Ledger) -> None:
    path = (Path(__file__).parents[1] / "scenarios" / "clan-championship"
            / "accumulation-by-decision.yaml")
    sid = import_scenario(ledger, load_scenario_file(path))
    with ledger.factory() as s:
        tid = s.scalar(select(m.Tournament.id).where(m.Tournament.series_id == sid))
        assert tid is not None
        with pytest.raises(LedgerError) as info:
            store.precedent_draft(s, tournament=tid, decision_event="d1")
    assert (info.value.code, info.value.field) == ("precedent.aggravation", "decision_event")


def test_a_snapshot_is_of_one_set_of_stored_editions(ledger: Ledger) -> None:
    from sudya.app.snapshots import code_hash

    before = code_hash()
    publish(ledger, CLUB, FIRST)
    after = code_hash()
    assert after != before  # an engine snapshot made before the publication is rebuilt
    loader.keep_stored(set())
    assert code_hash() == before
