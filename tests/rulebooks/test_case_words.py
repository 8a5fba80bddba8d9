"""A failing case says what differs in words (sudya.app.rulebook_cases): typed differences,
said in Russian or English with the rulebook's names; what the case now gives, written as its
expected file would be, to accept; messages that name the case, never a server's folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from sudya.app import rulebook_cases as rc
from sudya.app.rulebook_cases import CaseDifference, DraftCase, difference_text
from sudya.domain.rulebook import loader

CASES = loader.BUNDLED / "cases" / "berserk"
BERSERK = (loader.BUNDLED / "berserk.yaml").read_text("utf-8")
SLOW_PLAY = "penalty: {amateur: caution, professional: warning, highest: warning}"
# a draft where a slow play at the professional level is a game loss
HARSH = BERSERK.replace(
    SLOW_PLAY, "penalty: {amateur: caution, professional: game-loss, highest: warning}", 1)


def bundled(name: str) -> DraftCase:
    return DraftCase(name, (CASES / f"{name}.yaml").read_text("utf-8"),
                     (CASES / f"{name}.expected.json").read_text("utf-8"))


def test_the_harsher_draft_fails_berserk_basics_in_words() -> None:
    assert SLOW_PLAY in BERSERK
    (outcome,) = rc.run_draft(HARSH, [bundled("berserk-basics")])
    assert not outcome.passed
    book = loader.load("berserk")
    first = outcome.differences[0]
    assert first == CaseDifference(
        "sanctions", event="e3", subject="bob", infraction="gameplay.slow-play",
        expected=[{"kind": "warning"}],
        got=[{"kind": "game-loss"}, {"kind": "warning", "attached": True}], key="sanctions",
        index=3)
    # the lines of `sudya rulebook test` are as they were, made from the same differences
    assert outcome.problems[0] == (
        "rulings[3] (event 'e3', subject 'bob').sanctions: expected [{'kind': 'warning'}], "
        "got [{'kind': 'game-loss'}, {'kind': 'warning', 'attached': True}]")
    assert len(outcome.problems) == len(outcome.differences)
    assert rc.outcome_texts(outcome, book, "ru") == [
        "e3 · bob · Замедленный темп игры: ожидали Предупреждение, получили Поражение в партии",
        "e4 · bob · Замедленный темп игры: ожидали Поражение в партии, получили Поражение в "
        "матче",
        "bob: Поражение в матче: ожидали 0, получили 1"]
    assert rc.outcome_texts(outcome, book, "en")[0] == \
        "e3 · bob · Slow play: expected Warning, got Game loss"


def test_accepting_what_the_draft_now_gives_makes_the_case_pass() -> None:
    case = bundled("berserk-basics")
    (same,) = rc.run_draft(BERSERK, [case])
    assert same.passed and same.actual == case.expected  # written as the bundled file is
    (changed,) = rc.run_draft(HARSH, [case])
    assert changed.actual is not None and not changed.refused
    assert '"sanctions": [{"kind": "match-loss"}, {"kind": "warning", "attached": true}]' \
        in changed.actual
    (accepted,) = rc.run_draft(HARSH, [DraftCase(case.name, case.scenario, changed.actual)])
    assert accepted.passed


def test_a_refusal_now_given_is_offered_as_an_error_file() -> None:
    scenario = (CASES / "berserk-basics.yaml").read_text("utf-8").replace(
        "level: professional\n", "")
    (outcome,) = rc.run_draft(BERSERK, [DraftCase("no-level", scenario, "{}")])
    assert outcome.refused and outcome.actual == "code: level.required\nfield: level\n"
    assert outcome.differences[0].what == "refused"
    book = loader.load("berserk")
    assert rc.outcome_texts(outcome, book, "ru")[0].startswith("сценарий отклонён: level: ")
    (accepted,) = rc.run_draft(BERSERK, [DraftCase("no-level", scenario, outcome.actual,
                                                   refusal=True)])
    assert accepted.passed
    (wrong,) = rc.run_draft(BERSERK, [DraftCase("no-level", scenario,
                                                "code: level.required\nfield: date\n",
                                                refusal=True)])
    assert rc.outcome_texts(wrong, book, "ru") == [
        "отказ: ожидали поле date, получили level"]


@pytest.mark.parametrize(("expected", "ru", "en"), [
    (1, "ожидали 1 решение, получили 4", "expected 1 ruling, got 4"),
    (3, "ожидали 3 решения, получили 4", "expected 3 rulings, got 4"),
    (5, "ожидали 5 решений, получили 4", "expected 5 rulings, got 4"),
    (12, "ожидали 12 решений, получили 4", "expected 12 rulings, got 4"),
    (21, "ожидали 21 решение, получили 4", "expected 21 rulings, got 4"),
])
def test_counts_in_words(expected: int, ru: str, en: str) -> None:
    d = CaseDifference("count", expected=expected, got=4)
    assert difference_text(d, None, "ru") == ru
    assert difference_text(d) == ru  # Russian unless told
    assert difference_text(d, None, "en") == en


def test_sanctions_with_amounts_none_and_causes_in_words() -> None:
    book = loader.load("team-wargame")
    fine = CaseDifference("sanctions", event="e2", subject="ivan", infraction="time-wasting",
                          expected=[], got=[{"kind": "points", "amount": 2}],
                          key="sanctions", index=1)
    assert difference_text(fine, book, "ru").endswith(
        ": ожидали без пенальти, получили Штрафные очки: 2")
    assert difference_text(fine, book, "en").endswith(
        ": expected no penalty, got Point deduction: 2")
    cause = CaseDifference("cause", event="e4", subject="bob", infraction="gameplay.slow-play",
                           expected="table", got="repeat", key="cause", index=4)
    berserk = loader.load("berserk")
    assert difference_text(cause, berserk, "ru") == \
        "e4 · bob · Замедленный темп игры: основание: ожидали по таблице, получили повтор"
    assert difference_text(cause, berserk, "en") == \
        "e4 · bob · Slow play: cause: expected by the table, got repeat"


def test_a_case_that_cannot_run_names_the_case_never_a_folder() -> None:
    basics = (CASES / "berserk-basics.yaml").read_text("utf-8")
    other = DraftCase("другой", basics.replace("rulebook: berserk", "rulebook: team-wargame"),
                      "{}")
    broken = DraftCase("broken", "events: [\n", "{}")
    unnamed = DraftCase("", basics, "[1, 2")
    outcomes = rc.run_draft(BERSERK, [other, broken, unnamed])
    book = loader.load("berserk")
    said = [t for o in outcomes for lang in ("ru", "en") for t in rc.outcome_texts(o, book, lang)]
    said += [p for o in outcomes for p in o.problems]
    assert said and not [t for t in said if "sudya-draft" in t or "/tmp" in t or ".cases" in t]
    assert outcomes[0].problems == [
        "другой: names the rulebook team-wargame, but it is kept with berserk"]
    assert rc.outcome_texts(outcomes[0], book, "ru") == [
        "другой: называет регламент team-wargame, а хранится с регламентом berserk"]
    assert outcomes[1].problems[0].startswith("broken: cannot be read: broken:2: ")
    assert outcomes[2].problems[0].startswith("case-3: cannot be read: ")
    assert all(o.actual is None and o.differences[0].what == "case" for o in outcomes)


def test_the_cli_still_names_the_files(tmp_path: Path) -> None:
    """`sudya rulebook test` runs cases kept in files: their messages name the file."""
    (tmp_path / "club.cases").mkdir()
    (tmp_path / "club.yaml").write_text(BERSERK, "utf-8")
    (tmp_path / "club.cases" / "x.yaml").write_text("events: [\n", "utf-8")
    (tmp_path / "club.cases" / "x.expected.json").write_text("{}", "utf-8")
    with pytest.raises(rc.RulebookError) as info:
        rc.run(str(tmp_path / "club.yaml"))
    assert str(tmp_path / "club.cases" / "x.yaml") in str(info.value)
