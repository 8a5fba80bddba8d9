"""A rulebook being written (the web editor's draft): what is wrong with its text, its
catalogue per level, and how it differs from another edition («было / стало»).

Pure: the text in, typed results out. A problem is a message code with its parameters
(`locale/codes/drafts.*.po`; a lint finding keeps its own `lint.*` code), the line and column
of the text it is about and its key path, so the editor shows it beside the line. The test
cases of a draft run in `sudya.app.rulebook_cases.run_draft` (they replay scenarios, which this
layer may not import).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.reader import ReaderError

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.describe import explain, label, level_cells, repeat_lines, special_rules
from sudya.domain.rulebook.lint import Finding, lint_book
from sudya.domain.rulebook.schema import Rulebook
from sudya.i18n.messages import render

Loc = tuple[str | int, ...]

# pydantic's error types the catalogue words itself; any other reads `draft.schema` with
# pydantic's own (English) words as its parameter
SCHEMA_CODES = {
    "missing": "draft.schema.missing",
    "extra_forbidden": "draft.schema.extra",
    "string_type": "draft.schema.string",
    "int_type": "draft.schema.int",
    "int_parsing": "draft.schema.int",
    "int_from_float": "draft.schema.int",
    "bool_type": "draft.schema.bool",
    "bool_parsing": "draft.schema.bool",
    "dict_type": "draft.schema.mapping",
    "model_type": "draft.schema.mapping",
    "model_attributes_type": "draft.schema.mapping",
    "list_type": "draft.schema.list",
    "literal_error": "draft.schema.literal",
    "enum": "draft.schema.literal",
    "greater_than_equal": "draft.schema.at-least",
    "greater_than": "draft.schema.more-than",
    "less_than_equal": "draft.schema.at-most",
    "too_short": "draft.schema.too-short",
    "date_type": "draft.schema.date",
    "date_parsing": "draft.schema.date",
    "date_from_datetime_parsing": "draft.schema.date",
}


# ruamel's words for what is wrong with YAML, as codes the catalogue words in Russian too
YAML_PROBLEMS = (
    (re.compile(r"expected ',' or '\}', but got (?P<found>.+)"), "draft.yaml.flow-mapping"),
    (re.compile(r"expected ',' or '\]', but got (?P<found>.+)"), "draft.yaml.flow-sequence"),
    (re.compile(r"mapping values are not allowed here"), "draft.yaml.mapping-values"),
    (re.compile(r"could not find expected ':'"), "draft.yaml.no-colon"),
    (re.compile(r"expected <block end>, but found"), "draft.yaml.indent"),
    (re.compile(r"found character '\\t' that cannot start any token"), "draft.yaml.tab"),
    (re.compile(r"found unexpected end of stream"), "draft.yaml.unclosed"),
    (re.compile(r'found duplicate key "(?P<key>[^"]*)"'), "draft.yaml.duplicate-key"),
    (re.compile(r"found undefined alias '(?P<alias>[^']*)'"), "draft.yaml.alias"),
)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a draft: a code and its parameters, where it is in the text."""

    code: str  # a message code; "" for a lint note without one (its text is `message`)
    params: Mapping[str, Any] = field(default_factory=dict)
    severity: str = "error"  # "error", "warning" or "note"
    line: int | None = None  # 1-based
    column: int | None = None  # 1-based
    path: str = ""  # the key path, list items by their id: infractions[noise].penalty
    message: str = ""  # the text of a finding that has no code

    def text(self, lang: str = "ru", book: Rulebook | None = None) -> str:
        """The message in a language (the key path and line are the caller's to show)."""
        if not self.code:
            return self.message
        return render(self.code, self.params, lang, book)


@dataclass(frozen=True)
class DraftCheck:
    """A draft checked: the rulebook if it loads, what stops it loading, what lint says."""

    book: Rulebook | None
    errors: list[Problem]  # the text does not load (YAML or the rulebook's format)
    findings: list[Problem]  # lint's findings on what loaded (errors, warnings, notes)

    @property
    def loads(self) -> bool:
        return self.book is not None

    @property
    def lint_errors(self) -> list[Problem]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def ok(self) -> bool:
        """It loads and lint finds no error (warnings and notes do not stop it)."""
        return self.book is not None and not self.lint_errors

    def problems(self) -> list[Problem]:
        """What to show beside the text: load errors, lint errors and warnings, by line."""
        shown = [*self.errors, *(f for f in self.findings if f.severity != "note")]
        return sorted(shown, key=lambda p: (p.line or 0, p.column or 0))


def check(text: str, lang: str = "ru") -> DraftCheck:
    """Parse and validate a rulebook's YAML text, then lint it (`lang`: the words of lint's
    findings that have no code)."""
    if not text.strip():
        return DraftCheck(None, [Problem("draft.empty")], [])
    if len(text.encode("utf-8")) > loader.MAX_YAML_BYTES:
        return DraftCheck(None, [Problem("draft.too-large", {"most": loader.MAX_YAML_BYTES})],
                          [])
    try:
        data = loader.parse_yaml(text.removeprefix("\ufeff"), "draft")
    except RulebookError as exc:
        return DraftCheck(None, [_yaml_problem(exc, text)], [])
    if not isinstance(data, dict):
        return DraftCheck(None, [Problem("draft.not-mapping", line=1, column=1)], [])
    try:
        book = Rulebook.model_validate(loader._plain(data))
    except ValidationError as exc:
        return DraftCheck(None, _schema_problems(data, exc), [])
    except (ValueError, TypeError, KeyError) as exc:  # a validator's own refusal
        return DraftCheck(None, [Problem("draft.schema", {"problem": str(exc)})], [])
    findings = [_finding(f, data) for f in lint_book(book, lang)]
    return DraftCheck(book, [], findings)


def _yaml_problem(exc: RulebookError, text: str) -> Problem:
    cause = exc.__cause__
    line = column = None
    problem = str(exc).partition("malformed YAML: ")[2] or str(exc)
    if isinstance(cause, MarkedYAMLError):
        mark = cause.problem_mark or cause.context_mark
        if mark is not None:
            line, column = mark.line + 1, mark.column + 1
    elif isinstance(cause, ReaderError):
        line = text.count("\n", 0, cause.position) + 1
    code, params = "draft.yaml", {"problem": problem}
    for pattern, known in YAML_PROBLEMS:
        match = pattern.search(problem)
        if match:
            code, params = known, {"problem": problem, **match.groupdict()}
            break
    return Problem(code, params, line=line, column=column)


def _position(data: Any, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
    """The 1-based line and column of the deepest key of `loc` found in the YAML tree."""
    line = column = None
    node = data
    for key in loc:
        pos = None
        if isinstance(node, CommentedMap) and key in node:
            pos = node.lc.key(key)
        elif isinstance(node, CommentedSeq) and isinstance(key, int) and key < len(node):
            pos = node.lc.item(key)
        else:
            break
        if pos:
            line, column = pos[0] + 1, pos[1] + 1
        node = node[key]
    return line, column


def _schema_problems(data: Any, exc: ValidationError) -> list[Problem]:
    """One problem per error of the rulebook's format (union branches reported once), as
    the loader reports them: the key path present in the text, and its line."""
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in exc.errors():
        raw = [p for p in err["loc"] if not (isinstance(p, str) and "[" in p)]
        loc = loader._existing(data, raw)
        line, column = _position(data, loc)
        path = loader._readable_loc(data, loc)
        key = ""
        if err["type"] == "missing" and raw and raw[-1] not in loc:
            key = str(raw[-1])
        elif err["type"] == "extra_forbidden" and loc:
            key = str(loc[-1])
        code = SCHEMA_CODES.get(err["type"], "draft.schema")
        ctx = err.get("ctx") or {}
        message = str(err["msg"]).removeprefix("Value error, ")
        params: dict[str, Any] = {"problem": message, "key": key}
        if code == "draft.schema.literal":
            params["expected"] = str(ctx.get("expected", ""))
        elif code in ("draft.schema.at-least", "draft.schema.more-than", "draft.schema.at-most"):
            params["limit"] = next((ctx[k] for k in ("ge", "gt", "le") if k in ctx), "")
        elif code == "draft.schema.too-short":
            params["least"] = ctx.get("min_length", 1)
        if (path, message) in seen:
            continue
        seen.add((path, message))
        if code == "draft.schema.missing" and key:
            path = f"{path}.{key}" if path else key
        out.append(Problem(code, params, line=line, column=column, path=path))
    return out


def _finding(f: Finding, data: Any) -> Problem:
    """A lint finding placed in the text: its key path found in the YAML tree (list items
    named by their id)."""
    keys = loader.keys_of(data, f.loc)
    if not f.loc and f.where:  # a finding that names its place only in words
        keys = loader.keys_of(data, [p for p in f.where.replace("[", ".").replace("]", "")
                                     .split(".") if p])
    line, column = _position(data, keys)
    return Problem(f.code, dict(f.params), severity=f.severity, line=line, column=column,
                   path=f.where, message=f.message)


# ------------------------------------------------------------------ the catalogue


@dataclass(frozen=True)
class CatalogueRow:
    """One infraction: its penalty per level, and what else its table says."""

    id: str
    name: str
    source: str
    cells: dict[str, str]  # level id (or "*" without levels) -> the penalty in words
    lines: list[str]  # repeats, what to state, variants, special rules
    interpretations: list[str]


@dataclass(frozen=True)
class Catalogue:
    """What `sudya rulebook show` prints: the infraction table per level, special rules."""

    title: str
    edition: str
    levels: list[tuple[str, str]]  # (id, name); [("*", "Penalty")] without levels
    rows: list[CatalogueRow]
    special: list[str]


def catalogue(book: Rulebook, lang: str = "ru") -> Catalogue:
    """The readable view of a rulebook per level (describe.py's words)."""
    levels = [(lv.id, lv.name.get(lang)) for lv in book.levels] or [
        ("*", label(lang, "penalty"))]
    rows = []
    for inf in book.infractions:
        exp = explain(book, inf, lang)
        rows.append(CatalogueRow(inf.id, exp.name, exp.source, exp.cells, exp.lines,
                                 exp.interpretations))
    return Catalogue(book.title.get(lang), book.edition, levels, rows,
                     special_rules(book, lang))


# ------------------------------------------------------------------ «было / стало»


@dataclass(frozen=True)
class DiffRow:
    """One change between two editions: an infraction's penalty at a level, its repeats,
    an infraction added or removed."""

    infraction: str  # its id
    name: str  # its name (the new edition's where it has one)
    change: str  # "penalty", "repeats", "name", "added" or "removed"
    level: str  # level id; "" for what holds at every level
    level_name: str
    before: str  # «было»; "" for an added infraction
    after: str  # «стало»; "" for a removed one


def diff(old: Rulebook, new: Rulebook, lang: str = "ru") -> list[DiffRow]:
    """Every difference of penalty per level, of repeats and of names between two editions,
    and the infractions added or removed: in the new edition's order, removed ones last."""
    rows: list[DiffRow] = []
    names = {lv.id: lv.name.get(lang) for lv in [*old.levels, *new.levels]}
    before = {inf.id: inf for inf in old.infractions}
    after = {inf.id: inf for inf in new.infractions}
    for inf in new.infractions:
        name = inf.name.get(lang)
        cells = level_cells(new, inf, lang)
        was = before.get(inf.id)
        if was is None:
            for lv, cell in cells.items():
                rows.append(DiffRow(inf.id, name, "added", lv, names.get(lv, ""), "", cell))
            continue
        if was.name.get(lang) != name:
            rows.append(DiffRow(inf.id, name, "name", "", "", was.name.get(lang), name))
        old_cells = level_cells(old, was, lang)
        for lv in [*cells, *(lv for lv in old_cells if lv not in cells)]:
            a, b = old_cells.get(lv, ""), cells.get(lv, "")
            if a != b:
                rows.append(DiffRow(inf.id, name, "penalty", lv, names.get(lv, ""), a, b))
        a_rep = "; ".join(repeat_lines(old, was, lang))
        b_rep = "; ".join(repeat_lines(new, inf, lang))
        if a_rep != b_rep:
            rows.append(DiffRow(inf.id, name, "repeats", "", "", a_rep, b_rep))
    for inf in old.infractions:
        if inf.id not in after:
            for lv, cell in level_cells(old, inf, lang).items():
                rows.append(DiffRow(inf.id, inf.name.get(lang), "removed", lv,
                                    names.get(lv, ""), cell, ""))
    return rows


__all__ = ["Problem", "DraftCheck", "check", "Catalogue", "CatalogueRow", "catalogue",
           "DiffRow", "diff"]
