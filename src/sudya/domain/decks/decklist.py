"""Deck lists as players write them, and the checks 002 §1.1–1.4 describe."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from sudya.domain.decks.cards import CardList, fold
from sudya.domain.rulebook.schema import DeckFormat

PLAYER = re.compile(r"^\s*(игрок|player|имя|name)\s*[:：]\s*(?P<name>.*)$", re.I)
SECTION = re.compile(
    r"^\s*(?P<part>основная|main|дополнительная|доп\.?|additional|side)[\w .]*[:：]?\s*$", re.I)
COUNT_FIRST = re.compile(r"^\s*(?P<n>\d+)\s*[xх×*]?\s+(?P<name>\S.*?)\s*$", re.I)
COUNT_LAST = re.compile(r"^\s*(?P<name>\S.*?)\s*[xх×*]\s*(?P<n>\d+)\s*$", re.I)
COUNT_WORD = re.compile(r"^\s*(?P<w>один|одна|два|две|три|четыре|one|two|three|four)\s+"
                        r"(?P<name>\S.*?)\s*$", re.I)


@dataclass
class Line:
    number: int
    text: str
    name: str
    count: int | None  # None: the count was not written as digits
    part: str  # "main" or "additional"


@dataclass
class DeckList:
    player: str | None
    lines: list[Line] = field(default_factory=list)

    def counts(self, part: str | None = None) -> Counter[str]:
        out: Counter[str] = Counter()
        for line in self.lines:
            if part is None or line.part == part:
                out[fold(line.name)] += line.count if line.count is not None else 1
        return out


def parse(text: str) -> DeckList:
    """`3 Гном`, `Гном x3`, one card per line, a section line for the additional deck."""
    deck = DeckList(player=None)
    part = "main"
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if (m := PLAYER.match(line)) is not None:
            deck.player = m["name"].strip() or None
            continue
        if (m := SECTION.match(line)) is not None:
            word = m["part"].lower()
            part = "main" if word in ("основная", "main") else "additional"
            continue
        if (m := COUNT_FIRST.match(line)) is not None or (m := COUNT_LAST.match(line)):
            deck.lines.append(Line(number, raw, m["name"].strip(), int(m["n"]), part))
        elif (m := COUNT_WORD.match(line)) is not None:
            deck.lines.append(Line(number, raw, m["name"].strip(), None, part))
        else:
            deck.lines.append(Line(number, raw, line, None, part))
    return deck


@dataclass(frozen=True)
class Finding:
    """A problem with a deck list: the rule it breaks, the infraction with its sub-item, and
    what is wrong as a message code with parameters (`decklist.*`, `mismatch.*`)."""

    infraction: str
    item: str  # а, б, в … as the regulation lists them
    rule: str
    code: str
    params: dict[str, Any] = field(default_factory=dict)
    line: int | None = None
    suggestion: str | None = None

    @property
    def message(self) -> str:
        """What is wrong, in English."""
        return self.text("en")

    def text(self, lang: str = "en") -> str:
        from sudya.i18n.messages import render  # the catalogues are read at the edge only

        return render(self.code, self.params, lang)


def check(deck: DeckList | None, cards: CardList, fmt: DeckFormat, fmt_id: str
          ) -> list[Finding]:
    """Every problem of a deck list against a format (002 §1.1 а–е, §1.4 а–в)."""
    inv, careless = "deck.invalid-decklist", "deck.careless-decklist"
    if deck is None or not deck.lines:
        return [Finding(inv, "а", "002 §1.1 а", "decklist.missing")]
    out: list[Finding] = []
    if not deck.player:
        out.append(Finding(careless, "в", "002 §1.4 в", "decklist.no-player"))
    known: list[Line] = []
    for line in deck.lines:
        card = cards.get(line.name)
        if line.count is None:
            out.append(Finding(inv, "г", "002 §1.1 г", "decklist.count-not-digits",
                               {"card": line.name}, line.number))
        if card is None:
            hint = cards.suggest(line.name)
            if hint:
                out.append(Finding(careless, "б", "002 §1.4 б", "decklist.hard-to-read",
                                   {"card": line.name, "suggestion": hint}, line.number,
                                   hint))
            else:
                out.append(Finding(careless, "а", "002 §1.4 а", "decklist.unknown-card",
                                   {"card": line.name}, line.number))
            continue
        known.append(line)
        legal = card.legality(fmt_id)
        if legal is None or legal == "banned":
            out.append(Finding(inv, "в", "002 §1.1 в", "decklist.not-legal",
                               {"card": card.name, "format": fmt_id}, line.number))
    main = sum(line.count or 1 for line in deck.lines if line.part == "main")
    extra = sum(line.count or 1 for line in deck.lines if line.part == "additional")
    if fmt.main_min is not None and main < fmt.main_min:
        out.append(Finding(inv, "б", "002 §1.1 б", "decklist.main-too-few",
                           {"count": main, "min": fmt.main_min}))
    if fmt.main_max is not None and main > fmt.main_max:
        out.append(Finding(inv, "б", "002 §1.1 б", "decklist.main-too-many",
                           {"count": main, "max": fmt.main_max}))
    if fmt.additional_max is not None and extra > fmt.additional_max:
        out.append(Finding(inv, "б", "002 §1.1 б", "decklist.additional-too-many",
                           {"count": extra, "max": fmt.additional_max}))
    out += _copies(deck, cards, fmt, fmt_id)
    return out


def _limit(card_legality: str | int | None, horde: bool, fmt: DeckFormat) -> int | None:
    if isinstance(card_legality, int):
        return card_legality or fmt.restricted_max
    if horde and fmt.horde_unlimited:
        return None
    return fmt.copies


def _copies(deck: DeckList, cards: CardList, fmt: DeckFormat, fmt_id: str) -> list[Finding]:
    out: list[Finding] = []
    main, extra, both = deck.counts("main"), deck.counts("additional"), deck.counts()
    for key, total in both.items():
        card = cards.get(key)
        if card is None:
            continue
        limit = _limit(card.legality(fmt_id), card.horde, fmt)
        if limit is None:
            continue
        worst = max(main.get(key, 0), extra.get(key, 0))
        if worst > limit:  # one part alone breaks deck construction
            out.append(Finding("deck.invalid-decklist", "д", "002 §1.1 д",
                               "decklist.too-many-copies",
                               {"count": worst, "card": card.name, "limit": limit}))
        elif total > limit:  # only main and additional together do
            out.append(Finding("deck.invalid-decklist", "е", "002 §1.1 е",
                               "decklist.too-many-copies-together",
                               {"count": total, "card": card.name, "limit": limit}))
    return out


def compare(listed: DeckList, deck: DeckList) -> list[Finding]:
    """A registered deck against its (valid) list: 002 §1.2 а–в."""
    mismatch = "deck.deck-decklist-mismatch"
    out: list[Finding] = []
    listed_main, deck_main = listed.counts("main"), deck.counts("main")
    listed_extra, deck_extra = listed.counts("additional"), deck.counts("additional")
    names = {fold(line.name): line.name for line in [*listed.lines, *deck.lines]}
    if sum(deck_main.values()) < sum(listed_main.values()):
        out.append(Finding(mismatch, "а", "002 §1.2 а", "mismatch.fewer-cards",
                           {"deck": sum(deck_main.values()),
                            "listed": sum(listed_main.values())}))
    if sum(deck_extra.values()) > sum(listed_extra.values()):
        out.append(Finding(mismatch, "а", "002 §1.2 а", "mismatch.more-additional",
                           {"deck": sum(deck_extra.values()),
                            "listed": sum(listed_extra.values())}))
    listed_all, deck_all = listed.counts(), deck.counts()
    for key, n in deck_all.items():
        if key not in listed_all:
            out.append(Finding(mismatch, "б", "002 §1.2 б", "mismatch.not-listed",
                               {"card": names[key], "count": n}))
        elif n != listed_all[key]:
            out.append(Finding(mismatch, "в", "002 §1.2 в", "mismatch.count-differs",
                               {"card": names[key], "deck": n, "listed": listed_all[key]}))
    for key, n in listed_all.items():
        if key not in deck_all:
            out.append(Finding(mismatch, "в", "002 §1.2 в", "mismatch.count-differs",
                               {"card": names[key], "deck": 0, "listed": n}))
    return out
