"""Accumulation: a team is sanctioned when enough punished violations are valid at once.

003 «Дисквалификация с турнира/чемпионата команды» п.1: a team is disqualified when 3
sanctions (other than warnings) of the team or its members are valid at the same time
(regulations.md §2.3: counted as punished violations, i.e. rulings, since one violation may
carry several sanctions). Each rule of the rulebook's `accumulation` says how many
(`count`), which kinds do not make a ruling count (`ignore`) and what it `gives`; a rule does
not fire again while the team holds what it gave; a rule's `when` says in which tournaments
violations count at all (§4 E17: only the championship's own, `counts_for_team_dq`). The
team's ruling is derived (`cause: accumulation`); it stands while enough of the rulings it
counted are left for the rule that made it.

Shape: functions on the shared `EngineState` (state.py). Per (team, rule) a heap of the days
its counted rulings stop counting answers "are there enough?" without walking the history.
"""

from __future__ import annotations

import datetime as dt
import heapq
from typing import TYPE_CHECKING, Any

from sudya.domain.engine import sanctions, validity
from sudya.domain.engine.model import FOREVER, Reason, Ruling

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def track(state: EngineState, ruling: Ruling) -> None:
    """Count a new ruling with sanctions for its team (derived team rulings do not count)."""
    team = state.team(ruling.subject)
    if team is not None and ruling.cause != "accumulation":
        push(state, team, ruling)


def last_day(state: EngineState, ruling: Ruling, ignore: list[str]) -> dt.date | None:
    """The last day a ruling counts for a rule ignoring `ignore` (None: it never does)."""
    end = None
    for s in ruling.sanctions:
        if not s.revoked and s.kind not in ignore and not state.book.kind(s.kind).flag:
            until = FOREVER if s.valid_until is None else s.valid_until
            if end is None or until > end:
                end = until
    return end


def push(state: EngineState, team: str, ruling: Ruling) -> None:
    """Put the last day the ruling counts on each rule's heap (if it counts for that rule:
    a rule's `when` reads the settings of the tournament the ruling is made in, §4 E17)."""
    for i, acc in enumerate(state.book.accumulation):
        if acc.when is not None and not acc.when(state.context_names()):
            continue
        end = last_day(state, ruling, acc.ignore)
        if end is not None:
            heapq.heappush(state.entry(state.accum_heap, (team, i)), (end, ruling.seq, ruling))


def rebuild(state: EngineState, team: str) -> None:
    """After a revocation: count again the team's rulings each rule still counts.

    A ruling that left a rule's heap (no longer valid) never counts for it again, and a
    revocation only takes sanctions away: only the rulings on the heaps are looked at."""
    for i, acc in enumerate(state.book.accumulation):
        heap = state.accum_heap.get((team, i))
        if not heap:
            continue
        kept = []
        for _, seq, r in heap:
            end = None if r.revoked else last_day(state, r, acc.ignore)
            if end is not None:
                kept.append((end, seq, r))
        heapq.heapify(kept)
        state.keep_key(state.accum_heap, (team, i))
        state.accum_heap[(team, i)] = kept


def accumulate(state: EngineState, event_id: str, team: str, day: dt.date,
               details: dict[str, Any]) -> None:
    """Sanction the team by every rule whose count of valid rulings is now reached."""
    for i, acc in enumerate(state.book.accumulation):
        key = (team, i)
        heap = state.accum_heap.get(key)
        if not heap and acc.count > 0:  # nothing counts for the team (most reports)
            continue
        if heap and len(heap) < acc.count and heap[0][0] >= day:
            continue  # too few count, and none has stopped counting (most others)
        if any(validity.holds_kind(state, team, s.kind, day) for s in acc.gives):
            continue
        heap = state.entry(state.accum_heap, key)
        while heap and heap[0][0] < day:  # no longer valid: stops counting for good
            heapq.heappop(heap)
        if len(heap) < acc.count:
            continue
        # the rulings still on the heap, in the order they were made
        counted = [r for _, _, r in sorted(heap, key=lambda e: e[1])
                   if counts(state, r, acc.ignore, day)]
        if len(counted) < acc.count:
            continue
        ruling = state.new_ruling(event_id, team, None, "accumulation", day, details=details)
        ruling.uses = tuple(s for r in counted for s in r.sanctions if not s.revoked)
        ruling.notes = made_notes(len(counted), acc.source)
        names = {**details, **state.context_names(), "offender": team}
        ruling.sanctions = sanctions.build(state, acc.gives, team, day, details, names, ruling,
                                           None)
        for s in ruling.uses:
            state.add_use(s, ruling)
        state.record(ruling)
        state.keep_key(state.accumulated_by, ruling.seq)
        state.accumulated_by[ruling.seq] = acc


_MADE: dict[tuple[int, str], tuple[Reason]] = {}


def made_notes(count: int, source: str) -> tuple[Reason]:
    """The reasons a team's ruling gives: one tuple per count and source, shared by its
    rulings (as an infraction's notes; one reason each, with its parameters and a tuple,
    was 340 bytes of a clan season's every tenth ruling)."""
    notes = _MADE.get((count, source))
    if notes is None:
        notes = _MADE[(count, source)] = (Reason("accumulation.made", {"count": count},
                                                 source),)
    return notes


def counts(state: EngineState, r: Ruling, ignore: list[str], day: dt.date) -> bool:
    """Whether a ruling counts towards a rule on `day`: a valid sanction it does not ignore."""
    return not r.revoked and any(
        s.valid_on(day) and s.kind not in ignore and not state.book.kind(s.kind).flag
        for s in r.sanctions)


def still_met(state: EngineState, derived: Ruling) -> bool:
    """Whether a team's accumulation ruling keeps enough of the rulings it counted.

    Judged by the rule that made it (a rulebook may have several), under the edition it
    was made in.
    """
    rule = state.accumulated_by[derived.seq]
    left = {u.ruling.seq for u in derived.uses if not u.revoked and u.ruling is not None}
    return len(left) >= rule.count
