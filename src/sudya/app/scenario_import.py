"""Recording a whole scenario through the service layer (`sudya ledger import-scenario`)."""

from __future__ import annotations

import uuid
from typing import Any

from sudya.app.ledger import Actor, Ledger
from sudya.app.readback import series_json
from sudya.app.scenario import Replay, replay
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
    """Record a scenario as a new series; returns the series id. Wrong scenarios write nothing."""
    actor = actor or Actor(name="import-scenario")
    replay(scenario)  # a wrong scenario raises ScenarioError here, before any write
    results_once(Replay(scenario))  # and one the ledger would refuse half-way
    prepared = Replay(scenario)
    book = prepared.book
    series = ledger.create_series(name=name or f"scenario {uuid.uuid4().hex[:8]}",
                                  rulebook=str(scenario["rulebook"]), actor=actor)
    t0 = prepared.tournament
    number = 1
    tournament = ledger.create_tournament(series=series, name=f"T{number}", date=t0.date,
                                          level=t0.level, settings=t0.settings,
                                          edition=book.edition, actor=actor)
    roster = prepared.roster
    for player in roster.players:
        ledger.add_player(tournament=tournament, handle=player, actor=actor)
    for team_id, members in roster.teams.items():
        ledger.add_team(tournament=tournament, handle=team_id, members=members, actor=actor)
    for judge in roster.judges.values():
        ledger.add_judge(tournament=tournament, handle=judge.id, role=judge.role,
                         official=judge.official, actor=actor)
    level, settings = t0.level, t0.settings
    for _label, ev in prepared.events:
        if isinstance(ev, Offence):
            offender_team = ev.offender if ev.offender in roster.teams else None
            ledger.record(tournament=tournament, infraction=ev.infraction,
                          player=None if offender_team else ev.offender, team=offender_team,
                          judge=ev.judge,
                          round=ev.round, date=ev.date, details=ev.details, choice=ev.choice,
                          event_id=ev.id, actor=actor)
        elif isinstance(ev, EndOfMatch):
            ledger.end_match(tournament=tournament, round=ev.round, players=ev.players,
                             event_id=ev.id, actor=actor)
        elif isinstance(ev, NewTournament):
            number += 1
            level = ev.level if ev.level is not None else level
            settings = ev.settings if ev.settings is not None else settings
            tournament = ledger.create_tournament(series=series, name=f"T{number}",
                                                  date=ev.date, level=level, settings=settings,
                                                  edition=book.edition, actor=actor)
        elif isinstance(ev, Decision):
            ledger.decide(tournament=tournament, of=ev.of, judge=ev.judge,
                          sanctions=ev.sanctions, choice=ev.choice, date=ev.date,
                          result=ev.result, until=ev.until, lift=ev.lift,
                          event_id=ev.id, actor=actor)
        elif isinstance(ev, Appeal):
            ledger.appeal(tournament=tournament, of=ev.of, outcome=ev.outcome, judge=ev.judge,
                          choice=ev.choice, event_id=ev.id, actor=actor)
        elif isinstance(ev, Result):
            ledger.record_result(tournament=tournament, players=ev.players, score=ev.score,
                                 round=ev.round, event_id=ev.id, actor=actor)
        elif isinstance(ev, RosterChange):  # a removed player's place taken (§4 E9)
            for rep in ev.replacements:
                ledger.replace_player(tournament=tournament, removed=rep.removed, by=rep.by,
                                      army=rep.army, coach=rep.coach, actor=actor)
    return series


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
