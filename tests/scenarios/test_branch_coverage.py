"""Every branch of every bundled rulebook is reached by some scenario case.

Running all the cases in tests/scenarios/<rulebook>/ (those that replay without an error),
this checks, per bundled rulebook:
- every infraction is ruled on (a ruling with a cause other than `none`) at every level where
  it applies (its `applies.levels`, and a penalty cell for the level);
- every `variants[].when`, every `no_penalty_when` entry (of the infraction and of its
  variants) and every `waived_when` entry of a sanction held true for some event;
- every row of every `repeats` list was the row an event was ruled by.

How it is observed, without touching the engine: the level comes from the scenario (its
`level`, changed by `tournament: {level: …}` events) and the ruling's `event` and `cause`
from the replay output; conditions and rows are the rulebook's own parsed objects, watched
for the run by wrapping `Formula.__call__` (a condition that returns true) and
`Outcome.is_choice` (the engine reads it on the outcome it has picked for a ruling).
Objects are matched by identity, so this relies on replay using the loader's cached
rulebook — checked first, with a message that says so.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from sudya.app.scenario import replay
from sudya.domain.errors import ScenarioError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.formula import Formula
from sudya.domain.rulebook.schema import Infraction, Outcome, Rulebook, SanctionSpec

try:  # the file reader is moving to its own module
    from sudya.adapters.scenario_file import load_scenario_file
except ImportError:
    from sudya.app.scenario import load_scenario_file  # type: ignore[attr-defined,no-redef]

HERE = Path(__file__).parent


def _specs(outcome: Outcome) -> Iterator[tuple[str, SanctionSpec]]:
    for i, s in enumerate(outcome.sanctions):
        yield f"sanctions[{i}]", s
    for name, specs in outcome.options.items():
        for i, s in enumerate(specs):
            yield f"options.{name}[{i}]", s
    if outcome.points:
        for i, s in enumerate(outcome.points.with_):
            yield f"points.with[{i}]", s


def _cells(holder: Any, prefix: str) -> Iterator[tuple[str, Outcome]]:
    """The penalty cells and repeat rows of an infraction or a variant."""
    if isinstance(holder.penalty, Outcome):
        yield f"{prefix}penalty", holder.penalty
    elif isinstance(holder.penalty, dict):
        for level, cell in holder.penalty.items():
            if cell is not None:
                yield f"{prefix}penalty.{level}", cell
    for i, row in enumerate(holder.repeats or []):
        yield f"{prefix}repeats[{i}]", row


@dataclass
class Branches:
    """What a rulebook has to be reached, keyed by the parsed object that stands for it."""

    levels: dict[str, list[str | None]] = field(default_factory=dict)  # infraction -> levels
    conditions: dict[int, str] = field(default_factory=dict)  # id(Formula) -> label
    rows: dict[int, str] = field(default_factory=dict)  # id(Outcome) -> label
    keep: list[Any] = field(default_factory=list)  # the objects, so their ids stay theirs


def _levels(book: Rulebook, inf: Infraction) -> list[str | None]:
    if not book.levels:
        return [None]
    out: list[str | None] = []
    for level in book.level_ids():
        if inf.applies and inf.applies.levels and level not in inf.applies.levels:
            continue
        cell = inf.penalty.get(level) if isinstance(inf.penalty, dict) else inf.penalty
        if cell is not None or any(v.penalty is not None for v in inf.variants):
            out.append(level)
    return out


def branches(book: Rulebook) -> Branches:
    out = Branches()

    def condition(f: Formula, label: str) -> None:
        assert id(f) not in out.conditions, f"{label} shares its condition object"
        out.conditions[id(f)] = label
        out.keep.append(f)

    for inf in book.infractions:
        out.levels[inf.id] = _levels(book, inf)
        holders: list[tuple[str, Any]] = [("", inf)]
        holders += [(f"variants[{i}].", v) for i, v in enumerate(inf.variants)]
        for prefix, holder in holders:
            if prefix:
                condition(holder.when, f"{inf.id}: {prefix}when ({holder.when.source})")
            for i, np in enumerate(holder.no_penalty_when):
                condition(np.when, f"{inf.id}: {prefix}no_penalty_when[{i}] "
                                   f"({np.when.source})")
            for path, cell in _cells(holder, prefix):
                if ".repeats[" in f".{path}":
                    out.rows[id(cell)] = f"{inf.id}: {path}"
                    out.keep.append(cell)
                for sub, spec in _specs(cell):
                    for i, w in enumerate(spec.waived_when):
                        condition(w.when, f"{inf.id}: {path}.{sub}.waived_when[{i}] "
                                          f"({w.when.source})")
    return out


@dataclass
class Reached:
    levels: set[tuple[str, str | None]] = field(default_factory=set)  # (infraction, level)
    objects: set[int] = field(default_factory=set)  # ids of conditions held true, rows used
    cases: int = 0


def _event_levels(scenario: dict[str, Any]) -> dict[str, Any]:
    """Event id -> the level of the tournament it happens in."""
    level = scenario.get("level")
    out: dict[str, Any] = {}
    for pos, event in enumerate(scenario.get("events") or [], start=1):
        if not isinstance(event, dict):
            continue
        tournament = event.get("tournament")
        if isinstance(tournament, dict) and tournament.get("level") is not None:
            level = tournament["level"]
        out[str(event.get("id", f"#{pos}"))] = level
    return out


@functools.cache
def reached() -> dict[str, Reached]:
    """Replay every case once, watching the rulebooks' conditions and rows."""
    seen: list[int] = []
    call, is_choice = Formula.__call__, Outcome.__dict__["is_choice"]

    def traced_call(self: Formula, names: Any) -> Any:
        value = call(self, names)
        if value:
            seen.append(id(self))
        return value

    def traced_is_choice(self: Outcome) -> bool:
        seen.append(id(self))
        return bool(is_choice.fget(self))

    out = {book_id: Reached() for book_id in loader.bundled_ids()}
    Formula.__call__ = traced_call  # type: ignore[method-assign]
    Outcome.is_choice = property(traced_is_choice)  # type: ignore[assignment,method-assign]
    try:
        for path in sorted(HERE.glob("*/*.yaml")):
            if path.with_suffix(".error.txt").exists():
                continue
            scenario = load_scenario_file(path)
            book_id = scenario.get("rulebook")
            if book_id not in out:
                continue
            seen.clear()
            try:
                result = replay(scenario)
            except ScenarioError:
                continue  # a refused scenario reaches nothing (its own test says why)
            got = out[book_id]
            got.cases += 1
            got.objects.update(seen)
            levels = _event_levels(scenario)
            for r in result["rulings"]:
                if r["infraction"] and r["cause"] != "none" and r["event"] in levels:
                    got.levels.add((r["infraction"], levels[r["event"]]))
    finally:
        Formula.__call__ = call  # type: ignore[method-assign]
        Outcome.is_choice = is_choice  # type: ignore[method-assign]
    return out


def test_replay_uses_the_loaders_cached_rulebook() -> None:
    """The watch matches objects by identity: replay must rule with loader.load's object."""
    book = loader.load("berserk")
    first = book.infraction("gameplay.missed-trigger")
    assert first is not None and first.no_penalty_when
    watched = first.no_penalty_when[0].when
    hits: list[Formula] = []
    call = Formula.__call__

    def traced_call(self: Formula, names: Any) -> Any:
        value = call(self, names)
        if value:
            hits.append(self)
        return value

    Formula.__call__ = traced_call  # type: ignore[method-assign]
    try:
        replay({"rulebook": "berserk", "level": "amateur", "date": "2026-03-01",
                "players": ["a"], "events": [{"infraction": "gameplay.missed-trigger",
                                              "player": "a", "details": {"optional": True}}]})
    finally:
        Formula.__call__ = call  # type: ignore[method-assign]
    assert any(h is watched for h in hits), (
        "replay did not evaluate the condition object of loader.load('berserk'): the rulebook "
        "is no longer shared (cached), so test_branch_coverage cannot match what was reached")


@pytest.mark.parametrize("book_id", loader.bundled_ids())
def test_every_branch_is_reached(book_id: str) -> None:
    book = loader.load(book_id)
    want = branches(book)
    got = reached()[book_id]
    assert got.cases > 0, f"no case of {book_id} replays without an error"
    missing = [f"{inf} at level {level}" if level else f"{inf} (never ruled on)"
               for inf, levels in want.levels.items() for level in levels
               if (inf, level) not in got.levels]
    missing += [label for key, label in want.conditions.items() if key not in got.objects]
    missing += [f"{label} (never the row a repeat was ruled by)"
                for key, label in want.rows.items() if key not in got.objects]
    assert not missing, (f"{book_id}: {len(missing)} branches reached by no case in "
                         f"tests/scenarios/{book_id}/:\n  " + "\n  ".join(missing))
