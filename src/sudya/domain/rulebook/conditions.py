"""What a rulebook's conditions can be: every case of the inputs they read, tried one by one.

A condition reads an infraction's declared details, the tournament's settings and a few
context names (`tournament_level`, `round`, …). Where each name it reads has a small set of
values that decide it — a bool, an enum's values, a level, a number compared with constants —
every combination is evaluated, so the linter can say that a condition is never true, or that
two conditions hold at once, and give the case. A name whose values cannot be listed (a
player, a map, a number in arithmetic) is `UNKNOWN`: an evaluation that touches it decides
nothing, so a finding is only ever made from cases that were decided (no false alarm).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from simpleeval import FeatureNotAvailable

from sudya.domain.rulebook.formula import Formula
from sudya.domain.rulebook.schema import Detail, Rulebook

MAX_CASES = 4096  # combinations tried per question; more and nothing is said


class Undecided(Exception):
    """An evaluation touched a value that cannot be listed."""


class _Unknown:
    """A value nobody can list: any use of it leaves the case undecided."""

    def _undecided(self, *_args: Any, **_kwargs: Any) -> Any:
        raise Undecided

    __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = _undecided
    __bool__ = __contains__ = __getitem__ = __len__ = __iter__ = _undecided
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _undecided
    __truediv__ = __rtruediv__ = __floordiv__ = __mod__ = __neg__ = __abs__ = _undecided
    __hash__ = object.__hash__

    def __repr__(self) -> str:
        return "…"


UNKNOWN = _Unknown()
OTHER = "\uffffother"  # a text equal to none of the constants a condition names


@dataclass(frozen=True)
class Case:
    """One combination of input values: name -> value (settings as `settings['x']`)."""

    values: tuple[tuple[str, Any], ...]

    def names(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        settings: dict[str, Any] = {}
        for name, value in self.values:
            if name.startswith("settings."):
                settings[name.removeprefix("settings.")] = value
            else:
                out[name] = value
        out["settings"] = settings
        return out

    def text(self) -> str:
        """The case in words a rulebook author reads: `phase = 'after-game', turns = 3`."""
        shown = [f"{name} = {_shown(value)}" for name, value in self.values
                 if value is not UNKNOWN]
        return ", ".join(shown) or "—"


def _shown(value: Any) -> str:
    if value is None:
        return "None (not given)"
    if value == OTHER:
        return "(another text)"
    return repr(value)


class Space:
    """The values of every name the conditions of one infraction may read."""

    def __init__(self, book: Rulebook, details: Mapping[str, Detail],
                 extra: Mapping[str, list[Any]] | None = None) -> None:
        self.book = book
        self.details = details
        self.extra = dict(extra or {})

    def domain(self, name: str, formulas: list[Formula]) -> list[Any]:
        """The values of `name` that decide these formulas (UNKNOWN among them if need be)."""
        if name in self.extra:
            return list(self.extra[name])
        if name.startswith("settings."):
            return self._setting(name.removeprefix("settings."), formulas)
        d = self.details.get(name)
        if d is not None:
            return self._detail(name, d, formulas)
        if name == "tournament_level":
            return list(self.book.level_ids()) or [None]
        if name in ("round", "earlier_count"):
            return _numbers(name, formulas, "int", 0 if name == "earlier_count" else 1, None,
                            optional=name == "round")
        return [UNKNOWN]  # offender, amount, earlier_* sums: not listed

    def _setting(self, name: str, formulas: list[Formula]) -> list[Any]:
        spec = self.book.settings.get(name)
        if spec is None:
            return [UNKNOWN]
        if spec.type == "bool":
            return [False, True]
        if spec.type == "int":
            return _numbers(f"settings['{name}']", formulas, "int", None, None, optional=False)
        return _texts(formulas)

    def _detail(self, name: str, d: Detail, formulas: list[Formula]) -> list[Any]:
        optional = not d.required and d.default is None  # an absent detail reads as None
        if d.type == "bool":
            values: list[Any] = [False, True]
        elif d.type == "enum":
            values = list(d.values)
        elif d.type in ("int", "number"):
            values = _numbers(name, formulas, d.type, d.min, d.max, optional=False)
        elif d.type == "str":
            values = _texts(formulas)
        else:  # player, date, map
            values = [UNKNOWN]
        return [*values, None] if optional else values

    def cases(self, formulas: list[Formula]) -> Iterator[Case] | None:
        """Every combination of the names these formulas read; None when there are too many."""
        names = sorted(set().union(*(f.names for f in formulas)) - {"settings"})
        names += sorted({f"settings.{s}" for f in formulas for s in f.settings})
        domains = [self.domain(n, formulas) for n in names]
        total = 1
        for dom in domains:
            total *= max(len(dom), 1)
        if total > MAX_CASES:
            return None
        return (Case(tuple(zip(names, combo, strict=True)))
                for combo in itertools.product(*domains))


def holds(f: Formula, case: Case) -> bool | None:
    """True or False in this case, None when it cannot be decided (or the formula fails)."""
    try:
        return bool(f(case.names()))
    except Undecided:
        return None
    except Exception:  # noqa: BLE001 — a condition failing on a case decides nothing here
        return None


def unsupported(f: Formula, space: Space) -> str | None:
    """What the evaluator refuses in this condition (a tuple, a lambda…) in some case, or None:
    such a condition fails when an event reaches it."""
    cases = space.cases([f])
    for c in cases if cases is not None else [Case(())]:
        try:
            f(c.names())
        except FeatureNotAvailable as exc:
            return str(exc)
        except Exception:  # noqa: BLE001, S112 — anything else is another question
            continue
    return None


def never_true(f: Formula, space: Space) -> bool:
    """Whether the condition is false in every case (every case decided)."""
    cases = space.cases([f])
    if cases is None:
        return False
    return all(holds(f, c) is False for c in cases)


def both(a: Formula, b: Formula, space: Space) -> tuple[Case | None, bool, bool]:
    """A case where both hold (or None); whether every case of b is one of a (b within a);
    whether every case of a is one of b (a within b). Undecided cases make the inclusions
    False and the common case is only a decided one."""
    cases = space.cases([a, b])
    if cases is None:
        return None, False, False
    common: Case | None = None
    b_in_a = a_in_b = True
    for c in cases:
        ha, hb = holds(a, c), holds(b, c)
        if ha is True and hb is True and common is None:
            common = c
        if hb is not False and ha is not True:  # b may hold where a may not
            b_in_a = False
        if ha is not False and hb is not True:
            a_in_b = False
    return common, b_in_a, a_in_b


def enum_typos(f: Formula, details: Mapping[str, Detail]) -> list[tuple[str, str, list[str]]]:
    """(detail, value, its values) for each comparison of an enum detail with a text that is
    not one of its values (`side == 'atacker'`)."""
    out: list[tuple[str, str, list[str]]] = []
    tree = ast.parse(f.source.strip(), mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        names = [o.id for o in operands if isinstance(o, ast.Name)]
        for name in names:
            d = details.get(name)
            if d is None or d.type != "enum":
                continue
            for o in operands:
                for text in _constants_in(o):
                    if text not in d.values:
                        out.append((name, text, list(d.values)))
    return out


def _constants_in(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return [e.value for e in node.elts
                if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _numbers(name: str, formulas: list[Formula], kind: str, least: float | None,
             most: float | None, *, optional: bool) -> list[Any]:
    """The values of a number that decide comparisons with constants: each constant, one
    either side of it, the ends of its range (midpoints too for a non-integer number). A
    number used any other way (arithmetic, compared with another name) is UNKNOWN too."""
    constants: set[float] = set()
    exact = True
    for f in formulas:
        tree = ast.parse(f.source.strip(), mode="eval")
        found, ok = _compared_constants(tree, name)
        constants |= found
        exact = exact and ok
    points: set[float] = set()
    for c in constants:
        points |= {c - 1, c, c + 1}
    if kind == "number":
        ordered = sorted(constants)
        points |= {(x + y) / 2 for x, y in itertools.pairwise(ordered)}
    points |= {0, 1}  # a number tested for truth: zero and not zero
    if least is not None:
        points |= {least, least + 1}
    if most is not None:
        points |= {most, most - 1}
    kept = sorted(p for p in points if (least is None or p >= least)
                  and (most is None or p <= most))
    values: list[Any] = [int(p) if kind == "int" and float(p).is_integer() else p
                         for p in kept]
    if kind == "int":
        values = [v for v in values if isinstance(v, int)]
    if not exact:
        values.append(UNKNOWN)
    if optional:
        values.append(None)
    return values


def _texts(formulas: list[Formula]) -> list[Any]:
    found: set[str] = set()
    for f in formulas:
        for node in ast.walk(ast.parse(f.source.strip(), mode="eval")):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                found.add(node.value)
    return [*sorted(found), OTHER, UNKNOWN]


def _compared_constants(tree: ast.AST, name: str) -> tuple[set[float], bool]:
    """The numeric constants `name` is compared with, and whether that is its only use."""
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    found: set[float] = set()
    exact = True
    key = name
    for node in ast.walk(tree):
        used = (isinstance(node, ast.Name) and node.id == key) or (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)
            and node.value.id == "settings" and isinstance(node.slice, ast.Constant)
            and f"settings[{node.slice.value!r}]" == key)
        if not used:
            continue
        parent = parents.get(id(node))
        if isinstance(parent, ast.Compare):
            others = [o for o in (parent.left, *parent.comparators) if o is not node]
            for o in others:
                if isinstance(o, ast.Constant) and isinstance(o.value, int | float) \
                        and not isinstance(o.value, bool):
                    found.add(float(o.value))
                elif not (isinstance(o, ast.Constant) and o.value is None):
                    exact = False
        elif isinstance(parent, ast.BoolOp | ast.Expression) or parent is None or (
                isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)) or (
                isinstance(parent, ast.IfExp) and parent.test is node):
            continue  # tested for truth
        else:
            exact = False
    return found, exact
