"""A draft rulebook's text checked (rulebooks/drafts.py): problems with line, column and key
path as codes worded in Russian, lint placed at its line, the catalogue, «было / стало»."""

from __future__ import annotations

from rulebook_testkit import TINY

from sudya.domain.rulebook import drafts, loader


def test_the_tiny_rulebook_is_clean_and_its_catalogue_has_a_column_per_level() -> None:
    checked = drafts.check(TINY)
    assert checked.ok and checked.problems() == []
    assert checked.book is not None
    cat = drafts.catalogue(checked.book, "ru")
    assert cat.levels == [("low", "Низкий"), ("high", "Высокий")]
    assert [(r.id, r.cells) for r in cat.rows][0] == (
        "noise", {"low": "Замечание", "high": "Предупреждение"})


def test_malformed_yaml_is_placed_at_its_line_and_column_in_russian() -> None:
    broken = TINY.replace("ladder: [caution, warning]", "ladder: [caution, warning")
    (p,) = drafts.check(broken).errors
    assert (p.code, p.line) == ("draft.yaml.flow-sequence", 13)
    assert p.text("ru").startswith("Ошибка YAML: в […] не хватает «,» или закрывающей «]»")


def test_the_formats_errors_name_the_key_path_and_line() -> None:
    text = TINY.replace("rank: 2,", "rank: two,").replace('edition: "1"\n', "")
    problems = {p.path: p for p in drafts.check(text).errors}
    assert problems["edition"].code == "draft.schema.missing"
    assert problems["edition"].text("ru") == "Не хватает обязательного ключа «edition»"
    rank = problems["sanctions[warning].rank"]
    assert (rank.code, rank.line, rank.text("ru")) == ("draft.schema.int", 9,
                                                       "Здесь нужно целое число")


def test_lint_errors_are_placed_and_stop_publishing() -> None:
    checked = drafts.check(TINY.replace("{low: caution, high: warning}", "{low: caution}"))
    assert checked.loads and not checked.ok
    (p,) = checked.lint_errors
    assert (p.code, p.line, p.path) == ("lint.level-no-penalty", 18,
                                       "infractions.noise.penalty")


def test_the_diff_per_infraction_and_level() -> None:
    old = loader.load_text(TINY)
    new = loader.load_text(TINY.replace("{low: caution, high: warning}",
                                        "{low: warning, high: warning}")
                           .replace("id: digging", "id: tunnel"))
    rows = [(r.infraction, r.change, r.level, r.before, r.after)
            for r in drafts.diff(old, new, "ru")]
    assert ("noise", "penalty", "low", "Замечание", "Предупреждение") in rows
    assert ("tunnel", "added", "high", "", "Каторга [depth * 10]") in rows
    assert ("digging", "removed", "low", "Каторга [depth * 10]", "") in rows
    assert not [r for r in rows if r[0] == "noise" and r[2] == "high"]
    assert drafts.diff(old, old) == []
