"""Repeats: an infraction the subject has already been penalised for.

002 «Сложение пенальти» (`repeats.mode: escalate`): a penalty for the same reason is one rank
above the *last* penalty for that infraction, walking the rulebook's `ladder` and capped at
its top (no multiple disqualification); a table penalty above the escalated one stands.
003 «Особая часть» (рецидив) and 004's table «1 раз / 2 раз / 3 раз» (`repeats.mode: table`):
the infraction's own `repeats` rows, the last row for every later repeat; 003 «Назначение
каторги» п.2: `earlier_<detail>` sums for the recidivism formula. Infractions of one
`repeat_group` count together (§4 E15: attacks by an undeclared character on a participant
and on an organiser are one violation for recidivism). `repeats.scope`: earlier
offences count for the tournament (002) or while one of their sanctions is valid (003 «Срок
действия наказаний»). Revoked and cancelled rulings never count (000 §7.3).

Shape: functions on the shared `EngineState` (state.py). Per (scope, subject, infraction):
within a tournament, the list of earlier rulings (short); across the series, a `Tally` of
those that may still count with the day each stops, kept as rulings are made, revoked and
decided, so a report's work does not grow with the subject's history. Most subjects offend
once per infraction: their tally is that ruling itself (a `Tally` is made at the second),
whose last day and sums are found from it when asked.
"""

from __future__ import annotations

import datetime as dt
import heapq
from typing import TYPE_CHECKING, Any, NamedTuple

from sudya.domain.engine import validity
from sudya.domain.engine.model import FOREVER, Reason, Ruling
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Infraction, Outcome
from sudya.domain.rulebook.schema import SanctionSpec as Spec

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


SERIES = -1  # the scope key of repeats that count across the series (`scope: validity`)


class Earlier(NamedTuple):
    """The subject's earlier rulings for an infraction that still count: how many, and the
    last of them (what an escalation starts from)."""

    number: int
    last: Ruling | None


NONE_EARLIER = Earlier(0, None)  # (most reports: the subject's first of the infraction)


class Tally(NamedTuple):
    """A subject's rulings for one infraction that may still count (`scope: validity`).

    `live`: seq -> ruling, in the order they were made; `ends`: a heap of (the last day a
    ruling counts, seq), where an entry left behind by a change (the ruling gone, its day
    earlier now) is skipped when it comes up, and every ruling in `live` has an entry no
    later than its day; `sums`: the numeric details of the rulings with sanctions (a pending
    one has none, and leaves when decided) for `earlier_<detail>`. So a report asks "how
    many, and what sums" without walking the subject's history, however long it is.

    What a tally answers depends only on which rulings are left in `live` and their last
    days now: one drops out when asked on a day past its last (or when it stops counting at
    all). So a tally of one ruling is kept as the ruling itself (`state.tallies` holds a
    `Ruling` or a `Tally`; None once that ruling dropped out): the same answers, without
    the four containers (a season's most numerous objects).
    """

    live: dict[int, Ruling]
    ends: list[tuple[dt.date, int]]
    sums: dict[str, Any]


def track(state: EngineState, ruling: Ruling) -> None:
    """Index a new ruling with sanctions (or pending) as an earlier offence of its subject.

    Within a tournament (`scope: tournament`) the list is short and kept whole (cancellation
    reads it too); across the series (`scope: validity`) the ruling joins its tally, until
    it stops counting: revoked, decided (`changed`), or its day is past (`earlier`).
    """
    group = state.book.repeat_key(ruling.infraction or "")
    if state.book.repeats.scope != "validity":
        state.entry(state.by_infraction, (state.scope(), ruling.subject, group)).append(ruling)
        return
    end = last_day(state, ruling)
    if end is None:
        return
    key = (ruling.subject, group)
    tally = state.tallies.get(key)
    if tally is None:  # the subject's first that counts: the ruling stands for its tally
        state.keep_key(state.tallies, key)
        state.tallies[key] = ruling
        return
    if isinstance(tally, Ruling):  # the second: a tally of both
        tally = _promote(state, key, tally)
    state.keep(tally.live)
    tally.live[ruling.seq] = ruling
    if ruling.sanctions:
        state.keep(tally.sums)
        _add_details(tally.sums, ruling.details, 1)
    _push(state, tally, end, ruling.seq)


def _promote(state: EngineState, key: tuple[str, str], only: Ruling) -> Tally:
    """The tally a lone ruling stood for, made when a second joins it: as it would be had it
    been made with the first (a tally holds no more than its rulings and their days)."""
    tally = Tally({}, [], {})
    end = last_day(state, only)
    if end is not None:  # (it has: a ruling that stops counting leaves at once)
        tally.live[only.seq] = only
        if only.sanctions:
            _add_details(tally.sums, only.details, 1)
        tally.ends.append((end, only.seq))
    state.keep_key(state.tallies, key)
    state.tallies[key] = tally
    return tally


def _drop_only(state: EngineState, key: tuple[str, str], only: Ruling) -> None:
    """A lone ruling stops counting: its tally is empty (None), as if it had never been, or
    what its sums were left with (a float's x - x may leave no 0: an empty Tally keeps that)."""
    sums: dict[str, Any] = {}
    if only.sanctions:
        _add_details(sums, only.details, 1)
        _add_details(sums, only.details, -1)
    left = None if all(type(v) is int and v == 0 for v in sums.values()) else \
        Tally({}, [], sums)
    state.keep_key(state.tallies, key)
    state.tallies[key] = left


def _push(state: EngineState, tally: Tally, end: dt.date, seq: int) -> None:
    state.keep(tally.ends)
    heapq.heappush(tally.ends, (end, seq))


def _drop(state: EngineState, tally: Tally, ruling: Ruling) -> None:
    state.keep(tally.live)
    del tally.live[ruling.seq]
    if ruling.sanctions:
        state.keep(tally.sums)
        _add_details(tally.sums, ruling.details, -1)


def _add_details(sums: dict[str, Any], details: dict[str, Any], sign: int) -> None:
    """Add (or take away) a ruling's numeric details to the totals `earlier_<detail>` reads:
    all of them, since which ones an infraction sums may change with the edition."""
    for name, value in details.items():
        if value and isinstance(value, NUMBERS):
            sums[name] = sums.get(name, 0) + sign * value


NUMBERS = (int, float)  # a detail summed: a bool counts as 1, as `sum` counts it


def last_day(state: EngineState, ruling: Ruling) -> dt.date | None:
    """The last day an earlier ruling counts as an offence (`scope: validity`), None if it
    no longer does: while a sanction of it is valid, or pending while its window from its
    tournament lasts."""
    if ruling.revoked:
        return None
    end = None
    for s in ruling.sanctions:
        if not s.revoked:
            until = FOREVER if s.valid_until is None else s.valid_until
            if end is None or until > end:
                end = until
    if ruling.sanctions and end is None:
        return None
    if ruling.pending:
        start = state.tournament_dates[ruling.tournament]
        return validity.window(state, start, ruling.details)
    return end


def changed(state: EngineState, ruling: Ruling) -> None:
    """A ruling was revoked or decided, or one of its sanctions revoked: it leaves its tally,
    or counts until an earlier day now (its entry in `ends` pushed again)."""
    key = (ruling.subject, state.book.repeat_key(ruling.infraction or ""))
    tally = state.tallies.get(key)
    if tally is ruling:
        if last_day(state, ruling) is None:
            _drop_only(state, key, ruling)
        return
    if tally is None or isinstance(tally, Ruling) or ruling.seq not in tally.live:
        return
    end = last_day(state, ruling)
    if end is None:
        _drop(state, tally, ruling)
    else:
        _push(state, tally, end, ruling.seq)


def rewindow(state: EngineState) -> None:
    """A new edition's windows: a pending ruling counts while the window of the edition in
    force lasts, so every ruling's last day is found again (once per edition that changes
    them)."""
    for key, tally in state.tallies.items():
        if isinstance(tally, Ruling):
            if last_day(state, tally) is None:
                _drop_only(state, key, tally)  # a value set, no key added: iterating goes on
            continue
        if tally is None:
            continue
        ends = []
        for ruling in list(tally.live.values()):
            end = last_day(state, ruling)
            if end is None:
                _drop(state, tally, ruling)
            else:
                ends.append((end, ruling.seq))
        heapq.heapify(ends)
        state.keep(tally.ends)
        tally.ends[:] = ends


def indexed(state: EngineState, subject: str, infraction: str) -> list[Ruling]:
    """The subject's rulings indexed for repeats of `infraction` (and of the infractions of
    its repeat group): every one within a tournament, those that may still count across the
    series."""
    group = state.book.repeat_key(infraction)
    if state.book.repeats.scope != "validity":
        return state.by_infraction.get((state.scope(), subject, group), [])
    tally = state.tallies.get((subject, group))
    if isinstance(tally, Ruling):
        return [tally]
    return [] if tally is None else list(tally.live.values())


def earlier(state: EngineState, inf: Infraction, subject: str, day: dt.date,
            names: dict[str, Any]) -> Earlier:
    """The subject's earlier rulings for `inf` that still count; sets `earlier_*` names."""
    group = state.book.repeat_key(inf.id)
    if state.book.repeats.scope == "validity":
        key = (subject, group)
        tally = state.tallies.get(key)
        if isinstance(tally, Ruling):
            return _from_only(state, key, tally, inf, day, names)
        return _from_tally(state, tally, inf, day, names)
    history = state.by_infraction.get((state.scope(), subject, group))
    rulings = [r for r in history if counts(r)] if history else []
    names["earlier_count"] = len(rulings)
    for name in inf.sums:
        names[f"earlier_{name}"] = sum(
            r.details.get(name) or 0 for r in rulings if not r.pending or r.resolved_by)
    return Earlier(len(rulings), rulings[-1] if rulings else None)


def _from_tally(state: EngineState, tally: Tally | None, inf: Infraction, day: dt.date,
                names: dict[str, Any]) -> Earlier:
    """Count a subject's tally on `day`; what can count neither on it nor from this
    tournament on leaves the tally for good."""
    if not tally:
        names["earlier_count"] = 0
        for name in inf.sums:
            names[f"earlier_{name}"] = 0
        return NONE_EARLIER
    floor = min(day, state.t.date)
    ends, live = tally.ends, tally.live
    if ends and ends[0][0] < floor:
        state.keep(ends)
        while ends and ends[0][0] < floor:
            _, seq = heapq.heappop(ends)
            ruling = live.get(seq)
            if ruling is None:
                continue  # left already
            end = last_day(state, ruling)
            if end is None or end < floor:
                _drop(state, tally, ruling)
            else:  # counts longer than when this entry was pushed (a new edition's window)
                heapq.heappush(ends, (end, seq))
    if not ends or ends[0][0] >= day:  # every ruling left counts on the day
        count, sums = len(live), tally.sums
        last = next(reversed(live.values())) if live else None
    else:  # a report dated before some of them end: the slow way
        rulings = [r for r in live.values() if (last_day(state, r) or dt.date.min) >= day]
        count, last = len(rulings), (rulings[-1] if rulings else None)
        sums = {}
        for r in rulings:
            if r.sanctions:
                _add_details(sums, r.details, 1)
    names["earlier_count"] = count
    for name in inf.sums:
        names[f"earlier_{name}"] = sums.get(name, 0)
    return Earlier(count, last)


def _from_only(state: EngineState, key: tuple[str, str], only: Ruling, inf: Infraction,
               day: dt.date, names: dict[str, Any]) -> Earlier:
    """`_from_tally` for a tally of one ruling (kept as the ruling itself)."""
    end = last_day(state, only)
    if end is None or end < min(day, state.t.date):
        _drop_only(state, key, only)  # it counts neither on the day nor from now on
        found: Ruling | None = None
    else:
        found = only if end >= day else None
    sums: dict[str, Any] = {}
    if found is not None and found.sanctions:
        _add_details(sums, found.details, 1)
    names["earlier_count"] = 0 if found is None else 1
    for name in inf.sums:
        names[f"earlier_{name}"] = sums.get(name, 0)
    return Earlier(0 if found is None else 1, found)


def repeated(state: EngineState, ruling: Ruling, inf: Infraction, table: Outcome,
             rows: list[Outcome] | None, found: Earlier) -> Outcome | None:
    """The outcome for a repeat (the ruling marked as one), or None when it is no repeat."""
    if found.last is None:
        return None
    book = state.book
    if book.repeats.mode == "escalate":
        ruling.cause = "repeat"
        last = next(s for s in found.last.sanctions if not s.attached and not s.revoked)
        kind = escalate(state, last.rank)
        principal = table.sanctions[0].kind if table.sanctions else kind
        if book.kind(principal).rank > book.kind(kind).rank and not table.is_choice:
            kind = principal
        ruling.add_notes(Reason("repeat.escalated",
                                {"infraction": inf.id, "from": last.kind, "to": kind}))
        return escalated(kind)
    if rows:
        ruling.cause = "repeat"
        state.add_shared_note(ruling, numbered(found.number + 1, inf.id))
        return rows[min(found.number, len(rows)) - 1]
    return None


_NUMBERED: dict[tuple[int, str], Reason] = {}


def numbered(n: int, infraction: str) -> Reason:
    """The reason of the `n`th offence of an infraction: one per (n, infraction), shared by
    the rulings that give it (a reason is never changed)."""
    reason = _NUMBERED.get((n, infraction))
    if reason is None:
        reason = _NUMBERED[(n, infraction)] = Reason("repeat.numbered",
                                                     {"n": n, "infraction": infraction})
    return reason


_ESCALATED: dict[str, Outcome] = {}


def escalated(kind: str) -> Outcome:
    """The cell a repeat's escalation gives: one sanction of `kind` (made once per kind, not
    on every repeat: a rulebook's models are frozen)."""
    cell = _ESCALATED.get(kind)
    if cell is None:
        cell = _ESCALATED[kind] = Outcome(sanctions=[Spec(kind=kind)])
    return cell


def escalate(state: EngineState, rank: int) -> str:
    """The kind one rank above `rank` on the ladder, capped at its top."""
    ladder = state.ladder_by_rank
    if not ladder:
        raise RuleError("rulebook.no-ladder", field="infraction")
    # 002 «Сложение пенальти»: no multiple disqualification; the ladder's top is the cap
    higher = [r for r in ladder if r > rank]
    return ladder[min(higher)] if higher else ladder[max(ladder)]


def counts(ruling: Ruling) -> bool:
    """Whether an earlier ruling of this tournament still counts as an earlier offence
    (`scope: tournament`; across the series a ruling's `last_day` says)."""
    if ruling.revoked:
        return False
    if not ruling.sanctions:
        return ruling.pending
    return any(not s.revoked for s in ruling.sanctions)
