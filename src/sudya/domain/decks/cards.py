"""Card lists: what a card costs, what it is, and where it is legal (imported by organisers)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

from sudya.domain.errors import SudyaError, one_line

CSV_COLUMNS = ["name", "element", "gold", "silver", "flyer", "unique", "terrain", "horde",
               "excludes", "formats"]


class CardRowError(SudyaError):
    """One row of a card list that cannot be imported: a code, the field, and the row (a CSV
    line or the n-th card of a JSON list) once the import knows it."""

    code = "cards"

    def __init__(self, code: str, *, field: str = "", **params: Any) -> None:
        super().__init__(code, field=field, **params)
        self.row: tuple[str, int] | None = None  # ("line", 3) or ("card", 2)

    def at(self, row: tuple[str, int]) -> CardRowError:
        self.row = row
        return self

    def where_text(self, lang: str = "en") -> str:
        """The row in the language (`line 3`, `строка 3`), else what `where` names."""
        if self.row is None:
            return self.where
        from sudya.i18n.messages import render  # the catalogues are read at the edge only

        return render(f"cards.at-{self.row[0]}", {"n": self.row[1]}, lang)


class CardListError(SudyaError):
    """A card list file that cannot be imported; nothing was imported. Its text names the
    count and the first three rows refused (`problems` holds them all)."""

    code = "cards.rejected"

    def __init__(self, problems: list[CardRowError]) -> None:
        super().__init__("cards.rejected", count=len(problems))
        self.problems = problems

    @property
    def rejected(self) -> list[str]:
        """Every refused row in English, `line 3: gold: …`."""
        return [p.render() for p in self.problems]

    def text(self, lang: str = "en", book: Any = None) -> str:
        head = super().text(lang, book)
        return one_line(": ".join([head, "; ".join(p.render(lang, book)
                                                   for p in self.problems[:3])]))


def fold(name: str) -> str:
    """How names are compared: case, ё/е and spacing don't matter."""
    return " ".join(name.lower().replace("ё", "е").split())


@dataclass(frozen=True)
class Card:
    name: str
    element: str = ""
    gold: int = 0  # cost in gold crystals (elite cards)
    silver: int = 0  # cost in silver crystals (ordinary cards)
    flyer: bool = False
    unique: bool = False
    terrain: bool = False
    horde: bool = False  # «Орда»: no limit of copies
    excludes: frozenset[str] = frozenset()  # «не может быть взят в отряд с …» (folded names)
    formats: dict[str, str | int] = field(default_factory=dict)  # legal | banned | max copies

    @property
    def cost(self) -> int:
        return self.gold + self.silver

    def legality(self, fmt: str) -> str | int | None:
        return self.formats.get(fmt)


class CardList:
    """Cards by folded name."""

    def __init__(self, cards: list[Card]) -> None:
        self.cards = {fold(c.name): c for c in cards}

    def get(self, name: str) -> Card | None:
        return self.cards.get(fold(name))

    def suggest(self, name: str) -> str | None:
        """A close name to offer the judge (never applied without asking)."""
        import difflib

        match = difflib.get_close_matches(fold(name), list(self.cards), n=1, cutoff=0.75)
        return self.cards[match[0]].name if match else None

    def __len__(self) -> int:
        return len(self.cards)


def _bool(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value or "").strip().lower()
    if text in ("", "0", "no", "false", "нет", "-"):
        return False
    if text in ("1", "yes", "true", "да", "+"):
        return True
    raise CardRowError("cards.not-yes-no", field=field, value=value)


def _int(value: Any, field: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        text = str(value or "0").strip()
        if not text.isdigit():
            raise CardRowError("cards.not-whole", field=field, value=value)
        number = int(text)
    if number < 0:
        raise CardRowError("cards.negative", field=field)
    return number


def _formats(value: Any, field: str) -> dict[str, str | int]:
    """`standard:legal;constructed:restricted=1;draft:banned` or a mapping."""
    if isinstance(value, dict):
        items = list(value.items())
    else:
        items = []
        for part in str(value or "").split(";"):
            if part.strip():
                key, sep, state = part.partition(":")
                if not sep:
                    raise CardRowError("cards.format-syntax", field=field)
                items.append((key.strip(), state.strip()))
    out: dict[str, str | int] = {}
    for key, state in items:
        if isinstance(state, int) and not isinstance(state, bool):
            out[key] = state
        elif str(state) in ("legal", "banned"):
            out[key] = str(state)
        elif str(state).startswith("restricted="):
            out[key] = _int(str(state).split("=", 1)[1], f"{field}.{key}")
        else:
            raise CardRowError("cards.format-state", field=f"{field}.{key}", value=state)
    return out


def card_from_row(row: dict[str, Any], where: str = "") -> Card:
    """A card from an imported row (CardRowError names the field; `where` a stored row)."""
    try:
        return _card(row)
    except CardRowError as exc:
        exc.where = exc.where or where
        raise


def _card(row: dict[str, Any]) -> Card:
    name = str(row.get("name") or "").strip()
    if not name:
        raise CardRowError("cards.required", field="name")
    gold = _int(row.get("gold"), "gold")
    silver = _int(row.get("silver"), "silver")
    if gold and silver:
        raise CardRowError("cards.gold-and-silver")
    excludes = row.get("excludes") or []
    if isinstance(excludes, str):
        excludes = [e for e in excludes.split(";") if e.strip()]
    return Card(name=name, element=str(row.get("element") or ""), gold=gold, silver=silver,
                flyer=_bool(row.get("flyer"), "flyer"),
                unique=_bool(row.get("unique"), "unique"),
                terrain=_bool(row.get("terrain"), "terrain"),
                horde=_bool(row.get("horde"), "horde"),
                excludes=frozenset(fold(e) for e in excludes),
                formats=_formats(row.get("formats"), "formats"))


def parse_card_list(text: str, kind: str) -> list[Card]:
    """Cards from CSV or JSON text; every row or none (CardListError lists the rejects)."""
    rows: list[tuple[tuple[str, int], dict[str, Any]]]
    if kind == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CardListError([CardRowError("cards.malformed-json", error=exc.msg)
                                 .at(("line", exc.lineno))]) from None
        if isinstance(data, dict):
            data = data.get("cards", [])
        if not isinstance(data, list):
            raise CardListError([CardRowError("cards.not-a-list")])
        rows = [(("card", i), r if isinstance(r, dict) else {}) for i, r in
                enumerate(data, start=1)]
    else:
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
        if "name" not in (reader.fieldnames or []):
            raise CardListError([CardRowError("cards.no-name-column", columns=CSV_COLUMNS)])
        rows = [(("line", i), r) for i, r in enumerate(reader, start=2)]
    cards: list[Card] = []
    rejected: list[CardRowError] = []
    seen: set[str] = set()
    for where, row in rows:
        try:
            card = _card(row)
        except CardRowError as exc:
            rejected.append(exc.at(where))
            continue
        if fold(card.name) in seen:
            rejected.append(CardRowError("cards.listed-twice", card=card.name).at(where))
            continue
        seen.add(fold(card.name))
        cards.append(card)
    if rejected:
        raise CardListError(rejected)
    return cards


def card_to_row(card: Card) -> dict[str, Any]:
    return {"name": card.name, "element": card.element, "gold": card.gold,
            "silver": card.silver, "flyer": card.flyer, "unique": card.unique,
            "terrain": card.terrain, "horde": card.horde,
            "excludes": sorted(card.excludes), "formats": dict(card.formats)}
