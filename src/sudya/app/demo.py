"""`sudya serve --demo`: a database with one tournament per bundled rulebook."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from sqlalchemy import Engine

from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import make_engine
from sudya.app.accounts import assign, create_user
from sudya.app.core import Sudya
from sudya.app.decks import SAMPLE_CARDS, import_cards, register_decklist, stored_cards
from sudya.app.ledger import Actor, Ledger
from sudya.app.people import set_names
from sudya.domain import commands as c
from sudya.domain.decks.decklist import check, parse
from sudya.domain.rulebook import loader

PASSWORD = "sudya-demo"
USERS = {
    # username: (display name, person it is, [(tournament key, extra role)])
    "glavsud": ("Анна Главная", None, [("berserk", "organiser"), ("clan", "organiser"),
                                       ("wargame", "organiser")]),
    "sudya": ("Олег Зальный", None, []),
    "mladshiy": ("Костя Младший", None, []),
    "master": ("Мастер Турниров", None, []),
    "igrok": ("Алиса (игрок)", "alisa", [("berserk", "player")]),
    "schet": ("Счётчик", None, [("berserk", "scorekeeper"), ("wargame", "scorekeeper")]),
}

# the players' display names (their handles stay their ids); some with «ё», which search
# reads as «е»
NAMES = {
    "alisa": "Алиса Смирнова", "boris": "Борис Петров", "vera": "Вера Кузнецова",
    "gleb": "Глеб Орлов", "dasha": "Дарья Волкова", "egor": "Егор Лебедев",
    "grom": "Пётр Громов", "veda": "Веда Соколова", "lis": "Фёдор Лисицын",
    "rys": "Семён Рысаков",
    "ivan": "Иван Ёлкин", "petr": "Пётр Сидоров", "olga": "Ольга Медведева",
    "nina": "Нина Зайцева",
}
# the berserk tournament's pairings: round 1 as it was played, round 2 (the current round)
# by the results of round 1; the team wargame pairs teams
PAIRINGS = {
    ("berserk", 1): "table,player_a,player_b\n1,alisa,boris\n2,vera,gleb\n3,dasha,egor\n",
    ("berserk", 2): "table,player_a,player_b\n1,alisa,egor\n2,vera,boris\n3,gleb,dasha\n",
    ("wargame", 2): "table,team_a,team_b\n1,volki,medvedi\n",
}

# deck lists in the berserk tournament, checked against the SAMPLE card list
DECKLISTS = {
    "alisa": """Игрок: Алиса
3 Вампир
3 Самоход
3 Гном
3 Вайл
20 Богарт
3 Полевой Кузнец
3 Адепт Белого Ордена
2 Шаммар
Дополнительная колода:
5 Богарт
""",
    "egor": """3 Гном
4 Вампир
три Самохода
3 Вайл
2 Полевой Кузнецц
10 Богарт
""",
}


def build(path: Path) -> Engine:
    """A fresh demo SQLite database at `path` (replaced if it exists)."""
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    return build_into(f"sqlite:///{path}")


def build_into(url: str) -> Engine:
    """The demo in the empty database at `url` (SQLite or PostgreSQL)."""
    engine = make_engine(url)
    upgrade(engine)
    ledger = Ledger(engine)
    app = Sudya(ledger)
    actor = Actor(name="demo", owner=True)  # the demo's owner sets it all up
    today = dt.date.today()
    tids = {}

    def do(cmd: Any, tournament: int | None = None) -> Any:
        return app.handle(cmd, actor, tournament)

    do(c.CreateSeries(name="Кубок «Берсерк»", rulebook="berserk"))
    b = tids["berserk"] = do(c.CreateTournament(
        series="Кубок «Берсерк»", name="Этап 1", date=today, level="professional"))
    for i, p in enumerate(["alisa", "boris", "vera", "gleb", "dasha", "egor"], start=1):
        do(c.AddPlayer(handle=p, name=NAMES[p], table=(i + 1) // 2), b)
    do(c.AddJudge(handle="glavsud", role="head-judge", official=True), b)
    do(c.AddJudge(handle="sudya", role="floor-judge"), b)
    for pair, score in ((("alisa", "boris"), (2, 1)), (("vera", "gleb"), (1, 1)),
                        (("dasha", "egor"), (0, 2))):
        do(c.RecordResult(players=pair, score=score, round=1), b)
    do(c.RecordInfraction(infraction="gameplay.slow-play", player="boris", judge="sudya",
                          round=1), b)
    do(c.RecordInfraction(infraction="gameplay.missed-trigger", player="vera", judge="sudya",
                          round=1, details={"both_could_control": True, "opponent": "gleb"}),
       b)
    do(c.RecordInfraction(infraction="deck.careless-decklist", player="egor",
                          judge="glavsud", round=1), b)
    import_cards(ledger, SAMPLE_CARDS, actor="demo")  # SAMPLE DATA: made-up costs
    with ledger.factory() as s:
        cards = stored_cards(s)
    assert cards is not None
    constructed = loader.load("berserk").formats["constructed"]
    for player, text in DECKLISTS.items():  # one list in order, one with problems
        findings = check(parse(text), cards, constructed, "constructed")
        register_decklist(ledger, tournament=b, player=player, text=text, fmt="constructed",
                          findings=findings, actor=actor)

    do(c.CreateSeries(name="Клановый чемпионат", rulebook="clan-championship"))
    k = tids["clan"] = do(c.CreateTournament(series="Клановый чемпионат",
                                             name="Весенний этап", date=today))
    do(c.AddTeam(handle="sever", name="Север", members=["grom", "veda"]), k)
    do(c.AddTeam(handle="yug", name="Юг", members=["lis", "rys"]), k)
    do(c.AddJudge(handle="master", role="tournament-master"), k)
    do(c.AddJudge(handle="glavsud", role="tournament-master"), k)
    do(c.RecordInfraction(infraction="elixirs.forbidden-combat", player="veda",
                          judge="master", round=1), k)
    do(c.RecordInfraction(infraction="hoops", player="veda", judge="master", round=2),
       k)  # aggravated: pending the college's decision
    do(c.RecordInfraction(infraction="attack.undeclared-on-participant", player="grom",
                          judge="master", details={"level": 12, "attacks": 2}), k)
    do(c.RecordResult(players=("grom", "lis"), score=(1, 0), round=1), k)

    do(c.CreateSeries(name="Командный турнир", rulebook="team-wargame"))
    w = tids["wargame"] = do(c.CreateTournament(series="Командный турнир",
                                                name="Лига, тур 3", date=today))
    do(c.AddTeam(handle="volki", name="Волки", members=["ivan", "petr"]), w)
    do(c.AddTeam(handle="medvedi", name="Медведи", members=["olga", "nina"]), w)
    do(c.AddJudge(handle="glavsud", role="head-judge"), w)
    do(c.AddJudge(handle="sudya", role="senior-judge"), w)
    do(c.AddJudge(handle="mladshiy", role="junior-judge"), w)
    do(c.RecordResult(players=("ivan", "olga"), score=(12, 8), round=1), w)
    do(c.RecordResult(players=("petr", "nina"), score=(5, 15), round=1), w)
    do(c.RecordInfraction(infraction="disruptive-behaviour", player="ivan", judge="sudya",
                          round=1), w)
    do(c.RecordInfraction(infraction="petty-cheating", player="petr", judge="sudya",
                          round=1), w)
    do(c.RecordInfraction(infraction="serious-cheating", player="olga", judge="sudya",
                          round=1), w)  # judge's range: pending

    set_names(ledger, names=NAMES, actor=actor)  # the teams' members were named by handle
    for (key, rnd), text in PAIRINGS.items():
        do(c.ImportPairings(round=rnd, text=text), tids[key])
    # the junior judge, who gives no penalty, reports an incident for a judge who may rule
    app.handle(c.FileIncident(subject="petr", table=1, round=2,
                              text="Перемерил дистанцию уже после хода соперника; соперник "
                                   "возражает."), Actor(name="mladshiy"), w)

    with ledger.uow().begin() as s:
        for username, (name, person, roles) in USERS.items():
            user = create_user(s, username=username, password=PASSWORD, display_name=name,
                               person=person)
            for key, role in roles:
                assign(s, user=user, tournament_id=tids[key], role=role)
    return engine
