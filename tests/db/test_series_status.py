"""Erratum E7 on the read side: a disqualification «с турнира/чемпионата» of one tournament
keeps its bearer out of the rest of the series, so a later tournament's subjects (the team and
people pages) show them disqualified, not «участвует»; a DQ «с турнира» and an overturned one
end with their tournament."""

from __future__ import annotations

import datetime as dt

from sudya.services.ledger import Ledger
from sudya.services.queries import tournament_subjects


def test_a_series_disqualification_shows_in_the_next_tournament(ledger: Ledger) -> None:
    sid = ledger.create_series(name="Клановый", rulebook="clan-championship")
    t1 = ledger.create_tournament(series=sid, name="Этап 1", date=dt.date(2026, 3, 1))
    for p in ("a", "b", "c", "d"):
        ledger.add_player(tournament=t1, handle=p)
    ledger.add_judge(tournament=t1, handle="mt", role="tournament-master")
    ledger.record(tournament=t1, infraction="invisibility", player="a", event_id="e1")
    ledger.record(tournament=t1, infraction="elixirs.forbidden-combat", player="b")
    ledger.record(tournament=t1, infraction="elixirs.forbidden-combat", player="b")
    ledger.record(tournament=t1, infraction="attack.on-organizer", player="c", event_id="c1")
    ledger.appeal(tournament=t1, of="c1", judge="mt", outcome="overturned")
    t2 = ledger.create_tournament(series=sid, name="Этап 2", date=dt.date(2026, 4, 10))
    for p in ("a", "b", "c", "d"):
        ledger.add_player(tournament=t2, handle=p)
    with ledger.factory() as s:
        first = tournament_subjects(s, tournament=t1)
        later = tournament_subjects(s, tournament=t2)
    assert {p: first[p].status for p in "abcd"} == {
        "a": "disqualified", "b": "disqualified", "c": "active", "d": "active"}
    assert {p: later[p].status for p in "abcd"} == {
        "a": "disqualified", "b": "active", "c": "active", "d": "active"}
    assert later["a"].sanctions == {}  # the status carries, not the sanction
