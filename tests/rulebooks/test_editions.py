"""Editions: a precedent becomes a rule of the next edition; editions are compared.

Every edition file is written into tmp_path, which SUDYA_RULEBOOK_PATH puts first on the
rulebook search path; the bundled folder is checked to stay as it was.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path

import pytest

from sudya.app.scenario import replay
from sudya.domain.errors import RulebookError, ScenarioError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.editions import diff, write_precedent

DAY = dt.date(2026, 4, 1)


@pytest.fixture(autouse=True)
def books(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A private rulebook folder first on the search path; the bundled folder untouched."""
    folder = tmp_path / "books"
    folder.mkdir()
    monkeypatch.setenv("SUDYA_RULEBOOK_PATH", str(folder))
    before = sorted(p.name for p in loader.BUNDLED.iterdir())
    yield folder
    assert sorted(p.name for p in loader.BUNDLED.iterdir()) == before


def bot_usage(**overrides: object) -> Path:
    args: dict[str, object] = {
        "infraction": "bot-usage", "name_ru": "Использование бота", "name_en": "Bot usage",
        "sanctions": ["fighter-dq", "technical-defeat"], "source": "решение коллегии №7",
        "decided_on": DAY,
    }
    args.update(overrides)
    return write_precedent("clan-championship", **args)  # type: ignore[arg-type]


def scenario(edition: str | None) -> dict[str, object]:
    out: dict[str, object] = {
        "rulebook": "clan-championship", "date": "2026-05-01", "players": ["grom"],
        "events": [{"id": "b1", "infraction": "bot-usage", "player": "grom"}],
    }
    if edition is not None:
        out["edition"] = edition
    return out


def test_precedent_writes_the_next_edition(books: Path) -> None:
    path = bot_usage()
    assert path == books / "clan-championship.2.yaml"
    assert [p.name for p in books.iterdir()] == ["clan-championship.2.yaml"]
    assert loader.edition_files("clan-championship") == {
        "1": loader.BUNDLED / "clan-championship.yaml", "2": path}

    book = loader.load("clan-championship")  # the newest edition by default
    assert book.edition == "2"
    rule = book.infraction("bot-usage")
    assert rule is not None
    assert rule.name.ru == "Использование бота" and rule.name.en == "Bot usage"
    assert rule.source == "решение коллегии №7"
    assert [s.kind for s in rule.penalty.sanctions] == [  # type: ignore[union-attr]
        "fighter-dq", "technical-defeat"]
    assert "2026-04-01" in rule.notes[0].ru and rule.notes[0].source == "решение коллегии №7"
    entry = book.editions[-1]
    assert entry.id == "2" and entry.date == DAY
    assert entry.in_force_from == "next-tournament"
    assert entry.summary is not None and "bot-usage" in entry.summary.en

    old = loader.load("clan-championship", "1")
    assert old.edition == "1" and old.infraction("bot-usage") is None
    # everything else is carried over unchanged
    assert [i.id for i in book.infractions][:-1] == [i.id for i in old.infractions]


def test_precedent_with_category(books: Path) -> None:
    bot_usage(category="fighter-dq")
    rule = loader.load("clan-championship", "2").infraction("bot-usage")
    assert rule is not None and rule.category == "fighter-dq"


def test_out_dir(books: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    path = bot_usage(out_dir=elsewhere)
    assert path == elsewhere / "clan-championship.2.yaml" and path.is_file()
    assert list(books.iterdir()) == []


def test_diff_names_the_new_infraction(books: Path) -> None:
    bot_usage()
    one, two = loader.load("clan-championship", "1"), loader.load("clan-championship", "2")
    assert diff(one, two) == ["+ infraction bot-usage"]
    assert diff(two, one) == ["- infraction bot-usage"]
    assert diff(one, one) == []


def test_diff_names_changed_rules_and_sections(books: Path) -> None:
    text = (loader.BUNDLED / "team-wargame.yaml").read_text("utf-8")
    changed = (text.replace('edition: "1"', 'edition: "2"', 1)
               .replace("    penalty: [red-card, removal]\n", "    penalty: [red-card]\n", 1)
               .replace("  scale: 20\n", "  scale: 30\n", 1))
    assert changed.count("scale: 30") == 1 and "penalty: [red-card]\n" in changed
    (books / "team-wargame.2.yaml").write_text(changed, "utf-8")
    lines = diff(loader.load("team-wargame", "1"), loader.load("team-wargame", "2"))
    assert sorted(lines) == ["~ infraction red-list-model: penalty", "~ scoring: changed"]


def test_replay_uses_the_edition_asked_for(books: Path) -> None:
    bot_usage()
    result = replay(scenario("2"))
    assert result["rulebook"] == {"id": "clan-championship", "edition": "2"}
    (ruling,) = result["rulings"]
    assert (ruling["infraction"], ruling["cause"], ruling["edition"]) == (
        "bot-usage", "table", "2")
    assert [s["kind"] for s in ruling["sanctions"]] == ["fighter-dq", "technical-defeat"]
    assert replay(scenario(None))["rulebook"]["edition"] == "2"

    with pytest.raises(ScenarioError) as info:
        replay(scenario("1"))
    message = str(info.value)
    assert "event b1" in message and "infraction" in message and "'bot-usage'" in message


def test_unknown_sanction_kind_writes_nothing(books: Path) -> None:
    with pytest.raises(RulebookError) as info:
        bot_usage(sanctions=["fighter-dq", "banishment"])
    assert str(info.value).startswith("--sanctions: unknown sanction kind 'banishment'")
    assert "fighter-dq" in str(info.value)  # the known kinds are listed
    assert list(books.iterdir()) == []


def test_existing_infraction_is_refused(books: Path) -> None:
    with pytest.raises(RulebookError, match="'hoops' already exists in edition 1"):
        bot_usage(infraction="hoops")
    assert list(books.iterdir()) == []


def test_unknown_rulebook_is_refused(books: Path) -> None:
    with pytest.raises(RulebookError, match="unknown rulebook 'chess'"):
        write_precedent("chess", infraction="x", name_ru="x", name_en="x",
                        sanctions=["warning"], source="s", decided_on=DAY)
    assert list(books.iterdir()) == []


def test_precedents_chain(books: Path) -> None:
    bot_usage()
    third = bot_usage(infraction="macro-usage", name_ru="Макросы", name_en="Macros",
                      sanctions=["warning"])
    assert third == books / "clan-championship.3.yaml"
    newest = loader.load("clan-championship")
    assert newest.edition == "3"
    assert newest.infraction("bot-usage") is not None
    assert newest.infraction("macro-usage") is not None
    assert [e.id for e in newest.editions] == ["1", "2", "3"]
    assert diff(loader.load("clan-championship", "2"), newest) == ["+ infraction macro-usage"]


def test_precedent_for_a_rulebook_with_levels(books: Path) -> None:
    path = write_precedent("berserk", infraction="procedure.phone-use", name_ru="Телефон",
                           name_en="Phone", sanctions=["warning"], source="решение ГС",
                           decided_on=DAY)
    assert path.name == "berserk.2.yaml"
    book = loader.load("berserk")
    result = replay({
        "rulebook": "berserk", "level": "amateur", "date": "2026-05-01", "players": ["p1"],
        "events": [{"id": "e1", "infraction": "procedure.phone-use", "player": "p1"}],
    })
    assert book.edition == "2"
    assert [s["kind"] for s in result["rulings"][0]["sanctions"]] == ["warning"]
