"""Repeats: an infraction the subject has already been penalised for.

002 «Сложение пенальти» (`repeats.mode: escalate`): a penalty for the same reason is one rank
above the *last* penalty for that infraction, walking the rulebook's `ladder` and capped at
its top (no multiple disqualification); a table penalty above the escalated one stands.
003 «Особая часть» (рецидив) and 004's table «1 раз / 2 раз / 3 раз» (`repeats.mode: table`):
the infraction's own `repeats` rows, the last row for every later repeat; 003 «Назначение
каторги» п.2: `earlier_<detail>` sums for the recidivism formula. `repeats.scope`: earlier
offences count for the tournament (002) or while one of their sanctions is valid (003 «Срок
действия наказаний»). Revoked and cancelled rulings never count (000 §7.3).

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from sudya.engine import validity
from sudya.engine.model import Reason, Ruling
from sudya.errors import RuleError
from sudya.rulebooks.schema import Infraction, Outcome
from sudya.rulebooks.schema import SanctionSpec as Spec

if TYPE_CHECKING:
    from sudya.engine.state import EngineState


def earlier(state: EngineState, inf: Infraction, subject: str, day: dt.date,
            names: dict[str, Any]) -> list[Ruling]:
    """The subject's earlier rulings for `inf` that still count; sets `earlier_*` names."""
    key = (state.scope(), subject, inf.id)
    history = state.by_infraction.get(key)
    found = [r for r in history if counts(state, r, day)] if history else []
    if history and len(found) < len(history) and state.book.repeats.scope == "validity":
        # what can no longer count from this tournament on leaves the index, so the work
        # per event does not grow with a long season
        state.keep(history)
        history[:] = [r for r in history if may_count_from(state, r, state.t.date)]
    names["earlier_count"] = len(found)
    for name in inf.sums:
        names[f"earlier_{name}"] = sum(
            r.details.get(name) or 0 for r in found if not r.pending or r.resolved_by
        )
    return found


def repeated(state: EngineState, ruling: Ruling, inf: Infraction, table: Outcome,
             rows: list[Outcome] | None, found: list[Ruling]) -> Outcome | None:
    """The outcome for a repeat (the ruling marked as one), or None when it is no repeat."""
    if not found:
        return None
    book = state.book
    if book.repeats.mode == "escalate":
        ruling.cause = "repeat"
        last = next(s for s in found[-1].sanctions if not s.attached and not s.revoked)
        kind = escalate(state, last.rank)
        principal = table.sanctions[0].kind if table.sanctions else kind
        if book.kind(principal).rank > book.kind(kind).rank and not table.is_choice:
            kind = principal
        ruling.notes.append(Reason("repeat.escalated",
                                   {"infraction": inf.id, "from": last.kind, "to": kind}))
        return Outcome(sanctions=[Spec(kind=kind)])
    if rows:
        ruling.cause = "repeat"
        ruling.notes.append(Reason("repeat.numbered",
                                   {"n": len(found) + 1, "infraction": inf.id}))
        return rows[min(len(found), len(rows)) - 1]
    return None


def escalate(state: EngineState, rank: int) -> str:
    """The kind one rank above `rank` on the ladder, capped at its top."""
    ladder = state.ladder_by_rank
    if not ladder:
        raise RuleError("rulebook.no-ladder", field="infraction")
    # 002 «Сложение пенальти»: no multiple disqualification; the ladder's top is the cap
    higher = [r for r in ladder if r > rank]
    return ladder[min(higher)] if higher else ladder[max(ladder)]


def counts(state: EngineState, ruling: Ruling, day: dt.date) -> bool:
    """Whether an earlier ruling still counts as an earlier offence (repeats)."""
    if ruling.revoked:
        return False
    live = [s for s in ruling.sanctions if not s.revoked]
    if ruling.sanctions and not live:
        return False
    if not ruling.sanctions and not ruling.pending:
        return False
    if state.book.repeats.scope == "validity":
        if ruling.pending:
            start = state.tournament_dates[ruling.tournament]
            return validity.window(state, start, ruling.details) >= day
        return any(s.valid_on(day) for s in live)
    return True


def may_count_from(state: EngineState, ruling: Ruling, day: dt.date) -> bool:
    """Whether an earlier ruling can still count as an offence on `day` or later."""
    if ruling.revoked:
        return False
    if ruling.pending:  # counted while its window from its tournament lasts (counts)
        start = state.tournament_dates[ruling.tournament]
        return validity.window(state, start, ruling.details) >= day
    return any(not s.revoked and (s.valid_until is None or s.valid_until >= day)
               for s in ruling.sanctions)
