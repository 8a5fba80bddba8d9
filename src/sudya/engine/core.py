"""The rules engine: a rulebook, the history so far and one event in; rulings out.

Pure: no I/O. Everything a regulation says comes from the rulebook; nothing here knows a
rulebook's id. History is indexed by subject and infraction so that the work per event does
not grow with the length of the history.
"""

from __future__ import annotations

import calendar
import datetime as dt
import heapq
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sudya.engine.model import (
    FOREVER,
    Appeal,
    ChoiceOption,
    Correction,
    Decision,
    EndOfMatch,
    Event,
    NewTournament,
    Offence,
    Offered,
    PointsOption,
    Reason,
    Result,
    Roster,
    RosterChange,
    Ruling,
    Sanction,
    Tournament,
)
from sudya.errors import RuleError
from sudya.rulebooks.schema import (
    Detail,
    Infraction,
    NoPenalty,
    Note,
    Outcome,
    Rulebook,
    SanctionKind,
)
from sudya.rulebooks.schema import Sanction as Spec

AMOUNT_LIMIT = 10**9  # no penalty is that large; beyond it the numbers are a typo


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day `months` later, clamped to the month's last day (12-31 + 2 → 02-28)."""
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return dt.date(year, month, min(day.day, last))


def note(n: Note) -> Reason:
    """A note of the rulebook's own (a waiver, a carry-over, an authority…) as a reason."""
    return Reason("rulebook.note", {"text": {"ru": n.ru, "en": n.en}}, n.source)


def _parse_date(value: Any) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        return dt.date.fromisoformat(value)
    raise ValueError("not a date")


class Engine:
    """Rules on one event at a time, keeping the indexed history it needs."""

    def __init__(self, rulebook: Rulebook, roster: Roster, tournament: Tournament) -> None:
        self.book = rulebook
        self.roster = roster
        self.t = tournament
        self.rulings: list[Ruling] = []
        self._seq = 0
        self._primary: dict[str, list[Ruling]] = {}
        self._resolutions: dict[str, list[Ruling]] = defaultdict(list)
        # (scope, subject, infraction) -> primary rulings with sanctions, oldest first
        self._by_infraction: dict[tuple[int, str, str], list[Ruling]] = defaultdict(list)
        # subject -> sanctions it bears (for validity, aggravation, lost_while)
        self._held: dict[str, list[Sanction]] = defaultdict(list)
        # subject -> kind (None: any punishment) -> the last day it holds one
        self._until: dict[str, dict[str | None, dt.date]] = {}
        self._windows: dict[tuple[dt.date, Any], dt.date] = {}
        # tournament-scoped pools
        self._stack: dict[str, list[Sanction]] = defaultdict(list)
        self._stack_dirty: set[str] = set()
        self._player_order = {p: i for i, p in enumerate(roster.players)}
        self._conv: dict[tuple[str, str], list[Sanction]] = defaultdict(list)
        self._out: dict[str, list[Sanction]] = defaultdict(list)  # status sanctions
        self._accum: dict[str, list[Ruling]] = defaultdict(list)
        # (team, accumulation rule) -> heap of the days its counted rulings stop counting
        self._accum_heap: dict[tuple[str, int], list[tuple[dt.date, int]]] = defaultdict(list)
        self._used_by: dict[int, list[Ruling]] = defaultdict(list)
        self._reduced: set[tuple[str, str]] = set()
        self._ladder_by_rank = {rulebook.kind(k).rank: k for k in rulebook.ladder}
        self.results: list[tuple[Result, int]] = []
        self.revocations: list[Sanction] = []  # in the order they were revoked
        self._tournament_dates = {tournament.index: tournament.date}
        self._spec_cache: dict[str, dict[str, Detail]] = {}
        self._note_cache: dict[str, list[Reason]] = {}
        self._context: tuple[Tournament, dict[str, Any]] | None = None

    # ------------------------------------------------------------------ dispatch
    def apply(self, event: Event) -> list[Ruling]:
        """Rule on one event; returns the rulings it made, in order."""
        start = len(self.rulings)
        if isinstance(event, Offence):
            self._offence(event)
        elif isinstance(event, EndOfMatch):
            self._end_of_match(event)
        elif isinstance(event, NewTournament):
            self._new_tournament(event)
        elif isinstance(event, Decision):
            self._decision(event)
        elif isinstance(event, Appeal):
            self._appeal(event)
        elif isinstance(event, Result):
            self.results.append((event, self.t.index))
        elif isinstance(event, Correction):
            self._correction(event)
        elif isinstance(event, RosterChange):
            self._roster_change(event)
        return self.rulings[start:]

    # ------------------------------------------------------------------ tournaments
    def _new_tournament(self, ev: NewTournament) -> None:
        if ev.rulebook is not None and ev.rulebook is not self.book:
            # a new edition is in force from this tournament on (003: precedents)
            self.book = ev.rulebook
            self._ladder_by_rank = {ev.rulebook.kind(k).rank: k for k in ev.rulebook.ladder}
            self._spec_cache.clear()
            self._note_cache.clear()
        self.t = Tournament(
            index=self.t.index + 1,
            date=ev.date,
            level=ev.level if ev.level is not None else self.t.level,
            settings=ev.settings if ev.settings is not None else self.t.settings,
        )
        self._tournament_dates[self.t.index] = self.t.date
        self._stack.clear()
        self._stack_dirty.clear()
        self._conv.clear()
        self._out.clear()

    def _scope(self) -> int:
        return self.t.index if self.book.repeats.scope == "tournament" else -1

    # ------------------------------------------------------------------ offences
    def _offence(self, ev: Offence) -> None:
        book = self.book
        inf = book.infraction(ev.infraction)
        if inf is None:
            raise RuleError("infraction.unknown", field="infraction", infraction=ev.infraction)
        self._check_judge(ev.judge, "rule", "rule")
        self._check_applies(inf)
        day = ev.date or self.t.date
        details = self._details(inf, ev.details)
        names = self._names(inf, ev.offender, details, ev.round)
        variant = None
        for candidate in inf.variants:
            if candidate.when(names):
                variant = candidate
                break
        penalty = variant.penalty if variant and variant.penalty is not None else inf.penalty
        # a variant with its own table brings its own repeats (none when it names none)
        repeats = (variant.repeats if variant and variant.penalty is not None
                   else inf.repeats)
        no_penalty = [*inf.no_penalty_when, *(variant.no_penalty_when if variant else [])]
        table = self._cell(penalty)
        subjects = [ev.offender]
        ap = inf.also_penalise
        # an event that draws no penalty is one ruling about its player, nobody else
        no_sanction = any(np.when(names) for np in no_penalty)
        if ap and not no_sanction and ap.when(names):
            other = details.get(ap.detail)
            if other and other != ev.offender:
                subjects.append(other)
        made: list[Ruling] = []
        for subject in subjects:
            sub_names = {**names, "offender": subject}
            made.append(self._rule_on(ev, inf, subject, day, details, sub_names,
                                      table, repeats, no_penalty))
        for ruling in made:
            if inf.cancels and ruling.sanctions:
                self._cancel(ev, inf, ruling)
        self._after(ev.id, made, day)

    def _rule_on(self, ev: Offence, inf: Infraction, subject: str, day: dt.date,
                 details: dict[str, Any], names: dict[str, Any], table: Outcome | None,
                 repeats: list[Outcome] | None, no_penalty: list[NoPenalty]) -> Ruling:
        book = self.book
        ruling = self._new_ruling(ev.id, subject, inf.id, "table", day, ev.round, ev.judge,
                                  details)
        ruling.notes.extend(self._notes_of(inf))
        if book.no_penalty_after_disqualification and self._is_out(subject):
            ruling.cause = "none"
            ruling.notes.append(note(book.no_penalty_after_disqualification))
            return self._record(ruling)
        for np in no_penalty:
            if np.when(names):
                ruling.cause = "none"
                ruling.notes.append(note(np.note))
                return self._record(ruling)
        if table is None:
            raise RuleError("infraction.no-penalty-at-level", field="infraction",
                            infraction=inf.id, level=self.t.level)
        key = (self._scope(), subject, inf.id)
        history = self._by_infraction.get(key)
        earlier = [r for r in history if self._counts(r, day)] if history else []
        if history and len(earlier) < len(history) and self.book.repeats.scope == "validity":
            # what can no longer count from this tournament on leaves the index, so the work
            # per event does not grow with a long season
            history[:] = [r for r in history if self._may_count_from(r, self.t.date)]
        names["earlier_count"] = len(earlier)
        for name in inf.sums:
            names[f"earlier_{name}"] = sum(
                r.details.get(name) or 0 for r in earlier if not r.pending or r.resolved_by
            )
        outcome = table
        if earlier and book.repeats.mode == "escalate":
            ruling.cause = "repeat"
            last = next(s for s in earlier[-1].sanctions if not s.attached and not s.revoked)
            kind = self._escalate(last.rank)
            principal = table.sanctions[0].kind if table.sanctions else kind
            if book.kind(principal).rank > book.kind(kind).rank and not table.is_choice:
                kind = principal
            outcome = Outcome(sanctions=[Spec(kind=kind)])
            ruling.notes.append(Reason("repeat.escalated",
                                       {"infraction": inf.id, "from": last.kind, "to": kind}))
        elif earlier and repeats:
            ruling.cause = "repeat"
            outcome = repeats[min(len(earlier), len(repeats)) - 1]
            ruling.notes.append(Reason("repeat.numbered",
                                       {"n": len(earlier) + 1, "infraction": inf.id}))
        elif book.aggravation and self._holds_valid(subject, day):
            ruling.cause = "aggravation"
            ruling.aggravated = True
            ruling.pending = True
            ruling.pending_outcome = outcome
            ruling.offered = list(self._build(outcome.sanctions, subject, day, details, names,
                                              ruling, inf, dry=True))
            ruling.notes.append(Reason("aggravation.pending"))
            return self._record(ruling)
        if outcome.is_choice:
            if ev.choice is None:
                ruling.pending = True
                ruling.pending_outcome = outcome
                ruling.offered = self._offered(outcome, subject, day, details, names, inf)
                ruling.notes.append(Reason("choice.pending"))
                return self._record(ruling)
            specs = self._choose(outcome, ev.choice)
            ruling.cause = "discretion"
        else:
            specs = list(outcome.sanctions)
            if outcome.amount:
                names["amount"] = self._choice_amount(ev.choice)
        ruling.sanctions = self._build(specs, subject, day, details, names, ruling, inf)
        if not ruling.sanctions:
            ruling.cause = "none"
        return self._record(ruling)

    def _cell(self, penalty: dict[str, Outcome | None] | Outcome | None) -> Outcome | None:
        if isinstance(penalty, dict):
            if self.t.level not in penalty or penalty[self.t.level] is None:
                raise RuleError("infraction.not-at-level", field="infraction",
                                level=self.t.level)
            return penalty[self.t.level]
        return penalty

    def _check_applies(self, inf: Infraction) -> None:
        cond = inf.applies
        if cond is None:
            return
        if cond.levels and self.t.level not in cond.levels:
            raise RuleError("infraction.only-levels", field="infraction", infraction=inf.id,
                            level=self.t.level, levels=list(cond.levels))
        for name, wanted in cond.settings.items():
            have = self.setting(name)
            if have != wanted:
                raise RuleError("infraction.only-with-setting", field="infraction",
                                infraction=inf.id, setting=name, wanted=wanted, have=have)

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

    def _check_judge(self, judge_id: str | None, action: str, what: str) -> None:
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

    # ------------------------------------------------------------------ details
    def details_spec(self, inf: Infraction) -> dict[str, Detail]:
        """The inputs an infraction declares, with the rulebook's common ones."""
        spec = self._spec_cache.get(inf.id)
        if spec is None:
            spec = self._spec_cache[inf.id] = {**self.book.common_details, **inf.details}
        return spec

    def _notes_of(self, inf: Infraction) -> list[Reason]:
        notes = self._note_cache.get(inf.id)
        if notes is None:
            notes = [Reason("rule.source", {"source": inf.source}, inf.source),
                     *(Reason("rule.interpretation", {"text": {"ru": n.ru, "en": n.en}},
                              n.source) for n in inf.interpretation)]
            self._note_cache[inf.id] = notes
        return notes

    def _details(self, inf: Infraction, given: dict[str, Any]) -> dict[str, Any]:
        spec = self.details_spec(inf)
        values: dict[str, Any] = {name: d.default for name, d in spec.items()}
        for name, raw in given.items():
            d = spec.get(name)
            values[name] = raw if d is None else self._detail_value(name, d, raw)
        names: dict[str, Any] | None = None
        for name, d in spec.items():
            if values.get(name) is not None or not (d.required or d.required_if):
                continue
            if not d.required:
                names = names or {**values, **self._context_names()}
                if not (d.required_if and d.required_if(names)):
                    continue
            raise RuleError("detail.required", field=f"details.{name}", infraction=inf.id)
        return values

    def _detail_value(self, name: str, d: Detail, raw: Any) -> Any:
        field = f"details.{name}"
        if raw is None:
            return None
        ok = True
        value = raw
        if d.type == "bool":
            ok = isinstance(raw, bool)
        elif d.type in ("int", "number"):
            ok = isinstance(raw, int | float) and not isinstance(raw, bool)
            if ok and d.type == "int":
                ok = float(raw).is_integer()
                value = int(raw) if ok else raw
            if ok and d.min is not None and value < d.min:
                raise RuleError("value.too-small", field=field, min=d.min)
            if ok and d.max is not None and value > d.max:
                raise RuleError("value.too-large", field=field, max=d.max)
        elif d.type == "player":
            ok = isinstance(raw, str)
            if ok and raw not in self.roster.team_of and raw not in self.roster.players:
                raise RuleError("player.unknown", field=field, player=raw)
        elif d.type == "enum":
            ok = raw in d.values
            if not ok:
                raise RuleError("value.not-one-of", field=field, values=list(d.values))
        elif d.type == "date":
            try:
                value = _parse_date(raw)
            except ValueError:
                ok = False
            else:
                ok = 1900 <= value.year <= 2999
        elif d.type == "map":
            ok = isinstance(raw, dict) and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in raw.values())
            value = dict(raw) if ok else raw
        elif d.type == "str":
            ok = isinstance(raw, str)
        if not ok:
            raise RuleError("value.wrong-type", field=field, type=d.type)
        return value

    def _context_names(self) -> dict[str, Any]:
        if self._context is None or self._context[0] is not self.t:
            self._context = (self.t, {"tournament_level": self.t.level,
                                      "settings": dict(self.t.settings)})
        return self._context[1]

    def _names(self, inf: Infraction, offender: str, details: dict[str, Any],
               round_: int | None) -> dict[str, Any]:
        return {**details, **self._context_names(), "offender": offender, "round": round_,
                "amount": None, "earlier_count": 0}

    # ------------------------------------------------------------------ history queries
    def _counts(self, ruling: Ruling, day: dt.date) -> bool:
        """Whether an earlier ruling still counts as an earlier offence (repeats)."""
        if ruling.revoked:
            return False
        live = [s for s in ruling.sanctions if not s.revoked]
        if ruling.sanctions and not live:
            return False
        if not ruling.sanctions and not ruling.pending:
            return False
        if self.book.repeats.scope == "validity":
            if ruling.pending:
                start = self._tournament_dates[ruling.tournament]
                return self._window(start, ruling.details) >= day
            return any(s.valid_on(day) for s in live)
        return True

    def _may_count_from(self, ruling: Ruling, day: dt.date) -> bool:
        """Whether an earlier ruling can still count as an offence on `day` or later."""
        if ruling.revoked:
            return False
        if ruling.pending:
            return True
        return any(not s.revoked and (s.valid_until is None or s.valid_until >= day)
                   for s in ruling.sanctions)

    def _holds_valid(self, subject: str, day: dt.date) -> bool:
        """Holds any valid sanction that is a punishment (flags for officials don't count)."""
        until = self._until.get(subject, {}).get(None)
        return until is not None and until >= day

    def _holds_kind(self, subject: str, kind: str, day: dt.date) -> bool:
        until = self._until.get(subject, {}).get(kind)
        return until is not None and until >= day

    def _track_until(self, s: Sanction) -> None:
        until = FOREVER if s.valid_until is None else s.valid_until
        held = self._until.setdefault(s.subject, {})
        keys: tuple[str | None, ...] = (s.kind,) if self.book.kind(s.kind).flag else (s.kind, None)
        for key in keys:
            if held.get(key, dt.date.min) < until:
                held[key] = until

    def _retrack(self, subject: str) -> None:
        """After a revocation: recompute what the subject holds."""
        self._until.pop(subject, None)
        for s in self._held.get(subject, ()):
            if not s.revoked:
                self._track_until(s)

    def _is_out(self, subject: str) -> bool:
        held = self._out.get(subject)
        return held is not None and any(not s.revoked for s in held)

    def _escalate(self, rank: int) -> str:
        ladder = self._ladder_by_rank
        if not ladder:
            raise RuleError("rulebook.no-ladder", field="infraction")
        # 002 «Сложение пенальти»: no multiple disqualification; the ladder's top is the cap
        higher = [r for r in ladder if r > rank]
        return ladder[min(higher)] if higher else ladder[max(ladder)]

    # ------------------------------------------------------------------ building sanctions
    def _window(self, day: dt.date, details: dict[str, Any]) -> dt.date:
        v = self.book.validity
        assert v is not None
        base = day
        if details.get(v.between_stages_detail):
            nxt = details.get(v.next_tournament_detail)
            if nxt is None:
                raise RuleError("detail.required-between-stages",
                                field=f"details.{v.next_tournament_detail}")
            base = _parse_date(nxt)
        key = (base, v.months)
        until = self._windows.get(key)
        if until is None:
            try:
                until = self._windows[key] = add_months(base, v.months)
            except ValueError:
                raise RuleError("date.too-far", field="date", date=base.isoformat()) from None
        return until

    def _valid_until(self, kind: SanctionKind, day: dt.date,
                     details: dict[str, Any]) -> dt.date | None:
        if self.book.validity is None:
            return None
        if not kind.expires:
            return FOREVER
        # 003 «Срок действия»: two months count from the tournament, not the moment
        return self._window(self.t.date, details)

    def _bearer(self, kind: SanctionKind, spec_subject: str | None, offender: str) -> str:
        lands = spec_subject or kind.lands_on
        if lands == "team":
            return self.roster.team_of.get(offender, offender)
        return offender

    def _build(self, specs: Iterable[Spec], offender: str, day: dt.date,
               details: dict[str, Any], names: dict[str, Any], ruling: Ruling,
               inf: Infraction | None, dry: bool = False) -> list[Sanction]:
        book = self.book
        out: list[Sanction] = []
        for spec in specs:
            if spec.when is not None and not spec.when(names):
                continue
            waiver = next((w for w in spec.waived_when if w.when(names)), None)
            if waiver is not None:
                ruling.notes.append(note(waiver.note))
                continue
            kind = book.kind(spec.kind)
            amount = spec.amount
            if spec.formula is not None:
                amount = int(spec.formula(names))
                if not -AMOUNT_LIMIT <= amount <= AMOUNT_LIMIT:
                    raise RuleError("formula.out-of-range", field="details", amount=amount,
                                    limit=AMOUNT_LIMIT)
            elif spec.amount_from_choice:
                amount = names.get("amount")
            if amount is not None and inf is not None and not dry:
                amount = self._reduce(inf, kind, offender, amount, names, ruling)
            kind = self._authorised(kind, ruling)
            if kind.lost_while and not dry:
                holder = self._bearer(book.kind(kind.lost_while.held), None, offender)
                if self._holds_kind(holder, kind.lost_while.held, day):
                    ruling.notes.append(note(kind.lost_while.note))
                    kind = book.kind(kind.lost_while.becomes)
            bearer = self._bearer(kind, spec.subject, offender)
            self._add(out, kind, bearer, amount, spec.score, False, day, details, names,
                      ruling)
        return out

    def _add(self, out: list[Sanction], kind: SanctionKind, bearer: str, amount: int | None,
             score: str | None, attached: bool, day: dt.date, details: dict[str, Any],
             names: dict[str, Any], ruling: Ruling) -> None:
        out.append(Sanction(kind=kind.id, subject=bearer, rank=kind.rank, amount=amount,
                            score=score, attached=attached,
                            valid_until=self._valid_until(kind, day, details)))
        for carry in kind.carry_over:
            if details.get(carry.detail):
                ruling.applies_to = {**(ruling.applies_to or {}), kind.id: carry.applies_to}
                ruling.notes.append(note(carry.note))
        for att in kind.comes_with:
            if att.when is not None and not att.when(names):
                continue
            self._add(out, self.book.kind(att.kind), bearer, att.amount, None, True, day,
                      details, names, ruling)

    def _authorised(self, kind: SanctionKind, ruling: Ruling) -> SanctionKind:
        auth = kind.issued_only_by
        if auth is None:
            return kind
        judge = self.roster.judges.get(ruling.judge or "")
        ok = (
            judge is not None
            and judge.role in auth.roles
            and (judge.official or not auth.official)
            and (not auth.levels or self.t.level in auth.levels)
        )
        if ok:
            return kind
        ruling.notes.append(note(auth.note))
        return self.book.kind(auth.otherwise)

    def _reduce(self, inf: Infraction, kind: SanctionKind, subject: str, amount: int,
                names: dict[str, Any], ruling: Ruling) -> int:
        for red in inf.reductions:
            if red.kind != kind.id or not red.when(names):
                continue
            key = (subject, kind.id)
            if red.once_per_subject and key in self._reduced:
                ruling.notes.append(Reason("reduction.already-granted", {"subject": subject}))
                continue
            self._reduced.add(key)
            ruling.notes.append(note(red.note))
            amount = int(red.formula({**names, "amount": amount}))
        return amount

    # ------------------------------------------------------------------ choices
    def _choose(self, outcome: Outcome, choice: Any) -> list[Spec]:
        if isinstance(choice, str) and choice in outcome.options:
            return list(outcome.options[choice])
        pr = outcome.points
        if pr is not None and isinstance(choice, dict) and set(choice) == {"points"}:
            n = choice["points"]
            if not isinstance(n, int) or isinstance(n, bool):
                raise RuleError("choice.points-not-whole", field="choice")
            lo, hi = sorted((pr.least, pr.most), key=abs)
            if not abs(lo) <= abs(n) <= abs(hi) or n > 0:
                raise RuleError("choice.out-of-range", field="choice", points=n, least=lo,
                                most=hi)
            return [Spec(kind=pr.kind, amount=n), *pr.with_]
        allowed = list(outcome.options)
        if pr is not None:
            allowed.append(f"{{points: {pr.least}..{pr.most}}}")
        raise RuleError("choice.not-offered", field="choice", choice=choice, offered=allowed)

    def _choice_amount(self, choice: Any) -> int:
        if isinstance(choice, dict) and set(choice) == {"amount"}:
            n = choice["amount"]
            if isinstance(n, int) and not isinstance(n, bool) and 0 < n <= AMOUNT_LIMIT:
                return n
        raise RuleError("choice.amount-required", field="choice")

    def _offered(self, outcome: Outcome, subject: str, day: dt.date, details: dict[str, Any],
                 names: dict[str, Any], inf: Infraction | None) -> list[Offered]:
        probe = Ruling(event="", subject=subject, infraction=None, cause="")
        offered: list[Offered] = []
        for name, specs in outcome.options.items():
            built = self._build(specs, subject, day, details, names, probe, inf, dry=True)
            offered.append(ChoiceOption(choice=name, sanctions=tuple(built)))
        if outcome.points:
            pr = outcome.points
            offered.append(PointsOption(least=pr.least, most=pr.most,
                                        with_=tuple(s.kind for s in pr.with_)))
        return offered

    # ------------------------------------------------------------------ recording
    def _new_ruling(self, event: str, subject: str, infraction: str | None, cause: str,
                    day: dt.date, round_: int | None = None, judge: str | None = None,
                    details: dict[str, Any] | None = None) -> Ruling:
        return Ruling(event=event, subject=subject, infraction=infraction, cause=cause,
                      tournament=self.t.index, round=round_, date=day, judge=judge,
                      edition=self.book.edition, details=details or {})

    def _record(self, ruling: Ruling) -> Ruling:
        self._seq += 1
        ruling.seq = self._seq
        self.rulings.append(ruling)
        if not ruling.derived and ruling.cause not in ("appeal", "cancellation", "decision"):
            self._primary.setdefault(ruling.event, []).append(ruling)
        if ruling.infraction and (ruling.sanctions or ruling.pending) and \
                ruling.cause not in ("appeal", "cancellation", "decision"):
            self._by_infraction[(self._scope(), ruling.subject, ruling.infraction)].append(
                ruling)
        for s in ruling.sanctions:
            self._register(s, ruling)
        if ruling.sanctions and self.book.accumulation:
            team = self._team(ruling.subject)
            if team is not None and ruling.cause != "accumulation":
                self._accum[team].append(ruling)
                self._accum_push(team, ruling)
        return ruling

    def _register(self, s: Sanction, ruling: Ruling) -> None:
        self._seq += 1
        s.seq = self._seq
        s.ruling = ruling
        self._held[s.subject].append(s)
        self._track_until(s)
        kind = self.book.kind(s.kind)
        if kind.status:
            self._out[s.subject].append(s)
        st = self.book.stacking
        if st and (not s.attached or st.counts_attached) and s.rank in self._ladder_ranks():
            if ruling.derived and not st.counts_derived:
                return
            self._stack[s.subject].append(s)
            self._stack_dirty.add(s.subject)
        for conv in self.book.conversions:
            if conv.source_kind == s.kind:
                self._conv[(self._pool(s.subject, conv.pool), s.kind)].append(s)

    def _ladder_ranks(self) -> dict[int, str]:
        return self._ladder_by_rank

    def _team(self, subject: str) -> str | None:
        if subject in self.roster.teams:
            return subject
        return self.roster.team_of.get(subject)

    def _pool(self, subject: str, pool: str) -> str:
        if pool == "team":
            return self._team(subject) or subject
        return subject

    # ------------------------------------------------------------------ derived rulings
    def _after(self, event_id: str, made: list[Ruling], day: dt.date) -> None:
        """Conversions and accumulation triggered by the rulings just made."""
        touched = {s.subject for r in made for s in r.sanctions}
        if self.book.conversions and touched:
            self._convert(event_id, touched, day)
        if self.book.accumulation:
            teams = {t for r in made if r.sanctions
                     for t in [self._team(r.subject)] if t is not None}
            details = made[0].details if made else {}
            for team in sorted(teams):
                self._accumulate(event_id, team, day, details)

    def _convert(self, event_id: str, subjects: Iterable[str], day: dt.date) -> None:
        changed = True
        while changed:
            changed = False
            for conv in self.book.conversions:
                pools = {self._pool(s, conv.pool) for s in subjects}
                for owner in sorted(pools):
                    pool = self._conv[(owner, conv.source_kind)]
                    live = [s for s in pool if not s.revoked and not s.consumed]
                    while len(live) >= conv.count:
                        used, live = live[: conv.count], live[conv.count:]
                        for s in used:
                            s.consumed = True
                        ruling = self._new_ruling(event_id, owner, None, "conversion", day)
                        ruling.uses = used
                        ruling.notes.append(Reason(
                            "conversion.made",
                            {"count": conv.count, "from": conv.source_kind, "to": conv.to},
                            conv.source))
                        self._add(ruling.sanctions, self.book.kind(conv.to), owner, None,
                                  None, False, day, {}, {}, ruling)
                        for s in used:
                            self._used_by[s.seq].append(ruling)
                        self._record(ruling)
                        subjects = {*subjects, owner}
                        changed = True
                    pool[:] = [s for s in pool if not s.revoked and not s.consumed]

    def _accum_push(self, team: str, ruling: Ruling) -> None:
        for i, acc in enumerate(self.book.accumulation):
            ends = [FOREVER if s.valid_until is None else s.valid_until
                    for s in ruling.sanctions
                    if not s.revoked and s.kind not in acc.ignore
                    and not self.book.kind(s.kind).flag]
            if ends:
                heapq.heappush(self._accum_heap[(team, i)], (max(ends), ruling.seq))

    def _accum_rebuild(self, team: str) -> None:
        """After a revocation: count the team's rulings again."""
        for i in range(len(self.book.accumulation)):
            self._accum_heap.pop((team, i), None)
        self._accum[team] = [r for r in self._accum[team] if not r.revoked]
        for r in self._accum[team]:
            self._accum_push(team, r)

    def _accumulate(self, event_id: str, team: str, day: dt.date,
                    details: dict[str, Any]) -> None:
        for i, acc in enumerate(self.book.accumulation):
            gives = {s.kind for s in acc.gives}
            if any(self._holds_kind(team, k, day) for k in gives):
                continue
            heap = self._accum_heap[(team, i)]
            while heap and heap[0][0] < day:  # no longer valid: stops counting for good
                heapq.heappop(heap)
            if len(heap) < acc.count:
                continue
            counted = [r for r in self._accum[team] if self._accum_counts(r, acc.ignore, day)]
            if len(counted) < acc.count:
                continue
            ruling = self._new_ruling(event_id, team, None, "accumulation", day,
                                      details=details)
            ruling.uses = [s for r in counted for s in r.sanctions if not s.revoked]
            ruling.notes.append(Reason("accumulation.made", {"count": len(counted)},
                                       acc.source))
            names = {**details, **self._context_names(), "offender": team}
            ruling.sanctions = self._build(acc.gives, team, day, details, names, ruling, None)
            for s in ruling.uses:
                self._used_by[s.seq].append(ruling)
            self._record(ruling)

    def _accum_counts(self, r: Ruling, ignore: list[str], day: dt.date) -> bool:
        return not r.revoked and any(
            s.valid_on(day) and s.kind not in ignore and not self.book.kind(s.kind).flag
            for s in r.sanctions)

    def _end_of_match(self, ev: EndOfMatch) -> None:
        st = self.book.stacking
        if st is None:
            return
        # only players whose pool changed since the last check can have a new three of a kind
        order = self._player_order
        subjects = sorted(self._stack_dirty, key=lambda p: order.get(p, len(order)))
        self._stack_dirty.clear()
        for subject in subjects:
            while not self._is_out(subject):
                group = self._three_of_a_kind(subject, st.count)
                if group is None:
                    break
                rank, used = group
                if st.consumes:
                    for s in used:
                        s.consumed = True
                ruling = self._new_ruling(ev.id, subject, None, "stacking", self.t.date,
                                          ev.round)
                ruling.uses = used
                kind = self.book.kind(self._escalate(rank))
                ruling.notes.append(Reason(
                    "stacking.made",
                    {"count": st.count, "rank": rank, "to": kind.id,
                     "infractions": [self._reason(s) for s in used]}, st.source))
                self._add(ruling.sanctions, kind, subject, None, None, False, self.t.date,
                          {}, {}, ruling)
                for s in used:
                    self._used_by[s.seq].append(ruling)
                self._record(ruling)

    @staticmethod
    def _reason(s: Sanction) -> str:
        r = s.ruling
        assert r is not None
        return r.infraction or f"{r.cause}@{r.event}"

    def _three_of_a_kind(self, subject: str, count: int) -> tuple[int, list[Sanction]] | None:
        pool = self._stack[subject]
        pool[:] = [s for s in pool if not s.revoked and not s.consumed]
        by_rank: dict[int, dict[str, Sanction]] = defaultdict(dict)
        for s in pool:
            by_rank[s.rank].setdefault(self._reason(s), s)
        for rank in sorted(by_rank):
            distinct = by_rank[rank]
            if len(distinct) >= count:
                return rank, sorted(distinct.values(), key=lambda s: s.seq)[:count]
        return None

    # ------------------------------------------------------------------ revocation
    def _revoke(self, event_id: str, sanctions: Iterable[Sanction], day: dt.date,
                by: Ruling) -> None:
        """Revoke sanctions; undo derived rulings that used them; re-run conversions."""
        queue = [(s, by) for s in sanctions if not s.revoked]
        touched: set[str] = set()
        undone: set[int] = set()
        while queue:
            s, revoker = queue.pop(0)
            if s.revoked:
                continue
            s.revoked = True
            s.revoked_by = revoker
            self.revocations.append(s)
            touched.add(s.subject)
            for derived in self._used_by.get(s.seq, ()):
                if derived.seq in undone or derived.revoked:
                    continue
                if derived.cause == "accumulation":
                    acc = self.book.accumulation[0]
                    left = {u.ruling.seq for u in derived.uses
                            if not u.revoked and u.ruling is not None}
                    if len(left) >= acc.count:
                        continue
                undone.add(derived.seq)
                derived.revoked = True
                undo = self._new_ruling(event_id, derived.subject, None, derived.cause, day)
                undo.revokes = derived.event
                undo.notes.append(Reason("revocation.derived",
                                         {"cause": derived.cause, "event": derived.event}))
                for u in derived.uses:
                    if not u.revoked:
                        u.consumed = False
                        self._return_to_pool(u)
                queue += [(x, undo) for x in derived.sanctions if not x.revoked]
                self._record(undo)
        for subject in touched:
            self._retrack(subject)
            team = self._team(subject) if self.book.accumulation else None
            if team is not None:
                self._accum_rebuild(team)
        if self.book.conversions and touched:
            self._convert(event_id, touched, day)

    def _return_to_pool(self, s: Sanction) -> None:
        st = self.book.stacking
        ruling = s.ruling
        if st and ruling is not None and ruling.tournament == self.t.index and \
                s.rank in self._ladder_by_rank and (not s.attached or st.counts_attached):
            pool = self._stack[s.subject]
            if s not in pool:
                pool.append(s)
                pool.sort(key=lambda x: x.seq)
                self._stack_dirty.add(s.subject)
        for conv in self.book.conversions:
            if conv.source_kind == s.kind and ruling is not None and \
                    ruling.tournament == self.t.index:
                pool = self._conv[(self._pool(s.subject, conv.pool), s.kind)]
                if s not in pool:
                    pool.append(s)
                    pool.sort(key=lambda x: x.seq)

    def _cancel(self, ev: Offence, inf: Infraction, ruling: Ruling) -> None:
        cancels = inf.cancels
        assert cancels is not None
        for target_id in cancels.infractions:
            key = (self._scope(), ruling.subject, target_id)
            for target in list(self._by_infraction.get(key, ())):
                if target.revoked or target.tournament != self.t.index:
                    continue
                if any(
                    (target.round != ruling.round) if name == "round"
                    else (target.details.get(name) != ruling.details.get(name)
                          or ruling.details.get(name) is None)
                    for name in cancels.same
                ):
                    continue
                target.revoked = True
                out = self._new_ruling(ev.id, ruling.subject, target.infraction,
                                       "cancellation", ruling.date or self.t.date, ev.round)
                out.revokes = target.event
                out.notes.append(note(cancels.note))
                self._record(out)
                self._revoke(ev.id, target.sanctions, ruling.date or self.t.date, out)

    # ------------------------------------------------------------------ decisions
    def _pending_of(self, of: str, field: str = "of") -> Ruling:
        rulings = self._primary.get(of)
        if not rulings:
            raise RuleError("event.no-ruling", field=field, event=of)
        pending = [r for r in rulings if r.pending and not r.revoked]
        if not pending:
            raise RuleError("event.not-pending", field=field, event=of)
        return pending[0]

    def _decision(self, ev: Decision) -> None:
        target = self._pending_of(ev.of)
        self._check_judge(ev.judge, "decide", "decide")
        if ev.judge and target.aggravated and self.book.aggravation and \
                self.book.aggravation.decided_by:
            role = self.roster.judges[ev.judge].role
            if role not in self.book.aggravation.decided_by:
                raise RuleError("decision.role-may-not", field="judge", judge=ev.judge,
                                role=role, roles=list(self.book.aggravation.decided_by))
        day = ev.date or self.t.date
        inf = self.book.infraction(target.infraction or "")
        outcome: Outcome = target.pending_outcome
        ruling = self._new_ruling(ev.id, target.subject, target.infraction, "decision", day,
                                  target.round, ev.judge, target.details)
        ruling.resolves = ev.of
        # §2.3: decided sanctions count their validity from the tournament of the decision,
        # not from where (or between which stages) the violation was ruled on
        details = self._without_validity_details(target.details)
        names = {**target.details, **self._context_names(), "offender": target.subject,
                 "round": target.round, "amount": None, "earlier_count": 0}
        if target.aggravated:
            if not ev.sanctions:
                raise RuleError("decision.sanctions-required", field="sanctions")
            specs = [self._decided_spec(i, s) for i, s in enumerate(ev.sanctions)]
            ruling.sanctions = self._build(specs, target.subject, day, details, names,
                                           ruling, inf, dry=False)
            for raw, s in zip(ev.sanctions, ruling.sanctions, strict=False):
                if raw.get("valid_until") is not None and not s.attached:
                    s.valid_until = _parse_date(raw["valid_until"])
            offered = self._build(outcome.sanctions, target.subject, day, details,
                                  names, Ruling(event="", subject="", infraction=None, cause=""),
                                  inf, dry=True)
            if not self._stricter(ruling.sanctions, offered):
                if not offered:
                    raise RuleError("decision.nothing-offered", field="sanctions")
                raise RuleError("decision.not-stricter", field="sanctions",
                                offered=[s.kind for s in offered])
        else:
            if ev.choice is None:
                raise RuleError("decision.choice-required", field="choice")
            specs = self._choose(outcome, ev.choice)
            ruling.sanctions = self._build(specs, target.subject, day, details, names,
                                           ruling, inf)
        target.pending = False
        target.resolved_by = ev.id
        self._record(ruling)
        self._resolutions[ev.of].append(ruling)
        self._after(ev.id, [ruling], day)

    def _without_validity_details(self, details: dict[str, Any]) -> dict[str, Any]:
        v = self.book.validity
        if v is None:
            return details
        drop = (v.between_stages_detail, v.next_tournament_detail)
        return {k: val for k, val in details.items() if k not in drop}

    def _decided_spec(self, i: int, raw: Any) -> Spec:
        if not isinstance(raw, dict) or "kind" not in raw:
            raise RuleError("sanction.kind-required", field=f"sanctions[{i}]")
        kind = raw["kind"]
        try:
            k = self.book.kind(kind)
        except KeyError:
            raise RuleError("sanction.unknown-kind", field=f"sanctions[{i}].kind",
                            kind=kind) from None
        amount = raw.get("amount")
        if k.amount == "required" and amount is None:
            raise RuleError("sanction.amount-required", field=f"sanctions[{i}].amount",
                            kind=kind)
        if amount is not None and (not isinstance(amount, int) or isinstance(amount, bool)):
            raise RuleError("value.not-whole", field=f"sanctions[{i}].amount")
        return Spec(kind=kind, amount=amount, score=raw.get("score"))

    def _severity(self, s: Sanction) -> tuple[int, int]:
        return (s.rank, abs(s.amount or 0))

    def _stricter(self, decided: list[Sanction], offered: list[Sanction]) -> bool:
        """Stricter: a more severe top sanction, or all of the table's and more."""
        dec = [s for s in decided if not s.attached]
        off = [s for s in offered if not s.attached]
        if not off:
            return bool(dec)
        if not dec:
            return False
        if max(map(self._severity, dec)) > max(map(self._severity, off)):
            return True
        remaining = list(dec)
        for o in off:
            match = next((d for d in remaining if d.kind == o.kind and
                          abs(d.amount or 0) >= abs(o.amount or 0)), None)
            if match is None:
                return False
            remaining.remove(match)
        return bool(remaining)

    # ------------------------------------------------------------------ appeals
    def _overturn(self, event_id: str, of: str, rulings: list[Ruling], judge: str | None,
                  cause: str, reason: Reason) -> None:
        """Revoke the rulings of event `of` (and decisions on them) by a new record each."""
        day = self.t.date
        for r in rulings:
            ruling = self._new_ruling(event_id, r.subject, r.infraction, cause, day, judge=judge)
            ruling.revokes = of
            ruling.notes.append(reason)
            r.revoked = True
            if r.pending:
                r.pending = False
                r.resolved_by = event_id
            self._record(ruling)
            victims = list(r.sanctions)
            for res in self._resolutions.get(of, ()):
                res.revoked = True
                victims += res.sanctions
            self._revoke(event_id, victims, day, ruling)

    def _correction(self, ev: Correction) -> None:
        """A judge corrects a mistaken record: its rulings are revoked by a new record."""
        rulings = [r for r in self._primary.get(ev.of, ()) if not r.revoked]
        if not rulings:
            raise RuleError("event.nothing-to-correct", field="of", event=ev.of)
        self._check_judge(ev.judge, "decide", "correct")
        self._overturn(ev.id, ev.of, rulings, ev.judge, "correction",
                       Reason("correction.made-because", {"reason": ev.reason}) if ev.reason
                       else Reason("correction.made"))

    def _roster_change(self, ev: RosterChange) -> None:
        roster = self.roster
        for player in ev.players:
            if player not in self._player_order:
                self._player_order[player] = len(roster.players)
                roster.players.append(player)
        for team, members in ev.teams.items():
            roster.teams[team] = list(members)
            for member in members:
                roster.team_of[member] = team
        roster.judges.update(ev.judges)

    def _appeal(self, ev: Appeal) -> None:
        rulings = [r for r in self._primary.get(ev.of, ()) if r.infraction]
        if not rulings:
            raise RuleError("event.nothing-to-appeal", field="of", event=ev.of)
        if any(r.appealed for r in rulings):
            raise RuleError("appeal.already", field="of", event=ev.of)
        appeals = self.book.appeals
        if appeals is None:
            raise RuleError("rulebook.no-appeals", field="appeal")
        if ev.judge is not None:
            self._check_judge(ev.judge, "hear-appeals", "hear-appeals")
            role = self.roster.judges[ev.judge].role
            if role not in appeals.heard_by:
                raise RuleError("appeal.heard-by", field="judge",
                                roles=list(appeals.heard_by))
        first = rulings[0]
        if first.judge is not None and first.judge in self.roster.judges:
            given_by = self.book.roles.get(self.roster.judges[first.judge].role)
            if given_by is not None and given_by.final:
                raise RuleError("appeal.final", field="of", event=ev.of,
                                role=self.roster.judges[first.judge].role)
        for r in rulings:
            r.appealed = True
        day = self.t.date
        if ev.outcome == "upheld":
            ruling = self._new_ruling(ev.id, first.subject, first.infraction, "appeal", day,
                                      judge=ev.judge)
            ruling.notes.append(Reason("appeal.upheld"))
            self._record(ruling)
        elif ev.outcome == "overturned":
            self._overturn(ev.id, ev.of, rulings, ev.judge, "appeal",
                           Reason("appeal.overturned"))
        elif ev.outcome == "frivolous":
            if appeals.frivolous is None:
                raise RuleError("rulebook.no-frivolous", field="outcome")
            ruling = self._new_ruling(ev.id, first.subject, first.infraction, "appeal", day,
                                      judge=ev.judge)
            ruling.notes.append(Reason("appeal.frivolous", {}, appeals.source))
            outcome = appeals.frivolous
            if ev.choice is None and outcome.is_choice:
                ruling.pending = True
                ruling.pending_outcome = outcome
                ruling.offered = self._offered(outcome, first.subject, day, {}, {}, None)
                self._record(ruling)
                self._primary.setdefault(ev.id, []).append(ruling)
                return
            specs = self._choose(outcome, ev.choice) if outcome.is_choice else \
                list(outcome.sanctions)
            names = {**self._context_names(), "offender": first.subject}
            ruling.sanctions = self._build(specs, first.subject, day, {}, names, ruling, None)
            self._record(ruling)
            self._after(ev.id, [ruling], day)
        else:
            raise RuleError("appeal.unknown-outcome", field="outcome", outcome=ev.outcome)

