"""Cancellation and revocation: rulings that stop counting, and what was derived from them.

000 §7.3 «Неверная игра»: the penalty cancels simultaneous penalties for the same card under
§7.1 «Пропущенные срабатывающие особенности» or §7.2 «Непредоставление» (the infraction's
`cancels`: which infractions, matched on `same` details or the round; regulations.md §1.5
reads «одновременных» as earlier in the same round; with `order: either`, whichever was
recorded first, §4 E14: a ruling recorded after the cancelling one is cancelled as it is
made). Whose: the offender's, or with
`players: either` those of either player (§4 E2: both players are penalised under §7.1/§7.2
when both could control) — the other player penalised by the same event, or named by the
detail `opponent`. Each cancelled ruling gets a derived ruling with `cause: cancellation`
that `revokes` it.

Revocation (a cancellation, an overturned appeal, a correction): revoked sanctions stop
counting for repeats, stacking, conversions, accumulation and the subject's totals; a derived
ruling (stacking, conversion, accumulation) that used one is undone by a new record, and the
sanctions it had used up count again. The ledger is append-only: nothing is deleted.

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING

from sudya.domain.engine import accumulation, conversions, repeats, stacking, validity
from sudya.domain.engine.model import Offence, Reason, Ruling, Sanction
from sudya.domain.engine.sanctions import note
from sudya.domain.rulebook.schema import Cancels, Infraction

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def revoke(state: EngineState, event_id: str, victims: Iterable[Sanction], day: dt.date,
           by: Ruling) -> None:
    """Revoke sanctions; undo derived rulings that used them; re-run conversions."""
    queue = [(s, by) for s in victims if not s.revoked]
    touched: set[str] = set()
    undone: set[int] = set()
    while queue:
        s, revoker = queue.pop(0)
        if s.revoked:
            continue
        state.keep(s)
        s.revoked = True
        s.revoked_by = revoker
        state.keep_len(state.revocations)
        state.revocations.append(s)
        touched.add(s.subject)
        if s.ruling is not None:  # its ruling may stop counting as an earlier offence
            repeats.changed(state, s.ruling)
        for derived in state.users(s):
            if derived.seq in undone or derived.revoked:
                continue
            if derived.cause == "accumulation" and accumulation.still_met(state, derived):
                continue
            undone.add(derived.seq)
            state.keep(derived)
            derived.revoked = True
            undo = state.new_ruling(event_id, derived.subject, None, derived.cause, day)
            undo.revokes = derived.event
            undo.add_notes(Reason("revocation.derived",
                                  {"cause": derived.cause, "event": derived.event}))
            for u in derived.uses:
                if not u.revoked:
                    state.keep(u)
                    u.consumed = False
                    give_back(state, u)
            queue += [(x, undo) for x in derived.sanctions if not x.revoked]
            state.record(undo)
    for subject in touched:
        validity.retrack(state, subject)
        team = state.team(subject) if state.book.accumulation else None
        if team is not None:
            accumulation.rebuild(state, team)
    if state.book.conversions and touched:
        conversions.convert(state, event_id, touched, day)


def give_back(state: EngineState, s: Sanction) -> None:
    """A sanction an undone derived ruling had used up counts again where it counted."""
    stacking.give_back(state, s)
    conversions.give_back(state, s)


def cancel(state: EngineState, ev: Offence, inf: Infraction, ruling: Ruling) -> None:
    """Cancel the earlier rulings the new ruling's infraction cancels (000 §7.3); with
    `order: either`, keep the ruling to cancel those recorded after it (§4 E14)."""
    cancels = inf.cancels
    assert cancels is not None
    for target in targets(state, ruling, cancels):
        cancel_one(state, ev.id, target, cancels, ruling.date or state.t.date, ev.round)
    if cancels.order == "either":
        state.entry(state.cancellers, inf.id).append(ruling)


def cancel_one(state: EngineState, event_id: str, target: Ruling, cancels: Cancels,
               day: dt.date, round_: int | None) -> None:
    """Cancel one ruling: a derived ruling with `cause: cancellation` revokes it."""
    state.keep(target)
    target.revoked = True
    repeats.changed(state, target)
    out = state.new_ruling(event_id, target.subject, target.infraction, "cancellation", day,
                           round_)
    out.revokes = target.event
    out.add_notes(note(cancels.note))
    state.record(out)
    revoke(state, event_id, target.sanctions, day, out)


def cancel_by_earlier(state: EngineState, ev: Offence, inf: Infraction,
                      made: list[Ruling]) -> None:
    """000 §7.3, «одновременных»: the same round and the same card, whichever was recorded
    first (§4 E14): a new ruling is cancelled by a cancelling penalty recorded before it,
    of either player where the cancelling infraction says so (§4 E2)."""
    for ruling in made:
        if ruling.revoked or not ruling.sanctions:
            continue
        for canceller in state.book.cancelled_by(inf.id):
            cancels = canceller.cancels
            assert cancels is not None
            if any(matches(state, ruling, earlier, cancels)
                   and ruling.subject in players_of(state, earlier, cancels)
                   for earlier in state.cancellers.get(canceller.id, ())
                   if not earlier.revoked and any(not s.revoked for s in earlier.sanctions)):
                cancel_one(state, ev.id, ruling, cancels, ruling.date or state.t.date,
                           ev.round)
                break


def players_of(state: EngineState, ruling: Ruling, cancels: Cancels) -> set[str]:
    """Whose rulings a cancelling ruling cancels: its subject's, or with `players: either`
    also the other player's (named by the detail `opponent`, or penalised by the same
    event)."""
    players = {ruling.subject}
    if cancels.players == "either":
        other = ruling.details.get(cancels.opponent)
        if isinstance(other, str):
            players.add(other)
        players.update(r.subject for r in state.made(ruling.event))
    return players


def targets(state: EngineState, ruling: Ruling, cancels: Cancels) -> list[Ruling]:
    """The earlier rulings a ruling cancels: by infraction as `cancels` lists them, oldest
    first within each."""
    players = [ruling.subject]
    other = ruling.details.get(cancels.opponent) if cancels.players == "either" else None
    if isinstance(other, str) and other != ruling.subject:
        players.append(other)
    out: list[Ruling] = []
    for target_id in cancels.infractions:
        found: dict[int, Ruling] = {}
        for player in players:
            for target in repeats.indexed(state, player, target_id):
                if target.infraction == target_id and matches(state, target, ruling, cancels):
                    found[target.seq] = target
                    if cancels.players == "either":
                        # §4 E2: the other player the same event penalised (both could control)
                        for same in state.made(target.event):
                            if same.infraction == target.infraction and \
                                    matches(state, same, ruling, cancels):
                                found[same.seq] = same
        out += [found[seq] for seq in sorted(found)]
    return out


def matches(state: EngineState, target: Ruling, ruling: Ruling, cancels: Cancels) -> bool:
    """An earlier ruling of this tournament, not revoked, for the same things (`same`)."""
    if target.revoked or target.tournament != state.t.index or not (
            target.sanctions or target.pending):
        return False
    return not any(
        (target.round != ruling.round) if name == "round"
        else (target.details.get(name) != ruling.details.get(name)
              or ruling.details.get(name) is None)
        for name in cancels.same)
