"""Property tests of the overspend remedy (000 §7.4): always legal, only violated groups
lose cards, and the same seed gives the same draws."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sudya.decks.cards import CardList, fold, parse_card_list
from sudya.decks.squad import GROUPS, remedy, resolve, violations
from sudya.rulebooks import loader

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "sudya" / "decks" / "sample-cards.json"
CARDS = CardList(parse_card_list(SAMPLE.read_text(encoding="utf-8"), "json"))
RULES = loader.load("berserk").squad
NAMES = sorted(c.name for c in CARDS.cards.values())
assert RULES is not None

squads = st.lists(st.sampled_from(NAMES), min_size=0, max_size=14)
seats = st.sampled_from(["first", "second"])
seeds = st.integers(min_value=0, max_value=2**32)


@settings(max_examples=80, deadline=None)
@given(squad=squads, seat=seats, seed=seeds)
def test_the_result_is_always_legal(squad: list[str], seat: str, seed: int) -> None:
    result = remedy(squad, CARDS, RULES, seat, seed)
    assert violations(resolve(result.kept, CARDS), RULES, seat) == []
    assert sorted(map(fold, result.kept + result.returned)) == sorted(map(fold, squad))
    assert result.warning == bool(result.returned)


@settings(max_examples=80, deadline=None)
@given(squad=squads, seat=seats, seed=seeds)
def test_only_cards_of_the_first_violated_group_are_removed(squad: list[str], seat: str,
                                                             seed: int) -> None:
    result = remedy(squad, CARDS, RULES, seat, seed)
    current = resolve(squad, CARDS)
    for draw in result.draws:
        found = violations(current, RULES, seat)
        group, positions = found[0]
        assert draw.group == group and draw.group in GROUPS
        assert draw.position in positions
        assert current[draw.position].name == draw.card
        del current[draw.position]


@settings(max_examples=60, deadline=None)
@given(squad=squads, seat=seats, seed=seeds)
def test_the_same_seed_gives_the_same_draws(squad: list[str], seat: str, seed: int) -> None:
    assert remedy(squad, CARDS, RULES, seat, seed).draws == \
        remedy(squad, CARDS, RULES, seat, seed).draws


@settings(max_examples=60, deadline=None)
@given(squad=squads, seat=seats, seed=seeds)
def test_the_judges_own_draws_replay_the_procedure(squad: list[str], seat: str,
                                                   seed: int) -> None:
    """Entering the cards actually drawn at the table gives the same procedure."""
    first = remedy(squad, CARDS, RULES, seat, seed)
    again = remedy(squad, CARDS, RULES, seat, seed + 1, drawn=first.returned)
    assert sorted(again.kept) == sorted(first.kept)  # copies of one card are alike
    assert [d.card for d in again.draws] == first.returned
    assert all(d.chosen_by == "judge" for d in again.draws)
