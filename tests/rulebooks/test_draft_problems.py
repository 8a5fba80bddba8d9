"""Every refusal of a draft rulebook is a catalogue code with its line and key path, worded
in Russian for an organiser (rulebooks/drafts.py over schema.py's coded refusals): an
undefined sanction kind, level or role, an undeclared name in a formula, a bad fraction, a
scoring rule that cannot work, an infraction defined twice…"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from pathlib import Path

import pytest
from rulebook_testkit import TINY

from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import drafts, loader, schema
from sudya.domain.rulebook.drafts import Problem
from sudya.i18n.messages import LANGS, catalogue

LATIN = re.compile(r"[A-Za-z][A-Za-z_-]*")
# values a Russian message names for the organiser to type (they are YAML values, not words)
VALUES = {"omw", "ogw", "total", "game_points", "deductions", "points", "match-points",
          "removed"}


def line_of(text: str, fragment: str) -> int:
    """The 1-based line of the first line of `text` holding `fragment`."""
    return next(n for n, line in enumerate(text.splitlines(), 1) if fragment in line)


def russian(p: Problem) -> str:
    """The problem's Russian text, checked: no English word but the ids it is about or
    offers (its parameters), no raw key path."""
    text = p.text("ru")
    typed = set(VALUES)
    for name, value in p.params.items():
        if name != "problem":  # pydantic's own English words
            typed |= set(LATIN.findall(str(value.get("ru") if isinstance(value, Mapping)
                                           else value)))
    assert set(LATIN.findall(text)) - typed == set(), text
    assert p.path not in text and not re.search(r"infractions|\bpenalty\b(?!-)", text), text
    return text


def only(text: str) -> Problem:
    """The one problem of a draft that does not load."""
    checked = drafts.check(text)
    assert not checked.loads
    (p,) = checked.problems()
    return p


def test_the_berserk_penalty_with_a_mistyped_kind_reads_in_russian_at_its_line() -> None:
    text = (loader.BUNDLED / "berserk.yaml").read_text("utf-8")
    cell = "penalty: {amateur: caution, professional: warning, highest: warning}"
    assert cell in text
    broken = text.replace(cell, cell.replace("professional: warning", "professional: warnin"))
    p = only(broken)
    index = next(i for i, inf in enumerate(loader.load("berserk").infractions)
                 if inf.id == "gameplay.slow-play")
    assert (p.code, p.line) == ("draft.ref.kind", line_of(text, cell))
    assert p.keys == ("infractions", index, "penalty", "professional")
    assert p.path == "infractions[gameplay.slow-play].penalty.professional"
    said = russian(p)
    assert said.startswith("Нарушение «Замедленный темп игры», уровень «Профессиональный»: "
                           "пенальти «warnin» нет среди пенальти регламента")
    assert "Замечание (caution), Предупреждение (warning)" in said
    assert p.text("en").startswith("Infraction «Slow play», level «Professional»: sanction "
                                   "kind «warnin» is not defined")


def test_an_undefined_kind_in_a_penalty_cell() -> None:
    p = only(TINY.replace("{low: caution, high: warning}", "{low: caution, high: warnin}"))
    assert (p.code, p.line, p.keys) == ("draft.ref.kind", 18,
                                        ("infractions", 0, "penalty", "high"))
    assert p.params["kind"] == "warnin"
    assert russian(p) == (
        "Нарушение «Шум», уровень «Высокий»: пенальти «warnin» нет среди пенальти регламента "
        "— выберите одно из: Замечание (caution), Предупреждение (warning), Каторга (ore) "
        "(или опишите новое в списке пенальти)")


def test_an_undefined_kind_written_out_in_full_is_placed_at_its_kind() -> None:
    text = TINY.replace('penalty: [{kind: ore, formula: "depth * 10"}]',
                        'penalty:\n      - kind: oar\n        formula: "depth * 10"')
    p = only(text)
    assert (p.code, p.line) == ("draft.ref.kind", line_of(text, "kind: oar"))
    assert p.keys == ("infractions", 1, "penalty", 0, "kind")
    assert "«Подкоп»" in russian(p)


def test_an_undefined_level() -> None:
    p = only(TINY.replace("{low: caution, high: warning}", "{low: caution, top: warning}"))
    assert (p.code, p.line, p.keys) == ("draft.ref.level", 18,
                                        ("infractions", 0, "penalty", "top"))
    assert russian(p) == ("Нарушение «Шум»: уровня турнира «top» нет среди уровней регламента "
                          "— выберите один из: Низкий (low), Высокий (high)")


def test_an_undefined_role() -> None:
    text = TINY.replace('    source: "tiny §1"\n', '    source: "tiny §1"\n    only_by:\n'
                        '      roles: [chief]\n      note: {ru: "Главный", en: "Head"}\n')
    p = only(text)
    assert (p.code, p.line) == ("draft.ref.role", line_of(text, "roles: [chief]"))
    assert p.keys == ("infractions", 0, "only_by", "roles", 0)
    assert russian(p) == ("Нарушение «Шум»: роли судьи «chief» нет среди ролей регламента — "
                          "выберите одну из: пока ничего не описано")


def test_a_name_a_formula_does_not_declare() -> None:
    p = only(TINY.replace('formula: "depth * 10"', 'formula: "dept * 10"'))
    assert (p.code, p.line, p.keys) == ("draft.ref.names", 24,
                                        ("infractions", 1, "penalty", 0, "formula"))
    said = russian(p)
    assert said.startswith("Нарушение «Подкоп»: в «dept * 10» встречается dept — таких "
                           "обстоятельств у нарушения нет")
    assert "depth" in said


def test_a_setting_a_condition_reads_that_the_rulebook_does_not_declare() -> None:
    p = only(TINY.replace('formula: "depth * 10"',
                          "formula: \"depth * 10\", when: \"settings['decks']\""))
    assert (p.code, p.line, p.keys) == ("draft.ref.setting-read", 24,
                                        ("infractions", 1, "penalty", 0, "when"))
    assert "настройку турнира «decks»" in russian(p)


def test_an_infraction_defined_twice() -> None:
    p = only(TINY.replace("id: digging", "id: noise"))
    assert (p.code, p.line, p.keys) == ("draft.ref.infraction-twice", 19,
                                        ("infractions", 1, "id"))
    assert russian(p) == ("Нарушение «Подкоп»: нарушение с кодом «noise» уже описано выше — "
                          "дайте этому другой код или удалите повтор")


def test_every_broken_reference_is_a_problem_of_its_own_line() -> None:
    text = (TINY.replace("ladder: [caution, warning]", "ladder: [caution, ghost]")
            .replace("{low: caution, high: warning}", "{low: caution, high: warnin}"))
    problems = drafts.check(text).problems()
    assert [(p.code, p.line, p.keys) for p in problems] == [
        ("draft.ref.kind", 12, ("ladder", 1)),
        ("draft.ref.kind", 18, ("infractions", 0, "penalty", "high"))]
    assert russian(problems[0]).startswith("Лестница пенальти: пенальти «ghost» нет")


def with_scoring(scoring: str) -> str:
    return TINY.replace("repeats: {mode: escalate}\n",
                        f"repeats: {{mode: escalate}}\nscoring: {scoring}\n")


@pytest.mark.parametrize(("text", "code", "keys", "says"), [
    (with_scoring('{kind: match-points, tiebreakers: [{id: omw, floor: "3/2"}]}'),
     "draft.fraction.range", ("scoring", "tiebreakers", 0, "floor"),
     "Доля должна быть от 0 до 1, а здесь «3/2»"),
    (with_scoring('{kind: match-points, tiebreakers: [{id: omw, floor: "a third"}]}'),
     "draft.fraction.invalid", ("scoring", "tiebreakers", 0, "floor"),
     "«a third» — не доля"),
    (with_scoring('{kind: match-points, tiebreakers: [{id: gw, floor: "1/3"}]}'),
     "draft.tiebreaker.floor", ("scoring", "tiebreakers", 0, "floor"),
     "у «gw» её нет"),
    (with_scoring("{kind: points, order: []}"), "draft.scoring.order-empty",
     ("scoring", "order"), "В порядке мест назовите хотя бы один показатель"),
    (with_scoring("{kind: match-points, order: [total]}"), "draft.scoring.order-needs-points",
     ("scoring", "order"), "Порядок мест задают только при подсчёте очков партий"),
    (with_scoring("{kind: points, tiebreakers: [gw]}"), "draft.scoring.needs-match-points",
     ("scoring", "tiebreakers"), "только при подсчёте матчевых очков"),
    (with_scoring("{kind: match-points, win: 0, tiebreakers: [omw]}"), "draft.scoring.omw-win",
     ("scoring", "win"), "очки за победу должны быть больше нуля"),
    (with_scoring("{kind: match-points, tiebreakers: [gw, omw, gw]}"),
     "draft.scoring.tiebreaker-twice", ("scoring", "tiebreakers"),
     "Дополнительный показатель «gw» назван дважды"),
    (TINY.replace('formula: "depth * 10"', 'formula: "depth * (10"'), "draft.formula.syntax",
     ("infractions", 1, "penalty", 0, "formula"), "Не удаётся прочитать «depth * (10»"),
    (TINY.replace('formula: "depth * 10"', "formula: [depth]"), "draft.formula.type",
     ("infractions", 1, "penalty", 0, "formula"), "пишут строкой"),
    (TINY.replace("{low: caution, high: warning}",
                  "{low: caution, high: {options: {min: [caution], max: [warning]}, "
                  "default: mid}}"),
     "draft.outcome.default", ("infractions", 0, "penalty", "high", "default"),
     "Выбора «mid» нет среди вариантов (min, max)"),
    (TINY.replace("depth: {type: int, min: 1,",
                  "depth: {type: enum, values: [a, b], value_names: {c: {ru: В, en: C}},"),
     "draft.detail.value-names",
     ("infractions", 1, "details", "depth", "value_names"),
     "Названия даны значениям c, а их нет среди значений обстоятельства (a, b)"),
    (TINY.replace("depth: {type: int, min: 1,", "depth: {type: int, prefill: opponent, min: 1,"),
     "draft.detail.prefill", ("infractions", 1, "details", "depth", "prefill"),
     "только в обстоятельство с типом «игрок», а у этого тип «целое число»"),
])
def test_a_single_refusal_keeps_its_code_key_path_and_line(
        text: str, code: str, keys: tuple[str | int, ...], says: str) -> None:
    p = only(text)  # one problem: the other forms a penalty may take are not reported
    assert (p.code, p.keys) == (code, keys)
    assert p.line == drafts._position(loader.parse_yaml(text, "t"), keys)[0]
    assert p.line is not None
    assert says in russian(p)


def test_a_lint_finding_carries_its_key_path() -> None:
    checked = drafts.check(TINY.replace("{low: caution, high: warning}", "{low: caution}"))
    (p,) = checked.lint_errors
    assert (p.code, p.keys) == ("lint.level-no-penalty", ("infractions", 0, "penalty"))


def test_the_loader_keeps_the_english_line_of_each_reference() -> None:
    text = TINY.replace("ladder: [caution, warning]", "ladder: [caution, ghost]").replace(
        "{low: caution, high: warning}", "{low: caution, high: warnin}")
    with pytest.raises(RulebookError) as info:
        loader.load_text(text, "draft.yaml")
    assert info.value.params["problems"] == [
        "draft.yaml: ladder: sanction kind 'ghost' is not defined",
        "draft.yaml: infractions.noise.penalty.high.sanctions[0]: sanction kind 'warnin' is "
        "not defined"]


def test_every_code_schema_refuses_with_is_worded_in_both_languages() -> None:
    source = Path(schema.__file__).read_text("utf-8")
    codes = {node.value for node in ast.walk(ast.parse(source))
             if isinstance(node, ast.Constant) and isinstance(node.value, str)
             and re.fullmatch(r"draft\.[a-z-]+\.[a-z-]+", node.value)}
    assert len(codes) > 20
    assert {c for c in codes if not all(c in catalogue(lang) for lang in LANGS)} == set()
