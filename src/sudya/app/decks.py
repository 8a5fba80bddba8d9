"""Deck checks over the ledger: the card list in use, registered lists and their checks."""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sudya.adapters.db import deck_models as d
from sudya.adapters.db import models as m
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.app.views import DecklistView
from sudya.domain.decks.cards import CardList, card_from_row, card_to_row, parse_card_list
from sudya.domain.decks.decklist import Finding
from sudya.domain.errors import SudyaError

# the sample card list shipped for the demo and the tests: real names, made-up costs
SAMPLE_CARDS = Path(__file__).resolve().parents[1] / "domain" / "decks" / "sample-cards.json"


def sample_cards() -> CardList:
    """The SAMPLE card list (made-up costs and properties), never the real cards."""
    return CardList(parse_card_list(SAMPLE_CARDS.read_text(encoding="utf-8"), "json"))


def card_import(s: Session) -> d.CardImport | None:
    """The card list import in use (the newest), or None."""
    return s.scalar(select(d.CardImport).order_by(d.CardImport.id.desc()).limit(1))


def import_cards(ledger: Ledger, path: Path, *, actor: str) -> int:
    """Import a card list file: every row or none; the newest import is the one in use."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SudyaError("decks.file-unreadable", field="FILE", path=str(path),
                         error=exc.strerror) from exc
    cards = parse_card_list(text, "json" if path.suffix == ".json" else "csv")
    with ledger.uow().begin() as s:
        row = d.CardImport(source=path.name, count=len(cards), created_by=actor)
        s.add(row)
        s.flush()
        s.add_all(d.CardRow(import_id=row.id, name=c.name, data=card_to_row(c))
                  for c in cards)
    return len(cards)


def cards_info(s: Session) -> dict[str, Any]:
    """The card list in use, for a page: its source, size, and whether it is the sample."""
    row = card_import(s)
    if row is None:
        return {"imported": False, "source": None, "count": 0, "sample": False}
    return {"imported": True, "source": row.source, "count": row.count,
            "at": row.created_at, "sample": row.source == SAMPLE_CARDS.name}


def card_list(s: Session, choice: str) -> tuple[CardList | None, bool]:
    """The cards to check against (`sample` or the imported list), and whether they are the
    SAMPLE data."""
    if choice == "sample":
        return sample_cards(), True
    return stored_cards(s), cards_info(s)["sample"]


def stored_cards(s: Session) -> CardList | None:
    latest = s.scalar(select(func.max(d.CardImport.id)))
    if latest is None:
        return None
    rows = s.scalars(select(d.CardRow).where(d.CardRow.import_id == latest))
    return CardList([card_from_row(r.data, r.name) for r in rows])


def register_decklist(ledger: Ledger, *, tournament: int, player: str, text: str,
                      fmt: str | None, findings: list[Finding] | None, actor: Actor) -> int:
    """Store a player's deck list (and, when checked, what the check found)."""
    with ledger.uow().begin() as s:
        if s.get(m.Tournament, tournament) is None:
            raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
        entered = s.scalar(select(m.Entry.id).join(m.Person).where(
            m.Entry.tournament_id == tournament, m.Person.handle == player))
        if entered is None:
            raise LedgerError("player.not-registered", field="player",
                              player=player)
        row = d.Decklist(tournament_id=tournament, player=player, format=fmt, text=text,
                         created_by=actor.name, request_id=actor.request_id)
        s.add(row)
        s.flush()
        if findings is not None:
            s.add(d.DeckCheck(decklist_id=row.id, findings=[asdict(f) for f in findings],
                              created_by=actor.name, request_id=actor.request_id))
        return row.id


def _request_id_for(user: str, key: str) -> str:
    """The request id a keyed submit stores its deck list under (fits the column)."""
    return "deck-" + hashlib.sha256(f"{user}\0{key}".encode()).hexdigest()[:58]


def register_decklist_once(ledger: Ledger, *, user: str, key: str | None, tournament: int,
                           player: str, text: str, fmt: str, findings: list[Finding]) -> int:
    """Store a checked list; a double submit (same key, same user) returns the first one's id."""
    request_id = _request_id_for(user, key) if key else None
    if request_id is not None:
        with ledger.factory() as s:
            first = s.scalar(select(d.Decklist.id).where(
                d.Decklist.request_id == request_id, d.Decklist.created_by == user,
                d.Decklist.tournament_id == tournament))
        if first is not None:
            return int(first)
    actor = Actor(name=user) if request_id is None else Actor(name=user, request_id=request_id)
    return register_decklist(ledger, tournament=tournament, player=player, text=text,
                             fmt=fmt, findings=findings, actor=actor)


def _decklist_view(s: Session, row: d.Decklist) -> DecklistView:
    check = s.scalar(select(d.DeckCheck).where(d.DeckCheck.decklist_id == row.id)
                     .order_by(d.DeckCheck.id.desc()).limit(1))
    return DecklistView(id=row.id, tournament_id=row.tournament_id, player=row.player,
                        format=row.format, text=row.text, created_by=row.created_by,
                        created_at=row.created_at,
                        findings=None if check is None else list(check.findings))


def decklist(s: Session, *, tournament: int, decklist_id: int) -> DecklistView | None:
    """A list registered in this tournament, with its newest check (None: no such list)."""
    row = s.scalar(select(d.Decklist).where(d.Decklist.tournament_id == tournament,
                                            d.Decklist.id == decklist_id))
    return None if row is None else _decklist_view(s, row)


def newest_decklist(s: Session, *, tournament: int, player: str) -> DecklistView | None:
    """The player's newest list in this tournament, with its newest check (None: none yet)."""
    row = s.scalar(select(d.Decklist).where(d.Decklist.tournament_id == tournament,
                                            d.Decklist.player == player)
                   .order_by(d.Decklist.id.desc()).limit(1))
    return None if row is None else _decklist_view(s, row)


def decklist_status(s: Session, tournament: int) -> list[dict[str, Any]]:
    """Every registered player with the state of their newest list (head judge's view)."""
    if s.get(m.Tournament, tournament) is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    players = list(s.scalars(select(m.Person.handle).join(m.Entry).where(
        m.Entry.tournament_id == tournament).order_by(m.Entry.id)))
    out = []
    for player in players:
        deck = s.scalar(select(d.Decklist).where(
            d.Decklist.tournament_id == tournament, d.Decklist.player == player)
            .order_by(d.Decklist.id.desc()))
        checked = None if deck is None else s.scalar(
            select(d.DeckCheck).where(d.DeckCheck.decklist_id == deck.id)
            .order_by(d.DeckCheck.id.desc()))
        status = ("missing" if deck is None else "unchecked" if checked is None
                  else "problems" if checked.findings else "ok")
        out.append({"player": player, "format": deck.format if deck else None,
                    "status": status,
                    "findings": len(checked.findings) if checked else 0,
                    "checked_at": checked.created_at if checked else None,
                    "decklist_id": deck.id if deck else None})
    return out
