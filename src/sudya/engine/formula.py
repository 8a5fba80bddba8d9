"""Formulas and conditions of a rulebook: parsed once, names checked, evaluated on the tree."""

from __future__ import annotations

import ast
import math
import threading
from collections.abc import Iterable, Mapping
from typing import Any

from simpleeval import SimpleEval

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

    __slots__ = ("source", "names", "settings", "_tree", "_local", "_bare")

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
        ev = self._evaluator()
        ev.names = dict(names)
        return ev.eval(self.source, previously_parsed=self._tree)

    def __copy__(self) -> Formula:
        return self  # parsed once and never changed: a copy of an engine shares it

    def __deepcopy__(self, memo: dict[int, Any]) -> Formula:
        return self

    def __repr__(self) -> str:
        return f"Formula({self.source!r})"


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
