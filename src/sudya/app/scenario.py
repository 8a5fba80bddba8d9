"""Scenario replay: the public conformance contract (see docs and shared/spec/scenarios.md).

A scenario is a small tournament written as data; replaying it runs the real engine over its
events and returns every ruling, plus a summary per subject.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sudya.adapters.scenario_file import load_scenario_file, plain
from sudya.app import views
from sudya.domain import commands
from sudya.domain.bulk import paused_gc
from sudya.domain.commands import CommandError
from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import (
    Appeal,
    Decision,
    Event,
    Result,
    Roster,
    RosterChange,
    Ruling,
    Tournament,
)
from sudya.domain.errors import RulebookError, RuleError, ScenarioError, SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

EVENT_KEYS = ("infraction", "end-of-match", "tournament", "decision", "appeal", "result",
              "roster")
_EVENT_KEYS = frozenset(EVENT_KEYS)  # (which of them an event holds, in one step)
LEDGER_KIND: dict[str, str] = {}  # scenario keys that name an event kind differently


INFRACTION_KEYS = ("infraction", "player", "team", "judge", "round", "date", "details",
                   "choice")


def _refused(exc: SudyaError, field: str = "", at: tuple[str | None, int] | None = None
             ) -> ScenarioError:
    """Any refusal as the scenario's, naming the event (where there is one) and the field."""
    return ScenarioError(exc.code, at=at, field=field or exc.field, where=exc.where,
                         **exc.params)


class Replay:
    """A scenario prepared for replay: rulebook, roster, first tournament, events."""

    def __init__(self, scenario: dict[str, Any]) -> None:
        if not isinstance(scenario, dict):
            raise ScenarioError("scenario.not-mapping")
        ref = scenario.get("rulebook")
        if not isinstance(ref, str) or not ref:
            raise ScenarioError("scenario.rulebook-required", field="rulebook")
        edition = scenario.get("edition")
        try:
            self.book: Rulebook = loader.load(ref, None if edition is None else str(edition))
        except RulebookError as exc:
            raise _refused(exc, "rulebook") from exc
        book = self.book
        level = scenario.get("level")
        if book.levels and level is None:
            raise ScenarioError("level.required", field="level", rulebook=book.id,
                                levels=list(book.level_ids()))
        if not book.levels and level is not None:
            raise ScenarioError("level.none", field="level", rulebook=book.id)
        if "date" not in scenario:
            raise ScenarioError("scenario.date-required", field="date")
        try:
            first = commands.decode("tournament", {
                "date": scenario["date"], "level": level,
                "settings": scenario.get("settings") or {}})
            commands.fits(first, book)
            self.roster = self._roster(scenario)
        except CommandError as exc:
            raise _refused(exc) from exc
        assert isinstance(first, commands.NewTournament)
        self.tournament = Tournament(index=0, date=first.date, level=first.level,
                                     settings=dict(first.settings or {}))
        # the players the file names, as a set: a season's roster is long (commands.known)
        self.entered = set(self.roster.players)
        raw_events = scenario.get("events", [])
        if not isinstance(raw_events, list):
            raise ScenarioError("value.wrong-type", field="events", type="list")
        self.events = list(self._events(raw_events))

    def _roster(self, sc: dict[str, Any]) -> Roster:
        players, teams = sc.get("players", []), sc.get("teams") or {}
        cmd = commands.decode("roster", {"players": players, "teams": teams,
                                         "judges": sc.get("judges") or {}})
        assert isinstance(cmd, commands.ChangeRoster)
        if len(set(cmd.players)) != len(cmd.players):
            dup = next(p for p, n in Counter(cmd.players).items() if n > 1)
            raise CommandError("players.twice", field="players", player=dup)
        named = set(cmd.players)  # a season's roster is long: never a list scan per member
        for team, members in cmd.teams.items():
            if team in named:
                raise CommandError("handle.is-player", field=f"teams.{team}", handle=team)
            for member in members:
                if member not in named:
                    raise CommandError("player.unknown", field=f"teams.{team}", player=member)
        for jid, judge in cmd.judges.items():
            if judge.role not in self.book.roles:
                raise CommandError("role.unknown", field=f"judges.{jid}.role", role=judge.role,
                                   roles=list(self.book.roles) or ["—"])
        change = cmd.event("")
        return Roster(players=list(change.players), teams=change.teams, judges=change.judges)

    def _events(self, raw: list[Any]) -> Iterator[tuple[tuple[str | None, int], Event]]:
        seen: set[str] = set()
        for pos, item in enumerate(raw, start=1):
            if not isinstance(item, dict):
                raise ScenarioError("event.not-mapping", at=(None, pos))
            named = "id" in item
            eid = str(item["id"]) if named else f"#{pos}"
            at = (eid if named else None, pos)
            if named and eid in seen:
                raise ScenarioError("event.id-twice", at=at, field="id")
            seen.add(eid)
            kinds = _EVENT_KEYS.intersection(item)
            if len(kinds) != 1:
                raise ScenarioError("event.one-kind", at=at, kinds=list(EVENT_KEYS))
            [kind] = kinds
            try:
                yield at, self._event(eid, kind, item)
            except CommandError as exc:
                raise _refused(exc, at=at) from exc

    def _event(self, eid: str, kind: str, item: dict[str, Any]) -> Event:
        """One event of the scenario through the one decoder (sudya.domain.commands): the plain
        common case at once (commands.quick_event), anything else the full way."""
        if kind == "infraction":
            # most reports are decided at once from the item itself but its id (the quick way
            # declines a key it does not take); otherwise from the fields of a report alone,
            # as the decoder is given them
            fields = item.copy()
            fields.pop("id", None)
            quick = commands.quick_event(kind, fields, eid, self.book, self.roster,
                                         self.entered)
            if quick is not None:
                return quick
            raw, prefix = {k: item[k] for k in INFRACTION_KEYS if k in item}, ""
        else:
            raw, prefix = item[kind], kind
            if kind == "end-of-match" and raw is None:
                raw = {}
            if kind == "appeal" and isinstance(raw, dict) and "choice" not in raw \
                    and "choice" in item:
                raw = {**raw, "choice": item["choice"]}
        quick = commands.quick_event(kind, raw, eid, self.book, self.roster, self.entered)
        if quick is not None:
            return quick
        cmd = commands.decode(LEDGER_KIND.get(kind, kind), raw, prefix)
        commands.fits(cmd, self.book, prefix)
        commands.known(cmd, self.roster, self.entered)
        return cmd.event(eid)  # type: ignore[attr-defined,no-any-return]

    def run(self) -> tuple[RulesEngine, list[Ruling]]:
        """Replay every event; a refused event raises ScenarioError naming it."""
        engine = RulesEngine(self.book, self.roster, self.tournament)
        with paused_gc():
            for at, event in self.events:
                try:
                    engine.apply(event)
                except RuleError as exc:
                    raise _refused(exc, f"{_field_prefix(event)}{exc.field}"
                                   if exc.field else "", at) from exc
        return engine, engine.rulings


def _field_prefix(event: Event) -> str:
    if isinstance(event, Decision):
        return "decision."
    if isinstance(event, Appeal):
        return "appeal."
    if isinstance(event, RosterChange):
        return "roster."
    return ""


def ruling_json(r: Ruling, with_validity: bool) -> dict[str, Any]:
    """One ruling in the replay output format."""
    return views.ruling_json(r, with_validity)


def result_json(book: Rulebook, roster: Roster, rulings: list[Ruling],
                results: list[tuple[Result, int]]) -> dict[str, Any]:
    """The replay output format, from rulings however they were obtained."""
    return views.replay_json(book, roster, rulings, results)


def replay(scenario: dict[str, Any]) -> dict[str, Any]:
    """Replay a scenario (the dict form of a YAML/JSON scenario) and return the result.

    It is read as a scenario file is (sudya.adapters.scenario_file.plain): NaN, lone surrogates,
    nesting deeper than a file may hold are a ScenarioError, whoever calls."""
    prepared = Replay(plain(scenario))
    engine, rulings = prepared.run()
    return result_json(engine.book, engine.roster, rulings, engine.results)


def replay_file_text(path: str | Path) -> Iterator[bytes | memoryview]:
    """Replay a scenario file and return its result as JSON text in pieces (what `sudya replay
    FILE` prints: `json.dumps(replay(scenario), ensure_ascii=False, indent=2)` and a newline).

    The replay runs before this returns, so a refused scenario raises ScenarioError before
    a byte is written; the output is then made as it is written. The file's data (plain
    already: sudya.adapters.scenario_file.load_scenario_file's) is let go once its events are
    decided: a season's file is 10s of MB of dicts and texts, whose memory the engine then
    takes up again rather than the system's fresh pages."""
    prepared = Replay(load_scenario_file(path))
    engine, rulings = prepared.run()
    return views.replay_json_chunks(engine.book, engine.roster, rulings, engine.results)
