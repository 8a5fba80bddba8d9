"""The engine's state: the history so far, its indexes, and the steps every mechanism shares.

Regulations: every ruling records the tournament and the rulebook edition it used (003
«Решение вопросов, не урегулированных данной системой»: a precedent is a new edition, in
force from the next tournament); who may rule is the rulebook's `roles` (004 «Главный судья»,
«Судья основной категории», «Младший судья»); a disqualified or suspended subject is out (002
«Значение и сила пенальти»). Out of play (nothing more may be recorded of them as playing): a
player removed from the tournament (004, intoxication: «немедленное удаление игрока с
турнира», regulations.md §4 E9) for the rest of it, and a fighter or team disqualified «с
турнира/чемпионата» (003, a sanction with `scope: series`, §4 E7) in every later tournament.

Shape: a shared state object passed to functions. `EngineState` holds the rulings and the
indexes the mechanisms keep (grouped below by the module that owns them) and the steps they
all take: a new ruling, recording it (each mechanism is told about what was recorded), who is
on which team, which judge may do what. Each mechanism is a module of functions that take
the state as their first argument; `core.RulesEngine` is this state plus the dispatcher.
Pure: no I/O; nothing here knows a rulebook's id. History is indexed by subject and
infraction so that the work per event does not grow with the length of the history.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from typing import Any

from sudya.engine import accumulation, conversions, stacking, validity
from sudya.engine.model import (
    Reason,
    Result,
    Roster,
    Ruling,
    Sanction,
    Tournament,
)
from sudya.errors import RuleError
from sudya.rulebooks.schema import Accumulation, Detail, Rulebook

# causes of rulings that answer another event's rulings rather than an infraction of their own
ANSWERS = ("appeal", "cancellation", "decision")


class EngineState:
    """A series' rulings so far and the indexes the mechanisms keep over them."""

    def __init__(self, rulebook: Rulebook, roster: Roster, tournament: Tournament) -> None:
        self.book = rulebook
        self.roster = roster
        self.t = tournament
        self.rulings: list[Ruling] = []
        self.results: list[tuple[Result, int]] = []
        self.corrected_results: dict[str, str] = {}  # a result's event -> its correction
        self.revocations: list[Sanction] = []  # in the order they were revoked
        self.last_seq = 0
        self.primary: dict[str, list[Ruling]] = {}  # event -> the rulings it made
        self.resolutions: dict[str, list[Ruling]] = defaultdict(list)  # event -> decisions
        self.tournament_dates = {tournament.index: tournament.date}
        # repeats: (scope, subject, infraction) -> primary rulings with sanctions, oldest first
        self.by_infraction: dict[tuple[int, str, str], list[Ruling]] = defaultdict(list)
        self.ladder_by_rank = {rulebook.kind(k).rank: k for k in rulebook.ladder}
        # validity: subject -> kind -> the sanctions of that kind it bears, by last valid day
        self.held: dict[str, dict[str, list[Sanction]]] = {}
        # validity: subject -> kind (None: any punishment) -> the last day it holds one
        self.until: dict[str, dict[str | None, dt.date]] = {}
        self.windows: dict[tuple[dt.date, Any], dt.date] = {}
        # tournament-scoped pools: stacking, conversions, status sanctions (who is out)
        self.stack: dict[str, list[Sanction]] = defaultdict(list)
        self.stack_dirty: set[str] = set()
        self.player_order = {p: i for i, p in enumerate(roster.players)}
        self.conv: dict[tuple[str, str], list[Sanction]] = defaultdict(list)
        self.out: dict[str, list[Sanction]] = defaultdict(list)
        # the series' pool of status sanctions that keep their bearer out of later tournaments
        self.series_out: dict[str, list[Sanction]] = defaultdict(list)
        # this tournament: a removed player -> who took their place
        self.replaced: dict[str, str] = {}
        # accumulation: (team, rule) -> heap of (the day it stops counting, seq, ruling) of
        # the team's rulings that count for the rule; a team's ruling (seq) -> its rule
        self.accum_heap: dict[tuple[str, int], list[tuple[dt.date, int, Ruling]]] = \
            defaultdict(list)
        self.accumulated_by: dict[int, Accumulation] = {}
        # derived rulings: a sanction (seq) -> the derived rulings that used it
        self.used_by: dict[int, list[Ruling]] = defaultdict(list)
        # sanctions: (subject, kind) reductions already granted once
        self.reduced: set[tuple[str, str]] = set()
        # offences: per-infraction caches, and the names a tournament gives formulas
        self.spec_cache: dict[str, dict[str, Detail]] = {}
        self.note_cache: dict[str, list[Reason]] = {}
        self.context: tuple[Tournament, dict[str, Any]] | None = None

    def use_book(self, rulebook: Rulebook) -> None:
        """Rule under another edition from now on."""
        self.book = rulebook
        self.ladder_by_rank = {rulebook.kind(k).rank: k for k in rulebook.ladder}
        self.spec_cache.clear()
        self.note_cache.clear()

    # ------------------------------------------------------------------ the tournament
    def scope(self) -> int:
        """The key repeats are counted under: this tournament, or the whole series."""
        return self.t.index if self.book.repeats.scope == "tournament" else -1

    def setting(self, name: str) -> Any:
        """A tournament setting, or its rulebook default for the level."""
        if name in self.t.settings:
            return self.t.settings[name]
        spec = self.book.settings.get(name)
        if spec is None:
            return None
        if self.t.level in spec.default_by_level:
            return spec.default_by_level[self.t.level]
        return spec.default

    def context_names(self) -> dict[str, Any]:
        """The names formulas and conditions read from the tournament (its settings with
        the rulebook's defaults for the level filled in)."""
        if self.context is None or self.context[0] is not self.t:
            settings = {name: self.setting(name) for name in self.book.settings}
            self.context = (self.t, {"tournament_level": self.t.level,
                                     "settings": {**settings, **self.t.settings}})
        return self.context[1]

    # ------------------------------------------------------------------ people
    def check_judge(self, judge_id: str | None, action: str, what: str) -> None:
        """A judge may do `action` (a role's `may`); `what` names the refusal's code."""
        if judge_id is None:
            return
        judge = self.roster.judges.get(judge_id)
        if judge is None:
            raise RuleError("judge.unknown", field="judge", judge=judge_id)
        role = self.book.roles.get(judge.role)
        if role is None:
            raise RuleError("judge.role-undefined", field="judge", judge=judge_id,
                            role=judge.role, roles=list(self.book.roles))
        if action not in role.may:
            raise RuleError(f"judge.may-not-{what}", field="judge", judge=judge_id,
                            role=judge.role)

    def team(self, subject: str) -> str | None:
        """The team a subject is (or belongs to), if any."""
        if subject in self.roster.teams:
            return subject
        return self.roster.team_of.get(subject)

    def pool(self, subject: str, pool: str) -> str:
        """Who owns the pool a subject's sanction goes into (`pool: team` pools per team)."""
        if pool == "team":
            return self.team(subject) or subject
        return subject

    def is_out(self, subject: str) -> bool:
        """Holds a status sanction (disqualified, suspended) that is not revoked."""
        held = self.out.get(subject)
        return held is not None and any(not s.revoked for s in held)

    def out_of_play(self, subject: str) -> Sanction | None:
        """The sanction that keeps a subject from playing now, if any.

        A removal from this tournament (§4 E9), or a disqualification for the series given in
        an earlier tournament (§4 E7; whatever its validity window: «с чемпионата»).
        """
        for s in self.out.get(subject, ()):
            if s.status == "removed" and not s.revoked:
                return s
        for s in self.series_out.get(subject, ()):
            if not s.revoked and s.ruling is not None and s.ruling.tournament < self.t.index:
                return s
        return None

    def check_playing(self, subject: str, field: str) -> None:
        """Refuse to record a subject as playing (an infraction, a result) while out of play."""
        out = self.out_of_play(subject)
        whose = subject
        if out is None:
            team = self.roster.team_of.get(subject)
            if team is not None and team != subject:
                out, whose = self.out_of_play(team), team
        if out is None:
            return
        event = out.ruling.event if out.ruling is not None else ""
        if out.status == "removed":
            raise RuleError("player.removed", field=field, player=subject, event=event)
        if whose != subject:
            raise RuleError("team.disqualified-for-series", field=field, player=subject,
                            team=whose, event=event)
        raise RuleError("subject.disqualified-for-series", field=field, subject=subject,
                        event=event)

    # ------------------------------------------------------------------ recording
    def new_ruling(self, event: str, subject: str, infraction: str | None, cause: str,
                   day: dt.date, round_: int | None = None, judge: str | None = None,
                   details: dict[str, Any] | None = None) -> Ruling:
        """A ruling of this tournament under the edition in force (not recorded yet)."""
        return Ruling(event=event, subject=subject, infraction=infraction, cause=cause,
                      tournament=self.t.index, round=round_, date=day, judge=judge,
                      edition=self.book.edition, details=details or {})

    def record(self, ruling: Ruling) -> Ruling:
        """Number a ruling and its sanctions, and tell every mechanism about them."""
        self.last_seq += 1
        ruling.seq = self.last_seq
        self.rulings.append(ruling)
        if not ruling.derived and ruling.cause not in ANSWERS:
            self.primary.setdefault(ruling.event, []).append(ruling)
        if ruling.infraction and (ruling.sanctions or ruling.pending) and \
                ruling.cause not in ANSWERS:
            self.by_infraction[(self.scope(), ruling.subject, ruling.infraction)].append(
                ruling)
        for s in ruling.sanctions:
            self._register(s, ruling)
        if ruling.sanctions and self.book.accumulation:
            accumulation.track(self, ruling)
        return ruling

    def _register(self, s: Sanction, ruling: Ruling) -> None:
        self.last_seq += 1
        s.seq = self.last_seq
        s.ruling = ruling
        validity.track_until(self, s)
        if s.status:
            self.out[s.subject].append(s)
            if s.scope == "series":
                self.series_out[s.subject].append(s)
        if self.book.stacking and not stacking.track(self, s, ruling):
            return
        if self.book.conversions:
            conversions.track(self, s)

    def after(self, event_id: str, made: list[Ruling], day: dt.date) -> None:
        """Conversions and accumulation triggered by the rulings just made."""
        touched = {s.subject for r in made for s in r.sanctions}
        if self.book.conversions and touched:
            conversions.convert(self, event_id, touched, day)
        if self.book.accumulation:
            teams = {t for r in made if r.sanctions
                     for t in [self.team(r.subject)] if t is not None}
            details = made[0].details if made else {}
            for team in sorted(teams):
                accumulation.accumulate(self, event_id, team, day, details)
