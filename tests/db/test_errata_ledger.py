"""Errata E13 and E18 through the ledger, on a real SQLite file and a real PostgreSQL.

E13: a suspension's term runs across the ledger: the player is refused in a later tournament
of another series under the same rulebook while it runs, and admitted once it is lifted (a
recorded decision). E18: a frozen fight's result is held out of the standings until the
college's decision, stored and read back like any ruling.
"""

from __future__ import annotations

import datetime as dt

import pytest

from sudya.app.audit import verify
from sudya.app.ledger import Ledger, LedgerError
from sudya.app.queries import tournament_standings


def _berserk(ledger: Ledger, name: str, day: dt.date) -> int:
    sid = ledger.create_series(name=name, rulebook="berserk")
    tid = ledger.create_tournament(series=sid, name=f"{name} 1", date=day, level="professional")
    for p in ("boris", "vera"):
        ledger.add_player(tournament=tid, handle=p)
    ledger.add_judge(tournament=tid, handle="anna", role="head-judge", official=True)
    return tid


def test_a_suspension_keeps_the_player_out_of_another_series(ledger: Ledger) -> None:
    cup = _berserk(ledger, "Кубок", dt.date(2026, 4, 18))
    ledger.record(tournament=cup, infraction="conduct.severe", player="boris", judge="anna",
                  details={"until": "2026-06-30"}, event_id="s1")
    league = _berserk(ledger, "Лига", dt.date(2026, 5, 9))
    with pytest.raises(LedgerError) as refused:
        ledger.record(tournament=league, infraction="procedure.minor", player="boris",
                      judge="anna")
    assert refused.value.code == "player.suspended-until"
    assert refused.value.field == "player"
    assert "2026-06-30" in refused.value.render("ru")
    with pytest.raises(LedgerError) as refused:
        ledger.record_result(tournament=league, players=("vera", "boris"), score=(2, 0),
                             round=1)
    assert refused.value.field == "players.1"
    # vera plays on; the refusals stored nothing
    ledger.record(tournament=league, infraction="procedure.minor", player="vera", judge="anna")
    # the coordinator lifts it: a recorded decision in the series that gave it
    ledger.decide(tournament=cup, of="s1", judge="anna", lift=True)
    rulings = ledger.record(tournament=league, infraction="procedure.minor", player="boris",
                            judge="anna")
    assert [s.kind for r in rulings for s in r.sanctions] == ["caution"]


def test_a_term_that_ended_admits_the_player_elsewhere(ledger: Ledger) -> None:
    cup = _berserk(ledger, "Кубок", dt.date(2026, 4, 18))
    ledger.record(tournament=cup, infraction="conduct.severe", player="boris", judge="anna",
                  details={"until": "2026-04-30"})
    league = _berserk(ledger, "Лига", dt.date(2026, 5, 9))
    ledger.record(tournament=league, infraction="procedure.minor", player="boris", judge="anna")


def test_a_frozen_fight_waits_for_the_college(ledger: Ledger) -> None:
    sid = ledger.create_series(name="Чемпионат", rulebook="clan-championship")
    tid = ledger.create_tournament(series=sid, name="Этап 1", date=dt.date(2026, 3, 1))
    ledger.add_team(tournament=tid, handle="lis", members=["ann"])
    ledger.add_team(tournament=tid, handle="vorony", members=["bo"])
    ledger.add_judge(tournament=tid, handle="mt", role="tournament-master")
    ledger.record(tournament=tid, infraction="sms-burst", player="ann", round=1, judge="mt",
                  details={"cast_by": "participant"}, event_id="b1")
    ledger.record_result(tournament=tid, players=("ann", "bo"), score=(1, 0), round=1)
    with ledger.factory() as s:
        table = tournament_standings(s, tid)
    assert (table["players"]["bo"]["frozen"], table["players"]["bo"]["wins"]) == (1, 0)
    ledger.decide(tournament=tid, of="b1", judge="mt", result="release")
    with ledger.factory() as s:
        table = tournament_standings(s, tid)
    assert "frozen" not in table["players"]["bo"]
    assert table["players"]["bo"]["wins"] == 1 and table["players"]["ann"]["losses"] == 1
    assert all(a.ok for a in verify(ledger))
