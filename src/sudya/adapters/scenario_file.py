"""Reading a scenario file (YAML or JSON) into plain data, whatever bytes the file holds.

Whatever is wrong with the file — not UTF-8, a NUL byte, a number no machine holds, NaN, a
lone surrogate, thousands of nesting levels, an alias bomb, an impossible date, a file of
gigabytes — is one ScenarioError naming the file (and its line where known), never another
exception and never a read that does not end. What comes out holds only dicts with text
keys, lists, texts, finite numbers, booleans, None and dates, so nothing downstream meets a
value it cannot print or store.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path
from typing import Any

import orjson
from ruamel.yaml.scalarbool import ScalarBoolean

from sudya.domain.errors import RulebookError, ScenarioError
from sudya.domain.rulebook import loader

MAX_JSON_BYTES = 20_000_000  # orjson reads this in well under a second
MAX_YAML_BYTES = loader.MAX_YAML_BYTES  # ruamel reads YAML in pure Python: far slower
MAX_DEPTH = loader.MAX_DEPTH
MAX_INTEGER = 2**63 - 1  # what a database integer column holds; larger is a typing mistake
# C0 controls but tab, line feed and carriage return: YAML 1.2 allows no others unescaped,
# JSON none; an escaped NUL would still break PostgreSQL text columns
CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")
SURROGATE = re.compile(r"[\ud800-\udfff]")
BAD_TEXT = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff]")  # either of the two


def load_scenario_file(path: str | Path) -> dict[str, Any]:
    """Read a scenario from YAML or JSON; a malformed or hostile file raises ScenarioError."""
    p = Path(path)
    is_json = p.suffix == ".json"
    try:
        text = loader.read_text(p, MAX_JSON_BYTES if is_json else MAX_YAML_BYTES)
        raw = None if is_json else loader.parse_yaml(text, str(p))
    except RulebookError as exc:
        raise ScenarioError(exc.code, field=exc.field, where=exc.where, **exc.params) from exc
    if is_json:
        try:
            raw = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise ScenarioError("json.malformed", where=f"{p}:{exc.lineno}",
                                problem=json_error(exc)) from exc
    if is_json and surely_plain(text, raw):
        data = raw
    else:
        data = plain(raw, where=str(p), tree=None if is_json else raw, fresh=is_json)
    if not isinstance(data, dict):
        raise ScenarioError("scenario.not-mapping", where=str(p))
    base = p.parent
    ref = data.get("rulebook")
    if isinstance(ref, str) and ("/" in ref or ref.endswith((".yaml", ".yml"))):
        candidate = base / ref
        if candidate.is_file():
            data["rulebook"] = str(candidate)
    return data


def plain(value: Any, *, where: str = "", tree: Any = None, fresh: bool = False) -> Any:
    """`value` as plain data (dicts with text keys, lists, texts, finite numbers a database
    holds, booleans, None, dates), or a PlainDataError naming the field. `tree`: the YAML
    that `value` came from, for line numbers. `fresh`: `value` is what orjson has just read
    (its own dicts and lists of text keys and plain values, held by no one else): checked
    where it lies and given back, not copied (a season's file is a million values)."""
    return _Plain(where, tree, fresh).value(value, [])


# an escape that could make a control character or a surrogate (a raw one is no JSON, and
# orjson refuses a lone surrogate); an escaped backslash before `u0001` matches too
SUSPECT_ESCAPE = re.compile(r"\\[bf]|\\u00[01]|\\u[dD][89a-fA-F]")
TOO_DEEP = b"\n" + b"  " * (MAX_DEPTH + 1)  # a value MAX_DEPTH + 1 levels down, indented


def surely_plain(text: str, raw: Any) -> bool:
    """What orjson has just read from `text` holds nothing `plain` refuses, found without
    walking it in Python (a season's file is a million values: 0.2-0.4 s). Only a text, a
    number and the depth can be refused in orjson's output; False sends it to `plain`, which
    names what is wrong, if anything is: no text holds a control character or a surrogate,
    since `text` has no escape that makes one; no integer is past 2**53 (orjson's strict
    integers, within what a database holds); no value is deeper than MAX_DEPTH, since each
    level is two spaces of orjson's indented text, and only a line's indent holds a run of
    spaces after a line end (a text's line end is escaped)."""
    if SUSPECT_ESCAPE.search(text) is not None:
        return False
    try:
        indented = orjson.dumps(raw, option=orjson.OPT_INDENT_2 | orjson.OPT_STRICT_INTEGER)
    except orjson.JSONEncodeError:  # an integer past 2**53, or nested past orjson's limit
        return False
    return TOO_DEEP not in indented


def json_error(exc: orjson.JSONDecodeError) -> str:
    """What is wrong with JSON, in words (orjson's words name neither NaN nor the limit)."""
    doc = exc.doc if isinstance(exc.doc, str) else bytes(exc.doc).decode("utf-8", "replace")
    if doc[exc.pos:exc.pos + 9].lstrip("-").startswith(("NaN", "Infinity")):
        return "NaN and Infinity are not JSON numbers"
    if exc.msg == "depth limit exceeded":
        return f"nested too deeply (at most {MAX_DEPTH} levels)"
    if exc.msg.startswith("number is infinity"):
        return "a number too large to hold"
    if exc.msg.startswith("str is not valid UTF-8"):  # said of bytes that are no UTF-8
        return "not UTF-8 text"
    return exc.msg


class PlainDataError(ScenarioError):
    """A value no scenario (and no API body) may hold; `loc` is the path to it."""

    def __init__(self, problem: str, *, where: str, loc: Sequence[str | int]) -> None:
        shown = loc[:6] if len(loc) > 8 else loc  # a path 100 levels deep says nothing more
        path = "".join(f"[{k}]" if isinstance(k, int) else f".{k}" for k in shown).lstrip(".")
        path += "..." if len(shown) < len(loc) else ""
        super().__init__(problem, where=where, field=path)
        self.loc: list[str | int] = [*shown, "..."] if len(shown) < len(loc) else list(loc)


class _Plain:
    """Turns parsed data into plain values, refusing those no scenario may hold."""

    def __init__(self, name: str, tree: Any, fresh: bool = False) -> None:
        self.name = name
        self.tree = tree  # the YAML tree, for line numbers (None for JSON)
        # orjson's output: every container a dict with text keys or a list, every value of a
        # plain type, so each check either refuses or keeps the very value: nothing to copy
        self.fresh = fresh

    def refuse(self, loc: Sequence[str | int], problem: str) -> PlainDataError:
        line = loader.line_of(self.tree, loc) if self.tree is not None else None
        where = f"{self.name}:{line}" if line and self.name else self.name
        return PlainDataError(problem, where=where, loc=loc)

    def value(self, value: Any, loc: list[str | int]) -> Any:
        # `loc` is the path to `value`, kept as a stack (pushed and popped around each item,
        # copied only when refusing): a season's file holds millions of values
        if len(loc) > MAX_DEPTH:
            raise self.refuse(loc, f"nested too deeply (at most {MAX_DEPTH} levels)")
        kind = type(value)
        # the plain types themselves (what JSON gives) carry no tag: checked at once
        if kind is str:
            return value if BAD_TEXT.search(value) is None else self.text(value, loc)
        if kind is int:
            return value if -MAX_INTEGER <= value <= MAX_INTEGER else self.number(value, loc)
        if kind is dict:
            return self.mapping(value, loc)
        if kind is list:
            return self.sequence(value, loc)
        if value is None or kind is bool:
            return value
        tag = _tag(value)
        if tag == "!!str" and isinstance(getattr(value, "value", None), str):
            return self.text(value.value, loc)  # `!!str 2026-03-01`: a text, not a date
        if tag is not None:
            raise self.refuse(loc, f"the tag {tag} is not allowed")
        if isinstance(value, dict):
            return self.mapping(value, loc)
        if isinstance(value, list | tuple):  # tuples: from Python callers of sudya.replay
            return self.sequence(value, loc)
        if isinstance(value, bool):
            return value
        if isinstance(value, ScalarBoolean):  # ruamel's boolean with an anchor: an int
            return bool(value)
        if isinstance(value, int):
            return self.number(value, loc)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise self.refuse(loc, f"numbers must be finite, not {value}")
            return float(value)
        if isinstance(value, str):
            return self.text(value, loc)
        if isinstance(value, dt.date):  # YAML dates and timestamps; datetime is a date
            return value
        raise self.refuse(loc, _kind(value))

    def mapping(self, value: Any, loc: list[str | int]) -> dict[str, Any]:
        if self.fresh and type(value) is dict:
            for key, item in value.items():
                if BAD_TEXT.search(key) is not None:
                    self.text(key, loc)  # refuses it
                loc.append(key)
                self.value(item, loc)
                loc.pop()
            return value
        out: dict[str, Any] = {}
        for key, item in value.items():
            text = key if type(key) is str and BAD_TEXT.search(key) is None \
                else self.key(key, loc)
            loc.append(text)
            out[text] = self.value(item, loc)
            loc.pop()
        return out

    def sequence(self, value: Any, loc: list[str | int]) -> list[Any]:
        if self.fresh and type(value) is list:
            for n, item in enumerate(value):
                loc.append(n)
                self.value(item, loc)
                loc.pop()
            return value
        out = []
        for n, item in enumerate(value):
            loc.append(n)
            out.append(self.value(item, loc))
            loc.pop()
        return out

    def number(self, value: int, loc: list[str | int]) -> int:
        if abs(value) > MAX_INTEGER:
            raise self.refuse(loc, f"numbers must lie within ±{MAX_INTEGER:,}")
        return int(value)

    def key(self, key: Any, loc: list[str | int]) -> str:
        if isinstance(key, str):
            return self.text(key, loc)
        if key is None or isinstance(key, bool | int | float | dt.date):
            return str(self.value(key, loc))  # checked first: str() of 5,000 digits fails
        raise self.refuse(loc, "keys must be texts, numbers or dates")

    def text(self, value: str, loc: list[str | int]) -> str:
        bad = CONTROL.search(value) or SURROGATE.search(value)
        if bad is not None:
            kind = "a lone surrogate" if SURROGATE.match(bad.group()) else "a control character"
            raise self.refuse(loc, f"texts must not hold {kind} "
                                   f"(U+{ord(bad.group()):04X} at position {bad.start()})")
        return str(value)


def _tag(value: Any) -> str | None:
    """An explicit tag ruamel kept on a value (`!foo`, `!!python/...`), or None."""
    tag = getattr(getattr(value, "tag", None), "value", None)
    if not isinstance(tag, str):
        return None
    return tag.replace("tag:yaml.org,2002:", "!!", 1)


def _kind(value: Any) -> str:
    if isinstance(value, bytes | bytearray):
        return "binary values (!!binary) are not allowed"
    if isinstance(value, AbstractSet):
        return "sets (!!set) are not allowed"
    return f"values of type {type(value).__name__} are not allowed"


__all__ = ["load_scenario_file", "plain", "surely_plain", "json_error", "PlainDataError",
           "MAX_JSON_BYTES", "MAX_YAML_BYTES"]
