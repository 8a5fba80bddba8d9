"""What a judge's phone needs to record with no network (issue 37): each infraction's ruling
for a first offence at the tournament's level, as the engine itself rules it with no history
— shown offline as «предварительно — без учёта истории» — and the tournament's players with
their tables in the current round. When the phone is back, the server rules the queued
infraction with the whole history (the outbox sends it, web static/outbox.js), and the judge
sees that ruling beside the preliminary one.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import orjson

from sudya.app.scenario import replay
from sudya.domain.errors import SudyaError


@dataclass(frozen=True, slots=True)
class FirstOffence:
    """The engine's ruling on a first offence: the kinds of the sanctions the offender gets
    (none: no penalty), or that the judge chooses (`pending`)."""

    kinds: tuple[str, ...]
    pending: bool = False


@functools.lru_cache(maxsize=64)
def _first_offences(rulebook: str, edition: str | None, level: str | None,
                    settings: bytes) -> dict[str, FirstOffence | None]:
    from sudya.domain.rulebook import loader

    book = loader.load(rulebook, edition)
    out: dict[str, FirstOffence | None] = {}
    for inf in book.infractions:
        scenario: dict[str, Any] = {
            "rulebook": rulebook, "date": "2026-03-01", "players": ["offender", "other"],
            "settings": orjson.loads(settings),
            "events": [{"id": "e1", "infraction": inf.id, "player": "offender", "round": 1}]}
        if edition is not None:
            scenario["edition"] = edition
        if level is not None:
            scenario["level"] = level
        try:
            rulings = replay(scenario)["rulings"]
        except SudyaError:  # (a scenario's refusal is one too)
            out[inf.id] = None  # it needs more than a player and a round: online only
            continue
        mine = [r for r in rulings if r["subject"] == "offender"]
        out[inf.id] = FirstOffence(
            kinds=tuple(s["kind"] for r in mine for s in r["sanctions"]
                        if s.get("subject", "offender") == "offender"),
            pending=any(r["pending"] for r in mine))
    return out


def first_offences(rulebook: str, edition: str | None, level: str | None,
                   settings: dict[str, Any] | None) -> dict[str, FirstOffence | None]:
    """infraction -> its first offence's ruling at `level`, or None where the engine needs
    facts, a team or a setting the offline form does not ask for (kept per rulebook edition,
    level and settings: the rulebook's editions never change)."""
    return _first_offences(rulebook, edition, level,
                           orjson.dumps(settings or {}, option=orjson.OPT_SORT_KEYS))
