"""Validity windows: how long a sanction counts, and what a subject holds on a given day.

003 «Срок действия наказаний» п.1: a sanction is valid for the rulebook's `validity.months`
from the tournament in which it was given ("unless the sanction itself says otherwise"); one
given between championship stages counts from the next tournament (`between_stages`,
`next_tournament`); `valid_until` is the last day on which it is valid (2026-03-01 + 2 months
→ 2026-05-01). A kind with `expires: false` never expires (003: «Наказание каторгой не имеет
срока действия»). A rulebook without `validity` gives sanctions no window (`None`).

What a subject holds is kept as the last day it holds any punishment (flags for officials
don't count) and its sanctions of each kind by their last day (the last one's day is the
kind's), so aggravation, `lost_while` and accumulation ask in O(1).

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

import bisect
import calendar
import datetime as dt
from typing import TYPE_CHECKING, Any

from sudya.domain.engine.model import FOREVER, Sanction
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Rulebook, SanctionKind

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day `months` later, clamped to the month's last day (12-31 + 2 → 02-28)."""
    month0 = day.month - 1 + months
    year, month = day.year + month0 // 12, month0 % 12 + 1
    last = calendar.monthrange(year, month)[1]
    return dt.date(year, month, min(day.day, last))


def parse_date(value: Any) -> dt.date:
    """A date given as a date, a datetime or an ISO string."""
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        return dt.date.fromisoformat(value)
    raise ValueError("not a date")


def window(state: EngineState, day: dt.date, details: dict[str, Any]) -> dt.date:
    """The last valid day of a sanction given on `day` (or before the next tournament)."""
    v = state.book.validity
    assert v is not None
    base = day
    if details.get(v.between_stages_detail):
        nxt = details.get(v.next_tournament_detail)
        if nxt is None:
            raise RuleError("detail.required-between-stages",
                            field=f"details.{v.next_tournament_detail}")
        base = parse_date(nxt)
    key = (base, v.months)
    until = state.windows.get(key)
    if until is None:
        state.keep_key(state.windows, key)
        try:
            until = state.windows[key] = add_months(base, v.months)
        except ValueError:
            raise RuleError("date.too-far", field="date", date=base.isoformat()) from None
    return until


def valid_until(state: EngineState, kind: SanctionKind, day: dt.date,
                details: dict[str, Any]) -> dt.date | None:
    """A new sanction's last valid day: None without windows, FOREVER if it never expires."""
    if state.book.validity is None:
        return None
    if not kind.expires:
        return FOREVER
    # 003 «Срок действия»: two months count from the tournament, not the moment
    return window(state, state.t.date, details)


def without_validity_details(state: EngineState, details: dict[str, Any]) -> dict[str, Any]:
    """Details without the ones that move a window (a decision counts from its own tournament)."""
    v = state.book.validity
    if v is None:
        return details
    drop = (v.between_stages_detail, v.next_tournament_detail)
    return {k: val for k, val in details.items() if k not in drop}


def holds_valid(state: EngineState, subject: str, day: dt.date) -> bool:
    """Holds any valid sanction that is a punishment (flags for officials don't count)."""
    until = state.until.get(subject)
    return until is not None and until >= day


def holds_kind(state: EngineState, subject: str, kind: str, day: dt.date) -> bool:
    """Holds a valid sanction of this kind."""
    held = state.held.get(subject)
    if held is None:
        return False
    if isinstance(held, Sanction):
        return held.kind == kind and _last_day(held) >= day
    if isinstance(held, tuple):
        return any(s.kind == kind and _last_day(s) >= day for s in held)
    of_kind = held.get(kind)
    return of_kind is not None and bool(of_kind) and _last_day(of_kind[-1]) >= day


def _last_day(s: Sanction) -> dt.date:
    return FOREVER if s.valid_until is None else s.valid_until


def reads_held(book: Rulebook) -> bool:
    """Whether a rulebook asks what a subject holds: aggravation, a kind `lost_while` another
    is held, accumulation (a rule does not fire while the team holds what it gave)."""
    return book.aggravation is not None or bool(book.accumulation) or any(
        k.lost_while is not None for k in book.sanctions)


def track_untracked(state: EngineState) -> None:
    """Track the sanctions that waited in `state.untracked` while the editions in force never
    asked what subjects hold (a replay paid an append for each, not the index), in the order
    they were given, as `track_until` would have then: with the editions they were given
    under (whether a kind is a flag), the revoked ones left out (a revocation only ever took
    a sanction off the end of a list)."""
    books = state.untracked_books
    for i, s in enumerate(state.untracked):
        if not s.revoked:
            book = next(b for start, b in reversed(books) if start <= i)
            track_until(state, s, book.kind(s.kind).flag)
    state.keep(state.untracked)
    state.keep(state.untracked_books)
    state.untracked.clear()
    state.untracked_books.clear()


FEW = 4  # a subject's sanctions held as a tuple, up to this many (each query walks them)


def track_until(state: EngineState, s: Sanction, flag: bool | None = None) -> None:
    """Extend what the sanction's subject holds to the sanction's last valid day (`flag`:
    whether its kind is a flag for officials, if not the edition in force's)."""
    until = _last_day(s)
    subject, kind = s.subject, s.kind
    # the subject's sanctions of each kind, by their last valid day: what it holds after a
    # revocation is the last one left, found without walking the subject's history. Most
    # subjects are given one sanction, or a few: it, or a tuple of them (in the order given),
    # stands for the lists (one a kind), with the same answers (of a kind, the one that
    # ends last; a revocation takes the revoked ones out); a dict of lists per subject was
    # 330 bytes of one in ten of a clan season's subjects, twice given the same kind
    held = state.held.get(subject)
    if held is None:
        state.keep_key(state.held, subject)
        state.held[subject] = s
    elif not isinstance(held, dict):
        few = (held, s) if isinstance(held, Sanction) else (*held, s)
        state.keep_key(state.held, subject)
        if len(few) <= FEW:
            state.held[subject] = few
        else:  # more: the lists
            lists: dict[str, list[Sanction]] = {}
            for x in few:
                bisect.insort_right(lists.setdefault(x.kind, []), x, key=_last_day)
            state.held[subject] = lists
    else:
        of_kind = held.get(kind)
        if not of_kind:
            state.keep(held)
            held[kind] = [s]
        elif _last_day(of_kind[-1]) <= until:
            state.keep(of_kind)
            of_kind.append(s)
        else:  # a window that ends earlier than one already held (a decision, a date given)
            state.keep(of_kind)
            bisect.insort_right(of_kind, s, key=_last_day)
    flag = state.book.kind(kind).flag if flag is None else flag
    if not flag:
        last = state.until.get(subject)
        if (dt.date.min if last is None else last) < until:
            state.keep_key(state.until, subject)
            state.until[subject] = until


def retrack(state: EngineState, subject: str) -> None:
    """After a revocation: recompute what the subject holds (revoked sanctions stay revoked,
    so they leave the end of each kind's list for good)."""
    held = state.held.get(subject)
    if held is None:
        return
    if isinstance(held, Sanction):
        if held.revoked:  # nothing left: None, the subject keeps its place (a trial)
            state.keep_key(state.held, subject)
            state.held[subject] = None
        lists = [] if held.revoked else [(held.kind, held)]
    elif isinstance(held, tuple):  # a few: the revoked ones leave
        left = tuple(x for x in held if not x.revoked)
        if len(left) < len(held):
            state.keep_key(state.held, subject)
            state.held[subject] = left if len(left) > 1 else left[0] if left else None
        lists = [(x.kind, x) for x in left]
    else:
        lists = []
        for kind, of_kind in held.items():
            while of_kind and of_kind[-1].revoked:
                state.keep(of_kind)
                of_kind.pop()
            if of_kind:
                lists.append((kind, of_kind[-1]))
    until = None
    for kind, last in lists:
        if not state.book.kind(kind).flag:
            day = _last_day(last)
            if (dt.date.min if until is None else until) < day:
                until = day
    if until is not None or subject in state.until:
        state.keep_key(state.until, subject)
        state.until[subject] = until
