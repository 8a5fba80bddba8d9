"""Appeals and corrections: a ruling upheld, overturned or corrected by a new record.

004 «Судья основной категории»: a player may appeal a senior judge's ruling to the head
judge, whose decisions are final (a role with `final: true` cannot be appealed); a frivolous
appeal may earn the appellant the rulebook's `appeals.frivolous` penalty (004: a warning or a
yellow card, the head judge's choice; regulations.md §3.1). 003 «Решение вопросов, не
урегулированных данной системой»: the college hears them in the clan championship; the
berserk guide has none, so appeals there are Sudya's general workflow, its head judge final
(regulations.md §4 E10); the decision on an appeal cannot be appealed. Every appeal ruling
shows the rulebook's `appeals` interpretations. A correction is a judge putting right a
mistaken record: a ruling's, or a result's (the result stops counting). Either way the ledger
is append-only: the old rulings are revoked by new records (cancellation.revoke), never
changed or deleted, and a corrected result stays stored beside its correction.

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sudya.domain.engine import cancellation, repeats, sanctions
from sudya.domain.engine.model import Appeal, Correction, Reason, Ruling
from sudya.domain.errors import RuleError

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def overturn(state: EngineState, event_id: str, of: str, rulings: list[Ruling],
             judge: str | None, cause: str, reason: Reason,
             also: tuple[Reason, ...] = ()) -> None:
    """Revoke the rulings of event `of` (and decisions on them) by a new record each."""
    day = state.t.date
    for r in rulings:
        ruling = state.new_ruling(event_id, r.subject, r.infraction, cause, day, judge=judge)
        ruling.revokes = of
        ruling.add_notes(reason, *also)
        state.keep(r)
        r.revoked = True
        if r.pending:
            r.pending = False
            r.resolved_by = event_id
        repeats.changed(state, r)
        state.record(ruling)
        victims = list(r.sanctions)
        for res in state.resolutions.get(of, ()):
            state.keep(res)
            res.revoked = True
            victims += res.sanctions
        cancellation.revoke(state, event_id, victims, day, ruling)


def is_appeal(state: EngineState, event_id: str) -> bool:
    """Whether an event was an appeal: made a ruling with `cause: appeal` (indexed as it was
    recorded, so a refusal does not walk the season's rulings)."""
    return event_id in state.appeal_events


def correction(state: EngineState, ev: Correction) -> None:
    """A judge corrects a mistaken record: its rulings are revoked by a new record."""
    rulings = [r for r in state.made(ev.of) if not r.revoked]
    if not rulings and correct_result(state, ev):
        return
    if not rulings:
        raise RuleError("event.nothing-to-correct", field="of", event=ev.of)
    state.check_judge(ev.judge, "decide", "correct")
    overturn(state, ev.id, ev.of, rulings, ev.judge, "correction",
             Reason("correction.made-because", {"reason": ev.reason}) if ev.reason
             else Reason("correction.made"))


def correct_result(state: EngineState, ev: Correction) -> bool:
    """A result entered by mistake stops counting (False: `of` is no result that counts).

    Nothing is ruled: the correction is the record, the result stays stored; the right result,
    if any, is entered after it. Most corrections are of rulings: asked first whether `of`
    is a result at all, the season's results are walked only to correct one."""
    if not state.result_ids.get(ev.of):
        return False
    for i in range(len(state.results) - 1, -1, -1):  # the latest results are corrected most
        if state.results[i][0].id == ev.of:
            state.check_judge(ev.judge, "decide", "correct")
            state.keep(state.results)
            del state.results[i]
            state.keep_key(state.result_ids, ev.of)
            state.result_ids[ev.of] -= 1
            state.keep_key(state.corrected_results, ev.of)
            state.corrected_results[ev.of] = ev.id
            return True
    return False


def appeal(state: EngineState, ev: Appeal) -> None:
    """The head judge's decision on an appeal: upheld, overturned or frivolous."""
    rulings = [r for r in state.made(ev.of) if r.infraction]
    if any(r.cause == "appeal" for r in rulings) or (not rulings and is_appeal(state, ev.of)):
        # the decision on an appeal is final (004 «Главный судья»; berserk: §4 E10)
        raise RuleError("appeal.decision-final", field="of", event=ev.of)
    if not rulings:
        raise RuleError("event.nothing-to-appeal", field="of", event=ev.of)
    if any(r.appealed for r in rulings):
        raise RuleError("appeal.already", field="of", event=ev.of)
    appeals = state.book.appeals
    if appeals is None:
        raise RuleError("rulebook.no-appeals", field="appeal")
    roster = state.roster
    if ev.judge is not None:
        state.check_judge(ev.judge, "hear-appeals", "hear-appeals")
        role = roster.judges[ev.judge].role
        if role not in appeals.heard_by:
            raise RuleError("appeal.heard-by", field="judge", roles=list(appeals.heard_by))
    first = rulings[0]
    if first.judge is not None and first.judge in roster.judges:
        given_by = state.book.roles.get(roster.judges[first.judge].role)
        if given_by is not None and given_by.final:
            raise RuleError("appeal.final", field="of", event=ev.of,
                            role=roster.judges[first.judge].role)
    for r in rulings:
        state.keep(r)
        r.appealed = True
    day = state.t.date
    # where the appeal procedure comes from, and where someone had to choose (§4 E10)
    readings = tuple(Reason("rule.interpretation", {"text": {"ru": n.ru, "en": n.en}},
                            n.source) for n in appeals.interpretation)
    if ev.outcome == "upheld":
        ruling = state.new_ruling(ev.id, first.subject, first.infraction, "appeal", day,
                                  judge=ev.judge)
        ruling.add_notes(Reason("appeal.upheld"), *readings)
        state.record(ruling)
    elif ev.outcome == "overturned":
        overturn(state, ev.id, ev.of, rulings, ev.judge, "appeal", Reason("appeal.overturned"),
                 readings)
    elif ev.outcome == "frivolous":
        if appeals.frivolous is None:
            raise RuleError("rulebook.no-frivolous", field="outcome")
        ruling = state.new_ruling(ev.id, first.subject, first.infraction, "appeal", day,
                                  judge=ev.judge)
        ruling.add_notes(Reason("appeal.frivolous", {}, appeals.source), *readings)
        outcome = appeals.frivolous
        if ev.choice is None and outcome.is_choice:
            ruling.pending = True
            state.wait_on(ruling, outcome)
            ruling.offered = sanctions.offered(state, outcome, first.subject, day, {}, {}, None)
            state.record(ruling)
            state.add_primary(ruling)
            return
        specs = sanctions.choose(outcome, ev.choice, state.book) if outcome.is_choice else \
            list(outcome.sanctions)
        names = {**state.context_names(), "offender": first.subject}
        ruling.sanctions = sanctions.build(state, specs, first.subject, day, {}, names, ruling,
                                           None)
        state.record(ruling)
        state.after(ev.id, [ruling], day)
    else:
        raise RuleError("appeal.unknown-outcome", field="outcome", outcome=ev.outcome)
