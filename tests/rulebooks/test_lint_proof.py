"""The linter's proofs (issue 17): levels without a penalty, repeat rows off the ladder,
variants that both apply, conditions never (or always) true, kinds nothing gives, editions
whose days overlap or leave a gap.

Each finding is found in data/lint-proof.yaml (or an edition sequence written here), and is
gone once that one rule is mended: a check that said it of everything would fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sudya.domain.rulebook.lint import SEVERITY, Finding, lint
from sudya.i18n.messages import catalogue

DATA = Path(__file__).parent / "data"
PROOF = DATA / "lint-proof.yaml"
BUNDLED_IDS = ("berserk", "clan-championship", "team-wargame")


def coded(findings: list[Finding], code: str) -> list[Finding]:
    return [f for f in findings if f.code == code]


def the(findings: list[Finding], code: str, where: str) -> Finding:
    hits = [f for f in coded(findings, code) if f.where == where]
    assert len(hits) == 1, (code, where, [f.line() for f in findings])
    assert hits[0].severity == SEVERITY[code]
    return hits[0]


def mended(tmp_path: Path, old: str, new: str) -> list[Finding]:
    """lint of data/lint-proof.yaml with one rule mended."""
    text = PROOF.read_text("utf-8")
    assert text.count(old) == 1, old
    path = tmp_path / "mended.yaml"
    path.write_text(text.replace(old, new), "utf-8")
    return lint(str(path))


@pytest.fixture(scope="module")
def proof() -> list[Finding]:
    return lint(str(PROOF))


# ------------------------------------------------------------------- bundled


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_bundled_rulebooks_prove_clean(rid: str) -> None:
    findings = lint(rid)
    assert [f.line() for f in findings if f.severity != "note"] == []


def test_every_code_has_a_severity_and_both_texts() -> None:
    assert set(SEVERITY.values()) == {"error", "warning"}
    for lang in ("ru", "en"):
        assert sorted(c for c in SEVERITY if c not in catalogue(lang)) == []
    assert sorted(c for c in catalogue("en") if c.startswith("lint.") and c not in SEVERITY) \
        == []


def test_a_finding_names_file_line_and_key_path(proof: list[Finding]) -> None:
    f = the(proof, "lint.level-no-penalty", "infractions.noise.penalty")
    assert f.file == str(PROOF)
    assert PROOF.read_text("utf-8").splitlines()[f.at - 1 if f.at else 0].strip() \
        == "penalty: {low: caution}"
    assert f.line().startswith(f"error: {PROOF}:{f.at}: infractions.noise.penalty: ")


def test_russian_messages() -> None:
    findings = lint(str(PROOF), "ru")
    f = the(findings, "lint.level-no-penalty", "infractions.noise.penalty")
    assert "применяется на уровне high" in f.message
    f = the(findings, "lint.kind-unused", "sanctions.fine")
    assert "ни одно правило" in f.message


# ------------------------------------------------------------------- (a) levels


def test_level_without_a_penalty(proof: list[Finding], tmp_path: Path) -> None:
    f = the(proof, "lint.level-no-penalty", "infractions.noise.penalty")
    assert f.params["level"] == "high" and f.severity == "error"
    assert coded(mended(tmp_path, "penalty: {low: caution}\n",
                        "penalty: {low: caution, high: warning}\n"), "lint.level-no-penalty") == []
    # a level the infraction does not apply at needs no penalty
    assert coded(mended(tmp_path, "penalty: {low: caution}\n",
                        "applies: {levels: [low]}\n    penalty: {low: caution}\n"),
                 "lint.level-no-penalty") == []


def test_level_with_a_null_penalty(proof: list[Finding], tmp_path: Path) -> None:
    f = the(proof, "lint.level-null-penalty", "infractions.shouting.penalty.high")
    assert f.severity == "warning"
    assert coded(mended(tmp_path, "penalty: {low: caution, high: null}",
                        "applies: {levels: [low]}\n    penalty: {low: caution, high: null}"),
                 "lint.level-null-penalty") == []


def test_variant_tables_need_every_level_too(tmp_path: Path) -> None:
    findings = mended(tmp_path, "      - when: \"minutes > 10\"\n        penalty: game-loss",
                      "      - when: \"minutes > 10\"\n        penalty: {low: game-loss}")
    the(findings, "lint.level-no-penalty", "infractions.late.variants[0].penalty")


# ------------------------------------------------------------------- (b) repeats


def test_repeat_row_going_back_down(proof: list[Finding], tmp_path: Path) -> None:
    f = the(proof, "lint.repeat-down", "infractions.slow-play.repeats[0]")
    assert (f.params["kind"], f.params["before"], f.params["row"]) == ("caution", "warning", 2)
    fixed = mended(tmp_path, "      - caution\n      - match-loss",
                   "      - game-loss\n      - match-loss")
    assert coded(fixed, "lint.repeat-down") == coded(fixed, "lint.repeat-skips") == []


def test_repeat_row_skipping_steps(proof: list[Finding], tmp_path: Path) -> None:
    f = the(proof, "lint.repeat-skips", "infractions.slow-play.repeats[1]")
    assert f.params["skipped"] == ["warning", "game-loss"]
    assert "skips warning, game-loss" in f.message
    fixed = mended(tmp_path, "      - caution\n      - match-loss",
                   "      - caution\n      - warning")
    assert coded(fixed, "lint.repeat-skips") == []


def test_repeat_rows_are_compared_with_each_level_s_cell(tmp_path: Path) -> None:
    findings = mended(tmp_path, "    penalty: warning\n    repeats:\n      - caution",
                      "    penalty: {low: caution, high: match-loss}\n    repeats:\n"
                      "      - game-loss")
    f = the(findings, "lint.repeat-down-at", "infractions.slow-play.repeats[0]")
    assert f.params["level"] == "high"
    g = the(findings, "lint.repeat-skips-at", "infractions.slow-play.repeats[0]")
    assert g.params["level"] == "low"


def test_repeat_rows_never_read_when_repeats_escalate(tmp_path: Path) -> None:
    findings = mended(tmp_path, "repeats: {mode: table}", "repeats: {mode: escalate}")
    the(findings, "lint.repeats-unused", "infractions.slow-play.repeats")
    assert coded(findings, "lint.repeat-down") == []  # the ladder decides, not the rows


def test_no_ladder_no_steps(tmp_path: Path) -> None:
    """Sanctions given as a set (003, 004) have no ladder: nothing is a step down there."""
    findings = mended(tmp_path, "ladder: [caution, warning, game-loss, match-loss]\n", "")
    assert coded(findings, "lint.repeat-down") == coded(findings, "lint.repeat-skips") == []


# ------------------------------------------------------------------- (c) variants


def test_a_variant_inside_an_earlier_one_never_applies(proof: list[Finding],
                                                       tmp_path: Path) -> None:
    f = the(proof, "lint.variant-shadowed", "infractions.late.variants[1].when")
    assert f.severity == "error" and "variants[0]" in f.message
    # the special case first, then the general one: nothing to say
    swapped = mended(tmp_path, "      - when: \"minutes > 10\"\n        penalty: game-loss\n"
                               "      - when: \"minutes > 20\"\n        penalty: match-loss\n",
                     "      - when: \"minutes > 20\"\n        penalty: match-loss\n"
                     "      - when: \"minutes > 10\"\n        penalty: game-loss\n")
    assert coded(swapped, "lint.variant-shadowed") == []


def test_variants_that_overlap_in_part(proof: list[Finding], tmp_path: Path) -> None:
    (f,) = coded(proof, "lint.variants-overlap")  # not again for the dead variants[1]
    assert f.where == "infractions.late.variants[2].when" and f.severity == "warning"
    assert "minutes = 11, reason = 'oversleep'" in f.message  # the event both take
    apart = mended(tmp_path, "reason == 'oversleep' and minutes > 5",
                   "reason == 'oversleep' and minutes > 5 and minutes <= 10")
    assert coded(apart, "lint.variants-overlap") == []


# ------------------------------------------------------------------- (d) conditions


def test_enum_value_not_declared(proof: list[Finding], tmp_path: Path) -> None:
    f = the(proof, "lint.enum-value-unknown", "infractions.late.no_penalty_when[0].when")
    assert f.params["value"] == "trafic" and f.params["values"] == ["traffic", "oversleep"]
    assert coded(mended(tmp_path, "reason == 'trafic'", "reason == 'traffic'"),
                 "lint.enum-value-unknown") == []


def test_conditions_never_true(proof: list[Finding], tmp_path: Path) -> None:
    out_of_range = the(proof, "lint.condition-never-true",
                       "infractions.marked.penalty.sanctions[1].when")
    assert out_of_range.params["condition"] == "cards > 20"
    the(proof, "lint.condition-never-true", "infractions.marked.penalty.sanctions[2].when")
    fixed = mended(tmp_path, "\"cards > 20\"", "\"cards > 5\"")
    assert [f.where for f in coded(fixed, "lint.condition-never-true")] == [
        "infractions.marked.penalty.sanctions[2].when"]


def test_numbers_in_arithmetic_are_not_guessed(tmp_path: Path) -> None:
    """`cards - extra > 8` holds for cards 10, extra 1: the constants alone would not show it,
    so nothing is said of it."""
    findings = mended(tmp_path, "deliberate: {type: bool, default: false}",
                      "deliberate: {type: bool, default: false}\n"
                      "      extra: {type: int, min: 0, max: 5, default: 0}")
    text = (tmp_path / "mended.yaml").read_text("utf-8").replace(
        "\"cards > 20\"", "\"cards - extra > 8\"")
    (tmp_path / "mended.yaml").write_text(text, "utf-8")
    findings = lint(str(tmp_path / "mended.yaml"))
    assert [f.where for f in coded(findings, "lint.condition-never-true")] == [
        "infractions.marked.penalty.sanctions[2].when"]


def test_conditions_always_true(proof: list[Finding], tmp_path: Path) -> None:
    the(proof, "lint.never-penalised", "infractions.chatter.no_penalty_when[0].when")
    the(proof, "lint.never-given",
        "infractions.chatter.penalty.sanctions[1].waived_when[0].when")
    fixed = mended(tmp_path, "tournament_level == 'low' or tournament_level == 'high'",
                   "tournament_level == 'low'")
    assert coded(fixed, "lint.never-penalised") == []


def test_condition_the_evaluator_refuses(proof: list[Finding], tmp_path: Path) -> None:
    f = the(proof, "lint.condition-fails", "infractions.wrong-table.no_penalty_when[0].when")
    assert "Tuple" in f.message
    assert coded(mended(tmp_path, "round in (1, 2)", "round == 1 or round == 2"),
                 "lint.condition-fails") == []


# ------------------------------------------------------------------- (e) kinds


def test_kind_nothing_gives(proof: list[Finding], tmp_path: Path) -> None:
    assert the(proof, "lint.kind-unused", "sanctions.fine").severity == "warning"
    used = mended(tmp_path, "    penalty: caution\n    no_penalty_when:\n      - when: \"round",
                  "    penalty: [caution, fine]\n    no_penalty_when:\n      - when: \"round")
    assert coded(used, "lint.kind-unused") == []


# ------------------------------------------------------------------- (f) editions

TINY = (DATA / "tiny.yaml").read_text("utf-8")


def edition(folder: Path, number: int, *entries: str, said: int | None = None) -> Path:
    """club.yaml (edition 1) or club.N.yaml, from tiny.yaml, with these `editions` entries."""
    text = TINY.replace('edition: "1"\n', f'edition: "{said or number}"\neditions:\n'
                        + "".join(f"  - {e}\n" for e in entries))
    path = folder / ("club.yaml" if number == 1 else f"club.{number}.yaml")
    path.write_text(text, "utf-8")
    return path


ONE = '{id: "1", date: 2026-01-10, in_force_from: 2026-02-01, in_force_until: 2026-06-30}'
TWO = '{id: "2", date: 2026-06-01, in_force_from: 2026-07-01}'


def test_editions_that_follow_each_other(tmp_path: Path) -> None:
    edition(tmp_path, 1, ONE)
    path = edition(tmp_path, 2, ONE, TWO)
    assert [f.line() for f in lint(str(path)) if f.code.startswith("lint.edition")] == []


def test_editions_that_overlap(tmp_path: Path) -> None:
    edition(tmp_path, 1, ONE)
    path = edition(tmp_path, 2, ONE, TWO.replace("2026-07-01", "2026-06-15"))
    f = the(lint(str(path)), "lint.edition-overlap-end", "editions[1].in_force_from")
    assert f.file == str(path) and f.severity == "error"
    assert f.at is not None and "in_force_from: 2026-06-15" in \
        path.read_text("utf-8").splitlines()[f.at - 1]
    assert "until 2026-06-30" in f.message


def test_edition_in_force_not_after_the_previous_one(tmp_path: Path) -> None:
    one = ONE.replace(", in_force_until: 2026-06-30", "")
    edition(tmp_path, 1, one)
    path = edition(tmp_path, 2, one, TWO.replace("2026-07-01", "2026-01-15"))
    f = the(lint(str(path)), "lint.edition-overlap", "editions[1].in_force_from")
    assert f.params["since"].isoformat() == "2026-02-01"


def test_editions_that_leave_a_gap(tmp_path: Path) -> None:
    edition(tmp_path, 1, ONE)
    path = edition(tmp_path, 2, ONE, TWO.replace("2026-07-01", "2026-07-10"))
    f = the(lint(str(path)), "lint.edition-gap", "editions[1].in_force_from")
    assert f.severity == "warning"
    assert "from 2026-07-01 to 2026-07-09" in f.message


def test_the_newest_history_closes_the_edition_before(tmp_path: Path) -> None:
    """Publishing edition 2 may give edition 1 its last day: the newest history is read."""
    edition(tmp_path, 1, ONE.replace(", in_force_until: 2026-06-30", ""))
    path = edition(tmp_path, 2, ONE.replace("2026-06-30", "2026-07-05"), TWO)
    the(lint(str(path)), "lint.edition-overlap-end", "editions[1].in_force_from")


def test_a_missing_and_a_misnamed_edition(tmp_path: Path) -> None:
    edition(tmp_path, 1, ONE)
    edition(tmp_path, 3, ONE, TWO.replace('"2"', '"3"'))
    wrong = edition(tmp_path, 4, ONE, said=5)
    findings = lint(str(tmp_path / "club.3.yaml"))
    assert the(findings, "lint.edition-missing", "edition").params["edition"] == "2"
    f = the(findings, "lint.edition-file-mismatch", "edition")
    assert f.file == str(wrong)
    wrong.unlink()
    assert coded(lint(str(tmp_path / "club.3.yaml")), "lint.edition-file-mismatch") == []


def test_an_edition_that_ends_before_it_begins_or_predates_its_decision(
        tmp_path: Path) -> None:
    path = edition(tmp_path, 1, ONE.replace("2026-06-30", "2026-01-31")
                   .replace("2026-01-10", "2026-03-01"))
    findings = lint(str(path))
    the(findings, "lint.edition-ends-before", "editions[0].in_force_until")
    the(findings, "lint.edition-retroactive", "editions[0].in_force_from")
    assert [f.code for f in lint(str(edition(tmp_path, 1, ONE))) if f.code] == []


def test_editions_of_a_rulebook_on_the_search_path(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    edition(tmp_path, 1, ONE)
    edition(tmp_path, 2, ONE, TWO.replace("2026-07-01", "2026-06-15"))
    for p in tmp_path.glob("club*.yaml"):
        p.rename(p.with_name(p.name.replace("club", "tiny")))
    monkeypatch.setenv("SUDYA_RULEBOOK_PATH", str(tmp_path))
    the(lint("tiny"), "lint.edition-overlap-end", "editions[1].in_force_from")
