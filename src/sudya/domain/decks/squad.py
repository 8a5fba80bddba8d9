"""The overspend remedy of 000 §7.4: random draws in a fixed order until the squad is legal.

Groups in this order: А gold crystals, Б silver crystals, В crystals on flyers, Г uniqueness,
Д one terrain, Е «cannot be taken with …». The first violated group loses one card chosen at
random (or the card the judge actually drew at the table); the check starts again from А;
then the player gets a warning. The seed and every draw are recorded so the procedure can be
replayed and shown to both players.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sudya.domain.decks.cards import Card, CardList, fold
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook.schema import SquadRules

GROUPS = ("А", "Б", "В", "Г", "Д", "Е")
# why a group loses a card: the message code of each group's reason
REASONS = {
    "А": "squad.gold-overspent",
    "Б": "squad.silver-overspent",
    "В": "squad.flyers-overspent",
    "Г": "squad.not-unique",
    "Д": "squad.terrains",
    "Е": "squad.cannot-be-taken-with",
}


class SquadError(SudyaError):
    """A squad the remedy cannot work on: `SquadError(code, field=..., **params)`."""

    code = "squad"


@dataclass(frozen=True)
class Draw:
    step: int
    group: str
    code: str  # the group's reason, a message code (REASONS)
    card: str
    position: int  # index in the squad as it stood before this draw
    chosen_by: str  # "random" or "judge"
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def reason(self) -> str:
        """The group's reason in English."""
        return self.text("en")

    def text(self, lang: str = "en") -> str:
        from sudya.i18n.messages import render  # the catalogues are read at the edge only

        return render(self.code, self.params, lang)


@dataclass
class Remedy:
    seat: str
    seed: int
    squad: list[str]
    draws: list[Draw] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    @property
    def returned(self) -> list[str]:
        return [d.card for d in self.draws]

    @property
    def warning(self) -> bool:
        """000 §7.4: after the remedy the player gets a warning (when anything was wrong)."""
        return bool(self.draws)


def violations(squad: list[Card], rules: SquadRules, seat: str) -> list[tuple[str, list[int]]]:
    """Every violated group, in the order of 000 §7.4, with the squad positions in it."""
    budget = rules.budgets[seat]
    out: list[tuple[str, list[int]]] = []
    elite = [i for i, c in enumerate(squad) if c.gold]
    ordinary = [i for i, c in enumerate(squad) if c.silver]
    gold = sum(squad[i].gold for i in elite)
    silver = sum(squad[i].silver for i in ordinary)
    if gold > budget["gold"]:
        out.append(("А", elite))
    # gold left over pays ordinary cards beyond the silver (interpretation, see the rulebook)
    if silver > budget["silver"] + max(0, budget["gold"] - gold):
        out.append(("Б", ordinary))
    flyers = [i for i, c in enumerate(squad) if c.flyer]
    if sum(squad[i].cost for i in flyers) > rules.flyer_limit:
        out.append(("В", flyers))
    if rules.unique:
        counts = Counter(fold(c.name) for c in squad if c.unique)
        twice = [i for i, c in enumerate(squad) if c.unique and counts[fold(c.name)] > 1]
        if twice:
            out.append(("Г", twice))
    if rules.one_terrain:
        terrains = [i for i, c in enumerate(squad) if c.terrain]
        if len(terrains) > 1:
            out.append(("Д", terrains))
    present = {fold(c.name) for c in squad}
    clash = sorted({i for i, c in enumerate(squad)
                    for j, d in enumerate(squad)
                    if i != j and (fold(d.name) in c.excludes or fold(c.name) in d.excludes)
                    and fold(d.name) in present})
    if clash:
        out.append(("Е", clash))
    return out


def resolve(names: list[str], cards: CardList) -> list[Card]:
    out = []
    for i, name in enumerate(names):
        card = cards.get(name)
        if card is None:
            hint = cards.suggest(name)
            if hint:
                raise SquadError("squad.unknown-card-like", field=f"squad[{i}]", card=name,
                                 suggestion=hint)
            raise SquadError("squad.unknown-card", field=f"squad[{i}]", card=name)
        out.append(card)
    return out


def remedy(names: list[str], cards: CardList, rules: SquadRules, seat: str, seed: int,
           drawn: list[str] | None = None) -> Remedy:
    """Repair a squad; `drawn` are the cards the judge actually drew, in order (optional)."""
    if seat not in rules.budgets:
        raise SquadError("squad.unknown-seat", field="seat", seat=seat,
                         seats=list(rules.budgets))
    squad = resolve(names, cards)
    rng = random.Random(seed)
    result = Remedy(seat=seat, seed=seed, squad=[c.name for c in squad])
    given = list(drawn or [])
    step = 0
    while True:
        found = violations(squad, rules, seat)
        if not found:
            break
        group, positions = found[0]
        step += 1
        if given:
            wanted = fold(given.pop(0))
            matches = [p for p in positions if fold(squad[p].name) == wanted]
            if not matches:
                raise SquadError("squad.drawn-not-in-group", field="drawn", step=step,
                                 group=group, cards=[squad[p].name for p in positions])
            position, how = matches[0], "judge"
        else:
            position, how = positions[rng.randrange(len(positions))], "random"
        result.draws.append(Draw(step, group, REASONS[group], squad[position].name, position,
                                 how))
        del squad[position]
    if given:
        raise SquadError("squad.too-many-drawn", field="drawn")
    result.kept = [c.name for c in squad]
    return result
