"""The rules engine: a rulebook, the history so far and one event in; rulings out.

Regulations: none of its own. Each mechanism lives in its module and cites what it
implements: offences (the tables, their details and conditions), sanctions (from a cell to
sanctions, a judge's choice), repeats, stacking, conversions, accumulation, validity,
aggravation (with decisions), cancellation (with revocation) and appeals (with
corrections). Here: the dispatcher, and the events that only change the state — a new
tournament, under a new edition when the rulebook changed (003 «Решение вопросов, не
урегулированных данной системой»: a precedent is in force from the next tournament), people
joining the series (and a removed player replaced: 004 intoxication, «с правом замены его на
другого игрока, играющего той же армией, или Couch'a», regulations.md §4 E9), and results
(refused for whoever is out of play: §4 E7, E9).

Shape: `RulesEngine` is the shared state (state.EngineState) plus `apply`, which hands each
event to its mechanism's function with the state. Pure: no I/O; nothing here knows a
rulebook's id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sudya.domain.engine import aggravation, appeals, offences, stacking
from sudya.domain.engine.model import (
    Appeal,
    Correction,
    Decision,
    EndOfMatch,
    Event,
    NewTournament,
    Offence,
    Replacement,
    Result,
    RosterChange,
    Ruling,
    Tournament,
)
from sudya.domain.engine.sanctions import AMOUNT_LIMIT, note
from sudya.domain.engine.state import EngineState
from sudya.domain.engine.validity import add_months
from sudya.domain.errors import RuleError

__all__ = ["AMOUNT_LIMIT", "RulesEngine", "add_months", "note"]


class RulesEngine(EngineState):
    """Rules on one event at a time, keeping the indexed history it needs."""

    def apply(self, event: Event) -> list[Ruling]:
        """Rule on one event; returns the rulings it made, in order."""
        handler = HANDLERS.get(type(event))
        if handler is None:
            handler = next((h for kind, h in HANDLERS.items() if isinstance(event, kind)),
                           None)
            if handler is None:
                raise TypeError(f"not an event the engine rules on: {type(event).__name__}")
        start = len(self.rulings)
        handler(self, event)
        return self.rulings[start:]


def new_tournament(state: EngineState, ev: NewTournament) -> None:
    """The next tournament of the series: its date, level and settings, maybe a new edition."""
    if ev.rulebook is not None and ev.rulebook is not state.book:
        # a new edition is in force from this tournament on (003: precedents)
        state.use_book(ev.rulebook)
    t = state.t
    state.t = Tournament(
        index=t.index + 1,
        date=ev.date,
        level=ev.level if ev.level is not None else t.level,
        settings=ev.settings if ev.settings is not None else t.settings,
    )
    state.keep_key(state.tournament_dates, state.t.index)
    state.tournament_dates[state.t.index] = state.t.date
    # the pools of stacking, conversions and status sanctions are the tournament's, and so
    # are the repeats counted within it (`by_infraction` is only read under this one's key)
    pools = (state.stack, state.stack_dirty, state.conv, state.out, state.replaced,
             state.by_infraction, state.cancellers)
    for pool in pools:
        state.keep(pool)
        pool.clear()


def roster_change(state: EngineState, ev: RosterChange) -> None:
    """People join the series: players, a team's members, judges."""
    roster = state.roster
    for player in ev.players:
        if player not in state.player_order:
            join(state, player)
    for team, members in ev.teams.items():
        state.keep_key(roster.teams, team)
        roster.teams[team] = list(members)
        for member in members:
            state.keep_key(roster.team_of, member)
            roster.team_of[member] = team
    state.keep(roster.judges)
    roster.judges.update(ev.judges)
    for rep in ev.replacements:
        replace(state, rep)


def join(state: EngineState, player: str) -> None:
    """A new player of the series, last in its order."""
    state.keep_key(state.player_order, player)
    state.player_order[player] = len(state.roster.players) if state.book.stacking else None
    state.keep_len(state.roster.players)
    state.roster.players.append(player)


def replace(state: EngineState, rep: Replacement) -> None:
    """A removed player's place taken, as the removal allows: same army, or the coach."""
    removal = state.out_of_play(rep.removed)
    if removal is None or removal.status != "removed":
        raise RuleError("replacement.not-removed", field="replace", player=rep.removed)
    if not removal.replaceable_by:
        raise RuleError("replacement.not-allowed", field="replace", player=rep.removed)
    if rep.removed in state.replaced:
        raise RuleError("replacement.already", field="replace", player=rep.removed,
                        by=state.replaced[rep.removed])
    if (rep.army is None) == (not rep.coach):
        raise RuleError("replacement.army-or-coach", field="army")
    how = "coach" if rep.coach else "same-army"
    if how not in removal.replaceable_by:
        raise RuleError(f"replacement.{how}-not-allowed", field="coach" if rep.coach
                        else "army", player=rep.removed)
    roster = state.roster
    team = roster.team_of.get(rep.removed)
    if rep.by == rep.removed or state.out_of_play(rep.by) is not None:
        raise RuleError("replacement.by-out", field="by", player=rep.by)
    elsewhere = roster.team_of.get(rep.by)
    if elsewhere is not None and elsewhere != team:
        raise RuleError("team.member-elsewhere", field="by", member=rep.by)
    if rep.by not in state.player_order:
        join(state, rep.by)
    if team is not None and rep.by not in roster.teams[team]:
        state.keep(roster.teams[team])
        roster.teams[team].append(rep.by)
        state.keep_key(roster.team_of, rep.by)
        roster.team_of[rep.by] = team
    state.keep_key(state.replaced, rep.removed)
    state.replaced[rep.removed] = rep.by


PLAYERS = ("players.0", "players.1")  # a result's two players, as the input names them


def result(state: EngineState, ev: Result) -> None:
    """A game's result, kept with its tournament for the standings."""
    for field, player in zip(PLAYERS, ev.players, strict=True):
        state.check_playing(player, field)
    state.keep_len(state.results)
    state.results.append((ev, state.t.index))
    state.keep_key(state.result_ids, ev.id)
    state.result_ids[ev.id] = state.result_ids.get(ev.id, 0) + 1


# event type -> the mechanism that rules on it (in the order `isinstance` falls back on)
HANDLERS: dict[type, Callable[[EngineState, Any], None]] = {
    Offence: offences.offence,
    EndOfMatch: stacking.end_of_match,
    NewTournament: new_tournament,
    Decision: aggravation.decision,
    Appeal: appeals.appeal,
    Result: result,
    Correction: appeals.correction,
    RosterChange: roster_change,
}
