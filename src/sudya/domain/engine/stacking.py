"""Stacking: three of a kind at the end of the match.

002 «Сложение пенальти»: a player holding `stacking.count` penalties of the same rank for as
many different infractions receives the penalty one rank higher at the end of the match
(`end-of-match`: of one table's players, or of everyone at the end of the round), walking the
ladder and capped at its top (repeats.escalate). The rulebook says which penalties count:
attached ones (`counts_attached`), derived ones (`counts_derived`), and whether the group that
produced an upgrade is used up (`consumes`); the pool is the tournament's (regulations.md §1.3
interpretations). A player who is out (disqualified) gets no further stacking penalty. Given
at the end of the match, the penalty is given between matches (`given_with`): a loss it gives
applies to the next game or match, as the sanction's `carry_over` says (002 «Значение и сила
пенальти»; regulations.md §1.2–1.3).

Shape: functions on the shared `EngineState` (state.py); the pool per subject is
`state.stack`, and only subjects whose pool changed (`state.stack_dirty`) are looked at.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING

from sudya.domain.engine import repeats, sanctions
from sudya.domain.engine.model import EndOfMatch, Reason, Ruling, Sanction

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def end_of_match(state: EngineState, ev: EndOfMatch) -> None:
    """Give the stacking penalties every three of a kind now earns."""
    st = state.book.stacking
    if st is None:
        return
    # only players whose pool changed since the last check can have a new three of a kind;
    # at the end of one table's match, only its players (and their teams, or the members of
    # a team named): the others' matches go on
    dirty = set(state.stack_dirty)
    if ev.players is not None:
        named = set(ev.players)
        named |= {t for p in ev.players if (t := state.roster.team_of.get(p)) is not None}
        named |= {m for p in ev.players for m in state.roster.teams.get(p, ())}
        dirty = dirty & named
    # players in the roster's order, then teams (one place, after every player) by name:
    # never the set's order, which follows the strings' hashes and so differs from one
    # process to the next (a replay would then order the rulings unlike the ledger)
    subjects = sorted(dirty, key=lambda subject: (state.place(subject), subject))
    state.keep(state.stack_dirty)
    for subject in dirty:
        del state.stack_dirty[subject]
    for subject in subjects:
        while not state.is_out(subject):
            group = three_of_a_kind(state, subject, st.count)
            if group is None:
                break
            rank, used = group
            if st.consumes:
                for s in used:
                    state.keep(s)
                    s.consumed = True
            given = dict.fromkeys(st.given_with, True)
            ruling = state.new_ruling(ev.id, subject, None, "stacking", state.t.date, ev.round,
                                      details=given)
            ruling.uses = used
            kind = state.book.kind(repeats.escalate(state, rank))
            ruling.add_notes(Reason(
                "stacking.made",
                {"count": st.count, "rank": rank, "to": kind.id,
                 "infractions": [reason(s) for s in used]}, st.source))
            sanctions.add(state, ruling.sanctions, kind, subject, None, None, False,
                          state.t.date, {}, {}, ruling)
            # what the upgrade applies to; no carry-over note: the stacking reason (at the end
            # of the match) is already why, and the rulebook's stacking notes say the rest
            for s in ruling.sanctions:
                sanctions.carry(state.book.kind(s.kind), given, ruling, explain=False)
            for s in used:
                state.add_use(s, ruling)
            state.record(ruling)


def reason(s: Sanction) -> str:
    """What a sanction was given for: its infraction, or the derived ruling's cause."""
    r = s.ruling
    assert r is not None
    return r.infraction or f"{r.cause}@{r.event}"


def three_of_a_kind(state: EngineState, subject: str,
                    count: int) -> tuple[int, list[Sanction]] | None:
    """The lowest rank with `count` penalties for different reasons, and the oldest of them."""
    pool = state.entry(state.stack, subject)
    pool[:] = [s for s in pool if not s.revoked and not s.consumed]
    # a derived penalty is a reason of its own: two given at one end of the match were given
    # for two different groups of infractions, so they are two different reasons
    by_rank: dict[int, dict[str | Ruling, Sanction]] = defaultdict(dict)
    for s in pool:
        r = s.ruling
        assert r is not None
        by_rank[s.rank].setdefault(r.infraction or r, s)
    for rank in sorted(by_rank):
        distinct = by_rank[rank]
        if len(distinct) >= count:
            return rank, sorted(distinct.values(), key=lambda s: s.seq)[:count]
    return None


def track(state: EngineState, s: Sanction, ruling: Ruling) -> bool:
    """Pool a new sanction if stacking counts it; False for a derived one it does not count.

    A False answer also keeps the sanction out of the conversion pools (as it always has).
    """
    st = state.book.stacking
    assert st is not None
    if (not s.attached or st.counts_attached) and s.rank in state.ladder_by_rank:
        if ruling.derived and not st.counts_derived:
            return False
        state.entry(state.stack, s.subject).append(s)
        state.keep_key(state.stack_dirty, s.subject)
        state.stack_dirty[s.subject] = None
    return True


def give_back(state: EngineState, s: Sanction) -> None:
    """A sanction a revoked stacking ruling had used counts again (in this tournament)."""
    st = state.book.stacking
    ruling = s.ruling
    if st and ruling is not None and ruling.tournament == state.t.index and \
            s.rank in state.ladder_by_rank and (not s.attached or st.counts_attached):
        pool = state.entry(state.stack, s.subject)
        if s not in pool:
            pool.append(s)
            pool.sort(key=lambda x: x.seq)
            state.keep_key(state.stack_dirty, s.subject)
            state.stack_dirty[s.subject] = None
