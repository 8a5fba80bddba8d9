"""Card lists: what a card costs, what it is, and where it is legal (imported by organisers)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from typing import Any

from sudya.errors import SudyaError

CSV_COLUMNS = ["name", "element", "gold", "silver", "flyer", "unique", "terrain", "horde",
               "excludes", "formats"]


class CardListError(SudyaError):
    """A card list file that cannot be imported; nothing was imported."""

    code = "cards"

    def __init__(self, rejected: list[str]) -> None:
        super().__init__(f"{len(rejected)} row(s) rejected; nothing was imported: "
                         + "; ".join(rejected[:3]))
        self.rejected = rejected


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


def _bool(value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value or "").strip().lower()
    if text in ("", "0", "no", "false", "нет", "-"):
        return False
    if text in ("1", "yes", "true", "да", "+"):
        return True
    raise ValueError(f"{where}: yes/no expected, got {value!r}")


def _int(value: Any, where: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    else:
        text = str(value or "0").strip()
        if not text.isdigit():
            raise ValueError(f"{where}: a whole number expected, got {value!r}")
        number = int(text)
    if number < 0:
        raise ValueError(f"{where}: cannot be negative")
    return number


def _formats(value: Any, where: str) -> dict[str, str | int]:
    """`standard:legal;constructed:restricted=1;draft:banned` or a mapping."""
    if isinstance(value, dict):
        items = list(value.items())
    else:
        items = []
        for part in str(value or "").split(";"):
            if part.strip():
                key, sep, state = part.partition(":")
                if not sep:
                    raise ValueError(f"{where}: write format:legal|banned|restricted=N")
                items.append((key.strip(), state.strip()))
    out: dict[str, str | int] = {}
    for key, state in items:
        if isinstance(state, int) and not isinstance(state, bool):
            out[key] = state
        elif str(state) in ("legal", "banned"):
            out[key] = str(state)
        elif str(state).startswith("restricted="):
            out[key] = _int(str(state).split("=", 1)[1], f"{where}.{key}")
        else:
            raise ValueError(f"{where}.{key}: legal, banned or restricted=N, got {state!r}")
    return out


def card_from_row(row: dict[str, Any], where: str) -> Card:
    name = str(row.get("name") or "").strip()
    if not name:
        raise ValueError(f"{where}: name: required")
    gold = _int(row.get("gold"), f"{where}: gold")
    silver = _int(row.get("silver"), f"{where}: silver")
    if gold and silver:
        raise ValueError(f"{where}: a card costs gold or silver crystals, not both")
    excludes = row.get("excludes") or []
    if isinstance(excludes, str):
        excludes = [e for e in excludes.split(";") if e.strip()]
    return Card(name=name, element=str(row.get("element") or ""), gold=gold, silver=silver,
                flyer=_bool(row.get("flyer"), f"{where}: flyer"),
                unique=_bool(row.get("unique"), f"{where}: unique"),
                terrain=_bool(row.get("terrain"), f"{where}: terrain"),
                horde=_bool(row.get("horde"), f"{where}: horde"),
                excludes=frozenset(fold(e) for e in excludes),
                formats=_formats(row.get("formats"), f"{where}: formats"))


def parse_card_list(text: str, kind: str) -> list[Card]:
    """Cards from CSV or JSON text; every row or none (CardListError lists the rejects)."""
    rows: list[tuple[str, dict[str, Any]]]
    if kind == "json":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise CardListError([f"line {exc.lineno}: malformed JSON: {exc.msg}"]) from None
        if isinstance(data, dict):
            data = data.get("cards", [])
        if not isinstance(data, list):
            raise CardListError(["a JSON card list is a list of cards (or {cards: [...]})"])
        rows = [(f"card {i}", r if isinstance(r, dict) else {}) for i, r in
                enumerate(data, start=1)]
    else:
        reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff")))
        if "name" not in (reader.fieldnames or []):
            raise CardListError([f"missing column name (columns: {', '.join(CSV_COLUMNS)})"])
        rows = [(f"line {i}", r) for i, r in enumerate(reader, start=2)]
    cards: list[Card] = []
    rejected: list[str] = []
    seen: set[str] = set()
    for where, row in rows:
        try:
            card = card_from_row(row, where)
        except ValueError as exc:
            rejected.append(str(exc))
            continue
        if fold(card.name) in seen:
            rejected.append(f"{where}: {card.name!r} is listed twice")
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
