"""The reports' scene: the demo (three rulebooks) and what a judge report must also show.

In the berserk tournament (1): the head judge suspends dasha (conduct.severe, professional:
«Приостановление членства», with a disqualification without prizes and a match loss), and
the player, her opponent and the head judge write their statements; boris appeals his slow
play and the head judge upholds it; egor's careless deck list is corrected (struck out). In
the wargame (3) the judge decides olga's pending serious cheating. A second berserk
tournament (4) has people but no ruling at all.
"""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Engine

from sudya.app.appeals import file_appeal
from sudya.app.demo import build_into
from sudya.app.ledger import Actor, Ledger
from sudya.app.statements import add_statement
from sudya.domain.commands import AddStatement

BERSERK, CLAN, WARGAME, EMPTY = 1, 2, 3, 4
SUSPENSION = "s1"  # the event that suspended dasha
APPEALED = "e13"  # boris' slow play
CORRECTED = "e15"  # egor's careless deck list
HEAD = Actor(name="glavsud")


def build_scene(url: str) -> Engine:
    """The scene in the empty database at `url`."""
    engine = build_into(url)
    ledger = Ledger(engine)
    ledger.record(tournament=BERSERK, infraction="conduct.severe", player="dasha",
                  judge="glavsud", round=2, event_id=SUSPENSION,
                  note="Оскорбил соперника после партии.", actor=HEAD)
    for role, author, text, extra in (
            ("player", "", "Я сорвалась, прошу учесть, что это впервые.", {}),
            ("opponent", "Глеб Орлов", "После партии соперница оскорбила меня при всех.", {}),
            ("head-judge", "", "Оскорбление соперника подтверждено двумя свидетелями.",
             {"rule_cited": "002, «Серьёзное нарушение поведения»",
              "decision": "Приостановление членства; дело передано координатору."})):
        add_statement(ledger, AddStatement(tournament=BERSERK, event=SUSPENSION, role=role,
                                           author=author, text=text, **extra), actor=HEAD)
    file_appeal(ledger, tournament=BERSERK, event=APPEALED, appellant="boris",
                reason="Соперник сам тянул время.", actor=Actor(name="igrok"))
    ledger.appeal(tournament=BERSERK, of=APPEALED, outcome="upheld", judge="glavsud",
                  actor=HEAD)
    ledger.correct(tournament=BERSERK, of=CORRECTED, judge="glavsud",
                   reason="Ошибся игроком: дек-лист заполнял другой.", actor=HEAD)
    ledger.decide(tournament=WARGAME, of="e11", judge="glavsud", choice="min", actor=HEAD)
    empty = ledger.create_tournament(series="Кубок «Берсерк»", name="Этап 2",
                                     date=dt.date.today(), level="amateur", actor=HEAD)
    assert empty == EMPTY
    ledger.add_player(tournament=EMPTY, handle="alisa", actor=HEAD)
    ledger.add_judge(tournament=EMPTY, handle="glavsud", role="head-judge", official=True,
                     actor=HEAD)
    return engine
