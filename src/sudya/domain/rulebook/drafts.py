"""A rulebook being written (the web editor's draft): what is wrong with its text, its
catalogue per level, and how it differs from another edition («было / стало»).

Pure: the text in, typed results out. A problem is a message code with its parameters
(`locale/codes/drafts.*.po`; a lint finding keeps its own `lint.*` code), the line and column
of the text it is about and its key path, so the editor shows it beside the line. The test
cases of a draft run in `sudya.app.rulebook_cases.run_draft` (they replay scenarios, which this
layer may not import).
"""

from __future__ import annotations

import difflib
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
from sudya.domain.rulebook.schema import BrokenReferences, Outcome, RefProblem, Rulebook
from sudya.i18n.messages import LANGS, render

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
    # the key path in the YAML tree, list items by index: ("infractions", 0, "penalty",
    # "low") (a form editor puts the problem beside its row and column); () for the text
    keys: Loc = ()

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
    the loader reports them: the key path present in the text, and its line. A refusal of
    the rulebook's own validators keeps its code (`draft.*`) and parameters; its broken
    references are one problem each, placed at the value they are about."""
    out: list[Problem] = []
    seen: set[tuple[str, str]] = set()
    for err in _coded_branches(exc.errors()):
        ctx = err.get("ctx") or {}
        if err["type"] == "value_error" and isinstance(ctx.get("error"), BrokenReferences):
            out += [_reference(data, ref) for ref in ctx["error"].problems]
            continue
        raw = [p for p in err["loc"] if not (isinstance(p, str) and "[" in p)]
        if err["type"].startswith("draft.") and ctx.get("at"):
            raw.append(ctx["at"])  # the key of the model the refusal is about
        loc = loader._existing(data, raw)
        line, column = _position(data, loc)
        path = loader._readable_loc(data, loc)
        key = ""
        if err["type"] == "missing" and raw and raw[-1] not in loc:
            key = str(raw[-1])
        elif err["type"] == "extra_forbidden" and loc:
            key = str(loc[-1])
        code = SCHEMA_CODES.get(err["type"], "draft.schema")
        message = str(err["msg"]).removeprefix("Value error, ")
        params: dict[str, Any] = {"problem": message, "key": key}
        if err["type"].startswith("draft."):  # the rulebook's own validator: coded
            code = err["type"]
            params = {k: v for k, v in ctx.items() if k != "at"}
            if "choices" in params and not params["choices"]:
                params["choices"] = _none()
        elif code == "draft.schema.literal":
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
        out.append(Problem(code, params, line=line, column=column, path=path,
                           keys=tuple(loc)))
    return out


def _branch(loc: Sequence[Any]) -> tuple[tuple[Any, ...], str] | None:
    """The key path to a value of several forms, and the form an error is about (pydantic
    names it in `loc`: `dict[str,…]`, `function-after[…, Outcome]`); None outside one."""
    for i, part in enumerate(loc):
        if isinstance(part, str) and "[" in part:
            return tuple(loc[:i]), part
    return None


def _coded_branches(errors: list[Any]) -> list[Any]:
    """A value of several forms (a penalty: one cell or a cell per level) that one form's own
    validator refused (a `draft.*` code) was meant as that form: the other forms' errors
    (`high` is not a key of a cell) are left out."""
    coded: dict[tuple[Any, ...], set[str]] = {}
    for err in errors:
        branch = _branch(err["loc"])
        if branch is not None and err["type"].startswith("draft."):
            coded.setdefault(branch[0], set()).add(branch[1])
    return [err for err in errors
            if (branch := _branch(err["loc"])) is None or branch[0] not in coded
            or branch[1] in coded[branch[0]]]


def _reference(data: Any, ref: RefProblem) -> Problem:
    """A broken reference placed at the value it is about (as far as the text writes it out:
    `professional: warnin` for `professional: {sanctions: [{kind: warnin}]}`), worded with
    where it is (`place`) and what it may name instead (`choices`, with their names)."""
    keys = loader._existing(data, ref.loc)
    line, column = _position(data, keys)
    params = dict(ref.params)
    params["place"] = _place(data, ref.loc)
    if "kind" in params:  # a sanction kind the rulebook defines, by its name
        sanctions = _names(data.get("sanctions"))
        params["kind_name"] = _named({"id": params["kind"],
                                      "name": sanctions.get(str(params["kind"]))})
    if "choices" in params:
        wrote = next((str(params[k]) for k in ("kind", "level", "role", "setting",
                                               "infraction", "detail", "names")
                      if k in params), "")
        params["choices"] = _choices(data, ref.code, list(params["choices"]),
                                     wrote.split(", ")[0])
    return Problem(ref.code, params, line=line, column=column,
                   path=loader._readable_loc(data, keys), keys=tuple(keys))


# where the ids a reference may name are listed, with their names: code -> top-level key
NAMED = {"draft.ref.kind": "sanctions", "draft.ref.level": "levels", "draft.ref.role": "roles",
         "draft.ref.setting": "settings", "draft.ref.setting-read": "settings",
         "draft.ref.infraction": "infractions", "draft.ref.common-detail": "common_details"}
MOST_CHOICES = 12  # more than this: the ones like what was written, then «…»


def _choices(data: Any, code: str, ids: list[str], wrote: str) -> dict[str, str]:
    """The ids a reference may name, each with its name where the rulebook gives one
    («Замечание (caution)»), in each language."""
    if not ids:
        return _none()
    shown, more = ids, False
    if len(ids) > MOST_CHOICES:
        shown = difflib.get_close_matches(wrote, ids, n=5, cutoff=0.6) or ids[:MOST_CHOICES]
        more = True
    named = _names(data.get(NAMED[code]) if code in NAMED else None)
    out: dict[str, str] = {}
    for lang in LANGS:
        words = []
        for ident in shown:
            name = _in(named.get(ident), lang)
            words.append(f"{name} ({ident})" if name and name != ident else ident)
        out[lang] = ", ".join(words) + (", …" if more else "")
    return out


def _none() -> dict[str, str]:
    """«none» as a list of choices reads (the rulebook has nothing to choose from)."""
    return {lang: render("draft.choices.none", None, lang) for lang in LANGS}


def _names(node: Any) -> dict[str, Any]:
    """id -> its `name` as written, for a list of items with ids or a mapping by id."""
    if isinstance(node, Mapping):
        return {str(k): v.get("name") for k, v in node.items() if isinstance(v, Mapping)}
    if isinstance(node, list):
        return {str(item["id"]): item.get("name") for item in node
                if isinstance(item, Mapping) and "id" in item}
    return {}


def _in(name: Any, lang: str) -> str:
    """A name as written (a text, or {ru: …, en: …}) in a language ("" for none)."""
    if isinstance(name, str):
        return name
    if isinstance(name, Mapping):
        return str(name.get(lang) or name.get("ru") or "")
    return ""


def _item(data: Any, key: str, index: Any) -> Any:
    node = data.get(key) if isinstance(data, Mapping) else None
    if isinstance(node, list) and isinstance(index, int) and index < len(node):
        return node[index]
    return None


def _named(item: Any) -> dict[str, str]:
    """An item's name in each language (its id where it has no name)."""
    if not isinstance(item, Mapping):
        return {lang: "?" for lang in LANGS}
    return {lang: _in(item.get("name"), lang) or str(item.get("id", "?")) for lang in LANGS}


# a top-level key a reference may be under that names its place in words
PLACES = ("ladder", "conversions", "accumulation", "stacking", "scoring", "appeals")


def _place(data: Any, loc: Sequence[str | int]) -> dict[str, str]:
    """Where in the rulebook a key path is, in words of each language: «Нарушение «Шум»,
    уровень «Высокий»», «Пенальти «Предупреждение»», «Лестница пенальти»."""
    parts: list[tuple[str, dict[str, Any]]] = []
    head = loc[0] if loc else ""
    if head == "infractions" and len(loc) > 1:
        parts.append(("draft.place.infraction", {"name": _named(_item(data, head, loc[1]))}))
        levels = _names(data.get("levels"))
        rest = list(loc[2:])
        for key, after in zip(rest, [*rest[1:], None], strict=True):
            if key == "variants" and isinstance(after, int):
                parts.append(("draft.place.variant", {"n": after + 1}))
            elif key == "penalty" and isinstance(after, str) and after in levels:
                level = {"id": after, "name": levels[after]}
                parts.append(("draft.place.level", {"name": _named(level)}))
            elif key == "repeats" and isinstance(after, int):
                parts.append(("draft.place.repeat", {"n": after + 2}))
            elif (key == "options" and isinstance(after, str)
                  and after not in Outcome.model_fields):
                parts.append(("draft.place.option", {"name": after}))
    elif head == "sanctions" and len(loc) > 1:
        parts.append(("draft.place.sanction", {"name": _named(_item(data, head, loc[1]))}))
    elif head in PLACES:
        parts.append((f"draft.place.{head}", {}))
    else:
        parts.append(("draft.place.rulebook", {}))
    return {lang: ", ".join(render(code, params, lang) for code, params in parts)
            for lang in LANGS}


def _finding(f: Finding, data: Any) -> Problem:
    """A lint finding placed in the text: its key path found in the YAML tree (list items
    named by their id)."""
    keys = loader.keys_of(data, f.loc)
    if not f.loc and f.where:  # a finding that names its place only in words
        keys = loader.keys_of(data, [p for p in f.where.replace("[", ".").replace("]", "")
                                     .split(".") if p])
    line, column = _position(data, keys)
    return Problem(f.code, dict(f.params), severity=f.severity, line=line, column=column,
                   path=f.where, message=f.message, keys=tuple(keys))


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
