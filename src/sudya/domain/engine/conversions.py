"""Conversions: N of a kind become one of another, automatically.

004: «Два предупреждения равны желтой карточке» — 2 warnings = 1 yellow card, 2 yellow cards =
1 red card (regulations.md §3.2). Each rule of the rulebook's `conversions` says `from`,
`count`, `to` and whose pool counts (`pool: team`: warnings and cards accumulate per team,
an interpretation); a conversion is a derived ruling (`cause: conversion`) that uses up the
sanctions it converted, and conversions chain (the yellow card made from two warnings counts
towards a red one). Pools are the tournament's.

Shape: functions on the shared `EngineState` (state.py); pools are `state.conv`, keyed by
(pool owner, kind).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sudya.domain.engine import sanctions
from sudya.domain.engine.model import Reason, Sanction
from sudya.domain.rulebook.schema import Conversion

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def convert(state: EngineState, event_id: str, subjects: Iterable[str], day: dt.date) -> None:
    """Make every conversion the subjects' pools now hold, until none is left."""
    changed = True
    while changed:
        changed = False
        # the subjects' pool owners, by how a rule pools (its rules mostly pool alike): found
        # again when a conversion's owner joins the subjects
        owners: dict[str, list[str]] = {}
        for conv in state.book.conversions:
            if conv.pool not in owners:
                owners[conv.pool] = sorted({state.pool(s, conv.pool) for s in subjects})
            for owner in owners[conv.pool]:
                key = (owner, conv.source_kind)
                pool = state.conv.get(key)
                if pool is None or len(pool) < conv.count:  # left after the last look: too few
                    continue
                pool = state.entry(state.conv, key)
                live = [s for s in pool if not s.revoked and not s.consumed]
                while len(live) >= conv.count:
                    used, live = live[: conv.count], live[conv.count:]
                    for s in used:
                        state.keep(s)
                        s.consumed = True
                    ruling = state.new_ruling(event_id, owner, None, "conversion", day)
                    ruling.uses = tuple(used)
                    ruling.notes = made_notes(conv)
                    sanctions.add(state, ruling.sanctions, state.book.kind(conv.to), owner,
                                  None, None, False, day, {}, {}, ruling)
                    for s in used:
                        state.add_use(s, ruling)
                    state.record(ruling)
                    if owner not in subjects:
                        subjects = {*subjects, owner}
                        owners.clear()
                    changed = True
                pool[:] = [s for s in pool if not s.revoked and not s.consumed]


_MADE: dict[tuple[int, str, str, str], tuple[Reason]] = {}


def made_notes(conv: Conversion) -> tuple[Reason]:
    """The reasons a conversion's ruling gives: one tuple per rule, shared by its rulings
    (as an infraction's notes are; a reason is never changed)."""
    key = (conv.count, conv.source_kind, conv.to, conv.source)
    notes = _MADE.get(key)
    if notes is None:
        notes = _MADE[key] = (Reason(
            "conversion.made", {"count": conv.count, "from": conv.source_kind, "to": conv.to},
            conv.source),)
    return notes


def track(state: EngineState, s: Sanction) -> None:
    """Pool a new sanction for every conversion that converts its kind."""
    for conv in state.book.conversions:
        if conv.source_kind == s.kind:
            state.entry(state.conv, (state.pool(s.subject, conv.pool), s.kind)).append(s)


def give_back(state: EngineState, s: Sanction) -> None:
    """A sanction a revoked conversion had used counts again (in this tournament)."""
    ruling = s.ruling
    for conv in state.book.conversions:
        if conv.source_kind == s.kind and ruling is not None and \
                ruling.tournament == state.t.index:
            pool = state.entry(state.conv, (state.pool(s.subject, conv.pool), s.kind))
            if s not in pool:
                pool.append(s)
                pool.sort(key=lambda x: x.seq)
