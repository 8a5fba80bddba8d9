"""A round's pairings imported from CSV on SQLite and PostgreSQL (services.people): every row
or none, a file with bad rows refused with the line and reason of each and nothing stored, a
re-import replacing the round as a whole; people found by part of a name (case and «ё»
folded) or by their table; the current round from the pairings and the round clock."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from ledger_testkit import snapshot
from sqlalchemy import select

from sudya.adapters.db import models as m
from sudya.app.clock import start_round
from sudya.app.imports import ImportRejected
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.people import (
    current_round,
    import_pairings,
    round_pairings,
    search_people,
    set_names,
    tournament_people,
)
from sudya.domain.errors import SudyaError

ACTOR = Actor(name="scorer", request_id="req-pairings")
NAMES = {"alice": "Алёна Ёжикова", "bob": "Борис Петров", "carol": "Кира Орлова",
         "dan": "Дан Ли", "erin": "Ерин Пётрова", "fred": "Фёдор Иванов"}
ROUND_2 = "table,player_a,player_b\n1,alice,bob\n2,carol,dan\n3,erin,fred\n"


@pytest.fixture
def tid(ledger: Ledger) -> int:
    """A berserk tournament of six named players, seated at 1-3 when registered."""
    ledger.create_series(name="Cup", rulebook="berserk")
    tid = ledger.create_tournament(series="Cup", name="Day 1", date=dt.date(2026, 3, 1),
                                   level="professional")
    for i, handle in enumerate(NAMES):
        ledger.add_player(tournament=tid, handle=handle, name=NAMES[handle],
                          table=i // 2 + 1)
    return tid


def tables(ledger: Ledger, tid: int, round: int | None = None) -> list[tuple[int, str, str]]:
    with ledger.factory() as s:
        view = round_pairings(s, tournament=tid, round=round)
    return [(tb.table, tb.a.handle, tb.b.handle) for tb in view.tables]


def rows(ledger: Ledger) -> list[m.Pairing]:
    with ledger.factory() as s:
        return list(s.scalars(select(m.Pairing).order_by(m.Pairing.round, m.Pairing.table_no)))


def test_a_round_is_imported_and_read_back(ledger: Ledger, tid: int) -> None:
    assert import_pairings(ledger, tournament=tid, round=2, text="\ufeff" + ROUND_2,
                           actor=ACTOR) == 3
    assert tables(ledger, tid, 2) == [(1, "alice", "bob"), (2, "carol", "dan"),
                                      (3, "erin", "fred")]
    stored = rows(ledger)
    assert {(r.created_by, r.request_id) for r in stored} == {("scorer", "req-pairings")}
    assert len({r.created_at for r in stored}) == 1  # one import, one moment
    with ledger.factory() as s:
        view = round_pairings(s, tournament=tid)
        people = {p.handle: (p.name, p.table, p.round)
                  for p in tournament_people(s, tournament=tid)}
    assert (view.round, view.current_round, view.rounds) == (2, 2, [2])
    assert view.imported_by == "scorer" and view.imported_at is not None
    assert view.tables[0].a.name == "Алёна Ёжикова"
    assert people["dan"] == ("Дан Ли", 2, 2)  # the pairings' table, not the seat (2)
    assert people["erin"] == ("Ерин Пётрова", 3, 2)


def test_without_pairings_the_registered_seats_count(ledger: Ledger, tid: int) -> None:
    with ledger.factory() as s:
        people = {p.handle: (p.table, p.round) for p in tournament_people(s, tournament=tid)}
        assert round_pairings(s, tournament=tid).tables == []
    assert people == {"alice": (1, None), "bob": (1, None), "carol": (2, None),
                      "dan": (2, None), "erin": (3, None), "fred": (3, None)}


BAD_ROWS = [
    ("table,player_a,player_b\n1,alice,bob\n2,carol,zed\n", [(3, "player_b", "zed")]),
    ("table,player_a,player_b\n1,alice,bob\n1,carol,dan\n", [(3, "table", "строке 2")]),
    ("table,player_a,player_b\n1,alice,bob\n2,carol,alice\n", [(3, "player_b", "строке 2")]),
    ("table,player_a,player_b\n1,alice,alice\n", [(2, "player_b", "обеих сторон")]),
    ("table,player_a,player_b\nодин,alice,bob\n0,carol,dan\n100001,erin,fred\n",
     [(2, "table", "целым"), (3, "table", "от 1 до 100000"), (4, "table", "от 1 до 100000")]),
    ("table,player_a,player_b\n1,alice\n\n2,,dan\n", [(2, "player_b", "обязательно"),
                                                   (4, "player_a", "обязательно")]),
]


@pytest.mark.parametrize(("text", "problems"), BAD_ROWS)
def test_bad_rows_are_refused_and_nothing_is_stored(ledger: Ledger, tid: int, text: str,
                                                    problems: list[tuple[int, str, str]]
                                                    ) -> None:
    import_pairings(ledger, tournament=tid, round=1, text=ROUND_2, actor=ACTOR)
    before = snapshot(ledger.db)
    with pytest.raises(ImportRejected) as refused:
        import_pairings(ledger, tournament=tid, round=1, text=text, actor=ACTOR)
    lines = refused.value.lines("ru")
    assert [(line, error.field) for line, error in refused.value.problems] == [
        (line, field) for line, field, _ in problems]
    for (line, _field, words), shown in zip(problems, lines, strict=True):
        assert shown.startswith(f"строка {line}: ") and words in shown, shown
    assert snapshot(ledger.db) == before  # the round's earlier pairings are kept


def test_a_reimport_replaces_the_round_as_a_whole(ledger: Ledger, tid: int) -> None:
    import_pairings(ledger, tournament=tid, round=1, text="table,player_a,player_b\n"
                    "1,alice,fred\n2,bob,erin\n3,carol,dan\n", actor=Actor(name="first"))
    import_pairings(ledger, tournament=tid, round=2, text=ROUND_2, actor=ACTOR)
    again = Actor(name="head-judge", request_id="req-again")
    assert import_pairings(ledger, tournament=tid, round=2,
                           text="table,player_a,player_b\n7,bob,alice\n", actor=again) == 1
    assert tables(ledger, tid, 2) == [(7, "bob", "alice")]  # tables 1-3 of round 2 are gone
    assert tables(ledger, tid, 1) == [(1, "alice", "fred"), (2, "bob", "erin"),
                                      (3, "carol", "dan")]  # another round is untouched
    assert {(r.round, r.created_by) for r in rows(ledger)} == {(1, "first"),
                                                                (2, "head-judge")}
    with ledger.factory() as s:
        people = {p.handle: p.table for p in tournament_people(s, tournament=tid, round=2)}
    assert people == {"alice": 7, "bob": 7, "carol": None, "dan": None, "erin": None,
                      "fred": None}  # not paired in the round: no table


def test_a_team_event_pairs_teams(ledger: Ledger) -> None:
    ledger.create_series(name="League", rulebook="team-wargame")
    tid = ledger.create_tournament(series="League", name="Tour 3", date=dt.date(2026, 3, 1))
    ledger.add_team(tournament=tid, handle="wolves", name="Волки", members=["ivan", "petr"])
    ledger.add_team(tournament=tid, handle="bears", name="Медведи", members=["olga", "nina"])
    ledger.add_team(tournament=tid, handle="owls", name="Совы", members=["yan"])
    set_names(ledger, names={"ivan": "Иван Ёлкин", "olga": "Ольга"})
    with pytest.raises(ImportRejected) as refused:
        import_pairings(ledger, tournament=tid, round=1,
                        text="table,team_a,team_b\n1,wolves,ivan\n", actor=ACTOR)
    assert "не команда этого турнира" in refused.value.lines("ru")[0]
    import_pairings(ledger, tournament=tid, round=1,
                    text="table,team_a,team_b\n1,wolves,bears\n", actor=ACTOR)
    with ledger.factory() as s:
        [table] = round_pairings(s, tournament=tid).tables
        people = {p.handle: (p.name, p.table) for p in tournament_people(s, tournament=tid)}
        found = [p.handle for p in search_people(s, tournament=tid, q="1")]
    assert (table.a.name, table.a.team, [p.handle for p in table.a.players]) == (
        "Волки", True, ["ivan", "petr"])
    assert [p.name for p in table.b.players] == ["Ольга", "nina"]  # nina has no name: handle
    assert people["ivan"] == ("Иван Ёлкин", 1) and people["yan"] == ("yan", None)
    assert found == ["ivan", "petr", "olga", "nina"]  # at table 1: in the order they entered
    # a player file in a team event names players
    import_pairings(ledger, tournament=tid, round=2,
                    text="table,player_a,player_b\n4,ivan,olga\n", actor=ACTOR)
    assert tables(ledger, tid, 2) == [(4, "ivan", "olga")]


def test_search_by_part_of_a_name_a_handle_or_a_table(ledger: Ledger, tid: int) -> None:
    import_pairings(ledger, tournament=tid, round=2, text=ROUND_2, actor=ACTOR)

    def find(q: str, round: int | None = None) -> list[str]:
        with ledger.factory() as s:
            return [p.handle for p in search_people(s, tournament=tid, q=q, round=round)]

    assert find("ЕЖИК") == ["alice"]  # «Ёжикова»: case and ё folded
    assert find("алена") == ["alice"]
    assert find("Е\u0308ЖИК") == ["alice"]  # «Ё» typed as «Е» and a combining diaeresis
    assert find("пётр") == ["bob", "erin"]  # «Петров» (е) and «Пётрова» (ё) alike
    assert find("  орлова ") == ["carol"]
    assert find("fre") == ["fred"]  # a handle
    assert find("3") == ["erin", "fred"]  # the players at table 3 of the current round
    assert find("3", round=1) == ["erin", "fred"]  # no pairings in round 1: the seats
    assert find("ор") == ["carol", "bob", "fred"]  # «Орлова» begins with it: first
    assert find("нет такого") == []
    assert len(find("")) == 6


def test_refusals_of_the_whole_file(ledger: Ledger, tid: int) -> None:
    before = snapshot(ledger.db)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"round": 0, "text": ROUND_2}, "value.between"),
        ({"round": 1001, "text": ROUND_2}, "value.between"),
        ({"round": 1, "text": "table,a,b\n1,alice,bob\n"}, "import.missing-columns"),
        ({"round": 1, "text": ""}, "import.missing-columns"),
        ({"round": 1, "text": "table,player_a,player_b\n"}, "pairing.empty"),
    ]
    for args, code in cases:
        with pytest.raises(SudyaError) as refused:
            import_pairings(ledger, tournament=tid, actor=ACTOR, where="p.csv", **args)
        assert refused.value.code == code, args
    with pytest.raises(LedgerError, match="tournament"):
        import_pairings(ledger, tournament=999, round=1, text=ROUND_2, actor=ACTOR)
    assert snapshot(ledger.db) == before


def test_the_current_round_is_the_later_of_pairings_and_clock(ledger: Ledger,
                                                               tid: int) -> None:
    def current() -> int | None:
        with ledger.factory() as s:
            return current_round(s, tournament=tid)

    assert current() is None
    start_round(ledger, tournament=tid, round=1, minutes=50)
    assert current() == 1  # the clock's round, with no pairings yet
    import_pairings(ledger, tournament=tid, round=2, text=ROUND_2, actor=ACTOR)
    assert current() == 2  # round 2 paired before it starts
    start_round(ledger, tournament=tid, round=3, minutes=50)
    assert current() == 3  # round 3 started before its pairings are in
    with ledger.factory() as s:
        view = round_pairings(s, tournament=tid)
    assert (view.round, view.tables, view.rounds) == (3, [], [2])
