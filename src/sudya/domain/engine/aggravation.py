"""Aggravation and decisions: rulings held pending a decision, and the decisions on them.

003 «Совокупность наказаний»: while a subject holds a valid sanction, the next one must be
stricter than the table says; the document leaves the stricter choice to the college, so the
ruling is `aggravated`, `cause: aggravation`, pending, with what the table gives `offered`
(regulations.md §2.3). The decision must be stricter: its most severe sanction is more severe
than the table's (by rank, then amount: penal labour is compared by its amount), or it holds
all of the table's and more; its sanctions count their validity from the tournament of the
decision (003 «Срок действия наказаний»). The rulebook's `aggravation.decided_by` names who
may decide (003: the college of Tournament Masters). A judge's-choice ruling (004, a range)
is pending too until the judge's decision picks from the range.

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from sudya.domain.engine import repeats, sanctions, validity
from sudya.domain.engine.model import TERM_LIFTED, Decision, Reason, Ruling, Sanction
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Infraction, Outcome
from sudya.domain.rulebook.schema import SanctionSpec as Spec

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def hold(state: EngineState, ruling: Ruling, outcome: Outcome, subject: str, day: dt.date,
         details: dict[str, Any], names: dict[str, Any], inf: Infraction) -> None:
    """Hold the ruling for the college's stricter decision, offering the table's sanctions."""
    ruling.cause = "aggravation"
    ruling.aggravated = True
    ruling.pending = True
    state.wait_on(ruling, outcome)
    # a tuple, as long as it is (a list was 24 bytes more: a clan season's every seventh
    # ruling is held)
    ruling.offered = tuple(sanctions.build(state, outcome.sanctions, subject, day, details,
                                           names, ruling, inf, dry=True))
    state.add_shared_note(ruling, PENDING)


# one reason shared by every ruling held (a reason is never changed): one each, with its
# empty parameters, was 120 bytes of a clan season's every fourth ruling
PENDING = Reason("aggravation.pending")


def pending_of(state: EngineState, of: str, field: str = "of") -> Ruling:
    """The pending ruling of event `of`; refused if it made none or none is pending."""
    rulings = state.made(of)
    if not rulings:
        raise RuleError("event.no-ruling", field=field, event=of)
    pending = [r for r in rulings if r.pending and not r.revoked]
    if not pending:
        raise RuleError("event.not-pending", field=field, event=of)
    return pending[0]


def decision(state: EngineState, ev: Decision) -> None:
    """Settle a pending ruling: a stricter set of sanctions, or the judge's choice; or a
    frozen fight's result (released or annulled); or a sanction's term (set or lifted)."""
    if ev.until is not None or ev.lift:
        term_decision(state, ev)
        return
    frozen = state.frozen.get(ev.of)
    if frozen is not None and not frozen.pending:
        result_decision(state, ev, frozen)
        return
    if ev.result is not None:
        raise RuleError("decision.nothing-frozen", field="result", event=ev.of)
    target = pending_of(state, ev.of)
    state.check_judge(ev.judge, "decide", "decide")
    book = state.book
    inf = book.infraction(target.infraction or "")
    if inf is not None and inf.only_by is not None:  # §4 E12
        state.check_only_by(ev.judge, inf.only_by.roles)
    if ev.judge and target.aggravated and book.aggravation and book.aggravation.decided_by:
        role = state.roster.judges[ev.judge].role
        if role not in book.aggravation.decided_by:
            raise RuleError("decision.role-may-not", field="judge", judge=ev.judge,
                            role=role, roles=list(book.aggravation.decided_by))
    day = ev.date or state.t.date
    outcome = state.pending_cells[target]
    ruling = state.new_ruling(ev.id, target.subject, target.infraction, "decision", day,
                              target.round, ev.judge, target.details)
    ruling.resolves = ev.of
    # §2.3: decided sanctions count their validity from the tournament of the decision,
    # not from where (or between which stages) the violation was ruled on
    details = validity.without_validity_details(state, target.details)
    names = {**target.details, **state.context_names(), "offender": target.subject,
             "round": target.round, "amount": None, "earlier_count": 0}
    if target.aggravated:
        if not ev.sanctions:
            raise RuleError("decision.sanctions-required", field="sanctions")
        specs = [decided_spec(state, i, s) for i, s in enumerate(ev.sanctions)]
        ruling.sanctions = sanctions.build(state, specs, target.subject, day, details, names,
                                           ruling, inf, dry=False)
        for raw, s in zip(ev.sanctions, ruling.sanctions, strict=False):
            if raw.get("valid_until") is not None and not s.attached:
                s.valid_until = validity.parse_date(raw["valid_until"])
        offered = sanctions.build(state, outcome.sanctions, target.subject, day, details,
                                  names, Ruling(event="", subject="", infraction=None, cause=""),
                                  inf, dry=True)
        if not stricter(ruling.sanctions, offered):
            if not offered:
                raise RuleError("decision.nothing-offered", field="sanctions")
            raise RuleError("decision.not-stricter", field="sanctions",
                            offered=[s.kind for s in offered])
    else:
        if ev.choice is None:
            raise RuleError("decision.choice-required", field="choice")
        specs = sanctions.choose(outcome, ev.choice, state.book)
        ruling.sanctions = sanctions.build(state, specs, target.subject, day, details, names,
                                           ruling, inf)
    if ev.of in state.frozen:  # held, its fight frozen: the decision settles both (§4 E18)
        unfreeze(state, ev.of)
        annul = inf.freezes_result.annul_with if inf and inf.freezes_result else None
        ruling.add_notes(RESULT_ANNULLED if any(s.kind == annul for s in ruling.sanctions)
                         else RESULT_RELEASED)
    settle(state, target, ruling, ev, day)


def settle(state: EngineState, target: Ruling, ruling: Ruling, ev: Decision,
           day: dt.date) -> None:
    """Record the decision `ruling` on `target`, which it resolves."""
    state.keep(target)
    target.pending = False
    target.resolved_by = ev.id
    repeats.changed(state, target)  # decided: it no longer counts as pending
    state.record(ruling)
    state.entry(state.resolutions, ev.of).append(ruling)
    state.after(ev.id, [ruling], day)


RESULT_RELEASED = Reason("result.released")
RESULT_ANNULLED = Reason("result.annulled")


def unfreeze(state: EngineState, event: str) -> None:
    state.keep(state.frozen)
    del state.frozen[event]


def result_decision(state: EngineState, ev: Decision, target: Ruling) -> None:
    """003 «Техническое поражение» п.7, примечание: «Результаты боя замораживаются до
    выяснения» (§4 E18): the decision releases the fight's result (it counts as played,
    with the ruling's sanctions) or annuls the fight (the rulebook's `annul_with`)."""
    state.check_judge(ev.judge, "decide", "decide")
    book = state.book
    inf = book.infraction(target.infraction or "")
    assert inf is not None and inf.freezes_result is not None
    annul_with = inf.freezes_result.annul_with
    if ev.choice is not None:
        raise RuleError("decision.result-required", field="choice", event=ev.of)
    if ev.result is not None:
        if ev.sanctions:
            raise RuleError("decision.result-or-sanctions", field="sanctions")
        annul = ev.result == "annul"
    elif ev.sanctions is not None:
        kinds = [raw.get("kind") for raw in ev.sanctions]
        if any(k != annul_with for k in kinds):
            i = next(i for i, k in enumerate(kinds) if k != annul_with)
            raise RuleError("decision.frozen-only-annul", field=f"sanctions[{i}].kind",
                            kind=annul_with)
        annul = bool(kinds)
    else:
        raise RuleError("decision.result-required", field="result", event=ev.of)
    day = ev.date or state.t.date
    ruling = state.new_ruling(ev.id, target.subject, target.infraction, "decision", day,
                              target.round, ev.judge, target.details)
    ruling.resolves = ev.of
    if annul:
        details = validity.without_validity_details(state, target.details)
        names = {**target.details, **state.context_names(), "offender": target.subject,
                 "round": target.round, "amount": None, "earlier_count": 0}
        ruling.sanctions = sanctions.build(state, [Spec(kind=annul_with)], target.subject,
                                           day, details, names, ruling, inf)
    ruling.add_notes(RESULT_ANNULLED if annul else RESULT_RELEASED)
    unfreeze(state, ev.of)
    settle(state, target, ruling, ev, day)


def term_decision(state: EngineState, ev: Decision) -> None:
    """002 «Значение и сила пенальти»: «Срок приостановления членства определяет
    координатор» (§4 E13): a decision sets the term's last day (`until`) or lifts it."""
    if ev.until is not None and ev.lift:
        raise RuleError("decision.until-or-lift", field="lift")
    if ev.sanctions is not None or ev.choice is not None or ev.result is not None:
        raise RuleError("decision.term-only", field="until" if ev.until else "lift")
    rulings = state.made(ev.of)
    if not rulings:
        raise RuleError("event.no-ruling", field="of", event=ev.of)
    state.check_judge(ev.judge, "decide", "decide")
    found = [(r, t) for r in rulings if not r.revoked
             for t in state.terms.get(r.subject, ()) if t.sanction.ruling is r
             and not t.sanction.revoked]
    if not found:
        raise RuleError("decision.no-term", field="of", event=ev.of)
    day = ev.date or state.t.date
    for target, term in found:
        if term.lifted is not None:
            raise RuleError("decision.term-lifted", field="of", event=ev.of,
                            by=term.lifted)
        if ev.until is not None and ev.until < (target.date or day):
            raise RuleError("term.until-before", field="until", until=ev.until.isoformat(),
                            day=(target.date or day).isoformat())
    for target, term in found:
        ruling = state.new_ruling(ev.id, target.subject, target.infraction, "decision", day,
                                  target.round, ev.judge, target.details)
        ruling.resolves = ev.of
        state.keep(term)
        if ev.lift:
            term.lifted = ev.id
            ruling.add_notes(Reason(TERM_LIFTED, {"kind": term.sanction.kind}))
        else:
            term.until = ev.until
            assert ev.until is not None
            ruling.add_notes(Reason("term.set", {"kind": term.sanction.kind,
                                                 "until": ev.until.isoformat()}))
        state.record(ruling)


def decided_spec(state: EngineState, i: int, raw: Any) -> Spec:
    """One sanction of a decision as given (`{kind, amount, score}`), checked."""
    if not isinstance(raw, dict) or "kind" not in raw:
        raise RuleError("sanction.kind-required", field=f"sanctions[{i}]")
    kind = raw["kind"]
    try:
        k = state.book.kind(kind)
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


def severity(s: Sanction) -> tuple[int, int]:
    """How severe a sanction is: its rank, then its amount."""
    return (s.rank, abs(s.amount or 0))


def stricter(decided: list[Sanction], offered: list[Sanction]) -> bool:
    """Stricter: a more severe top sanction, or all of the table's and more."""
    dec = [s for s in decided if not s.attached]
    off = [s for s in offered if not s.attached]
    if not off:
        return bool(dec)
    if not dec:
        return False
    if max(map(severity, dec)) > max(map(severity, off)):
        return True
    remaining = list(dec)
    for o in off:
        match = next((d for d in remaining if d.kind == o.kind and
                      abs(d.amount or 0) >= abs(o.amount or 0)), None)
        if match is None:
            return False
        remaining.remove(match)
    return bool(remaining)
