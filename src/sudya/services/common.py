"""What every service shares: the ledger's refusal, who is writing, and the one decoder."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sudya import commands
from sudya.commands import CommandError
from sudya.db import models as m
from sudya.errors import SudyaError
from sudya.rulebooks import loader
from sudya.rulebooks.schema import Rulebook


class LedgerError(SudyaError):
    """A request the ledger refuses (unknown tournament, duplicate name, bad field…)."""

    code = "ledger"


@dataclass
class Actor:
    """Who is writing, and the request it belongs to (recorded on every row)."""

    name: str = "system"
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)


@dataclass(frozen=True)
class SeriesRef:
    """What the engine side needs of a series (never changes once created)."""

    id: int
    rulebook: str


@dataclass(frozen=True)
class TournamentRef:
    id: int


def ref(series: m.Series) -> SeriesRef:
    return SeriesRef(id=series.id, rulebook=series.rulebook)


def command(kind: str, payload: dict[str, Any]) -> commands.Command:
    """A request or a stored event through the one decoder (sudya.commands)."""
    try:
        return commands.decode(kind, payload)
    except CommandError as exc:
        raise LedgerError(exc.code, field=exc.field, **exc.params) from None


def load_book(rulebook: str, edition: str | None = None) -> Rulebook:
    try:
        return loader.load(rulebook, edition)
    except SudyaError as exc:
        raise LedgerError(str(exc), field="rulebook") from exc
