"""Recording a whole scenario through the service layer (`sudya ledger import-scenario`)."""

from __future__ import annotations

import uuid
from typing import Any

from sudya.app.core import Sudya
from sudya.app.ledger import Actor, Ledger
from sudya.app.readback import series_json
from sudya.app.scenario import Replay, replay
from sudya.domain import commands as c
from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import (
    Appeal,
    Decision,
    EndOfMatch,
    NewTournament,
    Offence,
    Result,
    RosterChange,
)
from sudya.domain.errors import ScenarioError
from sudya.domain.standings import entered


def import_scenario(ledger: Ledger, scenario: dict[str, Any], *, name: str | None = None,
                    actor: Actor | None = None) -> int:
    """Record a scenario as a new series; returns the series id. Wrong scenarios write nothing.

    Each of its events is sent as the command it is (sudya.app.core.Sudya.handle), by the
    owner of the database: the scenario names every judge, who need no account."""
    actor = actor or Actor(name="import-scenario")
    actor = Actor(name=actor.name, request_id=actor.request_id, owner=True)
    replay(scenario)  # a wrong scenario raises ScenarioError here, before any write
    results_once(Replay(scenario))  # and one the ledger would refuse half-way
    prepared = Replay(scenario)
    book = prepared.book
    app = Sudya(ledger)
    series = app.handle(c.CreateSeries(name=name or f"scenario {uuid.uuid4().hex[:8]}",
                                       rulebook=str(scenario["rulebook"])), actor)
    t0 = prepared.tournament
    number = 1
    tournament = app.handle(c.CreateTournament(
        series=series, name=f"T{number}", date=t0.date, level=t0.level, settings=t0.settings,
        edition=book.edition), actor)
    roster = prepared.roster

    def enter(tournament: int) -> None:
        """A scenario's people play in every tournament of its series: each is entered."""
        for player in roster.players:
            app.handle(c.AddPlayer(handle=player), actor, tournament)
        for team_id, members in roster.teams.items():
            app.handle(c.AddTeam(handle=team_id, members=members), actor, tournament)
        for judge in roster.judges.values():
            app.handle(c.AddJudge(handle=judge.id, role=judge.role, official=judge.official),
                       actor, tournament)

    enter(tournament)
    level, settings = t0.level, t0.settings
    for _label, ev in prepared.events:
        if isinstance(ev, NewTournament):
            number += 1
            level = ev.level if ev.level is not None else level
            settings = ev.settings if ev.settings is not None else settings
            tournament = app.handle(c.CreateTournament(
                series=series, name=f"T{number}", date=ev.date, level=level,
                settings=settings, edition=book.edition), actor)
            enter(tournament)
        elif isinstance(ev, RosterChange):  # a removed player's place taken (§4 E9)
            for rep in ev.replacements:
                app.handle(c.ReplacePlayer(replace=rep.removed, by=rep.by, army=rep.army,
                                           coach=rep.coach), actor, tournament)
        else:
            app.handle(command_of(ev, roster.teams), actor, tournament, event_id=ev.id)
    return int(series)


def command_of(ev: Any, teams: dict[str, list[str]]) -> c.Command:
    """The command a scenario's event is (as the replay decoded it)."""
    if isinstance(ev, Offence):
        team = ev.offender if ev.offender in teams else None
        return c.RecordInfraction(infraction=ev.infraction,
                                  player=None if team else ev.offender, team=team,
                                  judge=ev.judge, round=ev.round, date=ev.date,
                                  details=ev.details, choice=ev.choice)
    if isinstance(ev, EndOfMatch):
        return c.EndMatch(round=ev.round, players=None if ev.players is None
                          else list(ev.players))
    if isinstance(ev, Decision):
        return c.decode("decision", {
            "of": ev.of, "judge": ev.judge, "sanctions": ev.sanctions, "choice": ev.choice,
            "date": ev.date, "result": ev.result, "until": ev.until, "lift": ev.lift})
    if isinstance(ev, Appeal):
        return c.Appeal(of=ev.of, outcome=ev.outcome, judge=ev.judge, choice=ev.choice)
    if isinstance(ev, Result):
        return c.RecordResult(players=ev.players, score=ev.score, round=ev.round)
    raise TypeError(f"not a scenario event: {type(ev).__name__}")


def results_once(prepared: Replay) -> None:
    """The ledger takes a pair's result of a round once (a second one would count twice; the
    replay, by the scenario contract, counts every result given): a scenario with a second
    one is refused before anything is written, naming the event, as the ledger would."""
    engine = RulesEngine(prepared.book, prepared.roster, prepared.tournament)
    for at, ev in prepared.events:
        if isinstance(ev, Result):
            first = entered(engine.book, engine.roster, engine.rulings, engine.results, ev,
                            engine.t.index)
            if first is not None:
                raise ScenarioError("result.entered", at=at, field="players",
                                    event=first.id, round=ev.round,
                                    players=" — ".join(first.players),
                                    score="-".join(str(n) for n in first.score))
        engine.apply(ev)


def imported_json(ledger: Ledger, series: int) -> dict[str, Any]:
    """The imported series in the replay output format, read back from the database."""
    with ledger.factory() as session:
        return series_json(session, series)


__all__ = ["import_scenario", "imported_json"]
