"""Property tests of the overspend remedy (000 §7.4) against an independent, naive reference.

`reference` below is written from regulations.md §1.5, not from squad.py: it lists the
violated groups in the order А gold crystals, Б silver crystals, В crystals on flyers,
Г uniqueness, Д one terrain per squad, Е «cannot be taken with …», each with the squad
positions of the cards that belong to it. The remedy is checked against it: every draw takes
a card of the group the reference finds violated first at that step; the result violates
nothing; the procedure stops as soon as nothing is violated; the same seed gives the same
draws; the judge's own draws (any card of the group) replay to the same result.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from sudya.domain.decks.cards import Card, CardList, parse_card_list
from sudya.domain.decks.squad import Draw, remedy, resolve, violations
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import SquadRules

SAMPLE = (Path(__file__).resolve().parents[2] / "src" / "sudya" / "domain" / "decks"
          / "sample-cards.json")
CARDS = CardList(parse_card_list(SAMPLE.read_text(encoding="utf-8"), "json"))
NAMES = sorted(c.name for c in CARDS.cards.values())
_BERSERK = loader.load("berserk").squad
assert _BERSERK is not None
RULES: SquadRules = _BERSERK
SEATS = ("first", "second")
BOUNDED = settings(max_examples=150, deadline=None)


# --------------------------------------------------------------------- the reference
# regulations.md §1.5, squad building: «the first player has 24 gold and 22 silver crystals,
# the second 25 and 23; at most 15 crystals may be spent on flyers; a unique card at most once
# in a squad; at most one terrain card» — settings of the format, kept in the rulebook.
REGULATIONS_CRYSTALS = {"first": (24, 22), "second": (25, 23)}
REGULATIONS_FLYERS = 15

# regulations.md is silent on whether gold may pay ordinary cards. The rulebook records the
# interpretation that it may («gold left over may pay ordinary cards beyond the silver»);
# the reference follows the recorded interpretation, and test_the_rulebook_records_... pins it.
GOLD_LEFT_OVER_PAYS_SILVER = True

# the reason each group gives for its draw (the message codes of the catalogue)
REASON_CODES = {"А": "squad.gold-overspent", "Б": "squad.silver-overspent",
                "В": "squad.flyers-overspent", "Г": "squad.not-unique",
                "Д": "squad.terrains", "Е": "squad.cannot-be-taken-with"}


@dataclass(frozen=True)
class Limits:
    """What one seat may build: crystals, crystals on flyers, and the two card limits."""

    gold: int
    silver: int
    flyers: int
    unique: bool = True
    one_terrain: bool = True


def limits_of(rules: SquadRules, seat: str) -> Limits:
    return Limits(gold=rules.budgets[seat]["gold"], silver=rules.budgets[seat]["silver"],
                  flyers=rules.flyer_limit, unique=rules.unique, one_terrain=rules.one_terrain)


def same_name(a: str, b: str) -> bool:
    """Card names match ignoring case, ё/е and spacing (docs/decks.en.md)."""
    def norm(s: str) -> str:
        return " ".join(s.lower().replace("ё", "е").split())
    return norm(a) == norm(b)


def reference(squad: Sequence[Card], lim: Limits) -> list[tuple[str, list[int]]]:
    """The violated groups, in the order А..Е, each with the positions of its cards."""
    found: list[tuple[str, list[int]]] = []
    everyone = range(len(squad))

    # А — gold crystals: the elite cards (paid in gold) cost more gold than the seat has
    gold_spent = 0
    for card in squad:
        gold_spent += card.gold
    if gold_spent > lim.gold:
        found.append(("А", [i for i in everyone if squad[i].gold > 0]))

    # Б — silver crystals: the ordinary cards (paid in silver) cost more than the silver,
    # plus whatever gold the elite cards left unspent (the rulebook's interpretation)
    silver_spent = 0
    for card in squad:
        silver_spent += card.silver
    silver_available = lim.silver
    if GOLD_LEFT_OVER_PAYS_SILVER and gold_spent < lim.gold:
        silver_available += lim.gold - gold_spent
    if silver_spent > silver_available:
        found.append(("Б", [i for i in everyone if squad[i].silver > 0]))

    # В — crystals on flyers: more than the limit spent on flying cards, gold and silver alike
    on_flyers = 0
    for card in squad:
        if card.flyer:
            on_flyers += card.gold + card.silver
    if on_flyers > lim.flyers:
        found.append(("В", [i for i in everyone if squad[i].flyer]))

    # Г — uniqueness: a unique card in the squad more than once (every copy is in the group)
    if lim.unique:
        repeated = []
        for i in everyone:
            if not squad[i].unique:
                continue
            copies = [j for j in everyone if same_name(squad[j].name, squad[i].name)]
            if len(copies) > 1:
                repeated.append(i)
        if repeated:
            found.append(("Г", repeated))

    # Д — one terrain per squad: two terrain cards or more (every terrain is in the group)
    if lim.one_terrain:
        terrains = [i for i in everyone if squad[i].terrain]
        if len(terrains) >= 2:
            found.append(("Д", terrains))

    # Е — «cannot be taken with …»: a card in the squad together with another card its text
    # forbids; both cards of such a pair are in the group
    def forbids(card: Card, other: Card) -> bool:
        return any(same_name(name, other.name) for name in card.excludes)

    clashing = []
    for i in everyone:
        for j in everyone:
            if i != j and (forbids(squad[i], squad[j]) or forbids(squad[j], squad[i])):
                clashing.append(i)
                break
    if clashing:
        found.append(("Е", clashing))
    return found


def follow(start: Sequence[Card], draws: Sequence[Draw], lim: Limits,
           chosen_by: str) -> list[Card]:
    """Walk the recorded draws with the reference; the squad left at the end."""
    current = list(start)
    for step, draw in enumerate(draws, start=1):
        found = reference(current, lim)
        # stop as soon as nothing is violated: no draw from a legal squad
        assert found, f"step {step}: {draw.card} drawn from a squad that violates nothing"
        group, positions = found[0]
        assert draw.step == step
        assert draw.group == group, f"step {step}: drew for {draw.group}, {group} comes first"
        assert draw.code == REASON_CODES[group]
        assert draw.chosen_by == chosen_by
        # only cards of violated groups are removed — here, of the first violated one
        assert 0 <= draw.position < len(current)
        assert draw.position in {i for _, members in found for i in members}
        assert draw.position in positions, (
            f"step {step}: {draw.card} is not in group {group}")
        assert same_name(current[draw.position].name, draw.card)
        del current[draw.position]
    assert reference(current, lim) == [], "the remedy stopped before the squad was legal"
    return current


def folded(names: Sequence[str]) -> list[str]:
    return sorted(" ".join(n.lower().replace("ё", "е").split()) for n in names)


# --------------------------------------------------------------------- strategies
def _spelling(name: str) -> st.SearchStrategy[str]:
    return st.sampled_from([name, name.upper(), name.lower(), f"  {name} "])


sample_squads = st.lists(st.sampled_from(NAMES).flatmap(_spelling), max_size=16)
seats = st.sampled_from(SEATS)
seeds = st.integers(min_value=0, max_value=2**32)

POOL = ["Альфа", "Бета", "Гамма", "Дельта", "Ёж", "Жук", "Зверь", "Ива"]


@st.composite
def card_lists(draw: st.DrawFn) -> list[Card]:
    """A made-up card list: elite, ordinary or free cards, any of the properties."""
    names = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=len(POOL), unique=True))
    cards = []
    for name in names:
        kind = draw(st.sampled_from(["gold", "silver", "free"]))
        cost = 0 if kind == "free" else draw(st.integers(min_value=1, max_value=10))
        excludes = draw(st.lists(st.sampled_from(POOL), max_size=2, unique=True))
        cards.append(Card(name=name, gold=cost if kind == "gold" else 0,
                          silver=cost if kind == "silver" else 0,
                          flyer=draw(st.booleans()), unique=draw(st.booleans()),
                          terrain=draw(st.booleans()),
                          excludes=frozenset(folded(excludes))))  # as the import stores them
    return cards


@st.composite
def squad_rules(draw: st.DrawFn) -> SquadRules:
    """The rulebook's settings, or other settings a format might have."""
    if draw(st.booleans()):
        return RULES
    crystals = st.integers(min_value=0, max_value=30)
    return SquadRules(
        budgets={seat: {"gold": draw(crystals), "silver": draw(crystals)} for seat in SEATS},
        flyer_limit=draw(crystals), unique=draw(st.booleans()),
        one_terrain=draw(st.booleans()))


@st.composite
def made_up(draw: st.DrawFn) -> tuple[CardList, list[str], SquadRules]:
    cards = draw(card_lists())
    squad = draw(st.lists(st.sampled_from([c.name for c in cards]), max_size=14))
    return CardList(cards), squad, draw(squad_rules())


# --------------------------------------------------------------------- the settings
def test_the_rulebook_has_the_numbers_of_the_regulations() -> None:
    for seat, (gold, silver) in REGULATIONS_CRYSTALS.items():
        assert limits_of(RULES, seat) == Limits(gold, silver, REGULATIONS_FLYERS)
    assert set(RULES.budgets) == set(SEATS)


def test_the_rulebook_records_that_left_over_gold_pays_ordinary_cards() -> None:
    """The reference's one reading beyond regulations.md is the rulebook's recorded one."""
    assert any("gold left over may pay ordinary cards" in note.en
               for note in RULES.interpretation)
    # 5 × Вампир: 25 silver; the first player's 22 silver and 24 unspent gold pay for it
    vampires = resolve(["Вампир"] * 5, CARDS)
    assert reference(vampires, limits_of(RULES, "first")) == []
    assert remedy(["Вампир"] * 5, CARDS, RULES, "first", seed=1).draws == []
    # with Аккения, Самаэль and Вайл (21 gold) 3 gold is left: 27 silver > 22 + 3
    more = resolve(["Вампир"] * 5 + ["Гном", "Аккения", "Самаэль", "Вайл"], CARDS)
    assert [g for g, _ in reference(more, limits_of(RULES, "first"))] == ["Б"]


def test_the_reference_on_examples() -> None:
    first = limits_of(RULES, "first")

    def groups(names: list[str]) -> list[str]:
        return [g for g, _ in reference(resolve(names, CARDS), first)]

    assert groups([]) == []
    assert groups(["Вайл", "Вайл", "Самаэль", "Аккения", "Аккения", "Шаммар"]) == \
        ["А", "В", "Г", "Е"]  # 39 gold; 20 on flyers; Аккения twice; Шаммар with Самаэль
    assert groups(["Вайл", "Самаэль"]) == []  # 14 on flyers
    assert groups(["Вайл", "Самаэль", "Богарт"]) == []
    assert groups(["Лесная поляна", "Горный перевал"]) == ["Д"]
    assert groups(["Лесная поляна", "Лесная поляна"]) == ["Д"]
    assert groups(["Шаммар", "Самаэль"]) == ["Е"]


# --------------------------------------------------------------------- the remedy
@BOUNDED
@given(squad=sample_squads, seat=seats)
def test_the_program_finds_the_groups_the_reference_finds(squad: list[str], seat: str) -> None:
    cards = resolve(squad, CARDS)
    assert violations(cards, RULES, seat) == reference(cards, limits_of(RULES, seat))


@BOUNDED
@given(squad=sample_squads, seat=seats, seed=seeds)
def test_every_draw_is_of_the_first_violated_group_and_the_result_is_legal(
        squad: list[str], seat: str, seed: int) -> None:
    result = remedy(squad, CARDS, RULES, seat, seed)
    kept = follow(resolve(squad, CARDS), result.draws, limits_of(RULES, seat), "random")
    assert [c.name for c in kept] == result.kept
    assert reference(resolve(result.kept, CARDS), limits_of(RULES, seat)) == []
    assert folded(result.kept + result.returned) == folded(squad)
    assert result.returned == [d.card for d in result.draws]
    assert result.warning == bool(result.draws)
    assert result.seed == seed and result.seat == seat


@BOUNDED
@given(case=made_up(), seat=seats, seed=seeds)
def test_the_same_with_made_up_cards_and_settings(
        case: tuple[CardList, list[str], SquadRules], seat: str, seed: int) -> None:
    cards, squad, rules = case
    lim = limits_of(rules, seat)
    start = resolve(squad, cards)
    assert violations(start, rules, seat) == reference(start, lim)
    result = remedy(squad, cards, rules, seat, seed)
    kept = follow(start, result.draws, lim, "random")
    assert [c.name for c in kept] == result.kept
    assert folded(result.kept + result.returned) == folded(squad)


@BOUNDED
@given(squad=sample_squads, seat=seats)
def test_a_legal_squad_loses_nothing(squad: list[str], seat: str) -> None:
    lim = limits_of(RULES, seat)
    cards = resolve(squad, CARDS)
    while reference(cards, lim):  # trim the squad to legal, by the reference
        del cards[reference(cards, lim)[0][1][0]]
    names = [c.name for c in cards]
    result = remedy(names, CARDS, RULES, seat, seed=0)
    assert result.draws == [] and result.kept == names and not result.warning


@BOUNDED
@given(squad=sample_squads, seat=seats, seed=seeds, noise=seeds)
def test_the_same_seed_gives_the_same_draws(squad: list[str], seat: str, seed: int,
                                            noise: int) -> None:
    first = remedy(squad, CARDS, RULES, seat, seed)
    random.seed(noise)  # the global generator plays no part
    remedy(list(reversed(squad)), CARDS, RULES, seat, noise)  # nor does another remedy
    again = remedy(squad, CARDS, RULES, seat, seed)
    assert again.draws == first.draws
    assert again.kept == first.kept


@BOUNDED
@given(squad=sample_squads, seat=seats, seed=seeds)
def test_the_judges_own_draws_replay_the_procedure(squad: list[str], seat: str,
                                                   seed: int) -> None:
    """Entering the cards drawn at the table gives the same procedure, whatever the seed."""
    first = remedy(squad, CARDS, RULES, seat, seed)
    again = remedy(squad, CARDS, RULES, seat, seed + 1, drawn=first.returned)
    follow(resolve(squad, CARDS), again.draws, limits_of(RULES, seat), "judge")
    assert [(d.group, d.card) for d in again.draws] == [(d.group, d.card) for d in first.draws]
    assert folded(again.kept) == folded(first.kept)  # copies of one card are alike


@BOUNDED
@given(case=made_up(), seat=seats, data=st.data())
def test_any_card_of_the_group_may_be_the_judges_draw(
        case: tuple[CardList, list[str], SquadRules], seat: str, data: st.DataObject) -> None:
    """The judge may draw any card of the first violated group; the program takes it."""
    cards, squad, rules = case
    lim = limits_of(rules, seat)
    current = resolve(squad, cards)
    drawn = []
    while found := reference(current, lim):
        position = data.draw(st.sampled_from(found[0][1]))
        drawn.append(current.pop(position).name)
    result = remedy(squad, cards, rules, seat, seed=0, drawn=drawn)
    assert [d.card for d in result.draws] == drawn
    follow(resolve(squad, cards), result.draws, lim, "judge")
    assert folded(result.kept) == folded([c.name for c in current])

