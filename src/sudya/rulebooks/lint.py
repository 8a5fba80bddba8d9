"""A linter for regulations: what a rulebook gets wrong, and every place someone had to choose.

Every interpretation and source conflict is a note; one whose source cites an erratum of
regulations.md §4 («§4 E3») names it, and every other note of the rulebook that cites an
erratum (a waiver, a carry-over, a replacement…) is listed too, so the errata's readings can be
checked one by one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from sudya.errors import RulebookError
from sudya.rulebooks import loader
from sudya.rulebooks.schema import Infraction, Note, Outcome, Rulebook, _outcomes, _specs


@dataclass(frozen=True)
class Finding:
    severity: str  # "error" or "note"
    where: str
    message: str

    def line(self) -> str:
        where = f"{self.where}: " if self.where else ""
        return f"{self.severity}: {where}{self.message}"


def lint(ref: str, lang: str = "en") -> list[Finding]:
    """Lint a bundled rulebook id or a rulebook file (notes in Russian or English)."""
    try:
        book = loader.load(ref)
    except RulebookError as exc:
        problems = exc.params.get("problems") or [str(exc)]
        return [Finding("error", "", p) for p in problems]  # the message names the file
    return lint_book(book, lang)


def lint_book(book: Rulebook, lang: str = "en") -> list[Finding]:
    findings: list[Finding] = []
    findings += _never_apply(book)
    findings += _unreachable_ladder(book)
    findings += _unused_kinds(book)
    findings += _recorded_notes(book, lang)
    return findings


def _never_apply(book: Rulebook) -> list[Finding]:
    out: list[Finding] = []
    levels = book.level_ids()
    for inf in book.infractions:
        where = f"infractions.{inf.id}"
        usable = set(levels) if levels else {"*"}
        if isinstance(inf.penalty, dict):
            usable = {lv for lv, cell in inf.penalty.items() if cell is not None}
        elif inf.penalty is None and not inf.variants:
            out.append(Finding("error", where, "has no penalty table at all"))
            continue
        if inf.applies and inf.applies.levels:
            usable &= set(inf.applies.levels)
        if not usable:
            out.append(Finding("error", where, "can never apply: no level both allows it "
                                               "and has a penalty for it"))
        if inf.applies:
            for name, wanted in inf.applies.settings.items():
                spec = book.settings.get(name)
                kinds = {"bool": bool, "int": int, "str": str}
                if spec is not None and not isinstance(wanted, kinds[spec.type]):
                    out.append(Finding("error", where,
                                       f"can never apply: settings.{name} is a {spec.type}, "
                                       f"the condition asks for {wanted!r}"))
        out += _empty_outcomes(inf, where)
    return out


def _empty_outcomes(inf: Infraction, where: str) -> list[Finding]:
    out = []
    for path, outcome in _outcomes(inf):
        if not outcome.sanctions and not outcome.is_choice:
            out.append(Finding("note", f"{where}.{path}", "gives no sanction"))
    return out


def _principals(book: Rulebook) -> set[str]:
    kinds: set[str] = set()
    for inf in book.infractions:
        for _path, outcome in _outcomes(inf):
            kinds.update(spec.kind for _sub, spec in _specs(outcome))
    if book.appeals and book.appeals.frivolous:
        kinds.update(spec.kind for _sub, spec in _specs(book.appeals.frivolous))
    for acc in book.accumulation:
        kinds.update(s.kind for s in acc.gives)
    for conv in book.conversions:
        kinds.add(conv.to)
    for k in book.sanctions:
        if k.issued_only_by:
            kinds.add(k.issued_only_by.otherwise)
        if k.lost_while:
            kinds.add(k.lost_while.becomes)
    return kinds


def _unreachable_ladder(book: Rulebook) -> list[Finding]:
    """Ladder steps neither a table gives nor a repeat or stacking can reach."""
    if not book.ladder:
        return []
    by_rank = {book.kind(k).rank: k for k in book.ladder}
    reached = {k for k in _principals(book) if k in book.ladder}
    ranks = sorted(by_rank)
    # a repeat or stacking walks one rank up from anything a table gives
    for kind in _principals(book):
        r = book.kind(kind).rank
        higher = [x for x in ranks if x > r]
        if higher and book.repeats.mode == "escalate":
            reached.add(by_rank[higher[0]])
    frontier = list(reached)
    while frontier and book.repeats.mode == "escalate":
        r = book.kind(frontier.pop()).rank
        higher = [x for x in ranks if x > r]
        if higher and by_rank[higher[0]] not in reached:
            reached.add(by_rank[higher[0]])
            frontier.append(by_rank[higher[0]])
    return [Finding("error", f"ladder.{k}", "no table, repeat or stacking can ever reach this "
                                            "step") for k in book.ladder if k not in reached]


def _unused_kinds(book: Rulebook) -> list[Finding]:
    used = _principals(book) | set(book.ladder)
    for k in book.sanctions:
        used.update(a.kind for a in k.comes_with)
    return [Finding("note", f"sanctions.{k.id}", "no rule ever gives this sanction")
            for k in book.sanctions if k.id not in used]


ERRATUM = re.compile(r"§4 (E\d+)")


def errata(source: str) -> list[str]:
    """The errata of regulations.md §4 a source cites («regulations.md §4 E3» -> ["E3"])."""
    return ERRATUM.findall(source)


def _recorded_notes(book: Rulebook, lang: str) -> list[Finding]:
    """Every interpretation and source conflict the rulebook records, and every other note
    that cites an erratum (regulations.md §4)."""
    words = {"interpretation": "толкование", "conflict": "расхождение источников",
             "variant": "вариант", "erratum": "примечание"} if lang == "ru" else {}
    listed: set[int] = set()

    def _number(n: Note) -> str:
        found = errata(n.source)
        if not found:
            return ""
        if lang == "ru":
            return "(" + ", ".join(f"поправка {e[1:]}" for e in found) + ") "
        return f"({', '.join(found)}) "

    def _note(where: str, label: str, n: Note) -> Finding:
        listed.add(id(n))
        src = f" [{n.source}]" if n.source else ""
        body = n.ru if lang == "ru" else n.en
        return Finding("note", where, f"{words.get(label, label)}: {_number(n)}{body}{src}")

    out: list[Finding] = []
    for name, setting in book.settings.items():
        out += [_note(f"settings.{name}", "interpretation", n) for n in setting.interpretation]
    for rid, role in book.roles.items():
        out += [_note(f"roles.{rid}", "interpretation", n) for n in role.interpretation]
    for k in book.sanctions:
        out += [_note(f"sanctions.{k.id}", "interpretation", n) for n in k.interpretation]
    for section, notes in (
        ("stacking", book.stacking.interpretation if book.stacking else []),
        ("validity", book.validity.interpretation if book.validity else []),
        ("aggravation", book.aggravation.interpretation if book.aggravation else []),
        ("appeals", book.appeals.interpretation if book.appeals else []),
    ):
        out += [_note(section, "interpretation", n) for n in notes]
    for conv in book.conversions:
        out += [_note(f"conversions.{conv.source_kind}", "interpretation", n)
                for n in conv.interpretation]
    for acc in book.accumulation:
        out += [_note("accumulation", "interpretation", n) for n in acc.interpretation]
    if book.scoring:
        out += [_note("scoring", "interpretation", n) for n in book.scoring.interpretation]
    for fid, fmt in book.formats.items():
        out += [_note(f"formats.{fid}", "interpretation", n) for n in fmt.interpretation]
    if book.squad:
        out += [_note("squad", "interpretation", n) for n in book.squad.interpretation]
    for inf in book.infractions:
        where = f"infractions.{inf.id}"
        out += [_note(where, "interpretation", n) for n in inf.interpretation]
        out += [_note(where, "conflict", n) for n in inf.conflicts]
        if inf.cancels:
            out.append(_note(where, "interpretation", inf.cancels.note))
        for var in inf.variants:
            if isinstance(var.penalty, Outcome) and var.penalty.note:
                note = var.penalty.note
                out.append(Finding("note", where, f"{words.get('variant', 'variant')}: "
                                                  f"{note.ru if lang == 'ru' else note.en}"))
    # what else an erratum changed: the notes that cite one, wherever the rulebook keeps them
    out += [_note(where, "erratum", n) for where, n in _notes(book)
            if id(n) not in listed and errata(n.source)]
    return out


def _notes(model: Any, where: str = "") -> Iterator[tuple[str, Note]]:
    """Every note of a rulebook with the key path of what holds it (`infractions.<id>`…)."""
    if isinstance(model, Note):
        yield where, model
    elif isinstance(model, BaseModel):
        for name in type(model).model_fields:
            value = getattr(model, name)
            if where == "" and name in ("infractions", "sanctions"):
                for item in value:
                    yield from _notes(item, f"{name}.{item.id}")
            else:
                yield from _notes(value, where or name)
    elif isinstance(model, dict):
        for key, value in model.items():
            yield from _notes(value, f"{where}.{key}" if where in ("roles", "settings")
                              else where)
    elif isinstance(model, list | tuple):
        for value in model:
            yield from _notes(value, where)
