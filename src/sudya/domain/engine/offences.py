"""Offences: a judge reports an infraction; the table cell, its details and its conditions.

000 Приложение №2 with the detailed sections (002 §1.1–1.4, 000 §7.1–7.5), 003 «Особая часть»,
004's table (regulations.md §1.4, §2.2, §3.3): each infraction's penalty, per rules
enforcement level where the regulation has levels; a `variant` brings another table (and its
own repeats) when its condition holds. Conditions (002 §1.1–1.4, regulations.md §1.5): an
infraction that does not apply at this level or with these settings is refused, not
penalised. 000 §7.1–7.2: both players are penalised when both could control
(`also_penalise`); `no_penalty_when` records the event with no penalty (an optional
trigger, a rollback). 002 «Сложение пенальти»: a disqualified player receives no further
penalties (`no_penalty_after_disqualification`). The declared `details` are checked by type
and range before anything is ruled.

The order of one ruling: out? no penalty? the cell; a repeat (repeats), else aggravation;
then a judge's choice or the cell's sanctions (sanctions); then cancellations and what the
rulings trigger (conversions, accumulation).

Shape: functions on the shared `EngineState` (state.py).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any, NamedTuple

from sudya.domain.engine import aggravation, cancellation, repeats, sanctions, validity
from sudya.domain.engine.model import FROZEN, Offence, Reason, Ruling
from sudya.domain.engine.sanctions import note
from sudya.domain.errors import RuleError, unknown_infraction
from sudya.domain.rulebook.schema import Detail, Infraction, NoPenalty, Outcome

if TYPE_CHECKING:
    from sudya.domain.engine.state import EngineState


def offence(state: EngineState, ev: Offence) -> None:
    """Rule on a reported infraction: a ruling per penalised player, then what they trigger."""
    book = state.book
    inf = book.infraction(ev.infraction)
    if inf is None:  # (with a «did you mean», or the Cyrillic letters in a Latin id named)
        code, params = unknown_infraction((i.id for i in book.infractions), ev.infraction,
                                          book.id)
        raise RuleError(code, field="infraction", **params)
    if inf.only_by is not None:  # (004: some penalties are the head judge's alone, §4 E12)
        state.check_only_by(ev.judge, inf.only_by.roles)
    if ev.judge is not None:  # (most reports name no judge)
        state.check_judge(ev.judge, "rule", "rule")
    state.check_playing(ev.offender, None)  # refused as the "team" or the "player"
    if inf.applies is not None:  # (most infractions apply everywhere)
        check_applies(state, inf)
    day = ev.date or state.t.date
    details, names = read_details(state, inf, ev.details, ev.offender, ev.round)
    variant = None
    for candidate in inf.variants:
        if candidate.when(names):
            variant = candidate
            break
    penalty = variant.penalty if variant and variant.penalty is not None else inf.penalty
    # a variant with its own table brings its own repeats (none when it names none)
    rows = (variant.repeats if variant and variant.penalty is not None
            else inf.repeats)
    no_penalty = ([*inf.no_penalty_when, *variant.no_penalty_when]
                  if variant and variant.no_penalty_when else inf.no_penalty_when)  # read only
    table = cell(state, penalty)
    subjects = [ev.offender]
    ap = inf.also_penalise
    # an event that draws no penalty is one ruling about its player, nobody else
    no_sanction = bool(no_penalty) and any(np.when(names) for np in no_penalty)
    if ap and not no_sanction and ap.when(names):
        other = details.get(ap.detail)
        if other and other != ev.offender:
            state.check_playing(other, f"details.{ap.detail}")
            subjects.append(other)
    made: list[Ruling] = []
    for subject in subjects:
        # one subject (most reports): the names themselves, nothing reads them after it
        sub_names = names if len(subjects) == 1 else {**names, "offender": subject}
        made.append(rule_on(state, ev, inf, subject, day, details, sub_names,
                            table, rows, no_penalty))
    for ruling in made:
        if inf.cancels and ruling.sanctions:
            cancellation.cancel(state, ev, inf, ruling)
    if state.book.cancelled_by(inf.id):  # cancelled by a penalty recorded before it (§4 E14)
        cancellation.cancel_by_earlier(state, ev, inf, made)
    state.after(ev.id, made, day)


def rule_on(state: EngineState, ev: Offence, inf: Infraction, subject: str, day: dt.date,
            details: dict[str, Any], names: dict[str, Any], table: Outcome | None,
            rows: list[Outcome] | None, no_penalty: list[NoPenalty]) -> Ruling:
    """The ruling on one subject of an offence, recorded."""
    book = state.book
    ruling = state.new_ruling(ev.id, subject, inf.id, "table", day, ev.round, ev.judge,
                              details)
    ruling.notes = notes_of(state, inf)  # shared: a ruling's notes are never changed
    if book.no_penalty_after_disqualification and state.is_out(subject):
        ruling.cause = "none"
        ruling.add_notes(note(book.no_penalty_after_disqualification))
        return state.record(ruling)
    for np in no_penalty:
        if np.when(names):
            ruling.cause = "none"
            ruling.add_notes(note(np.note))
            return state.record(ruling)
    if table is None:
        raise RuleError("infraction.no-penalty-at-level", field="infraction",
                        infraction=inf.id, level=state.t.level)
    found = repeats.earlier(state, inf, subject, day, names)
    outcome = repeats.repeated(state, ruling, inf, table, rows, found)
    if outcome is None:
        outcome = table
        if book.aggravation and validity.holds_valid(state, subject, day):
            aggravation.hold(state, ruling, outcome, subject, day, details, names, inf)
            freeze(state, ruling, inf, names)
            return state.record(ruling)
    if outcome.is_choice:
        if ev.choice is None and outcome.default is None:
            ruling.pending = True
            state.wait_on(ruling, outcome)
            ruling.offered = sanctions.offered(state, outcome, subject, day, details, names,
                                               inf)
            state.add_shared_note(ruling, CHOICE_PENDING)
            return state.record(ruling)
        if ev.choice is None:
            # the judge chose nothing: the cell's default is given at once (§4 E1: the
            # warning is always given, a yellow card only when the judge adds it)
            assert outcome.default is not None
            specs = list(outcome.options[outcome.default])
            ruling.add_notes(Reason("choice.default",
                                    {"kinds": [sp.kind for sp in specs]}))
        else:
            specs = sanctions.choose(outcome, ev.choice, state.book)
            ruling.cause = "discretion"
    else:
        specs = list(outcome.sanctions)
        if outcome.amount:
            names["amount"] = sanctions.choice_amount(ev.choice)
    ruling.sanctions = sanctions.build(state, specs, subject, day, details, names, ruling, inf)
    if not ruling.sanctions:
        ruling.cause = "none"
    else:
        freeze(state, ruling, inf, names)
        check_term(state, ruling, day)
    return state.record(ruling)


def freeze(state: EngineState, ruling: Ruling, inf: Infraction, names: dict[str, Any]) -> None:
    """The fight's result is frozen until a decision releases or annuls it (003 «Техническое
    поражение» п.7, примечание; §4 E18), where the infraction says so."""
    fr = inf.freezes_result
    if fr is None or (fr.when is not None and not fr.when(names)):
        return
    ruling.add_notes(Reason(FROZEN, {"text": {"ru": fr.note.ru, "en": fr.note.en}},
                            fr.note.source))
    state.keep_key(state.frozen, ruling.event)
    state.frozen[ruling.event] = ruling


def check_term(state: EngineState, ruling: Ruling, day: dt.date) -> None:
    """A term's last day (a sanction that runs for a term, §4 E13) is not before the ruling."""
    for s in ruling.sanctions:
        term = state.book.kind(s.kind).term
        if term is None:
            continue
        until = ruling.details.get(term.detail)
        if isinstance(until, dt.date) and until < day:
            raise RuleError("term.until-before", field=f"details.{term.detail}",
                            until=until.isoformat(), day=day.isoformat())


def cell(state: EngineState,
         penalty: dict[str, Outcome | None] | Outcome | None) -> Outcome | None:
    """The table cell for the tournament's level (refused if the level has no cell)."""
    if isinstance(penalty, dict):
        if state.t.level not in penalty or penalty[state.t.level] is None:
            raise RuleError("infraction.not-at-level", field="infraction",
                            level=state.t.level)
        return penalty[state.t.level]
    return penalty


def check_applies(state: EngineState, inf: Infraction) -> None:
    """Refuse an infraction that does not apply at this level or with these settings."""
    cond = inf.applies
    if cond is None:
        return
    if cond.levels and state.t.level not in cond.levels:
        raise RuleError("infraction.only-levels", field="infraction", infraction=inf.id,
                        level=state.t.level, levels=list(cond.levels))
    for name, wanted in cond.settings.items():
        have = state.setting(name)
        if have != wanted:
            raise RuleError("infraction.only-with-setting", field="infraction",
                            infraction=inf.id, setting=name, wanted=wanted, have=have)


CHOICE_PENDING = Reason("choice.pending")  # shared, as aggravation.PENDING


# ---------------------------------------------------------------------- details
class Declared(NamedTuple):
    """An infraction's inputs with the rulebook's common ones (`spec`), worked out once per
    edition: their defaults, and the ones that may be required, in order."""

    spec: dict[str, Detail]
    defaults: dict[str, Any]
    required: list[tuple[str, Detail]]


def declared(state: EngineState, inf: Infraction) -> Declared:
    """The inputs an infraction declares, with the rulebook's common ones."""
    found = state.spec_cache.get(inf.id)
    if found is None:
        spec = {**state.book.common_details, **inf.details}
        found = Declared(spec, {name: d.default for name, d in spec.items()},
                         [(name, d) for name, d in spec.items() if d.required or d.required_if])
        state.keep_key(state.spec_cache, inf.id)
        state.spec_cache[inf.id] = found
    return found


def notes_of(state: EngineState, inf: Infraction) -> tuple[Reason, ...]:
    """The source and interpretations every ruling on `inf` shows (one tuple, shared by
    the rulings that show nothing more)."""
    notes = state.note_cache.get(inf.id)
    if notes is None:
        notes = (Reason("rule.source", {"source": inf.source}, inf.source),
                 *(Reason("rule.interpretation", {"text": {"ru": n.ru, "en": n.en}},
                          n.source) for n in inf.interpretation))
        state.keep_key(state.note_cache, inf.id)
        state.note_cache[inf.id] = notes
    return notes


def read_details(state: EngineState, inf: Infraction, given: dict[str, Any], offender: str,
                 round_: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The event's details checked against the declared ones, defaults filled in; with the
    names its conditions and formulas read (the details, the tournament's, the offender's)."""
    spec, defaults, required = declared(state, inf)
    # none given: the defaults themselves (a ruling's details are never changed, so the
    # rulings on an infraction reported without details share one dict)
    values = dict(defaults) if given else defaults
    for name, raw in given.items():
        d = spec.get(name)
        values[name] = raw if d is None else detail_value(state, name, d, raw)
    names = _names(state, offender, values, round_)
    for name, d in required:
        if values.get(name) is not None:
            continue
        if not d.required and not (d.required_if and d.required_if(names)):
            continue
        raise RuleError("detail.required", field=f"details.{name}", infraction=inf.id)
    return (shared_details(state, spec, given, values) if given else values), names


# the types of detail with few values (a flag, a number, one of a list): the rulings given
# the same ones share one dict of them. A clan season's attacks (a level of 1 to 20) made a
# dict of 184 bytes each, 23 different ones among 24,000
FEW = ("bool", "int", "number", "enum")
PLAIN = (bool, int, float, str, type(None))


def shared_details(state: EngineState, spec: dict[str, Detail], given: dict[str, Any],
                   values: dict[str, Any]) -> dict[str, Any]:
    """The dict of these details another ruling has already (a ruling's details are never
    changed), or `values`, kept for the next ones; not for details of many values (a
    player, a date, a text: the cache would only grow)."""
    for name in given:
        d = spec.get(name)
        if d is None or d.type not in FEW:
            return values
    if not all(type(v) in PLAIN for v in values.values()):
        return values
    # by type too: 1, 1.0 and True are equal, but not the same JSON
    key = tuple((name, type(v), v) for name, v in values.items())
    found = state.details_cache.get(key)
    if found is None:
        state.keep_key(state.details_cache, key)
        found = state.details_cache[key] = values
    return found


def detail_value(state: EngineState, name: str, d: Detail, raw: Any) -> Any:
    """One detail's value, checked against its declared type and range."""
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
        if ok and raw not in state.roster.team_of and raw not in state.roster.players:
            raise RuleError("player.unknown", field=field, player=raw)
    elif d.type == "enum":
        ok = raw in d.values
        if not ok:
            raise RuleError("value.not-one-of", field=field, values=list(d.values))
    elif d.type == "date":
        try:
            value = validity.parse_date(raw)
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


def _names(state: EngineState, offender: str, details: dict[str, Any],
           round_: int | None) -> dict[str, Any]:
    return {**details, **state.context_names(), "offender": offender, "round": round_,
            "amount": None, "earlier_count": 0}
