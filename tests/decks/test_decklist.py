"""Deck lists as players write them, checked against the format (002 §1.1–1.4)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sudya.domain.decks.cards import CardList, CardListError, parse_card_list
from sudya.domain.decks.decklist import check, compare, parse
from sudya.domain.decks.squad import SquadError, remedy
from sudya.domain.rulebook import loader

SAMPLE = (Path(__file__).resolve().parents[2] / "src" / "sudya" / "domain" / "decks"
          / "sample-cards.json")
CARDS = CardList(parse_card_list(SAMPLE.read_text(encoding="utf-8"), "json"))
BOOK = loader.load("berserk")
FMT = BOOK.formats["constructed"]

GOOD = """Игрок: Иван Петров
3 Вампир
Самоход x3
3 Гном
3 Вайл
20 Богарт
3 Полевой Кузнец
3 Адепт Белого Ордена
2 Шаммар
Дополнительная колода:
2 Самоход х0
"""


def items(findings: list) -> set[tuple[str, str]]:
    return {(f.infraction, f.item) for f in findings}


def test_a_valid_list_has_no_findings() -> None:
    deck = parse(GOOD.replace("2 Самоход х0\n", "5 Богарт\n"))
    assert deck.player == "Иван Петров"
    assert check(deck, CARDS, FMT, "constructed") == []


def test_counts_written_many_ways() -> None:
    deck = parse("3 Гном\nГном x2\nВампир х3\n2x Богарт\nБогарт *4\n")
    assert deck.counts() == {"гном": 5, "вампир": 3, "богарт": 6}


def test_names_match_forgivingly_and_typos_are_suggested_not_guessed() -> None:
    deck = parse("Игрок: А\n3 ГНОМ\n3   вампир\n3 Полевой кузнец\n2 Самоходд\n")
    found = check(deck, CARDS, FMT, "constructed")
    typo = [f for f in found if f.item == "б" and f.infraction == "deck.careless-decklist"]
    assert [f.suggestion for f in typo] == ["Самоход"]
    assert ("deck.careless-decklist", "а") not in items(found)


@pytest.mark.parametrize("text, expected", [
    ("", ("deck.invalid-decklist", "а")),
    ("Игрок: А\n3 Гном\n", ("deck.invalid-decklist", "б")),
    ("Игрок: А\n3 Шар смерти\n", None),
    ("Игрок: А\nтри Гнома\n", ("deck.invalid-decklist", "г")),
    ("Игрок: А\n4 Вампир\n", ("deck.invalid-decklist", "д")),
    ("Игрок: А\n3 Вайл\nДоп. колода:\n1 Вайл\n", ("deck.invalid-decklist", "е")),
    ("Игрок: А\n3 Шмяк\n", ("deck.careless-decklist", "а")),
    ("3 Гном\n", ("deck.careless-decklist", "в")),
    ("Игрок: А\nДоп:\n11 Богарт\n", ("deck.invalid-decklist", "б")),
])
def test_each_rule_names_its_infraction_and_item(text: str,
                                                 expected: tuple[str, str] | None) -> None:
    found = items(check(parse(text), CARDS, FMT, "constructed"))
    if expected is None:  # Шар смерти is legal in constructed, banned in standard
        assert ("deck.invalid-decklist", "в") not in found
        assert ("deck.invalid-decklist", "в") in items(
            check(parse(text), CARDS, BOOK.formats["standard"], "standard"))
    else:
        assert expected in found


def test_restricted_card_in_standard() -> None:
    found = check(parse("Игрок: А\n2 Аккения\n"), CARDS, BOOK.formats["standard"], "standard")
    assert ("deck.invalid-decklist", "д") in items(found)


def test_compare_deck_with_its_list() -> None:
    listed = parse("3 Гном\n3 Вампир\n2 Самоход\n")
    deck = parse("4 Гном\n2 Вампир\n1 Богарт\n")
    found = compare(listed, deck)
    assert items(found) == {("deck.deck-decklist-mismatch", "а"),
                            ("deck.deck-decklist-mismatch", "б"),
                            ("deck.deck-decklist-mismatch", "в")}
    assert compare(listed, listed) == []


def test_a_broken_card_list_imports_nothing() -> None:
    text = "name,gold,silver\nГном,0,2\nВампир,x,1\nГном,0,3\n"
    with pytest.raises(CardListError) as info:
        parse_card_list(text, "csv")
    assert len(info.value.rejected) == 2
    assert "line 3" in info.value.rejected[0]


def test_judge_draw_outside_the_group_is_refused() -> None:
    assert BOOK.squad is not None
    with pytest.raises(SquadError, match="drawn"):
        remedy(["Вайл", "Самаэль", "Аккения", "Шаммар", "Гном"], CARDS, BOOK.squad, "first",
               seed=1, drawn=["Гном"])
