"""A linter for regulations: what a rulebook gets wrong, and every place someone had to choose.

Every interpretation and source conflict is a note; one whose source cites an erratum of
regulations.md §4 («§4 E3») names it, and every other note of the rulebook that cites an
erratum (a waiver, a carry-over, a replacement…) is listed too, so the errata's readings can be
checked one by one.

Beyond what cannot load, it proves what it can about the rules (the checks of issue 17, each a
code of `locale/codes/lint.*.po`, its severity in SEVERITY): a level where an infraction applies
but its table gives nothing, repeat rows that go back down or skip steps of the ladder (or are
never read), variants of one infraction that both apply to the same event, conditions that can
never be true (or always are), sanction kinds nothing gives, and editions whose dates overlap
or leave a gap. An error is a rule that cannot work as written (refused, dead or ambiguous); a
warning is one that works but is probably not what was meant.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import conditions, editions, loader
from sudya.domain.rulebook.conditions import Space
from sudya.domain.rulebook.formula import Formula
from sudya.domain.rulebook.schema import (
    Edition,
    Infraction,
    Note,
    Outcome,
    Rulebook,
    Variant,
    _outcomes,
    _specs,
)
from sudya.i18n.messages import render

Loc = tuple[str | int, ...]

# every coded finding and how grave it is: an error is a rule that cannot work as written
# (refused, never applied, or ambiguous); a warning one that works but is probably not meant
SEVERITY: dict[str, str] = {
    "lint.level-no-penalty": "error",
    "lint.level-null-penalty": "warning",
    "lint.repeats-unused": "error",
    "lint.repeat-down": "error",
    "lint.repeat-down-at": "error",
    "lint.repeat-skips": "warning",
    "lint.repeat-skips-at": "warning",
    "lint.variant-shadowed": "error",
    "lint.variants-overlap": "warning",
    "lint.enum-value-unknown": "error",
    "lint.condition-never-true": "error",
    "lint.condition-fails": "error",
    "lint.never-penalised": "error",
    "lint.never-given": "error",
    "lint.kind-unused": "warning",
    "lint.edition-file-mismatch": "error",
    "lint.edition-missing": "warning",
    "lint.edition-unreadable": "error",
    "lint.edition-ends-before": "error",
    "lint.edition-overlap": "error",
    "lint.edition-overlap-end": "error",
    "lint.edition-gap": "warning",
    "lint.edition-retroactive": "warning",
    "lint.edition-history-differs": "warning",
}


@dataclass(frozen=True)
class Finding:
    severity: str  # "error", "warning" or "note"
    where: str
    message: str
    # a coded finding: its code and parameters (the message is their text), the key path it
    # is about, and the file and line that holds it where the rulebook came from a file
    code: str = field(default="", compare=False)
    params: Mapping[str, Any] = field(default_factory=dict, compare=False)
    loc: Loc = field(default=(), compare=False)
    file: str = field(default="", compare=False)
    at: int | None = field(default=None, compare=False)

    def line(self) -> str:
        place = f"{self.file}:{self.at}: " if self.file and self.at else ""
        where = f"{self.where}: " if self.where else ""
        return f"{self.severity}: {place}{where}{self.message}"


def _finding(code: str, loc: Loc, lang: str, **params: Any) -> Finding:
    """A coded finding about the key path `loc`, its message in `lang`."""
    return Finding(SEVERITY[code], _where(loc), render(code, params, lang), code=code,
                   params=params, loc=loc)


def _where(loc: Loc) -> str:
    """("infractions", "noise", "repeats", 0) -> "infractions.noise.repeats[0]"."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def lint(ref: str, lang: str = "en") -> list[Finding]:
    """Lint a bundled rulebook id or a rulebook file (notes in Russian or English): its newest
    edition, and the sequence of its editions (ID.yaml, ID.2.yaml …)."""
    try:
        book = loader.load(ref)
    except RulebookError as exc:
        problems = exc.params.get("problems") or [exc.render(lang)]
        return [Finding("error", "", p) for p in problems]  # the message names the file
    files = editions.files_of(ref)
    path = files.get(book.edition) or (Path(ref) if Path(ref).is_file() else None)
    findings = [_placed(f, path) for f in lint_book(book, lang)]
    return findings + _edition_files(files, lang)


def lint_book(book: Rulebook, lang: str = "en") -> list[Finding]:
    """Every finding about one rulebook edition (the sequence of editions: lint_editions)."""
    findings: list[Finding] = []
    findings += _never_apply(book)
    findings += _unreachable_ladder(book)
    findings += _levels_without_penalty(book, lang)
    findings += _repeat_rows(book, lang)
    findings += _conditions(book, lang)
    findings += _unused_kinds(book, lang)
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


def _unused_kinds(book: Rulebook, lang: str) -> list[Finding]:
    """Sanction kinds declared but given by nothing (a college's decision still may: hence a
    warning, not an error)."""
    used = _principals(book) | set(book.ladder)
    for k in book.sanctions:
        used.update(a.kind for a in k.comes_with)
    return [_finding("lint.kind-unused", ("sanctions", k.id), lang, kind=k.id)
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


# ------------------------------------------------------------------ levels (issue 17)


def _levels_without_penalty(book: Rulebook, lang: str) -> list[Finding]:
    """A level where the infraction applies but its table gives nothing: recording it there is
    refused (`infraction.not-at-level`). A missing cell is an error; a cell written `null` is a
    warning (someone wrote it, but `applies.levels` is where a rule says where it applies)."""
    levels = book.level_ids()
    out: list[Finding] = []
    if not levels:
        return out
    for inf in book.infractions:
        allowed = [lv for lv in levels if not (inf.applies and inf.applies.levels)
                   or lv in inf.applies.levels]
        tables: list[tuple[Loc, Any]] = [(("infractions", inf.id, "penalty"), inf.penalty)]
        tables += [(("infractions", inf.id, "variants", i, "penalty"), var.penalty)
                   for i, var in enumerate(inf.variants)]
        usable = isinstance(inf.penalty, dict) and any(
            inf.penalty.get(lv) is not None for lv in allowed)
        if isinstance(inf.penalty, dict) and not usable:
            continue  # it can never apply: that error is said already
        for loc, table in tables:
            if not isinstance(table, dict):
                continue
            for lv in allowed:
                if lv not in table:
                    out.append(_finding("lint.level-no-penalty", loc, lang, level=lv,
                                        infraction=inf.id))
                elif table[lv] is None:
                    out.append(_finding("lint.level-null-penalty", (*loc, lv), lang, level=lv,
                                        infraction=inf.id))
    return out


# ------------------------------------------------------------------ repeat rows (issue 17)


def _repeat_rows(book: Rulebook, lang: str) -> list[Finding]:
    """Repeat rows against the ladder: never read (mode escalate walks the ladder instead), a
    row below the one before (error: a repeat punished less), a row more than one step above
    it (warning: a regulation may jump, but usually a step is missing). Rulebooks without a
    ladder give sanctions as a set (003, 004): there is no step to skip there."""
    out: list[Finding] = []
    tables: list[tuple[Loc, Infraction | Variant, Any]] = []
    for inf in book.infractions:
        tables.append((("infractions", inf.id), inf, inf.penalty))
        for i, var in enumerate(inf.variants):
            if var.penalty is not None:
                tables.append((("infractions", inf.id, "variants", i), var, var.penalty))
    for loc, rule, penalty in tables:
        rows = rule.repeats or []
        if not rows:
            continue
        if book.repeats.mode == "escalate":
            out.append(_finding("lint.repeats-unused", (*loc, "repeats"), lang))
            continue
        if not book.ladder:
            continue
        firsts = penalty.items() if isinstance(penalty, dict) else [(None, penalty)]
        said: set[tuple[int, str, int]] = set()
        for level, first in firsts:
            if first is None:
                continue
            prev = _step(book, first)
            for n, row in enumerate(rows):
                step = _step(book, row)
                if step is None:
                    continue
                if prev is not None and (step < prev or step > prev + 1):
                    code = "lint.repeat-down" if step < prev else "lint.repeat-skips"
                    code += "-at" if level is not None and n == 0 else ""
                    params = {"row": n + 2, "kind": book.ladder[step],
                              "before": book.ladder[prev], "skipped": book.ladder[prev + 1:step]}
                    if level is not None and n == 0:
                        params["level"] = level  # the first row differs by level
                    if (n, code, prev) not in said:
                        said.add((n, code, prev))
                        out.append(_finding(code, (*loc, "repeats", n), lang, **params))
                prev = step
    return out


def _step(book: Rulebook, outcome: Outcome) -> int | None:
    """The highest ladder step an outcome can give (None: nothing on the ladder)."""
    steps = [book.ladder.index(spec.kind) for _sub, spec in _specs(outcome)
             if spec.kind in book.ladder]
    return max(steps) if steps else None


# ------------------------------------------------------------------ conditions (issue 17)


def _conditions(book: Rulebook, lang: str) -> list[Finding]:
    """Conditions never true or always true, variants that both apply to one event."""
    out: list[Finding] = []
    for inf in book.infractions:
        details = {**book.common_details, **inf.details}
        space = Space(book, details)
        base: Loc = ("infractions", inf.id)
        for loc, f, role in _formulas(inf):
            out += _one_condition(f, (*base, *loc), role, details, space, lang)
        out += _variants_overlap(inf, base, space, lang)
    common = Space(book, book.common_details)
    for k in book.sanctions:
        for i, att in enumerate(k.comes_with):
            if att.when is not None:
                out += _one_condition(att.when, ("sanctions", k.id, "comes_with", i, "when"),
                                      "when", book.common_details, common, lang)
    return out


def _one_condition(f: Formula, loc: Loc, role: str, details: Mapping[str, Any], space: Space,
                   lang: str) -> list[Finding]:
    typos = conditions.enum_typos(f, details)
    if typos:
        return [_finding("lint.enum-value-unknown", loc, lang, condition=f.source,
                         detail=name, value=value, values=values)
                for name, value, values in typos]
    problem = conditions.unsupported(f, space)
    if problem is not None:
        return [_finding("lint.condition-fails", loc, lang, condition=f.source,
                         problem=problem)]
    if conditions.never_true(f, space):
        return [_finding("lint.condition-never-true", loc, lang, condition=f.source)]
    if role in ("no_penalty_when", "waived_when") and _always_true(f, space):
        code = "lint.never-penalised" if role == "no_penalty_when" else "lint.never-given"
        return [_finding(code, loc, lang, condition=f.source)]
    return []


def _always_true(f: Formula, space: Space) -> bool:
    cases = space.cases([f])
    return cases is not None and all(conditions.holds(f, c) is True for c in cases)


def _variants_overlap(inf: Infraction, base: Loc, space: Space,
                      lang: str) -> list[Finding]:
    """The engine takes the first variant whose condition holds: a later one every event of
    which an earlier one takes never applies (error); two that share some events but neither
    holds the other's are ambiguous to a reader (warning). An earlier variant inside a later
    one is the usual «the special case first, then the general one»: nothing to say."""
    out: list[Finding] = []
    dead: set[int] = set()
    for j, b in enumerate(inf.variants):
        for i in range(j):
            a = inf.variants[i]
            if i in dead or j in dead:
                continue
            common, b_in_a, a_in_b = conditions.both(a.when, b.when, space)
            if common is None:
                continue
            loc = (*base, "variants", j, "when")
            if b_in_a:
                dead.add(j)
                out.append(_finding("lint.variant-shadowed", loc, lang,
                                    first=f"variants[{i}]", second=f"variants[{j}]",
                                    condition=b.when.source, earlier=a.when.source))
            elif not a_in_b:
                out.append(_finding("lint.variants-overlap", loc, lang,
                                    first=f"variants[{i}]", second=f"variants[{j}]",
                                    case=common.text()))
    return out


def _formulas(inf: Infraction) -> Iterator[tuple[Loc, Formula, str]]:
    """Every condition of an infraction: (key path under it, the condition, its role)."""
    for i, np in enumerate(inf.no_penalty_when):
        yield ("no_penalty_when", i, "when"), np.when, "no_penalty_when"
    for name, d in inf.details.items():
        if d.required_if is not None:
            yield ("details", name, "required_if"), d.required_if, "required_if"
    if inf.also_penalise:
        yield ("also_penalise", "when"), inf.also_penalise.when, "when"
    for i, red in enumerate(inf.reductions):
        yield ("reductions", i, "when"), red.when, "when"
    for i, var in enumerate(inf.variants):
        yield ("variants", i, "when"), var.when, "variant"
        for k, np in enumerate(var.no_penalty_when):
            yield ("variants", i, "no_penalty_when", k, "when"), np.when, "no_penalty_when"
    for path, outcome in _outcomes(inf):
        for sub, spec in _specs(outcome):
            loc = _path_loc(f"{path}{sub}")
            if spec.when is not None:
                yield (*loc, "when"), spec.when, "when"
            for k, w in enumerate(spec.waived_when):
                yield (*loc, "waived_when", k, "when"), w.when, "waived_when"


_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def _path_loc(path: str) -> Loc:
    """"variants[0].penalty.high.sanctions[1]" -> ("variants", 0, "penalty", "high", …)."""
    return tuple(int(m.group(2)) if m.group(2) is not None else m.group(1)
                 for m in _PART.finditer(path))


# ------------------------------------------------------------------ editions (issue 17)


def lint_editions(editions: list[tuple[Rulebook, str]], lang: str = "en") -> list[Finding]:
    """The sequence of a rulebook's editions, oldest first, each with where it is kept (a file
    or any name): their numbers, and the days each is in force — an edition in force from a
    day not after the previous one's, or before the previous one ends, overlaps it; one that
    starts after the previous one ended leaves a gap. Dates are compared only where both
    editions give one (`now` and `next-tournament` are not days)."""
    out: list[Finding] = []
    numbers = [int(b.edition) for b, _ in editions if b.edition.isdigit()]
    if numbers:
        for missing in sorted(set(range(1, max(numbers) + 1)) - set(numbers)):
            out.append(_finding("lint.edition-missing", ("edition",), lang,
                                edition=str(missing)))
    # the days an edition is in force: as the newest edition's history tells them (publishing
    # an edition may close the one before: `in_force_until`), else as its own file does
    newest, newest_at = editions[-1] if editions else (None, "")
    entries: list[tuple[Edition, Rulebook, str, int]] = []
    for book, where in editions:
        own = next(((i, e) for i, e in enumerate(book.editions) if e.id == book.edition), None)
        told = next(((i, e) for i, e in enumerate(newest.editions) if e.id == book.edition),
                    None) if newest is not None else None
        if told is not None:
            entries.append((told[1], book, newest_at, told[0]))
        elif own is not None:
            entries.append((own[1], book, where, own[0]))
        if own is not None and told is not None and book is not newest and \
                own[1].in_force_from != told[1].in_force_from:
            out.append(_placed(_finding(
                "lint.edition-history-differs", ("editions", own[0], "in_force_from"), lang,
                edition=book.edition, newest=newest.edition if newest else ""), where))
    for entry, book, where, idx in entries:
        start, end = entry.in_force_from, entry.in_force_until
        loc: Loc = ("editions", idx, "in_force_until")
        if isinstance(start, dt.date) and end is not None and end < start:
            out.append(_placed(_finding("lint.edition-ends-before", loc, lang,
                                        edition=book.edition, start=start, end=end), where))
        if isinstance(start, dt.date) and entry.date is not None and start < entry.date:
            out.append(_placed(_finding("lint.edition-retroactive",
                                        ("editions", idx, "in_force_from"), lang,
                                        edition=book.edition, start=start,
                                        decided=entry.date), where))
    for (prev, pbook, _pw, _pi), (nxt, nbook, where, idx) in zip(entries, entries[1:],
                                                                 strict=False):
        start, before = nxt.in_force_from, prev.in_force_from
        if not isinstance(start, dt.date):
            continue
        loc = ("editions", idx, "in_force_from")
        common = {"edition": nbook.edition, "previous": pbook.edition, "start": start}
        if isinstance(before, dt.date) and start <= before:
            out.append(_placed(_finding("lint.edition-overlap", loc, lang, **common,
                                        since=before), where))
        elif prev.in_force_until is not None and start <= prev.in_force_until:
            out.append(_placed(_finding("lint.edition-overlap-end", loc, lang, **common,
                                        until=prev.in_force_until), where))
        elif prev.in_force_until is not None and start > prev.in_force_until + dt.timedelta(1):
            out.append(_placed(_finding(
                "lint.edition-gap", loc, lang, **common, end=prev.in_force_until,
                first=prev.in_force_until + dt.timedelta(1),
                last=start - dt.timedelta(1)), where))
    return out


def _edition_files(files: dict[str, Path], lang: str) -> list[Finding]:
    """The editions kept as files (ID.yaml is edition 1, ID.N.yaml edition N), checked."""
    out: list[Finding] = []
    books: list[tuple[Rulebook, str]] = []
    for number in sorted(files, key=int):
        path = files[number]
        try:
            book = loader.load(str(path))  # cached by file and mtime
        except RulebookError as exc:
            out.append(_placed(_finding("lint.edition-unreadable", ("edition",), lang,
                                        edition=number, problem=exc.render(lang)), str(path)))
            continue
        if book.edition != number:
            out.append(_placed(_finding("lint.edition-file-mismatch", ("edition",), lang,
                                        edition=number, said=book.edition), str(path)))
            continue
        books.append((book, str(path)))
    out += lint_editions(books, lang)
    return out


def _placed(f: Finding, path: Path | str | None) -> Finding:
    """The finding with the file and line its key path is at (where it has a key path)."""
    if path is None or not f.loc:
        return f
    at = _line(str(path), f.loc)
    return Finding(f.severity, f.where, f.message, code=f.code, params=f.params, loc=f.loc,
                   file=str(path), at=at)


def _line(path: str, loc: Loc) -> int | None:
    try:
        data = _yaml(path, Path(path).stat().st_mtime_ns)
    except (OSError, RulebookError):
        return None
    return loader.line_of(data, loader.keys_of(data, loc))


@functools.lru_cache(maxsize=16)
def _yaml(path: str, stamp: int) -> Any:
    return loader.read_yaml(Path(path))
