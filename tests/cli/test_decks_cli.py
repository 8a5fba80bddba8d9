"""The deck commands end to end: `sudya deck|squad|cards ... --db sqlite:///FILE` on a real
SQLite file, run in this process as the console script runs it (cli_kit.run).

One berserk tournament (professional, deck lists on) with the SAMPLE card list imported is
shared by the module; the refused imports run against a database of their own and must leave
it without cards. Messages are asserted in English (SUDYA_LANG=en); Russian is the default.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cli_kit import Run, refused
from cli_kit import run as kit_run

SAMPLE = (Path(__file__).resolve().parents[2] / "src" / "sudya" / "domain" / "decks"
          / "sample-cards.json")
SQUAD = ["Вайл", "Вайл", "Самаэль", "Аккения", "Аккения", "Шаммар"]
BROKEN_LIST = "Игрок: Борис\n4 Вампир\n3 Гном\n30 Богарт\n3 Самоход\n"
GOOD_LIST = """Игрок: Алиса
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
"""


def run(cwd: Path, *args: Any, lang: str = "en") -> Run:
    """Messages are asserted in English here; Russian is the CLI's default."""
    return kit_run(cwd, *args, lang=lang)


def rows(url: str, table: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one())
    finally:
        engine.dispose()


@dataclass
class World:
    dir: Path
    url: str
    tid: str

    def sudya(self, *args: Any, lang: str = "en") -> Run:
        """A command over the module's database (`deck compare` reads none)."""
        db = () if args[:2] == ("deck", "compare") else ("--db", self.url)
        return run(self.dir, *args, *db, lang=lang)

    def write(self, name: str, text: str) -> Path:
        path = self.dir / name
        path.write_text(text, encoding="utf-8")
        return path


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("decks-cli")
    url = f"sqlite:///{folder / 'sudya.db'}"
    w = World(folder, url, "")
    w.sudya("init").ok()
    w.tid = w.sudya("tournament", "create", "--name", "Day 1", "--series", "Cup",
                    "--date", "2026-03-01", "--rulebook", "berserk", "--level",
                    "professional", "--setting", "decklists=true").ok().stdout.strip()
    for player in ("alisa", "boris", "vera"):
        w.sudya("player", "add", player, "-t", w.tid).ok()
    w.sudya("judge", "add", "anna", "-t", w.tid, "--role", "head-judge").ok()
    assert "imported 13 card(s)" in w.sudya("cards", "import", SAMPLE).ok().stdout
    yield w


# ---------------------------------------------------------------------- card lists
def test_a_broken_card_list_is_refused_whole(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'fresh.db'}"
    run(tmp_path, "init", "--db", url).ok()
    broken = tmp_path / "cards.csv"
    broken.write_text("name,element,gold,silver,flyer,unique,terrain,horde,excludes,formats\n"
                      "Гном,горы,0,2,no,no,no,no,,constructed:legal\n"
                      "Вайл,тьма,6,3,yes,no,no,no,,constructed:legal\n"
                      "Богарт,леса,0,-1,no,no,no,yes,,constructed:legal\n", encoding="utf-8")
    line = refused(run(tmp_path, "cards", "import", broken, "--db", url),
                   "2 row(s) rejected", "nothing was imported", "line 3")
    assert "gold or silver" in line
    assert rows(url, "card_import") == 0 and rows(url, "card") == 0
    refused(run(tmp_path, "cards", "import", tmp_path / "missing.json", "--db", url),
            "cannot read")
    # nothing imported: a check says how to get a card list, or to use the sample
    deck = tmp_path / "list.txt"
    deck.write_text(BROKEN_LIST, encoding="utf-8")
    refused(run(tmp_path, "deck", "check", deck, "--format", "constructed", "--db", url),
            "--cards", "sudya cards import", "--cards sample")
    sampled = run(tmp_path, "deck", "check", deck, "--format", "constructed", "--cards",
                  "sample", "--json")
    assert "SAMPLE" in sampled.stderr
    assert [f["item"] for f in sampled.json()] == ["д"]


# ---------------------------------------------------------------------- deck check
def test_check_names_the_rule_infraction_and_item(world: World) -> None:
    listed = world.write("boris.txt", BROKEN_LIST)
    found = world.sudya("deck", "check", listed, "--format", "constructed", "--json").json()
    assert [(f["infraction"], f["item"], f["rule"]) for f in found] == [
        ("deck.invalid-decklist", "д", "002 §1.1 д")]
    typo = world.write("typo.txt", "2 Самоходд\nтри Гнома\n")
    found = world.sudya("deck", "check", typo, "--format", "standard", "--json").json()
    got = {(f["infraction"], f["item"]) for f in found}
    assert {("deck.careless-decklist", "б"), ("deck.careless-decklist", "в"),
            ("deck.invalid-decklist", "г"), ("deck.invalid-decklist", "б")} <= got
    assert "Самоход" in [f["suggestion"] for f in found]
    table = world.sudya("deck", "check", listed, "--format", "constructed").ok().stdout
    assert "deck.invalid-decklist" in table and "002 §1.1 д" in table
    good = world.write("alisa.txt", GOOD_LIST)
    assert "no problems found" in world.sudya("deck", "check", good, "--format",
                                              "constructed").ok().stdout


def test_check_registers_and_records_a_finding_then_status(world: World) -> None:
    good = world.write("alisa.txt", GOOD_LIST)
    assert world.sudya("deck", "check", good, "--format", "constructed", "-t", world.tid,
                       "--player", "alisa", "--json").json() == []
    listed = world.write("boris.txt", BROKEN_LIST)
    findings, rulings = world.sudya("deck", "check", listed, "--format", "constructed",
                                    "-t", world.tid, "--player", "boris", "--record", "1",
                                    "--judge", "anna", "--json").documents()
    assert findings[0]["item"] == "д"
    [ruling] = rulings
    assert ruling["subject"] == "boris" and ruling["infraction"] == "deck.invalid-decklist"
    engine = sa.create_engine(world.url)
    try:
        with engine.connect() as conn:
            details, judge = conn.execute(sa.text(
                "SELECT details, judge FROM ruling WHERE subject = 'boris' AND infraction = "
                "'deck.invalid-decklist'")).one()
    finally:
        engine.dispose()
    assert json.loads(details)["item"] == "д" and judge == "anna"
    status = {r["player"]: r for r in world.sudya("deck", "status", "-t", world.tid,
                                                  "--json").json()}
    assert status["alisa"]["status"] == "ok" and status["alisa"]["format"] == "constructed"
    assert status["boris"]["status"] == "problems" and status["boris"]["findings"] == 1
    assert status["vera"]["status"] == "missing"
    table = world.sudya("deck", "status", "-t", world.tid).ok().stdout
    assert "missing" in table and "problems" in table
    refused(world.sudya("deck", "status", "-t", "99"), "tournament", "99")


def test_check_refusals(world: World) -> None:
    listed = world.write("boris.txt", BROKEN_LIST)
    refused(world.sudya("deck", "check", listed, "--format", "sealed"),
            "--format", "'sealed'", "constructed")
    refused(world.sudya("deck", "check", world.dir / "none.txt", "--format", "constructed"),
            "FILE", "cannot read")
    refused(world.sudya("deck", "check", listed, "--format", "constructed", "--record", "1"),
            "--tournament and --player")
    refused(world.sudya("deck", "check", listed, "--format", "constructed", "-t", world.tid,
                        "--player", "nobody"), "player", "'nobody'")
    refused(world.sudya("deck", "check", listed, "--format", "constructed", "-t", world.tid,
                        "--player", "vera", "--record", "5"), "--record", "1 to 1")
    # who --by names must be a judge of the tournament: refused before the list is stored
    refused(world.sudya("deck", "check", listed, "--format", "constructed", "-t", world.tid,
                        "--player", "vera", "--record", "1", "--by", "nobody"), "--by")
    refused(world.sudya("cards", "import", SAMPLE, "--by", "anna"), "--by", "card lists",
            "'anna'")
    status = {r["player"]: r["status"] for r in world.sudya("deck", "status", "-t", world.tid,
                                                            "--json").json()}
    assert status["vera"] == "missing"  # a refused command registered nothing


# ---------------------------------------------------------------------- deck compare
def test_compare_a_deck_with_its_list(world: World) -> None:
    listed = world.write("list.txt", "3 Гном\n3 Вампир\nДоп:\n2 Богарт\n")
    deck = world.write("deck.txt", "3 Гном\n2 Вампир\n1 Шар смерти\nДоп:\n4 Богарт\n")
    found = world.sudya("deck", "compare", listed, deck, "--json").json()
    assert {(f["infraction"], f["item"]) for f in found} == {
        ("deck.deck-decklist-mismatch", "а"), ("deck.deck-decklist-mismatch", "б"),
        ("deck.deck-decklist-mismatch", "в")}
    assert "no problems found" in world.sudya("deck", "compare", listed, listed).ok().stdout
    refused(world.sudya("deck", "compare", listed, world.dir / "none.txt"), "DECK")


# ---------------------------------------------------------------------- squad remedy
def test_remedy_with_a_seed_is_replayed_exactly(world: World) -> None:
    first = world.sudya("squad", "remedy", "--seat", "first", "--seed", "4711", *SQUAD,
                        "--json").json()
    assert first["seed"] == 4711 and first["warning"] is True
    assert first["draws"][0]["group"] == "А"
    assert world.sudya("squad", "remedy", "--seat", "first", "--seed", "4711", *SQUAD,
                       "--json").json() == first
    assert sorted(first["kept"] + first["returned"]) == sorted(SQUAD)
    fresh = world.sudya("squad", "remedy", "--seat", "second", *SQUAD, "--json").json()
    again = world.sudya("squad", "remedy", "--seat", "second", "--seed", str(fresh["seed"]),
                        *SQUAD, "--json").json()
    assert again == fresh
    text = world.sudya("squad", "remedy", "--seat", "first", "--seed", "4711",
                       *SQUAD).ok().stdout
    assert "seed 4711" in text and "warning" in text


def test_remedy_with_the_judges_draws(world: World) -> None:
    out = world.sudya("squad", "remedy", "--seat", "first", "--drawn",
                      "Аккения,Аккения,Вайл,Шаммар", *SQUAD, "--json").json()
    assert [(x["group"], x["card"], x["chosen_by"]) for x in out["draws"]] == [
        ("А", "Аккения", "judge"), ("А", "Аккения", "judge"), ("А", "Вайл", "judge"),
        ("Е", "Шаммар", "judge")]
    assert out["kept"] == ["Вайл", "Самаэль"]
    legal = world.sudya("squad", "remedy", "--seat", "first", "Гном", "Вайл", "--json").json()
    assert legal["draws"] == [] and legal["warning"] is False
    refused(world.sudya("squad", "remedy", "--seat", "first", "--drawn", "Гном", *SQUAD,
                        "Гном"), "drawn", "not in group А")
    refused(world.sudya("squad", "remedy", "--seat", "first", *SQUAD, "Вайлл"),
            "squad[6]", "'Вайлл'", "'Вайл'")
    refused(world.sudya("squad", "remedy", "--seat", "third", *SQUAD), "seat", "'third'")
    refused(world.sudya("squad", "remedy", "--seat", "first", "--rulebook",
                        "team-wargame", *SQUAD), "--rulebook", "no squad rules")
