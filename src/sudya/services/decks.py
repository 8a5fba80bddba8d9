"""Deck checks over the ledger: the card list in use, registered lists and their checks."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sudya.db import deck_models as d
from sudya.db import models as m
from sudya.decks.cards import CardList, card_from_row, card_to_row, parse_card_list
from sudya.decks.decklist import Finding
from sudya.errors import SudyaError
from sudya.services.ledger import Actor, Ledger, LedgerError

# the sample card list shipped for the demo and the tests: real names, made-up costs
SAMPLE_CARDS = Path(__file__).resolve().parent.parent / "decks" / "sample-cards.json"


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
