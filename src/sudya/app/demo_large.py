"""A large open tournament added to a database: 500 players at 250 tables, Swiss rounds with
results, rulings, a suspension with its statements, an appeal and a correction.

What issue 37 tried on a judge's phone, built the same way each time (a seed), for the
benchmarks (bench/report_pdf.py) and the tests at that scale (tests/reports, tests/e2e).
Players and results are stored in one batch transaction each, rulings one command at a time
as judges enter them. About one ruling per ten matches by default: 225 over 9 rounds.
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass

from sudya.app import swiss_rounds
from sudya.app.appeals import file_appeal
from sudya.app.core import Sudya
from sudya.app.ledger import Actor, Ledger
from sudya.app.statements import add_statement
from sudya.domain.commands import AddStatement, RecordInfraction, SetPlan
from sudya.domain.plan import Plan

# berserk infractions a floor judge rules on with no details to fill in
INFRACTIONS = ("procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor",
               "deck.careless-decklist")
MEN = ("Александр", "Алексей", "Андрей", "Артём", "Борис", "Вадим", "Виктор", "Глеб",
       "Григорий", "Денис", "Дмитрий", "Егор", "Иван", "Илья", "Кирилл", "Лев", "Максим",
       "Михаил", "Никита", "Олег", "Павел", "Пётр", "Роман", "Семён", "Фёдор")
WOMEN = ("Алиса", "Анна", "Варвара", "Вера", "Дарья", "Ева", "Екатерина", "Елена", "Жанна",
         "Зоя", "Ирина", "Ксения", "Людмила", "Мария", "Надежда", "Нина", "Ольга", "Полина",
         "Светлана", "Софья", "Таисия", "Ульяна", "Юлия", "Яна", "Алёна")
# a man's surname; a woman's adds «а» (all of these end in -ов, -ев, -ин, -ёв)
SURNAMES = ("Иванов", "Смирнов", "Кузнецов", "Попов", "Васильев", "Петров", "Соколов",
            "Михайлов", "Новиков", "Фёдоров", "Морозов", "Волков", "Алексеев", "Лебедев",
            "Семёнов", "Егоров", "Павлов", "Козлов", "Степанов", "Николаев", "Орлов",
            "Андреев", "Макаров", "Никитин", "Захаров", "Зайцев", "Соловьёв", "Борисов",
            "Яковлев", "Григорьев", "Романов", "Воробьёв", "Сергеев", "Кузьмин", "Фролов",
            "Александров", "Дмитриев", "Королёв", "Гусев", "Киселёв")
HEAD, FLOOR = "glavsud", "sudya"  # the demo's judges (sudya.app.demo.USERS)


@dataclass(frozen=True)
class LargeEvent:
    """What was built: the tournament, its players, and the events a test looks for."""

    tournament: int
    players: list[str]
    names: dict[str, str]
    suspension: str  # the event that suspended a player (its DQ report)
    suspended: str
    appealed: str  # a ruling appealed and upheld
    corrected: str  # a ruling corrected (struck out)


def player_names(count: int) -> dict[str, str]:
    """`count` handles (p001…) with distinct Russian names, men and women in turn."""
    if count > 2 * len(MEN) * len(SURNAMES):
        raise ValueError(f"at most {2 * len(MEN) * len(SURNAMES)} players")
    out = {}
    for i in range(count):
        woman = i % 2 == 1
        first = (WOMEN if woman else MEN)[(i // 2) % len(MEN)]
        surname = SURNAMES[(i // 2 // len(MEN) + i // 2) % len(SURNAMES)]
        out[f"p{i + 1:03d}"] = f"{first} {surname}{'а' if woman else ''}"
    return out


def add_large_event(ledger: Ledger, *, players: int = 500, rounds: int = 9,
                    rulings_per_round: int = 25, series: str = "Открытый турнир",
                    seed: int = 37, date: dt.date | None = None) -> LargeEvent:
    """A berserk series (made if missing) and a professional Swiss tournament in it, played
    for `rounds` rounds with `rulings_per_round` rulings by the floor judge each round; in
    round 1 a player is suspended (the head judge, with statements), a ruling appealed and
    upheld, another corrected."""
    rng = random.Random(seed)
    actor = Actor(name=HEAD, owner=True)
    tid = ledger.create_tournament(series=series, name=f"Открытый турнир на {players} мест",
                                   date=date or dt.date.today(), level="professional",
                                   actor=actor, new_series_rulebook="berserk")
    Sudya(ledger).handle(SetPlan(plan=Plan(pairing="swiss", rounds=rounds)), actor, tid)
    names = player_names(players)
    handles = list(names)
    with ledger.writing(tournament=tid) as s:
        for handle, name in names.items():
            ledger.add_player(tournament=tid, handle=handle, name=name, actor=actor,
                              session=s)
    ledger.add_judge(tournament=tid, handle=HEAD, role="head-judge", official=True,
                     actor=actor)
    ledger.add_judge(tournament=tid, handle=FLOOR, role="floor-judge", actor=actor)
    suspended = appealed = corrected = suspension = ""
    for rnd in range(1, rounds + 1):
        made = swiss_rounds.pair(ledger, tournament=tid, round=rnd, seed=seed + rnd,
                                 actor=actor)
        seated = [h for t in made.tables for h in (t.a, t.b)]
        ruled = {}
        for _ in range(rulings_per_round):
            done = ledger.execute(tid, RecordInfraction(
                infraction=rng.choice(INFRACTIONS), player=rng.choice(seated), judge=FLOOR,
                round=rnd), actor=Actor(name=FLOOR))
            ruled[done.event] = done.rulings[0].subject
        if rnd == 1 and len(ruled) >= 2:
            appealed, corrected = list(ruled)[:2]
            suspended = rng.choice([h for h in seated if h not in ruled.values()])
            suspension = _suspend(ledger, tid, suspended, names, rnd)
            file_appeal(ledger, tournament=tid, event=appealed, appellant=ruled[appealed],
                        reason="Соперник сам тянул время.", actor=Actor(name=FLOOR))
            ledger.appeal(tournament=tid, of=appealed, outcome="upheld", judge=HEAD,
                          actor=actor)
            ledger.correct(tournament=tid, of=corrected, judge=HEAD,
                           reason="Ошибся игроком: записано не тому.", actor=actor)
        with ledger.writing(tournament=tid) as s:
            for t in made.tables:
                ledger.record_result(tournament=tid, players=(t.a, t.b),
                                     score=rng.choice([(2, 0), (2, 1), (1, 2), (0, 2),
                                                       (1, 1)]),
                                     round=rnd, actor=actor, session=s)
    return LargeEvent(tournament=tid, players=handles, names=names, suspension=suspension,
                      suspended=suspended, appealed=appealed, corrected=corrected)


def _suspend(ledger: Ledger, tid: int, player: str, names: dict[str, str], rnd: int) -> str:
    """The head judge suspends `player`; the player, the opponent and the head judge write
    their statements. Returns the event."""
    actor = Actor(name=HEAD)
    [ruling, *_] = ledger.record(tournament=tid, infraction="conduct.severe", player=player,
                                 judge=HEAD, round=rnd, note="Оскорбил соперника после партии.",
                                 actor=actor)
    for role, author, text, extra in (
            ("player", names[player], "Прошу учесть, что это впервые.", {}),
            ("opponent", "Соперник за столом", "После партии меня оскорбили при всех.",
             {}),
            ("head-judge", "", "Оскорбление соперника подтверждено двумя свидетелями.",
             {"rule_cited": "002, «Серьёзное нарушение поведения»",
              "decision": "Приостановление членства; дело передано координатору."})):
        add_statement(ledger, AddStatement(tournament=tid, event=ruling.event, role=role,
                                           author=author, text=text, **extra), actor=actor)
    return ruling.event

