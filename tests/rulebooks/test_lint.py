"""The rulebook linter: errors for rules that cannot work, notes for every recorded choice."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sudya.domain.rulebook import loader
from sudya.domain.rulebook.lint import Finding, lint, lint_book

DATA = Path(__file__).parent / "data"
BUNDLED_IDS = ("berserk", "clan-championship", "team-wargame")


@pytest.fixture(autouse=True)
def no_extra_rulebook_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUDYA_RULEBOOK_PATH", raising=False)


def errors(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == "error"]


def one(findings: list[Finding], where: str, *needles: str) -> Finding:
    hits = [f for f in findings if f.where == where and all(n in f.message for n in needles)]
    assert len(hits) == 1, (where, needles, [f.line() for f in findings])
    return hits[0]


def variant(tmp_path: Path, base: str, old: str, new: str) -> str:
    text = (DATA / base).read_text("utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new), "utf-8")
    return str(path)


def test_finding_line() -> None:
    assert Finding("error", "ladder.x", "boom").line() == "error: ladder.x: boom"


# ------------------------------------------------------------------- bundled


@pytest.mark.parametrize("rid", BUNDLED_IDS)
@pytest.mark.parametrize("lang", ["en", "ru"])
def test_bundled_rulebooks_have_no_errors_and_record_notes(rid: str, lang: str) -> None:
    findings = lint(rid, lang)
    assert errors(findings) == []
    assert findings and all(f.severity == "note" for f in findings)


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_every_recorded_conflict_and_interpretation_is_a_note(rid: str) -> None:
    book = loader.load(rid)
    findings = lint_book(book)
    for inf in book.infractions:
        where = f"infractions.{inf.id}"
        for note in inf.conflicts:
            one(findings, where, "conflict: ", note.en)
        for note in inf.interpretation:
            one(findings, where, "interpretation: ", note.en)
    for rid_, role in book.roles.items():
        for note in role.interpretation:
            one(findings, f"roles.{rid_}", note.en)


def test_clan_notes_name_the_snowball_conflict_and_the_unspecified_amount() -> None:
    findings = lint("clan-championship")
    snowball = one(findings, "infractions.scrolls.astral-snowball", "conflict")
    assert "stricter reading wins" in snowball.message
    assert "[003" in snowball.message  # the source is cited
    deceiving = one(findings, "infractions.deceiving-official", "conflict")
    assert "unspecified" in deceiving.message
    one(findings, "infractions.deceiving-official", "interpretation", "college sets it")


def test_notes_in_russian() -> None:
    findings = lint("clan-championship", "ru")
    snowball = one(findings, "infractions.scrolls.astral-snowball", "расхождение источников")
    assert "снежки и астральные стрелы" in snowball.message
    one(findings, "infractions.deceiving-official", "расхождение источников", "не указано")
    assert not any("conflict: " in f.message for f in findings)


def test_berserk_notes() -> None:
    findings = lint("berserk")
    for deck in ("deck.invalid-decklist", "deck.deck-decklist-mismatch",
                 "deck.invalid-deck-no-decklist"):
        one(findings, f"infractions.{deck}", "conflict", "Appendix 2")
    one(findings, "settings.decklists", "interpretation")
    one(findings, "stacking", "interpretation", "used up")


def test_team_wargame_notes() -> None:
    findings = lint("team-wargame")
    one(findings, "roles.junior-judge", "rejected as an error")
    one(findings, "conversions.warning", "interpretation")
    one(findings, "infractions.time-wasting", "variant: ")


# ------------------------------------------------------------------- errors


def test_valid_file_has_no_findings() -> None:
    assert lint(str(DATA / "tiny.yaml")) == []


def test_undefined_sanction_kind() -> None:
    path = str(DATA / "lint-undefined-kind.yaml")
    (finding,) = lint(path)
    assert finding.severity == "error"
    assert finding.message.startswith(path)  # a load problem names the file itself
    assert "infractions.noise.penalty.high.sanctions[0]" in finding.message
    assert "sanction kind 'banishment' is not defined" in finding.message


def test_every_load_problem_is_its_own_error(tmp_path: Path) -> None:
    path = variant(tmp_path, "lint-undefined-kind.yaml", "ladder: [caution, warning]",
                   "ladder: [caution, warning, ghost]")
    findings = lint(path)
    assert len(errors(findings)) == 2
    assert any("'banishment' is not defined" in f.message for f in findings)
    assert any("ladder: sanction kind 'ghost' is not defined" in f.message for f in findings)
    assert all(f.message.startswith(path) for f in findings)


def test_infraction_that_can_never_apply() -> None:
    findings = lint(str(DATA / "lint-never-applies.yaml"))
    assert errors(findings) == [Finding(
        "error", "infractions.noise",
        "can never apply: no level both allows it and has a penalty for it")]


def test_unreachable_ladder_step() -> None:
    findings = lint(str(DATA / "lint-unreachable-ladder.yaml"))
    assert errors(findings) == [Finding(
        "error", "ladder.exile", "no table, repeat or stacking can ever reach this step")]


def test_escalating_repeats_reach_the_top_of_the_ladder(tmp_path: Path) -> None:
    # the same ladder as lint-unreachable-ladder.yaml, but repeats walk up it
    path = variant(tmp_path, "lint-unreachable-ladder.yaml", "repeats: {mode: table}",
                   "repeats: {mode: escalate}")
    assert errors(lint(path)) == []


def test_several_problems_in_one_file(tmp_path: Path) -> None:
    path = variant(tmp_path, "lint-unreachable-ladder.yaml",
                   "    penalty: {low: caution, high: warning}",
                   "    applies: {levels: [high]}\n    penalty: {low: caution}")
    wheres = sorted(f.where for f in errors(lint(path)))
    # noise gave the only warning, so that step is now unreachable too
    assert wheres == ["infractions.noise", "ladder.exile", "ladder.warning"]


def test_setting_condition_of_the_wrong_type(tmp_path: Path) -> None:
    path = variant(tmp_path, "tiny.yaml", "sanctions:\n",
                   "settings:\n  lists: {name: {ru: \"Листы\", en: \"Lists\"}, type: bool}\n"
                   "sanctions:\n")
    text = Path(path).read_text("utf-8").replace(
        "    penalty: {low: caution, high: warning}",
        "    applies: {settings: {lists: \"yes\"}}\n    penalty: {low: caution, high: warning}")
    Path(path).write_text(text, "utf-8")
    one(lint(path), "infractions.noise", "can never apply: settings.lists is a bool")


def test_infraction_without_penalty(tmp_path: Path) -> None:
    path = variant(tmp_path, "tiny.yaml", "    penalty: {low: caution, high: warning}\n", "")
    finding = one(lint(path), "infractions.noise", "has no penalty table at all")
    assert finding.severity == "error"


def test_unused_sanction_kind_and_empty_outcome_are_notes(tmp_path: Path) -> None:
    path = variant(tmp_path, "tiny.yaml", "penalty: {low: caution, high: warning}",
                   "penalty: {low: caution, high: []}")
    text = Path(path).read_text("utf-8").replace(
        "sanctions:\n",
        "sanctions:\n  - {id: fine, rank: 5, name: {ru: \"Штраф\", en: \"Fine\"}}\n")
    Path(path).write_text(text, "utf-8")
    findings = lint(path)
    assert errors(findings) == []
    one(findings, "sanctions.fine", "no rule ever gives this sanction")
    one(findings, "infractions.noise.penalty.high", "gives no sanction")
    # a kind on the ladder counts as used even when only repeats reach it
    assert not any(f.where == "sanctions.warning" for f in findings)


def test_unknown_rulebook_is_an_error() -> None:
    findings = lint("chess")
    assert findings and all(f.severity == "error" for f in findings)
    assert "unknown rulebook 'chess'" in findings[0].line()


def test_unknown_rulebook_is_one_error_finding() -> None:
    (finding,) = lint("chess")
    assert finding.severity == "error"
    assert "unknown rulebook 'chess'" in finding.line()


def test_every_erratum_is_listed_with_its_number() -> None:
    """regulations.md §4 E1–E10 and E12–E19 each have a reading in a bundled rulebook, and
    lint names the erratum on every note whose source cites it (E11 is presentation: no rule
    to note)."""
    seen: set[str] = set()
    for rid in BUNDLED_IDS:
        for f in lint(rid):
            for number in re.findall(r"§4 (E\d+)", f.message):
                assert f"({number}" in f.message or f", {number}" in f.message, f.line()
                seen.add(number)
    assert seen == {f"E{n}" for n in (*range(1, 11), *range(12, 20))}


def test_errata_are_numbered_in_russian_too() -> None:
    findings = lint("team-wargame", "ru")
    one(findings, "infractions.intoxication", "толкование: (поправка 9) ")
    one(findings, "infractions.intoxication", "примечание: (поправка 9) ", "коуча")
