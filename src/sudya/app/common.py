"""What every service shares: the ledger's refusal, who is writing, and the one decoder."""

from __future__ import annotations

import threading
import uuid
from collections import OrderedDict
from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from sudya.adapters.db import models as m
from sudya.app.views import UserView
from sudya.domain import commands
from sudya.domain.commands import CommandError
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook


class LedgerError(SudyaError):
    """A request the ledger refuses (unknown tournament, duplicate name, bad field…)."""

    code = "ledger"


@dataclass
class Actor:
    """Who is writing, and the request it belongs to (recorded on every row).

    `user`: the signed-in account (the web app); `owner`: the owner of the database (the
    CLI's administration, the demo, a scenario import), who may do everything; otherwise the
    actor is the user or the staff-list judge named `name` (the CLI's `--by`)."""

    name: str = "system"
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    user: UserView | None = None
    owner: bool = False


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
    """A request or a stored event through the one decoder (sudya.domain.commands)."""
    try:
        return commands.decode(kind, payload)
    except CommandError as exc:
        raise LedgerError(exc.code, field=exc.field, **exc.params) from None


def load_book(rulebook: str, edition: str | None = None) -> Rulebook:
    try:
        return loader.load(rulebook, edition)
    except SudyaError as exc:
        raise LedgerError(exc.code, field="rulebook", where=exc.where, **exc.params) from exc


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class Kept(Generic[K, V]):
    """The latest few things a process made, the least recently used dropped first; shared
    by the request threads (one lock). What a key names, and when a value is stale, is the
    caller's (queries' standings tables, readback's results)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[K, V] = OrderedDict()
        self._mutex = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._mutex:
            value = self._items.get(key)
            if value is not None:
                self._items.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._mutex:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def clear(self) -> None:
        with self._mutex:
            self._items.clear()
