"""Tables of the deck checks: the imported card list, registered deck lists and their checks."""

from __future__ import annotations

from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from sudya.adapters.db.models import Audited, Base


class CardImport(Audited, Base):
    """One import of a card list; the newest one is in use."""

    __tablename__ = "card_import"
    id: Mapped[int] = mapped_column(primary_key=True)
    source: Mapped[str] = mapped_column(String(300))
    count: Mapped[int] = mapped_column(Integer)


class CardRow(Base):
    __tablename__ = "card"
    id: Mapped[int] = mapped_column(primary_key=True)
    import_id: Mapped[int] = mapped_column(ForeignKey("card_import.id"), index=True)
    name: Mapped[str] = mapped_column(String(200))
    data: Mapped[dict[str, Any]] = mapped_column(JSON)


class Decklist(Audited, Base):
    """A deck list handed in by a player (a new list is a new row)."""

    __tablename__ = "decklist"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    player: Mapped[str] = mapped_column(String(100))
    format: Mapped[str | None] = mapped_column(String(50))
    text: Mapped[str] = mapped_column(Text)


class DeckCheck(Audited, Base):
    """A judge's check of a deck list: what was found."""

    __tablename__ = "deck_check"
    id: Mapped[int] = mapped_column(primary_key=True)
    decklist_id: Mapped[int] = mapped_column(ForeignKey("decklist.id"), index=True)
    findings: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
