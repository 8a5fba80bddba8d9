"""A tournament's rulings in the replay format are kept while its series has not changed
(services.queries.RULINGS): every read gives what a fresh read would, after each kind of
change (a ruling, a correction that revokes, an appeal, a ruling in a later tournament that
settles a pending one), on a real SQLite file and a real PostgreSQL."""

from __future__ import annotations

import copy
from typing import Any

from ledger_testkit import DAY, setup_berserk
from sqlalchemy.orm import Session

from sudya.app import queries
from sudya.app.ledger import Ledger


def fresh(ledger: Ledger, tid: int) -> list[dict[str, Any]]:
    queries.RULINGS.clear()
    with Session(ledger.db) as s:
        return queries.rulings_json(s, tid)


def read(ledger: Ledger, tid: int) -> list[dict[str, Any]]:
    with Session(ledger.db) as s:
        return queries.rulings_json(s, tid)


def test_the_kept_rulings_are_what_a_fresh_read_gives_after_every_change(
        ledger: Ledger) -> None:
    _sid, tid = setup_berserk(ledger)
    steps = [
        lambda: ledger.record(tournament=tid, infraction="procedure.minor", player="alice",
                              judge="oleg", round=1),
        lambda: ledger.record(tournament=tid, infraction="procedure.minor", player="alice",
                              judge="oleg", round=2),
        lambda: ledger.record(tournament=tid, infraction="cards.drawing-extra", player="bob",
                              judge="oleg", round=2, event_id="draw"),
        lambda: ledger.correct(tournament=tid, of="draw", judge="anna", reason="не было"),
        lambda: ledger.record(tournament=tid, infraction="procedure.significant",
                              player="carol", judge="oleg", round=3, event_id="sig"),
        lambda: ledger.appeal(tournament=tid, of="sig", outcome="overturned", judge="anna"),
    ]
    queries.RULINGS.clear()
    seen = read(ledger, tid)
    assert seen == [] or seen == fresh(ledger, tid)
    for step in steps:
        step()
        kept_before = read(ledger, tid)  # made after the change, then kept
        again = read(ledger, tid)
        assert again is kept_before, "the second read found the list kept"
        assert again == fresh(ledger, tid)
    assert {r["event"] for r in read(ledger, tid)} >= {"draw", "sig"}


def test_a_later_tournament_that_settles_a_pending_ruling_changes_the_kept_list(
        ledger: Ledger) -> None:
    """A ruling in a later tournament of the series moves the series' chain: the earlier
    tournament's kept list is not given again."""
    sid, tid = setup_berserk(ledger)
    ledger.record(tournament=tid, infraction="procedure.minor", player="alice", judge="oleg",
                  round=1)
    first = read(ledger, tid)
    later = ledger.create_tournament(series=sid, name="Day 2", date=DAY, level="professional")
    ledger.add_player(tournament=later, handle="alice")
    assert read(ledger, tid) is not first
    assert read(ledger, tid) == fresh(ledger, tid)


def test_the_pages_leave_the_kept_list_as_it_was(ledger: Ledger) -> None:
    """The list is shared by the requests that read it: making views of it changes nothing."""
    from sudya.domain.rulebook import loader
    from sudya.edges.web import views

    _sid, tid = setup_berserk(ledger)
    ledger.record(tournament=tid, infraction="procedure.minor", player="alice", judge="oleg",
                  round=1)
    ledger.record(tournament=tid, infraction="cards.drawing-extra", player="bob",
                  judge="oleg", round=1)
    kept = read(ledger, tid)
    before = copy.deepcopy(kept)
    views.rulings(loader.load("berserk"), kept, among=kept, names={"alice": "Алиса"})
    assert read(ledger, tid) is kept
    assert kept == before
