"""`sudya serve --demo`: a database with one tournament per bundled rulebook."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from sqlalchemy import Engine

from sudya.adapters.db.migrate import upgrade
from sudya.adapters.db.session import make_engine
from sudya.app.accounts import assign, create_user
from sudya.app.decks import SAMPLE_CARDS, import_cards, register_decklist, stored_cards
from sudya.app.incidents import file_incident
from sudya.app.ledger import Actor, Ledger
from sudya.app.people import import_pairings, set_names
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
    actor = Actor(name="demo")
    today = dt.date.today()
    tids = {}

    ledger.create_series(name="Кубок «Берсерк»", rulebook="berserk", actor=actor)
    b = tids["berserk"] = ledger.create_tournament(
        series="Кубок «Берсерк»", name="Этап 1", date=today, level="professional",
        actor=actor)
    for i, p in enumerate(["alisa", "boris", "vera", "gleb", "dasha", "egor"], start=1):
        ledger.add_player(tournament=b, handle=p, name=NAMES[p], table=(i + 1) // 2,
                          actor=actor)
    ledger.add_judge(tournament=b, handle="glavsud", role="head-judge", official=True,
                     actor=actor)
    ledger.add_judge(tournament=b, handle="sudya", role="floor-judge", actor=actor)
    for pair, score in ((("alisa", "boris"), (2, 1)), (("vera", "gleb"), (1, 1)),
                        (("dasha", "egor"), (0, 2))):
        ledger.record_result(tournament=b, players=pair, score=score, round=1, actor=actor)
    ledger.record(tournament=b, infraction="gameplay.slow-play", player="boris",
                  judge="sudya", round=1, actor=actor)
    ledger.record(tournament=b, infraction="gameplay.missed-trigger", player="vera",
                  judge="sudya", round=1,
                  details={"both_could_control": True, "opponent": "gleb"}, actor=actor)
    ledger.record(tournament=b, infraction="deck.careless-decklist", player="egor",
                  judge="glavsud", round=1, actor=actor)
    import_cards(ledger, SAMPLE_CARDS, actor="demo")  # SAMPLE DATA: made-up costs
    with ledger.factory() as s:
        cards = stored_cards(s)
    assert cards is not None
    constructed = loader.load("berserk").formats["constructed"]
    for player, text in DECKLISTS.items():  # one list in order, one with problems
        findings = check(parse(text), cards, constructed, "constructed")
        register_decklist(ledger, tournament=b, player=player, text=text, fmt="constructed",
                          findings=findings, actor=actor)

    ledger.create_series(name="Клановый чемпионат", rulebook="clan-championship",
                         actor=actor)
    c = tids["clan"] = ledger.create_tournament(series="Клановый чемпионат",
                                                name="Весенний этап", date=today, actor=actor)
    ledger.add_team(tournament=c, handle="sever", name="Север", members=["grom", "veda"],
                    actor=actor)
    ledger.add_team(tournament=c, handle="yug", name="Юг", members=["lis", "rys"], actor=actor)
    ledger.add_judge(tournament=c, handle="master", role="tournament-master", actor=actor)
    ledger.add_judge(tournament=c, handle="glavsud", role="tournament-master", actor=actor)
    ledger.record(tournament=c, infraction="elixirs.forbidden-combat", player="veda",
                  judge="master", round=1, actor=actor)
    ledger.record(tournament=c, infraction="hoops", player="veda", judge="master", round=2,
                  actor=actor)  # aggravated: pending the college's decision
    ledger.record(tournament=c, infraction="attack.undeclared-on-participant", player="grom",
                  judge="master", details={"level": 12, "attacks": 2}, actor=actor)
    ledger.record_result(tournament=c, players=("grom", "lis"), score=(1, 0), round=1,
                         actor=actor)

    ledger.create_series(name="Командный турнир", rulebook="team-wargame", actor=actor)
    w = tids["wargame"] = ledger.create_tournament(series="Командный турнир",
                                                   name="Лига, тур 3", date=today, actor=actor)
    ledger.add_team(tournament=w, handle="volki", name="Волки", members=["ivan", "petr"],
                    actor=actor)
    ledger.add_team(tournament=w, handle="medvedi", name="Медведи", members=["olga", "nina"],
                    actor=actor)
    ledger.add_judge(tournament=w, handle="glavsud", role="head-judge", actor=actor)
    ledger.add_judge(tournament=w, handle="sudya", role="senior-judge", actor=actor)
    ledger.add_judge(tournament=w, handle="mladshiy", role="junior-judge", actor=actor)
    ledger.record_result(tournament=w, players=("ivan", "olga"), score=(12, 8), round=1,
                         actor=actor)
    ledger.record_result(tournament=w, players=("petr", "nina"), score=(5, 15), round=1,
                         actor=actor)
    ledger.record(tournament=w, infraction="disruptive-behaviour", player="ivan",
                  judge="sudya", round=1, actor=actor)
    ledger.record(tournament=w, infraction="petty-cheating", player="petr", judge="sudya",
                  round=1, actor=actor)
    ledger.record(tournament=w, infraction="serious-cheating", player="olga",
                  judge="sudya", round=1, actor=actor)  # judge's range: pending

    set_names(ledger, names=NAMES, actor=actor)  # the teams' members were named by handle
    for (key, rnd), text in PAIRINGS.items():
        import_pairings(ledger, tournament=tids[key], round=rnd, text=text, actor=actor)
    # the junior judge, who gives no penalty, reports an incident for a judge who may rule
    file_incident(ledger, tournament=w, subject="petr", table=1, round=2,
                  text="Перемерил дистанцию уже после хода соперника; соперник возражает.",
                  actor=Actor(name="mladshiy"))

    with ledger.uow().begin() as s:
        for username, (name, person, roles) in USERS.items():
            user = create_user(s, username=username, password=PASSWORD, display_name=name,
                               person=person)
            for key, role in roles:
                assign(s, user=user, tournament_id=tids[key], role=role)
    return engine
