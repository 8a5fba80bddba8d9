"""The rulebook editor's form (issue 39): the draft's YAML seen as a table an organiser edits —
infraction × level → penalty chosen from the rulebook's own kinds, the rules of repeats,
stacking, validity and conversions as fields, a new infraction with its source and text —
and each change written back into the same YAML text, so the form and the «для опытных»
text edit one draft.

A change to one value is made in the text itself, at the value's place (ruamel gives its line
and column): the rest of the text — comments, quoting, line breaks, anchors — stays as the
organiser or the bundled file wrote it. Only a change of shape (a level missing from a
penalty's mapping) writes the document out again through ruamel's round trip.

Pure: text in, text out; what a cell holds is read from the parsed text and the loaded
rulebook (describe.py's words).
"""

from __future__ import annotations

import functools
import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.describe import explain, label
from sudya.domain.rulebook.schema import Rulebook

NONE = "-"  # a cell's value for «no penalty»
Keys = tuple[str | int, ...]
# a scalar as it is written where the form changes one: quoted, or plain up to a comma, a
# closing bracket, a comment or the end of the line (ids, numbers, true/false, null)
_SCALAR = re.compile(r'"(?:[^"\\\n]|\\.)*"'  # "double quoted"
                     r"|'(?:[^'\n]|'')*'"  # 'single quoted'
                     r"|[^\s,}\]#][^,}\]#\n]*?(?=\s*(?:[,}\]]|#|$))", re.MULTILINE)
ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class Choice:
    """A penalty the rulebook defines: its id and its name."""

    id: str
    name: str


@dataclass(frozen=True)
class Cell:
    """One infraction's penalty at one level."""

    level: str  # level id; "*" in a rulebook without levels
    value: str  # the kind id, NONE, or "" when the form cannot change it (see `text`)
    text: str  # the penalty in words
    # a list of kinds given together (`[fighter-dq, technical-defeat]`): each one changed on
    # its own (`value` is then "")
    parts: tuple[str, ...] = ()

    @property
    def editable(self) -> bool:
        return self.value != "" or bool(self.parts)


@dataclass(frozen=True)
class Row:
    """One infraction of the table."""

    index: int  # its place in `infractions:`
    id: str
    name: str
    source: str
    category: str
    cells: list[Cell]
    lines: list[str]  # repeats, variants, special rules in words


@dataclass(frozen=True)
class Grid:
    """The infraction table as the form shows it."""

    levels: list[tuple[str, str]]  # (id, name); [("*", "Пенальти")] without levels
    rows: list[Row]
    kinds: list[Choice]  # what a cell may be set to, weakest first


def parse(text: str) -> Any:
    """The draft's YAML as ruamel's round-trip tree (line and column of every value)."""
    return loader.parse_yaml(text.removeprefix("\ufeff"), "draft")


@functools.lru_cache(maxsize=8)
def parsed(text: str) -> Any:
    """`parse`, kept for the few texts of the requests at hand (a tenth of a second each for a
    rulebook of berserk's size): never to be changed — `set_value` changes its own copy."""
    return parse(text)


def grid(book: Rulebook, data: Any, lang: str = "ru") -> Grid:
    """The table of a loaded draft (`data`: its parsed YAML, for what can be edited)."""
    levels = [(lv.id, lv.name.get(lang)) for lv in book.levels] or [
        ("*", label(lang, "penalty"))]
    raw_infractions = data.get("infractions") if isinstance(data, Mapping) else None
    rows = []
    for i, inf in enumerate(book.infractions):
        raw = raw_infractions[i] if isinstance(raw_infractions, Sequence) and i < len(
            raw_infractions) else None
        exp = explain(book, inf, lang)
        cells = [Cell(lv, _value(raw, lv, levels), exp.cells.get(lv, ""),
                      _parts(raw, lv, levels)) for lv, _ in levels]
        rows.append(Row(i, inf.id, exp.name, exp.source, inf.category or "", cells, exp.lines))
    return Grid(levels, rows, kinds(book, lang))


def kinds(book: Rulebook, lang: str = "ru") -> list[Choice]:
    """The penalties a cell may be set to: the rulebook's kinds, weakest first."""
    ladder = {k: n for n, k in enumerate(book.ladder)}
    ordered = sorted(book.sanctions, key=lambda k: (ladder.get(k.id, len(ladder)), k.rank))
    return [Choice(k.id, k.name.get(lang)) for k in ordered]


def _penalty_at(raw: Any, level: str, levels: list[tuple[str, str]]) -> Any:
    """The penalty as written for a level (the whole penalty where it is one for all)."""
    pen = raw["penalty"]
    if isinstance(pen, Mapping) and level != "*" and set(pen) <= {lv for lv, _ in levels}:
        return pen.get(level)
    return pen


def _value(raw: Any, level: str, levels: list[tuple[str, str]]) -> str:
    """What the form shows a cell as: a kind id, NONE, or "" (written otherwise: options, a
    range, sanctions with amounts or conditions, variants — the YAML's to change)."""
    if not isinstance(raw, Mapping) or "penalty" not in raw:
        return ""
    pen = _penalty_at(raw, level, levels)
    if pen is None:
        return NONE
    return pen if isinstance(pen, str) else ""


def _parts(raw: Any, level: str, levels: list[tuple[str, str]]) -> tuple[str, ...]:
    """The kinds of a penalty written as a list of kinds alone (else none)."""
    if not isinstance(raw, Mapping) or "penalty" not in raw:
        return ()
    pen = _penalty_at(raw, level, levels)
    if isinstance(pen, Sequence) and not isinstance(pen, str) and pen and all(
            isinstance(k, str) for k in pen):
        return tuple(pen)
    return ()


# ------------------------------------------------------------------ writing values back


def dump(data: Any) -> str:
    yaml = YAML(typ="rt")
    yaml.width = 100_000  # never fold a long line the author wrote on one
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.preserve_quotes = True
    out = io.StringIO()
    yaml.dump(data, out)
    return out.getvalue()


def _node(data: Any, keys: Keys) -> Any:
    node = data
    for key in keys:
        node = node[key]
    return node


def _offset(text: str, line: int, column: int) -> int:
    lines = text.splitlines(keepends=True)
    return sum(len(x) for x in lines[:line]) + column


def _written(value: Any) -> str:
    """A value as YAML written in flow style (a list as `[a, b]`)."""
    if isinstance(value, list):
        return "[" + ", ".join(_written(v) for v in value) + "]"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    text = str(value)
    if ID.match(text) and text not in ("null", "true", "false", "yes", "no", "on", "off"):
        return text
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def set_value(text: str, keys: Keys, value: Any, written: str | None = None) -> str:
    """The text with the value at `keys` set (`written`: its YAML, when not a scalar):
    in place when it is written as a scalar, else by writing the document out again."""
    data = parse(text)
    parent, last = _node(data, keys[:-1]), keys[-1]
    new = written if written is not None else _written(value)
    place = None
    if isinstance(parent, CommentedMap) and last in parent and not isinstance(
            parent[last], CommentedMap | CommentedSeq):
        place = parent.lc.value(last)
    elif isinstance(parent, CommentedSeq) and isinstance(last, int) and last < len(parent) \
            and not isinstance(parent[last], CommentedMap | CommentedSeq):
        place = parent.lc.item(last)
    if place is not None:
        line, column = place
        start = _offset(text, line, column)
        found = _SCALAR.match(text, start)
        if found is not None:
            changed = text[:start] + new + text[found.end():]
            try:
                if _node(parsed(changed), keys) == value:
                    return changed
            except (RulebookError, KeyError, IndexError, TypeError):
                pass
    parent[last] = value
    return dump(data)


def set_cell(text: str, index: int, level: str, value: str, levels: Sequence[str]) -> str:
    """An infraction's penalty at a level set to a kind (NONE: no penalty)."""
    kind = None if value == NONE else value
    data = parsed(text)
    inf = data["infractions"][index]
    pen = inf.get("penalty")
    if level == "*" or not levels:
        return set_value(text, ("infractions", index, "penalty"), kind)
    if isinstance(pen, CommentedMap) and set(pen) <= set(levels):
        return set_value(text, ("infractions", index, "penalty", level), kind)
    # one penalty for every level (or none): now one per level
    return _per_level(text, index, {lv: (kind if lv == level else pen) for lv in levels})


def _per_level(text: str, index: int, per_level: dict[str, Any]) -> str:
    """An infraction's penalty written as one per level (a flow mapping, in place)."""
    flow = "{" + ", ".join(f"{lv}: {_written(v)}" for lv, v in per_level.items()) + "}"
    mapping = CommentedMap(per_level)
    mapping.fa.set_flow_style()
    return set_value(text, ("infractions", index, "penalty"), mapping, written=flow)


def set_part(text: str, index: int, level: str, part: int, value: str,
             levels: Sequence[str]) -> str:
    """One kind of a penalty written as a list of kinds set to another."""
    data = parsed(text)
    pen = data["infractions"][index]["penalty"]
    if level == "*" or not levels:
        return set_value(text, ("infractions", index, "penalty", part), value)
    if isinstance(pen, CommentedMap) and set(pen) <= set(levels):
        return set_value(text, ("infractions", index, "penalty", level, part), value)
    # one list for every level: now one per level, this level's changed
    return _per_level(text, index, {
        lv: [value if (lv == level and i == part) else k for i, k in enumerate(pen)]
        for lv in levels})


@dataclass(frozen=True)
class NewInfraction:
    """An infraction added from the form: its id, Russian name, source, text and penalty
    per level."""

    id: str
    name: str
    source: str
    description: str
    penalty: Mapping[str, str]  # level id (or "*") -> kind id or NONE


def add_infraction(text: str, new: NewInfraction) -> str:
    """The text with the infraction appended to `infractions:` (as its last item, written in
    the block style the bundled rulebooks use)."""
    item = CommentedMap()
    item["id"] = new.id
    item["name"] = CommentedMap(ru=new.name)
    item["name"].fa.set_flow_style()
    item["source"] = new.source
    if new.description:
        item["description"] = CommentedMap(ru=new.description)
    if set(new.penalty) == {"*"}:
        item["penalty"] = None if new.penalty["*"] == NONE else new.penalty["*"]
    else:
        pen = CommentedMap((lv, None if v == NONE else v) for lv, v in new.penalty.items())
        pen.fa.set_flow_style()
        item["penalty"] = pen
    data = parse(text)
    infractions = data.get("infractions") if isinstance(data, CommentedMap) else None
    if not isinstance(infractions, CommentedSeq):
        data["infractions"] = CommentedSeq([item])
        return dump(data)
    # written as the list's first item is: its dash where that one's is
    shift = (infractions.lc.item(0)[1] - 2 if infractions else 2) - 2
    block = "".join((" " * shift + line if shift >= 0 else line[-shift:]) if line.strip()
                    else line for line in dump(CommentedSeq([item])).splitlines(keepends=True))
    lines = text.splitlines(keepends=True)
    start = data.lc.key("infractions")[0]
    end = next((n for n in range(start + 1, len(lines)) if lines[n][:1] not in ("", " ", "\n", "#")
                and lines[n].strip()), len(lines))
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # before the blank lines that end the block
    head = "".join(lines[:end])
    if head and not head.endswith("\n"):
        head += "\n"
    return head + block + "".join(lines[end:])


# ------------------------------------------------------------------ the rules as fields


@dataclass(frozen=True)
class Field:
    """One value of a rule the form shows as a field."""

    keys: Keys  # where it is in the YAML
    label: str  # the code of its words (`form.*` in the catalogue)
    kind: str  # "int", "bool", "choice" or "kind" (a sanction kind of the rulebook)
    value: str  # as the field shows it
    # "kind": the rulebook's kinds by name; "choice": each named by the code of its words
    choices: list[Choice]


@dataclass(frozen=True)
class RuleGroup:
    """A section of rules: repeats, stacking, validity, one conversion."""

    title: str  # the code of its title
    fields: list[Field]
    params: Mapping[str, Any]  # the title's parameters


def _choices(values: Sequence[str]) -> list[Choice]:
    """The values of a "choice" field, each named by the code of its words."""
    return [Choice(v, f"form.choice.{v}") for v in values]


def rules(book: Rulebook, data: Any, lang: str = "ru") -> list[RuleGroup]:
    """The rules an organiser changes most, as fields: only those the draft has."""
    named = kinds(book, lang)
    groups: list[RuleGroup] = []
    raw = data if isinstance(data, Mapping) else {}

    def field(keys: Keys, code: str, kind: str, value: Any,
              choices: list[Choice] | None = None) -> Field:
        shown = ("1" if value else "0") if kind == "bool" else str(value)
        return Field(keys, code, kind, shown, choices or [])

    if "repeats" in raw:
        rep = book.repeats
        groups.append(RuleGroup("form.repeats", [
            field(("repeats", "mode"), "form.repeats-mode", "choice", rep.mode,
                  _choices(["escalate", "table"])),
            field(("repeats", "scope"), "form.repeats-scope", "choice", rep.scope,
                  _choices(["tournament", "validity"]))], {}))
    if "stacking" in raw and book.stacking is not None:
        st = book.stacking
        groups.append(RuleGroup("form.stacking", [
            field(("stacking", "count"), "form.stacking-count", "int", st.count),
            field(("stacking", "counts_attached"), "form.stacking-attached", "bool",
                  st.counts_attached),
            field(("stacking", "counts_derived"), "form.stacking-derived", "bool",
                  st.counts_derived),
            field(("stacking", "consumes"), "form.stacking-consumes", "bool", st.consumes)],
            {}))
    if "validity" in raw and book.validity is not None:
        groups.append(RuleGroup("form.validity", [
            field(("validity", "months"), "form.validity-months", "int",
                  book.validity.months)], {}))
    for i, conv in enumerate(book.conversions):
        groups.append(RuleGroup("form.conversion", [
            field(("conversions", i, "count"), "form.conversion-count", "int", conv.count),
            field(("conversions", i, "from"), "form.conversion-from", "kind",
                  conv.source_kind, named),
            field(("conversions", i, "to"), "form.conversion-to", "kind", conv.to, named),
            field(("conversions", i, "pool"), "form.conversion-pool", "choice", conv.pool,
                  _choices(["team", "subject"]))], {"n": i + 1}))
    return groups


def field_name(keys: Keys) -> str:
    """A field's form name: its keys joined by `|` (infraction ids hold dots)."""
    return "|".join(str(k) for k in keys)


def keys_of(name: str) -> Keys:
    return tuple(int(k) if k.isdigit() else k for k in name.split("|"))


def typed(kind: str, value: str) -> Any:
    """A field's posted value as the YAML holds it (ValueError: not one)."""
    if kind == "int":
        return int(value.strip())
    if kind == "bool":
        return value == "1"
    return value


__all__ = ["NONE", "Cell", "Row", "Grid", "Choice", "grid", "set_value", "set_cell", "set_part",
           "parsed", "kinds", "NewInfraction", "add_infraction", "Field", "RuleGroup", "rules",
           "field_name", "keys_of", "typed", "parse", "dump"]
