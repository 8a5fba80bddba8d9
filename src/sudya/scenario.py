"""Scenario replay: the public conformance contract (see docs and shared/spec/scenarios.md).

A scenario is a small tournament written as data; replaying it runs the real engine over its
events and returns every ruling, plus a summary per subject.
"""

from __future__ import annotations

import contextlib
import datetime as dt
from collections import Counter
from collections.abc import Iterator
from typing import Any

from sudya.bulk import paused_gc
from sudya.engine.core import Engine
from sudya.engine.model import (
    Appeal,
    Decision,
    EndOfMatch,
    Event,
    Judge,
    NewTournament,
    Offence,
    Result,
    Roster,
    Ruling,
    Tournament,
)
from sudya.errors import RulebookError, RuleError, ScenarioError
from sudya.rulebooks import loader
from sudya.rulebooks.schema import Rulebook
from sudya.views import RulingView, replay_result

EVENT_KEYS = ("infraction", "end-of-match", "tournament", "decision", "appeal", "result")


def _date(value: Any, where: str) -> dt.date:
    if isinstance(value, dt.datetime):
        value = value.date()
    if isinstance(value, str):
        with contextlib.suppress(ValueError):
            value = dt.date.fromisoformat(value)
    if isinstance(value, dt.date) and 1900 <= value.year <= 2999:
        return value
    raise ScenarioError(f"{where}: must be an ISO date such as 2026-03-01 (years 1900–2999), "
                        f"got {value!r}")


class Replay:
    """A scenario prepared for replay: rulebook, roster, first tournament, events."""

    def __init__(self, scenario: dict[str, Any]) -> None:
        if not isinstance(scenario, dict):
            raise ScenarioError("a scenario must be a mapping of keys")
        ref = scenario.get("rulebook")
        if not isinstance(ref, str) or not ref:
            raise ScenarioError("rulebook: required (a bundled rulebook id or a file path)")
        edition = scenario.get("edition")
        try:
            self.book: Rulebook = loader.load(ref, None if edition is None else str(edition))
        except RulebookError as exc:
            raise ScenarioError(f"rulebook: {exc}") from exc
        book = self.book
        level = scenario.get("level")
        if book.levels:
            if level is None:
                raise ScenarioError(
                    f"level: required by {book.id} ({', '.join(book.level_ids())})")
            if level not in book.level_ids():
                raise ScenarioError(
                    f"level: unknown level {level!r} ({', '.join(book.level_ids())})")
        elif level is not None:
            raise ScenarioError(f"level: {book.id} has no levels")
        if "date" not in scenario:
            raise ScenarioError("date: required (the tournament's date, ISO)")
        day = _date(scenario["date"], "date")
        settings = self._settings(scenario.get("settings"), "settings")
        self.roster = self._roster(scenario)
        self.tournament = Tournament(index=0, date=day, level=level, settings=settings)
        raw_events = scenario.get("events", [])
        if not isinstance(raw_events, list):
            raise ScenarioError("events: must be a list")
        self.events = list(self._events(raw_events))

    def _settings(self, raw: Any, where: str) -> dict[str, Any]:
        if raw is None:
            return {}
        if not isinstance(raw, dict):
            raise ScenarioError(f"{where}: must be a mapping")
        for key, value in raw.items():
            spec = self.book.settings.get(key)
            if spec is None:
                known = ", ".join(self.book.settings) or "none"
                raise ScenarioError(f"{where}.{key}: unknown setting (settings: {known})")
            kinds = {"bool": bool, "int": int, "str": str}
            if not isinstance(value, kinds[spec.type]):
                raise ScenarioError(f"{where}.{key}: must be a {spec.type}")
        return dict(raw)

    def _roster(self, sc: dict[str, Any]) -> Roster:
        players = sc.get("players", [])
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ScenarioError("players: must be a list of player ids")
        if len(set(players)) != len(players):
            dup = next(p for p, n in Counter(players).items() if n > 1)
            raise ScenarioError(f"players: {dup!r} is listed twice")
        teams = sc.get("teams") or {}
        if not isinstance(teams, dict):
            raise ScenarioError("teams: must map a team id to its players")
        for team, members in teams.items():
            if team in players:
                raise ScenarioError(f"teams.{team}: a team cannot share a player's id")
            if not isinstance(members, list):
                raise ScenarioError(f"teams.{team}: must be a list of players")
            for m in members:
                if m not in players:
                    raise ScenarioError(f"teams.{team}: unknown player {m!r}")
        judges: dict[str, Judge] = {}
        raw_judges = sc.get("judges") or {}
        if not isinstance(raw_judges, dict):
            raise ScenarioError("judges: must map a judge id to {role: ...}")
        for jid, spec in raw_judges.items():
            if not isinstance(spec, dict) or not isinstance(spec.get("role"), str):
                raise ScenarioError(f"judges.{jid}.role: required")
            if spec["role"] not in self.book.roles:
                known = ", ".join(self.book.roles) or "none"
                raise ScenarioError(
                    f"judges.{jid}.role: unknown role {spec['role']!r} (roles: {known})")
            judges[str(jid)] = Judge(id=str(jid), role=spec["role"],
                                     official=bool(spec.get("official", False)))
        return Roster(players=list(players), teams={str(t): list(m) for t, m in teams.items()},
                      judges=judges)

    def _events(self, raw: list[Any]) -> Iterator[tuple[str, Event]]:
        seen: set[str] = set()
        for pos, item in enumerate(raw, start=1):
            label = f"event #{pos}"
            if not isinstance(item, dict):
                raise ScenarioError(f"{label}: must be a mapping")
            eid = item.get("id", f"#{pos}")
            eid = str(eid)
            if "id" in item:
                label = f"event {eid} (#{pos})"
                if eid in seen:
                    raise ScenarioError(f"{label}: id: used twice")
            seen.add(eid)
            kinds = [k for k in EVENT_KEYS if k in item]
            if len(kinds) != 1:
                raise ScenarioError(
                    f"{label}: must have exactly one of {', '.join(EVENT_KEYS)}")
            try:
                yield label, self._event(eid, kinds[0], item, label)
            except ScenarioError:
                raise
            except (ValueError, TypeError) as exc:
                raise ScenarioError(f"{label}: {exc}") from exc

    def _event(self, eid: str, kind: str, item: dict[str, Any], label: str) -> Event:
        body = item[kind]
        roster = self.roster
        if kind == "infraction":
            if not isinstance(body, str):
                raise ScenarioError(f"{label}: infraction: must be an infraction id")
            if self.book.infraction(body) is None:
                raise ScenarioError(f"{label}: infraction: unknown infraction {body!r} "
                                    f"in {self.book.id}")
            if "team" in item:
                offender = item["team"]
                if not isinstance(offender, str) or offender not in roster.teams:
                    raise ScenarioError(f"{label}: team: unknown team {offender!r}")
            elif "player" in item:
                offender = item["player"]
                if not isinstance(offender, str) or offender not in roster.players:
                    raise ScenarioError(f"{label}: player: unknown player {offender!r}")
            else:
                raise ScenarioError(f"{label}: player: required (or team)")
            judge = self._judge(item.get("judge"), label)
            details = item.get("details") or {}
            if not isinstance(details, dict):
                raise ScenarioError(f"{label}: details: must be a mapping")
            return Offence(id=eid, infraction=body, offender=offender, judge=judge,
                           round=self._round(item.get("round"), label),
                           date=_date(item["date"], f"{label}: date") if "date" in item
                           else None,
                           details=dict(details), choice=item.get("choice"))
        if not isinstance(body, dict):
            if kind == "end-of-match" and body is None:
                body = {}
            else:
                raise ScenarioError(f"{label}: {kind}: must be a mapping")
        if kind == "end-of-match":
            return EndOfMatch(id=eid, round=self._round(body.get("round"), label))
        if kind == "tournament":
            if "date" not in body:
                raise ScenarioError(f"{label}: tournament.date: required")
            level = body.get("level")
            if level is not None and level not in self.book.level_ids():
                raise ScenarioError(f"{label}: tournament.level: unknown level {level!r}")
            settings = (self._settings(body["settings"], f"{label}: tournament.settings")
                        if "settings" in body else None)
            return NewTournament(id=eid, date=_date(body["date"], f"{label}: tournament.date"),
                                 level=level, settings=settings)
        if kind == "decision":
            of = self._of(body, kind, label)
            sanctions = body.get("sanctions")
            if sanctions is not None and not isinstance(sanctions, list):
                raise ScenarioError(f"{label}: decision.sanctions: must be a list")
            return Decision(id=eid, of=of, judge=self._judge(body.get("judge"), label),
                            sanctions=sanctions, choice=body.get("choice"),
                            date=_date(body["date"], f"{label}: decision.date")
                            if "date" in body else None)
        if kind == "appeal":
            of = self._of(body, kind, label)
            outcome = body.get("outcome")
            if outcome not in ("upheld", "overturned", "frivolous"):
                raise ScenarioError(
                    f"{label}: appeal.outcome: must be upheld, overturned or frivolous")
            return Appeal(id=eid, of=of, outcome=outcome,
                          judge=self._judge(body.get("judge"), label),
                          choice=body.get("choice", item.get("choice")))
        # result
        players = body.get("players")
        if not isinstance(players, list) or len(players) != 2:
            raise ScenarioError(f"{label}: result.players: must name two players")
        for p in players:
            if not isinstance(p, str) or p not in roster.players:
                raise ScenarioError(f"{label}: result.players: unknown player {p!r}")
        if players[0] == players[1]:
            raise ScenarioError(f"{label}: result.players: a player cannot play themselves")
        score = body.get("score")
        try:
            a, b = (int(x) for x in str(score).split("-"))
        except ValueError:
            raise ScenarioError(
                f"{label}: result.score: must look like \"12-8\", got {score!r}") from None
        return Result(id=eid, players=(players[0], players[1]), score=(a, b),
                      round=self._round(body.get("round"), label))

    def _of(self, body: dict[str, Any], kind: str, label: str) -> str:
        of = body.get("of")
        if of is None:
            raise ScenarioError(f"{label}: {kind}.of: required (the event it is about)")
        return str(of)

    def _judge(self, judge: Any, label: str) -> str | None:
        if judge is None:
            return None
        if not isinstance(judge, str) or judge not in self.roster.judges:
            raise ScenarioError(f"{label}: judge: unknown judge {judge!r}")
        return str(judge)

    @staticmethod
    def _round(value: Any, label: str) -> int | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise ScenarioError(f"{label}: round: must be a whole number")
        return value

    def run(self) -> tuple[Engine, list[Ruling]]:
        """Replay every event; a refused event raises ScenarioError naming it."""
        engine = Engine(self.book, self.roster, self.tournament)
        with paused_gc():
            for pos, (label, event) in enumerate(self.events, start=1):
                try:
                    engine.apply(event)
                except RuleError as exc:
                    named = label != f"event #{pos}"
                    raise ScenarioError(
                        exc.code, at=(event.id if named else None, pos),
                        field=f"{_field_prefix(event)}{exc.field}" if exc.field else "",
                        **exc.params) from exc
        return engine, engine.rulings


def _field_prefix(event: Event) -> str:
    if isinstance(event, Decision):
        return "decision."
    if isinstance(event, Appeal):
        return "appeal."
    return ""


def ruling_json(r: Ruling, with_validity: bool) -> dict[str, Any]:
    """One ruling in the replay output format."""
    return RulingView.of(r, with_validity).as_json()


def result_json(book: Rulebook, roster: Roster, rulings: list[Ruling],
                results: list[tuple[Result, int]]) -> dict[str, Any]:
    """The replay output format, from rulings however they were obtained."""
    return replay_result(book, roster, rulings, results).as_json()


def replay(scenario: dict[str, Any]) -> dict[str, Any]:
    """Replay a scenario (the dict form of a YAML/JSON scenario) and return the result."""
    prepared = Replay(scenario)
    engine, rulings = prepared.run()
    return result_json(engine.book, engine.roster, rulings, engine.results)
