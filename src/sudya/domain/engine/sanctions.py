"""From a table cell to sanctions: the judge's choice, amounts, attachments, who bears them.

002 «Значение и сила пенальти»: a penalty always comes with the ones it carries (`comes_with`,
transitive: a disqualification carries a match loss, which carries a warning); a loss given
between games or matches applies to the next one (`carry_over`); a suspension may be issued
only by the publisher's official head judge at professional or highest, otherwise the
rulebook's `issued_only_by.otherwise` is given with its note (regulations.md §1.4).
003 (regulations.md §2.1, who bears a sanction): `lands_on: team` puts the fight's sanctions
on the offender's team; 003 «Дисквалификация ... с правом замены (если это право не отозвано
другим наказанием)»: `lost_while`; 003 «Назначение каторги» п.1–3: amounts by formula, and the
once-per-character halving (`reductions`). 004 (regulations.md §3.3–3.4): a judge's-choice
range is never picked by the system; the choice is checked against the range.

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sudya.domain.engine import validity
from sudya.domain.engine.model import ChoiceOption, Offered, PointsOption, Reason, Ruling, Sanction
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Infraction, Note, Outcome, Rulebook, SanctionKind
from sudya.domain.rulebook.schema import SanctionSpec as Spec

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState

AMOUNT_LIMIT = 10**9  # no penalty is that large; beyond it the numbers are a typo


def note(n: Note) -> Reason:
    """A note of the rulebook's own (a waiver, a carry-over, an authority…) as a reason."""
    return Reason("rulebook.note", {"text": {"ru": n.ru, "en": n.en}}, n.source)


def build(state: EngineState, specs: Iterable[Spec], offender: str, day: dt.date,
          details: dict[str, Any], names: dict[str, Any], ruling: Ruling,
          inf: Infraction | None, dry: bool = False) -> list[Sanction]:
    """The sanctions a cell's specs give; `dry` builds what would be given, granting nothing."""
    book = state.book
    out: list[Sanction] = []
    for spec in specs:
        if spec.when is not None and not spec.when(names):
            continue
        if spec.waived_when:
            waiver = next((w for w in spec.waived_when if w.when(names)), None)
            if waiver is not None:
                ruling.add_notes(note(waiver.note))
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
            amount = reduce(state, inf, kind, offender, amount, names, ruling)
        if kind.issued_only_by is not None:  # (most kinds any judge may give)
            kind = authorised(state, kind, ruling)
        if kind.lost_while and not dry:
            holder = bearer(state, book.kind(kind.lost_while.held), None, offender)
            if validity.holds_kind(state, holder, kind.lost_while.held, day):
                ruling.add_notes(note(kind.lost_while.note))
                kind = book.kind(kind.lost_while.becomes)
        add(state, out, kind, bearer(state, kind, spec.subject, offender), amount, spec.score,
            False, day, details, names, ruling, spec)
    return out.copy()  # exactly as long (appends leave room for more): a ruling keeps it


def add(state: EngineState, out: list[Sanction], kind: SanctionKind, bearer: str,
        amount: int | None, score: str | None, attached: bool, day: dt.date,
        details: dict[str, Any], names: dict[str, Any], ruling: Ruling,
        spec: Spec | None = None) -> None:
    """Append a sanction of `kind` and, after it, every sanction it comes with.

    The table's `spec` may give it a status its kind does not (a player's removal, §4 E9)
    or another scope (a DQ «с турнира» of a kind that is otherwise for the series, §4 E7).
    """
    status = (spec.status if spec else None) or kind.status
    out.append(Sanction(kind=kind.id, subject=bearer, rank=kind.rank, amount=amount,
                        score=score, attached=attached,
                        valid_until=validity.valid_until(state, kind, day, details),
                        status=status,
                        scope=(spec.scope if spec else None) or kind.scope,
                        replaceable_by=tuple(spec.replacement.by)
                        if spec and spec.replacement else ()))
    if kind.carry_over:  # (most kinds never carry)
        carry(kind, details, ruling)
    for att in kind.comes_with:
        if att.when is not None and not att.when(names):
            continue
        add(state, out, state.book.kind(att.kind), bearer, att.amount, None, True, day,
            details, names, ruling)


def carry(kind: SanctionKind, details: dict[str, Any], ruling: Ruling,
          explain: bool = True) -> None:
    """Name in `applies_to` the next game or match a sanction of `kind` applies to, when the
    details say it was given between games or matches (or the judge carried it, §4 E8);
    `explain` adds the carry-over's note to the ruling's reasons."""
    for c in kind.carry_over:
        if details.get(c.detail):
            ruling.applies_to = {**(ruling.applies_to or {}), kind.id: c.applies_to}
            if not explain:
                continue
            # 002 / §4 E8: carried near the end of a game or match is the judge's decision
            ruling.add_notes(Reason("carry-over.by-judge",
                                    {"text": {"ru": c.note.ru, "en": c.note.en}},
                                    c.note.source) if c.by_judge
                             else note(c.note))


def bearer(state: EngineState, kind: SanctionKind, spec_subject: str | None,
           offender: str) -> str:
    """Who bears a sanction: the offender, or the offender's team for `lands_on: team`."""
    lands = spec_subject or kind.lands_on
    if lands == "team":
        return state.roster.team_of.get(offender, offender)
    return offender


def authorised(state: EngineState, kind: SanctionKind, ruling: Ruling) -> SanctionKind:
    """The kind itself if the ruling's judge may issue it, else what is given instead."""
    auth = kind.issued_only_by
    if auth is None:
        return kind
    judge = state.roster.judges.get(ruling.judge or "")
    ok = (
        judge is not None
        and judge.role in auth.roles
        and (judge.official or not auth.official)
        and (not auth.levels or state.t.level in auth.levels)
    )
    if ok:
        return kind
    ruling.add_notes(note(auth.note))
    return state.book.kind(auth.otherwise)


def reduce(state: EngineState, inf: Infraction, kind: SanctionKind, subject: str, amount: int,
           names: dict[str, Any], ruling: Ruling) -> int:
    """An amount after the infraction's reductions (each at most once per subject if so said)."""
    for red in inf.reductions:
        if red.kind != kind.id or not red.when(names):
            continue
        key = (subject, kind.id)
        if red.once_per_subject and key in state.reduced:
            ruling.add_notes(Reason("reduction.already-granted", {"subject": subject}))
            continue
        state.keep_key(state.reduced, key)
        state.reduced[key] = None
        ruling.add_notes(note(red.note))
        amount = int(red.formula({**names, "amount": amount}))
    return amount


# ---------------------------------------------------------------------- the judge's choice
def choose(outcome: Outcome, choice: Any, book: Rulebook | None = None) -> list[Spec]:
    """The specs a judge's choice picks from a range; a choice it does not offer is refused
    (naming what is offered: in Russian by the options' names, §4 E11)."""
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
    names = [option_name(book, outcome, name) for name in outcome.options]
    if pr is not None:
        names.append(pr.name.ru if pr.name else f"{pr.least}…{pr.most}")
    raise RuleError("choice.not-offered", field="choice", choice=choice,
                    offered={"ru": ", ".join(names), "en": ", ".join(allowed)})


def option_name(book: Rulebook | None, outcome: Outcome, option: str) -> str:
    """How an option of a judge's choice reads in Russian: its name, or its sanction's."""
    named = outcome.option_names.get(option)
    if named is not None:
        return named.ru
    if book is not None:
        try:
            return f"«{book.kind(option).name.ru}»"
        except KeyError:
            pass
    return option


def choice_amount(choice: Any) -> int:
    """The amount a judge sets (`{amount: N}`) where the rulebook leaves it to them."""
    if isinstance(choice, dict) and set(choice) == {"amount"}:
        n = choice["amount"]
        if isinstance(n, int) and not isinstance(n, bool) and 0 < n <= AMOUNT_LIMIT:
            return n
    raise RuleError("choice.amount-required", field="choice")


def offered(state: EngineState, outcome: Outcome, subject: str, day: dt.date,
            details: dict[str, Any], names: dict[str, Any],
            inf: Infraction | None) -> tuple[Offered, ...]:
    """What a range offers the judge: each named choice with its sanctions, and the points."""
    probe = Ruling(event="", subject=subject, infraction=None, cause="")
    out: list[Offered] = []
    for name, specs in outcome.options.items():
        built = build(state, specs, subject, day, details, names, probe, inf, dry=True)
        out.append(ChoiceOption(choice=name, sanctions=tuple(built)))
    if outcome.points:
        pr = outcome.points
        out.append(PointsOption(least=pr.least, most=pr.most,
                                with_=tuple(s.kind for s in pr.with_)))
    return tuple(out)
