"""Formulas and conditions of a rulebook: parsed once, names checked, evaluated on the tree.

A formula made of the expressions rulebooks write (names, constants, arithmetic,
comparisons, `and`/`or`/`not`, `x if c else y`, subscripts, calls of `FUNCTIONS`) is
compiled once into plain closures over simpleeval's own operators (`compiled`): nothing in
it can reach an attribute, a module or a function other than those, and each call costs a
few closure calls instead of simpleeval's walk (which checks every value it computes, dicts
and lists item by item). Anything else is evaluated by simpleeval on the parsed tree.
"""

from __future__ import annotations

import ast
import math
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from simpleeval import DEFAULT_OPERATORS, MAX_STRING_LENGTH, NameNotDefined, SimpleEval

FUNCTIONS: dict[str, Any] = {
    "ceil": math.ceil,
    "floor": math.floor,
    "min": min,
    "max": max,
    "abs": abs,
    "round": round,
    "len": len,
}


class FormulaError(ValueError):
    """A formula that does not parse or names something it may not."""


class Formula:
    """An expression of a rulebook, parsed at load time and evaluated many times."""

    __slots__ = ("source", "names", "settings", "_tree", "_local", "_bare", "_compiled")

    def __init__(self, source: str, allowed: Iterable[str] | None = None) -> None:
        self.source = source
        try:
            tree = ast.parse(source.strip(), mode="eval")
        except SyntaxError as exc:
            raise FormulaError(f"cannot parse {source!r}: {exc.msg}") from exc
        self.names = frozenset(
            node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
        ) - set(FUNCTIONS) - {"True", "False", "None"}
        # the tournament settings it reads by name: settings['x'] or settings.get('x')
        self.settings = frozenset(_settings_read(tree))
        if allowed is not None:
            unknown = sorted(self.names - set(allowed))
            if unknown:
                raise FormulaError(
                    f"{source!r} uses {', '.join(unknown)}, which the rule does not declare"
                )
        self._local = threading.local()  # an evaluator per thread: its names are its own
        self._tree = self._evaluator().parse(source.strip())
        # a condition that is just a name (`optional`, `between_stages`) needs no evaluator
        self._bare = tree.body.id if isinstance(tree.body, ast.Name) and self.names else None
        self._compiled = compiled(tree.body, source)

    def _evaluator(self) -> SimpleEval:
        ev: SimpleEval | None = getattr(self._local, "ev", None)
        if ev is None:
            ev = self._local.ev = SimpleEval(functions=FUNCTIONS)
        return ev

    def __call__(self, names: Mapping[str, Any]) -> Any:
        """The value for these names; safe from many threads at once: a simpleeval evaluator
        keeps the names of the call it is in, so each thread evaluates on its own (the parsed
        tree is shared)."""
        if self._bare is not None and self._bare in names:
            return names[self._bare]
        if self._compiled is not None:
            return self._compiled(names)
        ev = self._evaluator()
        ev.names = dict(names)
        return ev.eval(self.source, previously_parsed=self._tree)

    def __copy__(self) -> Formula:
        return self  # parsed once and never changed: a copy of an engine shares it

    def __deepcopy__(self, memo: dict[int, Any]) -> Formula:
        return self

    def __repr__(self) -> str:
        return f"Formula({self.source!r})"


Compiled = Callable[[Mapping[str, Any]], Any]


def compiled(node: ast.AST, source: str) -> Compiled | None:
    """`node` as a closure that computes what simpleeval would (its operators, its order of
    evaluation and short-circuits), or None if it holds anything but the expressions
    rulebooks write."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, str | bytes) and len(value) > MAX_STRING_LENGTH:
            return None  # simpleeval refuses it when evaluated
        return lambda names: value
    if isinstance(node, ast.Name):
        return _name(node.id, source)
    if isinstance(node, ast.UnaryOp | ast.BinOp | ast.Compare):
        ops = [node.op] if not isinstance(node, ast.Compare) else node.ops
        if any(type(o) not in DEFAULT_OPERATORS for o in ops):
            return None
    parts: list[Compiled | None]
    if isinstance(node, ast.UnaryOp):
        unary, operand = DEFAULT_OPERATORS[type(node.op)], compiled(node.operand, source)
        return None if operand is None else lambda names: unary(operand(names))
    if isinstance(node, ast.BinOp):
        binary = DEFAULT_OPERATORS[type(node.op)]
        left, right = compiled(node.left, source), compiled(node.right, source)
        if left is None or right is None:
            return None
        return lambda names: binary(left(names), right(names))
    if isinstance(node, ast.Compare):
        return _compare(node, source)
    if isinstance(node, ast.BoolOp):
        parts = [compiled(v, source) for v in node.values]
        if any(p is None for p in parts):
            return None
        return _boolop(isinstance(node.op, ast.And), [p for p in parts if p is not None])
    if isinstance(node, ast.IfExp):
        parts = [compiled(n, source) for n in (node.test, node.body, node.orelse)]
        test, body, orelse = parts
        if test is None or body is None or orelse is None:
            return None
        return lambda names: body(names) if test(names) else orelse(names)
    if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Slice):
        container, key = compiled(node.value, source), compiled(node.slice, source)
        if container is None or key is None:
            return None
        return lambda names: container(names)[key(names)]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in FUNCTIONS and not node.keywords and \
            not any(isinstance(a, ast.Starred) for a in node.args):
        function = FUNCTIONS[node.func.id]
        parts = [compiled(a, source) for a in node.args]
        args = [p for p in parts if p is not None]
        if len(args) != len(parts):
            return None
        return lambda names: function(*[a(names) for a in args])
    return None


def _name(name: str, source: str) -> Compiled:
    def read(names: Mapping[str, Any]) -> Any:
        try:
            return names[name]
        except KeyError:
            if name in FUNCTIONS:
                return FUNCTIONS[name]
            raise NameNotDefined(name, source) from None
    return read


def _compare(node: ast.Compare, source: str) -> Compiled | None:
    first = compiled(node.left, source)
    parts = [compiled(c, source) for c in node.comparators]
    rest = [(DEFAULT_OPERATORS[type(o)], p) for o, p in zip(node.ops, parts, strict=True)
            if p is not None]
    if first is None or len(rest) != len(parts):
        return None
    if len(rest) == 1:
        (test, second), = rest
        return lambda names: test(first(names), second(names))

    def chain(names: Mapping[str, Any]) -> Any:
        right = first(names)
        result = True
        for test, comparator in rest:
            if not result:
                break
            left, right = right, comparator(names)
            result = test(left, right)
        return result
    return chain


def _boolop(is_and: bool, parts: list[Compiled]) -> Compiled:
    def all_of(names: Mapping[str, Any]) -> Any:
        value: Any = False
        for part in parts:
            value = part(names)
            if not value:
                break
        return value

    def any_of(names: Mapping[str, Any]) -> Any:
        value: Any = False
        for part in parts:
            value = part(names)
            if value:
                break
        return value
    return all_of if is_and else any_of


def _settings_read(tree: ast.AST) -> Iterable[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and _is_settings(node.value) and \
                isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            yield node.slice.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr == "get" and _is_settings(node.func.value) and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            yield node.args[0].value


def _is_settings(node: ast.AST) -> bool:
    return isinstance(node, ast.Name) and node.id == "settings"
