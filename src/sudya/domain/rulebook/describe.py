"""Rulebook contents as plain text for people: tables per level, one infraction explained."""

from __future__ import annotations

from dataclasses import dataclass, field

from sudya.domain.rulebook.schema import (
    Infraction,
    Note,
    Outcome,
    Rulebook,
    SanctionKind,
    SanctionSpec,
    Text,
    _outcomes,
    _specs,
)
from sudya.i18n.messages import source_text

LABELS = {
    "ru": {
        "penalty": "Пенальти",
        "repeat": "Повтор",
        "repeat_n": "{n}-й раз и далее",
        "escalate": "на ступень выше последнего пенальти за это нарушение",
        "comes_with": "вместе с ним",
        "choice": "на выбор судьи",
        "points": "{least}…{most} очков",
        "source": "Источник",
        "interpretation": "Толкование",
        "conflict": "Расхождение источников",
        "note": "Примечание",
        "applies": "Применяется",
        "levels": "уровни",
        "settings": "настройки",
        "not_applicable": "не применяется",
        "details": "Что указать",
        "required": "обязательно",
        "before": "Перед вызовом судьи",
        "no_penalty": "Без пенальти, если",
        "also": "Также наказывается",
        "cancels": "Отменяет",
        "amount_by_college": "объём устанавливает коллегия",
        "variant": "Вариант",
        "special": "Особые правила",
        "amount": "объём",
        "lands_on_team": "команде",
        "default": "без выбора судьи",
        "removed": "игрок удаляется с турнира",
        "replacement": "с правом замены: {by}",
        "same-army": "игрок той же армии",
        "coach": "коуч",
        "scope_series": "до конца серии турниров",
        "scope_tournament": "до конца турнира",
        "waived": "Не даётся «{kind}», если {when}",
    },
    "en": {
        "penalty": "Penalty",
        "repeat": "Repeat",
        "repeat_n": "{n}th time and later",
        "escalate": "one rank above the last penalty for this infraction",
        "comes_with": "comes with",
        "choice": "judge's choice",
        "points": "{least}…{most} points",
        "source": "Source",
        "interpretation": "Interpretation",
        "conflict": "Conflict between sources",
        "note": "Note",
        "applies": "Applies",
        "levels": "levels",
        "settings": "settings",
        "not_applicable": "not applicable",
        "details": "Inputs",
        "required": "required",
        "before": "Before calling a judge",
        "no_penalty": "No penalty when",
        "also": "Also penalised",
        "cancels": "Cancels",
        "amount_by_college": "amount set by the college",
        "variant": "Variant",
        "special": "Special rules",
        "amount": "amount",
        "lands_on_team": "to the team",
        "default": "if the judge chooses nothing",
        "removed": "the player leaves the tournament",
        "replacement": "may be replaced by {by}",
        "same-army": "a player of the same army",
        "coach": "the coach",
        "scope_series": "for the rest of the series",
        "scope_tournament": "for the rest of the tournament",
        "waived": "No «{kind}» if {when}",
    },
}


def label(lang: str, key: str, **kw: object) -> str:
    table = LABELS.get(lang, LABELS["ru"])
    return table[key].format(**kw)


def text(t: Text | None, lang: str) -> str:
    return "" if t is None else t.get(lang)


def note_text(n: Note, lang: str) -> str:
    body = n.en if lang == "en" else n.ru
    return f"{body} ({source_text(n.source, lang)})" if n.source else body


def sanction_text(book: Rulebook, spec: SanctionSpec, lang: str, attachments: bool = True) -> str:
    """`Поражение в партии (+ Предупреждение)` and the like."""
    kind = book.kind(spec.kind)
    name = text(kind.name, lang)
    params = []
    if spec.amount is not None:
        params.append(amount_text(kind, spec.amount, lang))
    if spec.formula is not None:
        params.append(spec.formula.source)
    if spec.amount_from_choice:
        params.append(label(lang, "amount_by_college"))
    if spec.score:
        params.append(spec.score)
    if spec.when is not None:
        params.append(f"если {spec.when.source}" if lang == "ru" else f"if {spec.when.source}")
    if spec.status == "removed":
        params.append(label(lang, "removed"))
    if spec.replacement is not None:
        params.append(label(lang, "replacement", by=", ".join(
            label(lang, by) for by in spec.replacement.by)))
    if spec.scope is not None and spec.scope != kind.scope:
        params.append(label(lang, f"scope_{spec.scope}"))
    out = name + (f" [{', '.join(params)}]" if params else "")
    if attachments:
        extra = _attachments(book, spec.kind, lang)
        if extra:
            out += f" (+ {', '.join(extra)})"
    return out


def amount_text(kind: SanctionKind, amount: int, lang: str) -> str:
    """An amount as people read it: with the kind's unit where the rulebook gives one."""
    return kind.unit.text(amount, lang) if kind.unit else str(amount)


def _attachments(book: Rulebook, kind_id: str, lang: str) -> list[str]:
    out: list[str] = []
    for att in book.kind(kind_id).comes_with:
        name = text(book.kind(att.kind).name, lang)
        if att.amount is not None:
            name += f" [{amount_text(book.kind(att.kind), att.amount, lang)}]"
        if att.when is not None:
            name += f" ({att.when.source})"
        out.append(name)
        out.extend(_attachments(book, att.kind, lang))
    return out


def outcome_text(book: Rulebook, outcome: Outcome | None, lang: str) -> str:
    if outcome is None:
        return label(lang, "not_applicable")
    parts: list[str] = []
    if outcome.sanctions:
        parts.append(" + ".join(sanction_text(book, s, lang) for s in outcome.sanctions))
    if outcome.is_choice:
        options = [
            f"{text(outcome.option_names.get(name), lang) or name}"
            + (f" ({label(lang, 'default')})" if name == outcome.default else "") + ": "
            + (" + ".join(sanction_text(book, s, lang) for s in specs) or "—")
            for name, specs in outcome.options.items()
        ]
        if outcome.points:
            pr = outcome.points
            with_ = " + ".join(sanction_text(book, s, lang) for s in pr.with_)
            options.append(text(pr.name, lang) if pr.name else
                           label(lang, "points", least=pr.least, most=pr.most)
                           + (f" + {with_}" if with_ else ""))
        parts.append(f"{label(lang, 'choice')}: " + " | ".join(options))
    if not parts:
        parts.append("—")
    result = "; ".join(parts)
    if outcome.note:
        result += f" ({text(outcome.note, lang)})"
    return result


def level_cells(book: Rulebook, inf: Infraction, lang: str) -> dict[str, str]:
    """Level id (or "*" for rulebooks without levels) -> the penalty as text."""
    pen = inf.penalty
    if isinstance(pen, dict):
        return {lv: outcome_text(book, pen.get(lv), lang) for lv in book.level_ids()}
    cell = outcome_text(book, pen, lang)
    if book.levels:
        return {lv: cell for lv in book.level_ids()}
    return {"*": cell}


def repeat_lines(book: Rulebook, inf: Infraction, lang: str) -> list[str]:
    if book.repeats.mode == "escalate":
        return [f"{label(lang, 'repeat')}: {label(lang, 'escalate')}"]
    lines = []
    for i, outcome in enumerate(inf.repeats or [], start=2):
        last = i == len(inf.repeats or []) + 1
        when = label(lang, "repeat_n", n=i) if last else f"{i}"
        lines.append(f"{label(lang, 'repeat')} ({when}): {outcome_text(book, outcome, lang)}")
    return lines


@dataclass
class Explanation:
    """Everything a judge needs about one infraction."""

    id: str
    name: str
    category: str | None
    source: str
    description: str
    cells: dict[str, str]
    lines: list[str] = field(default_factory=list)
    interpretations: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def explain(book: Rulebook, inf: Infraction, lang: str = "ru") -> Explanation:
    """One infraction explained: penalty, what comes with it, sources, special rules."""
    exp = Explanation(
        id=inf.id, name=text(inf.name, lang), category=inf.category,
        source=source_text(inf.source, lang),
        description=text(inf.description, lang), cells=level_cells(book, inf, lang))
    exp.lines += repeat_lines(book, inf, lang)
    if inf.applies:
        bits = []
        if inf.applies.levels:
            bits.append(f"{label(lang, 'levels')}: {', '.join(inf.applies.levels)}")
        if inf.applies.settings:
            bits.append(f"{label(lang, 'settings')}: " + ", ".join(
                f"{k}={v}" for k, v in inf.applies.settings.items()))
        exp.lines.append(f"{label(lang, 'applies')}: {'; '.join(bits)}")
    for letter, item in inf.items.items():
        exp.lines.append(f"{letter}) {text(item, lang)}")
    details = {**book.common_details, **inf.details}
    if details:
        described = []
        for name, d in details.items():
            req = f", {label(lang, 'required')}" if d.required else (
                f", {label(lang, 'required')}: {d.required_if.source}" if d.required_if else "")
            values = f" ({'|'.join(d.values)})" if d.values else ""
            human = f" — {text(d.name, lang)}" if d.name else ""
            described.append(f"details.{name}: {d.type}{values}{req}{human}")
        exp.lines.append(f"{label(lang, 'details')}:")
        exp.lines += [f"  {line}" for line in described]
    for np in inf.no_penalty_when:
        exp.lines.append(f"{label(lang, 'no_penalty')} {np.when.source}: "
                         f"{note_text(np.note, lang)}")
    if inf.also_penalise:
        ap = inf.also_penalise
        exp.lines.append(f"{label(lang, 'also')}: details.{ap.detail} ({ap.when.source})")
    if inf.cancels:
        exp.lines.append(f"{label(lang, 'cancels')}: {', '.join(inf.cancels.infractions)} — "
                         f"{note_text(inf.cancels.note, lang)}")
    for red in inf.reductions:
        exp.lines.append(f"{red.formula.source} ({red.when.source}): {note_text(red.note, lang)}")
    for var in inf.variants:
        title = text(var.name, lang) or var.when.source
        pen = var.penalty if isinstance(var.penalty, Outcome) else None
        exp.lines.append(f"{label(lang, 'variant')} «{title}»: {outcome_text(book, pen, lang)}")
        for np in var.no_penalty_when:
            exp.lines.append(f"  {label(lang, 'no_penalty')} {np.when.source}: "
                             f"{note_text(np.note, lang)}")
    for _path, outcome in _outcomes(inf):
        for _sub, spec in _specs(outcome):
            for w in spec.waived_when:
                exp.lines.append(label(lang, "waived", kind=text(book.kind(spec.kind).name, lang),
                                       when=w.when.source) + f": {note_text(w.note, lang)}")
            if spec.replacement is not None:
                exp.lines.append(f"{label(lang, 'special')}: "
                                 f"{note_text(spec.replacement.note, lang)}")
    kind_readings: list[Note] = []
    rescoped = {spec.kind for _path, outcome in _outcomes(inf) for _sub, spec in _specs(outcome)
                if spec.scope is not None}
    for kind in _kinds_given(book, inf):
        rules = [*([kind.issued_only_by.note] if kind.issued_only_by else []),
                 *([kind.lost_while.note] if kind.lost_while else []),
                 *(carry.note for carry in kind.carry_over)]
        exp.lines += [f"{label(lang, 'special')}: {note_text(n, lang)}" for n in rules]
        if kind.status is not None and kind.id not in rescoped:
            exp.lines.append(f"{label(lang, 'special')}: {text(kind.name, lang)} — "
                             f"{label(lang, f'scope_{kind.scope}')}")
        kind_readings += [n for n in kind.interpretation if n not in kind_readings]
    if inf.before_calling_judge:
        exp.lines.append(f"{label(lang, 'before')}: {text(inf.before_calling_judge, lang)}")
    # the infraction's own readings, then those of the sanctions it gives (§4 E7, E8 …)
    exp.interpretations = [note_text(n, lang) for n in [*inf.interpretation, *kind_readings]]
    exp.conflicts = [note_text(n, lang) for n in inf.conflicts]
    exp.notes = [note_text(n, lang) for n in inf.notes]
    return exp


def _kinds_given(book: Rulebook, inf: Infraction) -> list[SanctionKind]:
    """Every sanction kind the infraction can give, with what always comes with it."""
    ids: list[str] = []
    for _path, outcome in _outcomes(inf):
        for _sub, spec in _specs(outcome):
            ids.append(spec.kind)
    seen: list[str] = []
    while ids:
        kind_id = ids.pop(0)
        if kind_id in seen:
            continue
        seen.append(kind_id)
        ids += [a.kind for a in book.kind(kind_id).comes_with]
    return [book.kind(k) for k in seen]


def special_rules(book: Rulebook, lang: str) -> list[str]:
    """The rulebook-wide rules a judge should know (stacking, conversions, validity...)."""
    out: list[str] = []
    if book.ladder:
        out.append(" → ".join(text(book.kind(k).name, lang) for k in book.ladder))
    if book.repeats.note:
        out.append(note_text(book.repeats.note, lang))
    if book.stacking:
        out += [note_text(n, lang) for n in book.stacking.interpretation]
    for conv in book.conversions:
        out.append(f"{conv.count} × {text(book.kind(conv.source_kind).name, lang)} = "
                   f"1 × {text(book.kind(conv.to).name, lang)} ({conv.source})")
    if book.validity:
        out += [note_text(n, lang) for n in book.validity.interpretation]
    if book.aggravation:
        out += [note_text(n, lang) for n in book.aggravation.interpretation]
    for acc in book.accumulation:
        out += [note_text(n, lang) for n in acc.interpretation]
    if book.no_penalty_after_disqualification:
        out.append(note_text(book.no_penalty_after_disqualification, lang))
    for kind in book.sanctions:
        if kind.issued_only_by:
            out.append(note_text(kind.issued_only_by.note, lang))
    return out
