"""engine.formula: a formula compiled into closures gives what simpleeval gives on the parsed
tree (the same value, or the same kind of error), for every formula and condition of the
bundled rulebooks and for expressions rulebooks could write; what it cannot compile (an
attribute, a lambda, a comprehension) is left to simpleeval, which refuses it."""

from __future__ import annotations

import ast
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from simpleeval import SimpleEval

from sudya.domain.rulebook import loader
from sudya.domain.rulebook.formula import FUNCTIONS, Formula, compiled


def _formulas(value: Any) -> list[Formula]:
    if isinstance(value, Formula):
        return [value]
    if isinstance(value, BaseModel):
        return [f for name in type(value).model_fields for f in _formulas(getattr(value, name))]
    if isinstance(value, dict):
        return [f for v in value.values() for f in _formulas(v)]
    if isinstance(value, list | tuple):
        return [f for v in value for f in _formulas(v)]
    return []


BUNDLED = sorted({f.source for book in loader.bundled_ids()
                  for f in _formulas(loader.load(book))})
values = st.one_of(st.integers(-50, 50), st.booleans(), st.none(),
                   st.sampled_from(["", "a", "finals", "стадия"]), st.floats(-10, 10))


def _outcome(run: Any) -> tuple[str, Any]:
    try:
        return "value", run()
    except Exception as exc:  # noqa: BLE001 — the kind of error is what is compared
        return "error", type(exc).__name__


def _both(source: str, names: dict[str, Any]) -> tuple[tuple[str, Any], tuple[str, Any]]:
    formula = Formula(source)
    tree = ast.parse(source.strip(), mode="eval").body
    fast = compiled(tree, source)
    assert fast is not None, f"{source!r} is not compiled"
    ev = SimpleEval(functions=FUNCTIONS, names=dict(names))
    slow = _outcome(lambda: ev.eval(source, previously_parsed=formula._tree))
    return _outcome(lambda: fast(names)), slow


def test_the_bundled_rulebooks_have_formulas_and_all_are_compiled() -> None:
    assert len(BUNDLED) > 10
    for source in BUNDLED:
        assert compiled(ast.parse(source.strip(), mode="eval").body, source) is not None, source


@settings(max_examples=300, deadline=None)
@given(source=st.sampled_from(BUNDLED), data=st.data())
def test_a_bundled_formula_compiled_gives_what_simpleeval_gives(
        source: str, data: st.DataObject) -> None:
    names = {n: data.draw(values, label=n) for n in Formula(source).names}
    if "settings" in names:
        keys = sorted(Formula(source).settings)
        names["settings"] = {k: data.draw(values, label=k) for k in keys}
    fast, slow = _both(source, names)
    assert fast == slow


@pytest.mark.parametrize("source", [
    "a < b < c", "a == b != c", "a ** 2 // 3", "min(a, b) + max(a, b, 7)", "len(s) > 2",
    "a if b else c", "not a or b and c", "a % 3 - -b", "settings['x'] * 2", "missing + 1",
    "a / b", "'ab' * 3", "s in 'xabcx'",
])
@settings(max_examples=60, deadline=None)
@given(a=values, b=values, c=values)
def test_other_expressions_agree_with_simpleeval(source: str, a: Any, b: Any, c: Any) -> None:
    names = {"a": a, "b": b, "c": c, "s": "abc", "settings": {"x": a}}
    fast, slow = _both(source, names)
    assert fast == slow or (fast[0] == slow[0] == "value" and fast[1] != fast[1])  # NaN


@pytest.mark.parametrize("source", ["a.real", "(lambda: 1)()", "[x for x in a]",
                                    "a[1:2]", "open('f')", "f'{a}'"])
def test_what_it_cannot_compile_is_left_to_simpleeval(source: str) -> None:
    assert compiled(ast.parse(source, mode="eval").body, source) is None
