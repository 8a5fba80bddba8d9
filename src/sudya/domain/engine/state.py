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
infraction so that the work per event does not grow with the length of the history. A trial
(`trial`, a preview) rules as usual and then undoes what it changed: every change to the state
is announced first (`keep`, `keep_key`, `keep_len`, `entry`), which does nothing outside one.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from sudya.domain.engine import accumulation, conversions, repeats, stacking, validity
from sudya.domain.engine.model import (
    DERIVED,
    Reason,
    Result,
    Roster,
    Ruling,
    Sanction,
    Tournament,
)
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Accumulation, Outcome, Rulebook

if TYPE_CHECKING:
    from sudya.domain.engine.offences import Declared

# causes of rulings that answer another event's rulings rather than an infraction of their own
ANSWERS = ("appeal", "cancellation", "decision")
NOT_PRIMARY = (*DERIVED, *ANSWERS)  # what an event's own rulings are not

V = TypeVar("V")
T = TypeVar("T", bound=Ruling | Sanction)


class EngineState:
    """A series' rulings so far and the indexes the mechanisms keep over them."""

    def __init__(self, rulebook: Rulebook, roster: Roster, tournament: Tournament) -> None:
        self.book = rulebook
        self.roster = roster
        self.t = tournament
        self.rulings: list[Ruling] = []
        self.results: list[tuple[Result, int]] = []
        self.corrected_results: dict[str, str] = {}  # a result's event -> its correction
        self.result_ids: dict[str, int] = {}  # a result's event -> how many of it count
        self.revocations: list[Sanction] = []  # in the order they were revoked
        self.last_seq = 0
        # event -> the rulings it made (`made`): the ruling itself, as most events make one
        self.primary: dict[str, Ruling | tuple[Ruling, ...]] = {}
        self.resolutions: dict[str, list[Ruling]] = defaultdict(list)  # event -> decisions
        # a pending ruling -> the table cell it waits on (its decision picks from it, or must
        # be stricter): kept here, not on each ruling, where a field was one slot of 25, 16
        # bytes more for every ruling (their objects come in sizes of 16 bytes)
        self.pending_cells: dict[Ruling, Outcome] = {}
        self.appeal_events: dict[str, None] = {}  # events that were appeals (an ordered set)
        self.tournament_dates = {tournament.index: tournament.date}
        # repeats: primary rulings with sanctions (or pending) by (tournament, subject,
        # infraction): within this tournament all of them, oldest first (emptied by the
        # next); across the series (`scope: validity`) by (subject, infraction) those that
        # may still count, with the day each stops (repeats.Tally; a lone ruling stands for
        # its own tally, None once it has left). A key of two: 8 bytes less each than with
        # the series' scope, the same in each (a clan season: 636,000 at 1,000,000 events)
        self.by_infraction: dict[tuple[int, str, str], list[Ruling]] = defaultdict(list)
        self.tallies: dict[tuple[str, str], repeats.Tally | Ruling | None] = {}
        self.ladder_by_rank = {rulebook.kind(k).rank: k for k in rulebook.ladder}
        # validity: subject -> kind -> the sanctions of that kind it bears, by last valid day;
        # a subject given one sanction so far: that sanction, a few (validity.FEW): a tuple
        # of them; None: a revocation left none
        self.held: dict[str, dict[str, list[Sanction]] | tuple[Sanction, ...] | Sanction
                        | None] = {}
        # validity: subject -> the last day it holds any punishment (None: none now); the
        # last day of a kind is that of the last of its list
        self.until: dict[str, dt.date | None] = {}
        # validity: while the rulebook never asks what subjects hold (validity.reads_held),
        # the sanctions given meanwhile, and from which of them on each edition was in force
        self.tracks_held = validity.reads_held(rulebook)
        self.untracked: list[Sanction] = []
        self.untracked_books: list[tuple[int, Rulebook]] = \
            [] if self.tracks_held else [(0, rulebook)]
        self.windows: dict[tuple[dt.date, Any], dt.date] = {}
        # tournament-scoped pools: stacking, conversions, status sanctions (who is out)
        self.stack: dict[str, list[Sanction]] = defaultdict(list)
        # subjects whose pool changed: a dict as an ordered set (a trial puts a dict back in
        # its order; a set's order depends on its history)
        self.stack_dirty: dict[str, None] = {}
        # every player of the series, in the roster's order (a dict as an ordered set: who
        # joins, and who the ledger knows); with each one's place in it (`place`) only while
        # the rulebook stacks, else None: an int each was 24 MB of a clan season of
        # 1,000,000 events (874,000 fighters), whose rulebook never asks
        self.player_order = _players(roster.players, rulebook)
        self.conv: dict[tuple[str, str], list[Sanction]] = defaultdict(list)
        self.out: dict[str, list[Sanction]] = defaultdict(list)
        # the series' pool of status sanctions that keep their bearer out of later tournaments
        # (a subject's one sanction itself, a tuple of several: most are disqualified once)
        self.series_out: dict[str, Sanction | tuple[Sanction, ...]] = {}
        # this tournament: a removed player -> who took their place
        self.replaced: dict[str, str] = {}
        # sanctions that run for a term (a suspension, §4 E13): subject -> its terms
        self.terms: dict[str, list[Term]] = {}
        # rulings holding their fight's result frozen until a decision (§4 E18): by event
        self.frozen: dict[str, Ruling] = {}
        # this tournament: the rulings of infractions that cancel others recorded after them
        # (§4 E14), by the cancelling infraction
        self.cancellers: dict[str, list[Ruling]] = defaultdict(list)
        # accumulation: (team, rule) -> heap of (the day it stops counting, seq, ruling) of
        # the team's rulings that count for the rule; a team's ruling (seq) -> its rule
        self.accum_heap: dict[tuple[str, int], list[tuple[dt.date, int, Ruling]]] = \
            defaultdict(list)
        self.accumulated_by: dict[int, Accumulation] = {}
        # derived rulings: a sanction (seq) -> the derived rulings that used it (`users`): the
        # ruling itself, as most are used once
        self.used_by: dict[int, Ruling | tuple[Ruling, ...]] = {}
        # sanctions: (subject, kind) reductions already granted once
        self.reduced: dict[tuple[str, str], None] = {}  # an ordered set
        # offences: per-infraction caches, and the names a tournament gives formulas
        self.spec_cache: dict[str, Declared] = {}
        self.note_cache: dict[str, tuple[Reason, ...]] = {}
        # (infraction, id of a shared reason) -> its notes and that reason (`add_shared_note`)
        self.longer_notes: dict[tuple[str, int], tuple[Reason, ...]] = {}
        # offences: details -> the one dict of them the rulings given them share
        self.details_cache: dict[tuple[Any, ...], dict[str, Any]] = {}
        self.context: tuple[Tournament, dict[str, Any]] | None = None
        # a trial's undo log (`trial`): None outside one
        self._undo: list[Callable[[], None]] | None = None
        self._kept: set[Any] = set()  # what the trial has saved already
        self._trial_seq = 0  # the last seq before the trial: rulings after it are its own

    # ------------------------------------------------------------------ trials
    def trial(self) -> Trial:
        """Rule inside as usual, then put the state back exactly as it was, exception or not
        (a preview: `with engine.trial(): rulings = engine.apply(event)`)."""
        return Trial(self)

    # Outside a trial the four steps below do nothing (a replay pays a call each); a trial
    # puts the journaling ones (`_journal_*`) on the state in their place while it runs.
    def keep(self, obj: Any) -> None:
        """Before a change to a list or a dict, or to the fields of a ruling or a sanction
        made before the trial: save what it holds (once per trial). No sets: one put back
        may iterate in another order, so the state keeps its sets of things as dicts."""

    def keep_key(self, where: dict[Any, Any], key: Any) -> None:
        """Before a key of a (large) dict is set: save that entry only (once per trial). A
        key removed must go through `keep` (put back, it would come last)."""

    def keep_len(self, items: list[Any]) -> None:
        """Before appending to a (long) list that is only ever appended to here: save its
        length (once per trial)."""

    def entry(self, where: dict[Any, V], key: Any) -> V:
        """`where[key]` of a defaultdict about to be changed (reading a missing key adds it):
        the entry and what it holds are saved first in a trial."""
        return where[key]

    def _journal_keep(self, obj: Any) -> None:
        undo = self._undo
        if undo is None or id(obj) in self._kept:
            return
        self._kept.add(id(obj))
        if isinstance(obj, list):
            items = obj.copy()

            def back() -> None:
                obj[:] = items
        elif isinstance(obj, dict):
            saved = obj.copy()

            def back() -> None:
                obj.clear()
                obj.update(saved)
        else:
            seq = obj.seq
            if seq == 0 or seq > self._trial_seq:
                return  # made in the trial: the rulings it returns keep what it did to them
            names = type(obj).__slots__
            values = [getattr(obj, n) for n in names]

            def back() -> None:
                for n, v in zip(names, values, strict=True):
                    setattr(obj, n, v)
        undo.append(back)

    def _journal_keep_key(self, where: dict[Any, Any], key: Any) -> None:
        undo = self._undo
        if undo is None or (mark := ("key", id(where), key)) in self._kept:
            return
        self._kept.add(mark)
        if key in where:
            value = where[key]
            undo.append(lambda: where.__setitem__(key, value))
        else:
            undo.append(lambda: where.pop(key, None))

    def _journal_keep_len(self, items: list[Any]) -> None:
        undo = self._undo
        if undo is None or (mark := ("len", id(items))) in self._kept:
            return
        self._kept.add(mark)
        n = len(items)

        def back() -> None:
            del items[n:]
        undo.append(back)

    def _journal_entry(self, where: dict[Any, V], key: Any) -> V:
        self._journal_keep_key(where, key)
        value = where[key]
        self._journal_keep(value)
        return value

    def use_book(self, rulebook: Rulebook) -> None:
        """Rule under another edition from now on."""
        self.keep(self.spec_cache)
        self.keep(self.note_cache)
        self.keep(self.longer_notes)
        windows_change = rulebook.validity != self.book.validity
        if rulebook.stacking and not self.book.stacking:  # it asks the players' places
            self.player_order = _players(self.roster.players, rulebook)
        self.book = rulebook
        reads = validity.reads_held(rulebook)
        if reads and not self.tracks_held:  # it asks what subjects hold: they are tracked
            validity.track_untracked(self)
        elif not reads:
            self.keep(self.untracked_books)
            self.untracked_books.append((len(self.untracked), rulebook))
        self.tracks_held = reads
        if windows_change:  # pending rulings count while the new edition's window lasts
            repeats.rewindow(self)
        self.ladder_by_rank = {rulebook.kind(k).rank: k for k in rulebook.ladder}
        self.spec_cache.clear()
        self.note_cache.clear()
        self.longer_notes.clear()

    # ------------------------------------------------------------------ the tournament
    def scope(self) -> int:
        """The key repeats are counted under: this tournament, or the whole series."""
        return self.t.index if self.book.repeats.scope == "tournament" else repeats.SERIES

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

    def place(self, subject: str) -> int:
        """A player's place in the roster's order (anyone else's, a team's: last); known
        while the rulebook stacks."""
        place = self.player_order.get(subject, len(self.player_order))
        assert place is not None, "the places of players are kept while the rulebook stacks"
        return place

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
        series = self.series_out.get(subject)
        if series is None:  # (most subjects, asked of every report and result)
            return None
        for s in _as_tuple(series):
            if not s.revoked and s.ruling is not None and s.ruling.tournament < self.t.index:
                return s
        return None

    def check_only_by(self, judge_id: str | None, roles: list[str], field: str = "judge"
                      ) -> None:
        """Only a judge of one of `roles` may do this (§4 E12): refused otherwise, naming the
        roles that may; a report naming no judge is refused too."""
        judge = self.roster.judges.get(judge_id) if judge_id is not None else None
        if judge is not None and judge.role in roles:
            return
        if judge_id is not None and judge is None:
            raise RuleError("judge.unknown", field=field, judge=judge_id)
        if judge is None:
            raise RuleError("judge.only-roles-required", field=field, roles=list(roles))
        raise RuleError("judge.only-roles", field=field, judge=judge.id, role=judge.role,
                        roles=list(roles))

    def running_term(self, subject: str) -> Term | None:
        """A term given in an earlier tournament that still runs on this one's date (§4 E13)."""
        for term in self.terms.get(subject, ()):
            s = term.sanction
            if term.lifted is None and not s.revoked and s.ruling is not None and \
                    s.ruling.tournament < self.t.index and (
                        term.until is None or term.until >= self.t.date):
                return term
        return None

    def check_playing(self, subject: str, field: str | None) -> None:
        """Refuse to record a subject as playing (an infraction, a result) while out of play;
        `field` names the input refused (None: "team" or "player", as the subject is)."""
        out_now, series = self.out, self.series_out
        team = self.roster.team_of.get(subject)
        if subject not in out_now and subject not in series and subject not in self.terms \
                and (team is None or (team not in out_now and team not in series)):
            return  # (nearly every report and result: neither it nor its team holds any)
        if subject in self.terms:
            term = self.running_term(subject)
            if term is not None:
                raise term_refusal(term, subject, field or "player")
        out = self.out_of_play(subject)
        whose = subject
        if out is None and team is not None and team != subject:
            out, whose = self.out_of_play(team), team
        if out is None:
            return
        if field is None:
            field = "team" if subject in self.roster.teams else "player"
        event = out.ruling.event if out.ruling is not None else ""
        if out.status == "removed":
            raise RuleError("player.removed", field=field, player=subject, event=event)
        if whose != subject:
            raise RuleError("team.disqualified-for-series", field=field, player=subject,
                            team=whose, event=event)
        raise RuleError("subject.disqualified-for-series", field=field, subject=subject,
                        event=event)

    # ------------------------------------------------------------------ recording
    def add_shared_note(self, ruling: Ruling, reason: Reason) -> None:
        """`ruling.add_notes(reason)` for a reason the engine shares (one per rule, or per
        number of a repeat): a ruling that showed only its infraction's notes gets a tuple
        shared by the rulings that show them and this reason (a clan season's held
        rulings: one in seven; a tuple of their own was 64 bytes each)."""
        base = self.note_cache.get(ruling.infraction or "")
        if base is None or ruling.notes is not base:
            ruling.add_notes(reason)
            return
        # the tuple holds the reason: no other object has its id while the entry is kept
        key = (ruling.infraction or "", id(reason))
        notes = self.longer_notes.get(key)
        if notes is None:
            self.keep_key(self.longer_notes, key)
            notes = self.longer_notes[key] = (*base, reason)
        ruling.notes = notes

    def new_ruling(self, event: str, subject: str, infraction: str | None, cause: str,
                   day: dt.date, round_: int | None = None, judge: str | None = None,
                   details: dict[str, Any] | None = None) -> Ruling:
        """A ruling of this tournament under the edition in force (not recorded yet)."""
        return Ruling(event=event, subject=subject, infraction=infraction, cause=cause,
                      tournament=self.t.index, round=round_, date=day, judge=judge,
                      edition=self.book.edition,
                      details=details if details is not None else {})

    def record(self, ruling: Ruling) -> Ruling:
        """Number a ruling and its sanctions, and tell every mechanism about them."""
        self.last_seq += 1
        ruling.seq = self.last_seq
        self.keep_len(self.rulings)
        self.rulings.append(ruling)
        if ruling.cause not in NOT_PRIMARY:
            self.add_primary(ruling)
        elif ruling.cause == "appeal":  # the decision on it is final: told without a walk
            self.keep_key(self.appeal_events, ruling.event)
            self.appeal_events[ruling.event] = None
        if ruling.infraction and (ruling.sanctions or ruling.pending) and \
                ruling.cause not in ANSWERS:
            repeats.track(self, ruling)
        for s in ruling.sanctions:
            self._register(s, ruling)
        if ruling.sanctions and self.book.accumulation:
            accumulation.track(self, ruling)
        return ruling

    def wait_on(self, ruling: Ruling, outcome: Outcome) -> None:
        """A ruling is pending on the table cell `outcome`."""
        self.keep_key(self.pending_cells, ruling)
        self.pending_cells[ruling] = outcome

    def add_primary(self, ruling: Ruling) -> None:
        """Index a ruling as one its event made."""
        # the ruling alone, or a tuple of them (not a list): a trial saves the entry alone
        self.keep_key(self.primary, ruling.event)
        self.primary[ruling.event] = _joined(self.primary.get(ruling.event), ruling)

    def made(self, event: str) -> tuple[Ruling, ...]:
        """The rulings an event made (its own, not the decisions on them), in order."""
        return _as_tuple(self.primary.get(event))

    def add_use(self, s: Sanction, derived: Ruling) -> None:
        """Index a derived ruling as one that used sanction `s`."""
        self.keep_key(self.used_by, s.seq)
        self.used_by[s.seq] = _joined(self.used_by.get(s.seq), derived)

    def users(self, s: Sanction) -> tuple[Ruling, ...]:
        """The derived rulings that used sanction `s`, in order."""
        return _as_tuple(self.used_by.get(s.seq))

    def _register(self, s: Sanction, ruling: Ruling) -> None:
        self.last_seq += 1
        s.seq = self.last_seq
        s.ruling = ruling
        if self.tracks_held:
            validity.track_until(self, s)
        else:  # no edition so far asks what subjects hold: tracked when one does
            self.keep_len(self.untracked)
            self.untracked.append(s)
        if s.status:
            self.entry(self.out, s.subject).append(s)
            kind = self.book.kind(s.kind)
            if kind.term is not None:
                self.keep_key(self.terms, s.subject)
                self.terms[s.subject] = [*self.terms.get(s.subject, ()), Term(
                    s, _term_until(ruling, kind.term.detail))]
            if s.scope == "series":
                self.keep_key(self.series_out, s.subject)
                self.series_out[s.subject] = _joined(self.series_out.get(s.subject), s)
        if self.book.stacking and not stacking.track(self, s, ruling):
            return
        if self.book.conversions:
            conversions.track(self, s)

    def after(self, event_id: str, made: list[Ruling], day: dt.date) -> None:
        """Conversions and accumulation triggered by the rulings just made."""
        if self.book.conversions:
            touched = {s.subject for r in made for s in r.sanctions}
            if touched:
                conversions.convert(self, event_id, touched, day)
        if self.book.accumulation and made:
            teams = {team for r in made if r.sanctions and (team := self.team(r.subject))}
            for team in sorted(teams):
                accumulation.accumulate(self, event_id, team, day, made[0].details)


class Term:
    """A sanction that runs for a term (§4 E13): its last day (None: until lifted), and the
    decision that lifted it (an event, None while it runs)."""

    __slots__ = ("sanction", "until", "lifted", "seq")

    def __init__(self, sanction: Sanction, until: dt.date | None) -> None:
        self.sanction = sanction
        self.until = until
        self.lifted: str | None = None
        self.seq = sanction.seq  # (a trial saves its fields as a ruling's: `keep`)


def _term_until(ruling: Ruling, detail: str) -> dt.date | None:
    value = ruling.details.get(detail)
    if isinstance(value, dt.date):
        return value
    return dt.date.fromisoformat(value) if isinstance(value, str) else None


def term_refusal(term: Term, subject: str, field: str) -> RuleError:
    """The refusal of a subject whose term runs: naming the term."""
    event = term.sanction.ruling.event if term.sanction.ruling is not None else ""
    if term.until is None:
        return RuleError("player.suspended-until-lifted", field=field, player=subject,
                         kind=term.sanction.kind, event=event)
    return RuleError("player.suspended-until", field=field, player=subject,
                     kind=term.sanction.kind, until=term.until.isoformat(), event=event)


def _players(players: list[str], rulebook: Rulebook) -> dict[str, int | None]:
    """The players, with their places in this order if the rulebook stacks."""
    if rulebook.stacking:
        return {p: i for i, p in enumerate(players)}
    return dict.fromkeys(players)


def _joined(items: T | tuple[T, ...] | None, item: T) -> T | tuple[T, ...]:
    """An index entry (of rulings, or sanctions) with one more: the first alone, then a
    tuple (a season's entries mostly hold one; a tuple of one was 64 bytes more each)."""
    if items is None:
        return item
    if isinstance(items, (Ruling, Sanction)):
        return (items, item)
    return (*items, item)


def _as_tuple(items: T | tuple[T, ...] | None) -> tuple[T, ...]:
    if items is None:
        return ()
    return (items,) if isinstance(items, (Ruling, Sanction)) else items


class Trial:
    """A trial on a state (`EngineState.trial`).

    Every change the mechanisms make goes through `keep`, `keep_key`, `keep_len` or `entry`
    first, which log how to undo it while a trial runs (and do nothing otherwise); the
    state's own attributes (the counter, the tournament, the edition, the caches) are saved
    whole. The rulings made inside are new objects and stay valid after it.
    """

    def __init__(self, state: EngineState) -> None:
        self.state = state
        self.attrs: dict[str, Any] = {}
        self.undo: list[Callable[[], None]] = []

    def __enter__(self) -> None:
        state = self.state
        if state._undo is not None:
            raise RuntimeError("a trial is already running")
        self.attrs = dict(state.__dict__)
        state._undo, state._kept, state._trial_seq = self.undo, set(), state.last_seq
        # the journaling steps in place of the state's (put back with its attributes)
        state.__dict__.update(keep=state._journal_keep, keep_key=state._journal_keep_key,
                              keep_len=state._journal_keep_len, entry=state._journal_entry)

    def __exit__(self, *exc: object) -> None:
        for step in reversed(self.undo):
            step()
        self.state.__dict__.clear()
        self.state.__dict__.update(self.attrs)
