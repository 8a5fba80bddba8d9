"""Messages are codes rendered from catalogues: every code has Russian and English text, and a
ruling rendered in Russian reads as Russian (no ids, no English) — shared/spec/regulations.md
§4 E11."""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path
from typing import Any

import pytest

import sudya
from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import Replay
from sudya.domain.errors import ScenarioError
from sudya.i18n.messages import LANGS, catalogue, is_code, reason_text, render

SRC = Path(sudya.__file__).parent
ROOT = SRC.parents[1]
CASES = sorted((ROOT / "tests" / "scenarios").glob("*/*.yaml")) + sorted(
    (ROOT.parent / "shared" / "scenarios").glob("*.yaml"))
# what raises or gives a coded message: its first argument is the code
CODED = {"Reason", "RuleError", "LedgerError", "ScenarioError", "CommandError", "SudyaError",
         "RulebookError", "_custom", "ApiError", "AuthError"}


def codes_in_source() -> dict[str, str]:
    """Every code literal passed to a coded constructor in src/, with where it is."""
    found: dict[str, str] = {}
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else (
                node.func.attr if isinstance(node.func, ast.Attribute) else "")
            first = node.args[0]
            if name in CODED and isinstance(first, ast.Constant) and isinstance(
                    first.value, str) and is_code(first.value):
                found.setdefault(first.value, f"{path.relative_to(SRC)}:{node.lineno}")
    return found


def test_source_uses_codes() -> None:
    assert len(codes_in_source()) > 100


def test_every_code_in_the_source_has_russian_and_english_text() -> None:
    missing = {code: where for code, where in codes_in_source().items()
               if not all(code in catalogue(lang) for lang in LANGS)}
    assert missing == {}


# refusals whose text a user reads: the API's and the access checks', the command line's
# usage errors, a rulebook or scenario file that does not load
REFUSALS = {"ApiError", "AuthError", "UsageError", "RulebookError", "ScenarioError"}


def test_refusals_are_raised_with_a_code_never_a_sentence() -> None:
    """An API, access, command-line, rulebook or scenario refusal's first argument is a
    catalogue code (or a code it was given), never an English sentence: it becomes the
    refusal's `type` (issue 38), and its text is in the reader's language (--lang)."""
    sentences = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args
                    and isinstance(node.func, ast.Name | ast.Attribute)
                    and (node.func.id if isinstance(node.func, ast.Name)
                         else node.func.attr) in REFUSALS):
                continue
            first = node.args[0]
            # another error's English line, `str(exc)`, is a sentence too: its code, where
            # and parameters are passed on instead
            text = isinstance(first, ast.JoinedStr | ast.BinOp) or (
                isinstance(first, ast.Call) and isinstance(first.func, ast.Name)
                and first.func.id == "str")
            if text or (isinstance(first, ast.Constant) and not is_code(str(first.value))):
                sentences.append(f"{path.relative_to(SRC)}:{node.lineno}")
    assert sentences == []


def test_both_catalogues_hold_the_same_codes_and_russian_names_no_other_parameters() -> None:
    fields = string.Formatter()

    def names(template: str) -> set[str]:
        return {f for _, f, _, _ in fields.parse(template) if f}

    ru, en = catalogue("ru"), catalogue("en")
    assert set(ru) == set(en)
    # English names every parameter a code is given; Russian may leave one out, never add
    assert {c: names(ru[c]) - names(en[c]) for c in en if names(ru[c]) - names(en[c])} == {}


def test_an_unknown_code_is_an_error_not_a_silent_message() -> None:
    with pytest.raises(KeyError):
        render("no.such-code")


LATIN = re.compile(r"[A-Za-z][A-Za-z-]*")


def typed_ids(scenario: dict[str, Any]) -> set[str]:
    """What the scenario's author typed: people, teams, judges, events, cards."""
    out: set[str] = set(scenario.get("players") or [])
    out |= set(scenario.get("teams") or {}) | set(scenario.get("judges") or {})
    for ev in scenario.get("events") or []:
        if isinstance(ev, dict):
            out.add(str(ev.get("id", "")))
            for key in ("card", "reason"):
                value = (ev.get("details") or {}).get(key)
                if isinstance(value, str):
                    out.add(value)
    words: set[str] = set()
    for item in out:
        words |= set(LATIN.findall(item))
    return words


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_ruling_rendered_in_russian_has_no_english_and_no_ids(path: Path) -> None:
    try:
        scenario = load_scenario_file(path)
        prepared = Replay(scenario)
        engine, rulings = prepared.run()
    except ScenarioError:
        return
    book = engine.book
    allowed = typed_ids(scenario)
    leaks: set[str] = set()
    for r in rulings:
        texts = [render(f"cause.{r.cause}", None, "ru")]
        texts += [reason_text(n, "ru", book) for n in r.notes]
        for s in r.sanctions:
            texts.append(book.kind(s.kind).name.get("ru"))
        if r.infraction:
            inf = book.infraction(r.infraction)
            assert inf is not None
            texts.append(inf.name.get("ru"))
        for text in texts:
            leaks |= {f"{w!r} in «{text}»" for w in LATIN.findall(text) if w not in allowed}
    assert sorted(leaks) == []


def test_errata_citations_read_in_russian() -> None:
    """§4 E11: a citation of an erratum («regulations.md §4 E9») has no Latin in Russian."""
    from sudya.i18n.messages import source_text

    assert source_text("004, таблица; regulations.md §4 E9", "ru") == \
        "004, таблица; разбор регламентов §4, поправка 9"
    assert source_text("regulations.md §4 E9", "en") == "regulations.md §4 E9"


def test_a_refusal_in_russian_names_settings_and_values_in_words() -> None:
    """§4 E11: the setting by its name and yes/no in words, not `decklists` and `True`."""
    from sudya.domain.errors import RuleError
    from sudya.domain.rulebook import loader

    book = loader.load("berserk")
    error = RuleError("infraction.only-with-setting", field="infraction",
                      infraction="deck.invalid-decklist", setting="decklists", wanted=True,
                      have=False)
    text = error.render("ru", book)
    assert "«Турнир использует дек-листы» = да (в этом турнире: нет)" in text
    assert LATIN.findall(text.split(": ", 1)[1]) == []


def test_a_choice_not_offered_names_the_options_in_russian() -> None:
    """§4 E11: «min/max» are ids; Russian names the options as the rulebook calls them."""
    from sudya.domain.rulebook import loader

    book = loader.load("team-wargame")
    scenario = {"rulebook": "team-wargame", "date": "2026-03-01", "players": ["a"],
                "events": [{"id": "s1", "infraction": "serious-cheating", "player": "a",
                            "choice": "half"}]}
    with pytest.raises(ScenarioError) as info:
        Replay(scenario).run()
    text = info.value.render("ru", book)
    assert "Наименьшее, Наибольшее, Штраф от 10 до 20 очков и жёлтая карточка" in text
    assert "offered: min, max, {points: -10..-20}" in str(info.value)
