"""Loading rulebook files: every refusal names the file, the line and the key path."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from rulebook_testkit import refusal

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay
from sudya.domain.errors import RulebookError, ScenarioError
from sudya.domain.rulebook import loader

DATA = Path(__file__).parent / "data"
BUNDLED_IDS = ("berserk", "clan-championship", "team-wargame")


def line_of(path: Path, needle: str) -> int:
    """The 1-based line of the only line of `path` containing `needle`."""
    hits = [i for i, line in enumerate(path.read_text("utf-8").splitlines(), start=1)
            if needle in line]
    assert len(hits) == 1, (path, needle, hits)
    return hits[0]




# ------------------------------------------------------------------ valid files


def test_tiny_rulebook_loads() -> None:
    book = loader.load_file(DATA / "tiny.yaml")
    assert book.id == "tiny" and book.edition == "1"
    assert book.level_ids() == ["low", "high"]
    assert [k.id for k in book.sanctions] == ["caution", "warning", "ore"]
    digging = book.infraction("digging")
    assert digging is not None
    assert digging.details["depth"].required is True
    (spec,) = digging.penalty.sanctions  # type: ignore[union-attr]
    assert spec.kind == "ore"
    assert spec.formula is not None and spec.formula.source == "depth * 10"
    assert book.infraction("nope") is None


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_bundled_rulebooks_load(rid: str) -> None:
    book = loader.load(rid)
    assert book.id == rid
    assert book.edition == "1"
    assert book.infractions
    assert loader.edition_files(rid) == {"1": loader.BUNDLED / f"{rid}.yaml"}


def test_bundled_ids() -> None:
    assert set(BUNDLED_IDS) <= set(loader.bundled_ids())


def test_load_a_file_by_relative_and_absolute_path(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    monkeypatch.chdir(tmp_path)
    assert loader.load("tiny.yaml").id == "tiny"
    # an absolute path is a file, never globbed as an id (that once raised NotImplementedError)
    assert loader.load(str((tmp_path / "tiny.yaml").resolve())).id == "tiny"
    assert loader.load("./tiny.yaml", "1").id == "tiny"


def test_file_edition_must_match(tmp_path: Path) -> None:
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    with pytest.raises(RulebookError, match=r"edition '2' asked for, the file is edition '1'"):
        loader.load(str(tmp_path / "tiny.yaml"), "2")


def test_unknown_rulebook() -> None:
    with pytest.raises(RulebookError) as info:
        loader.load("chess")
    message = str(info.value)
    assert "unknown rulebook 'chess'" in message
    for rid in BUNDLED_IDS:
        assert rid in message


def test_unknown_edition() -> None:
    with pytest.raises(RulebookError, match=r"berserk has no edition '9' \(editions: 1\)"):
        loader.load("berserk", "9")


def test_a_refused_rulebook_reads_in_russian_too() -> None:
    """The loader's refusals are codes: the edges render them in the reader's language."""
    with pytest.raises(RulebookError) as info:
        loader.load("chess")
    assert info.value.code == "rulebook.unknown-or-file"
    text = info.value.render("ru")
    assert "нет встроенного регламента «chess»" in text
    assert all(rid in text for rid in BUNDLED_IDS)
    with pytest.raises(RulebookError) as info:
        loader.load("berserk", "9")
    assert info.value.render("ru") == "у регламента berserk нет редакции «9» (редакции: 1)"


def test_missing_file() -> None:
    with pytest.raises(RulebookError, match="cannot read"):
        loader.load_file(DATA / "no-such-rulebook.yaml")


# ------------------------------------------------------------- refused files


def test_unknown_key_names_file_line_and_key_path() -> None:
    path = DATA / "unknown-key.yaml"
    message = refusal(path)
    assert message.startswith(f"{path}:{line_of(path, 'colour: red')}: ")
    assert "infractions[noise].colour" in message
    assert "Extra inputs are not permitted" in message


def test_wrong_type_names_file_line_and_key_path() -> None:
    path = DATA / "wrong-type.yaml"
    message = refusal(path)
    assert message.startswith(f"{path}:{line_of(path, 'rank: second')}: ")
    assert "sanctions[warning].rank" in message
    assert "integer" in message


def test_wrong_type_deep_in_an_infraction(tmp_path: Path) -> None:
    path = tmp_path / "levels.yaml"
    path.write_text((DATA / "tiny.yaml").read_text("utf-8").replace(
        "    penalty: {low: caution, high: warning}",
        "    applies: {levels: high}\n    penalty: {low: caution, high: warning}"), "utf-8")
    message = refusal(path)
    assert message.startswith(f"{path}:{line_of(path, 'applies:')}: ")
    assert "infractions[noise].applies.levels" in message
    assert "valid list" in message


def test_wrong_enum_value(tmp_path: Path) -> None:
    path = tmp_path / "mode.yaml"
    path.write_text((DATA / "tiny.yaml").read_text("utf-8").replace(
        "repeats: {mode: escalate}", "repeats: {mode: sometimes}"), "utf-8")
    message = refusal(path)
    assert message.startswith(f"{path}:{line_of(path, 'repeats:')}: repeats.mode: ")
    assert "'escalate' or 'table'" in message


def test_missing_required_key_names_the_item(tmp_path: Path) -> None:
    path = tmp_path / "nosource.yaml"
    path.write_text((DATA / "tiny.yaml").read_text("utf-8").replace(
        '    source: "tiny §1"\n', ""), "utf-8")
    message = refusal(path)
    assert message.startswith(f"{path}:{line_of(path, 'id: noise')}: infractions[noise]")
    assert "Field required" in message


def test_missing_required_key_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nosource.yaml"
    path.write_text((DATA / "tiny.yaml").read_text("utf-8").replace(
        '    source: "tiny §1"\n', ""), "utf-8")
    message = refusal(path)
    assert str(path) in message
    assert "infractions[noise].source" in message
    assert "Field required" in message


def test_malformed_yaml_names_file_and_line() -> None:
    path = DATA / "malformed.yaml"
    message = refusal(path)
    match = re.match(rf"{re.escape(str(path))}:(\d+): malformed YAML: ", message)
    assert match, message
    # the parser notices the unclosed mapping at or after the line that opens it
    assert int(match.group(1)) >= line_of(path, "repeats: {mode: escalate")


def test_not_a_mapping(tmp_path: Path) -> None:
    path = tmp_path / "list.yaml"
    path.write_text("- id: tiny\n", "utf-8")
    assert refusal(path) == f"{path}: a rulebook must be a mapping of keys"


def test_formula_with_undeclared_detail_is_refused_at_load_time() -> None:
    path = DATA / "undeclared-formula.yaml"
    message = refusal(path)
    assert str(path) in message
    assert "infractions.digging.penalty.sanctions[0]" in message
    assert "'depth * width * 10' uses width, which the rule does not declare" in message


def test_condition_with_undeclared_detail_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "condition.yaml"
    path.write_text((DATA / "tiny.yaml").read_text("utf-8").replace(
        '    source: "tiny §1"\n',
        '    source: "tiny §1"\n'
        "    no_penalty_when:\n"
        "      - when: \"excused\"\n"
        "        note: {ru: \"Извинился\", en: \"Excused\", source: \"tiny §1\"}\n"), "utf-8")
    message = refusal(path)
    assert "infractions.noise" in message and "uses excused" in message


def test_formula_may_use_common_details_and_context_names(tmp_path: Path) -> None:
    path = tmp_path / "common.yaml"
    path.write_text((DATA / "tiny.yaml").read_text("utf-8")
                    .replace("sanctions:\n", "common_details:\n  width: {type: int, default: 1}\n"
                                             "sanctions:\n", 1)
                    .replace('"depth * 10"', '"depth * width * 10 + earlier_count"'), "utf-8")
    book = loader.load_file(path)
    assert book.infraction("digging") is not None


def test_undefined_sanction_kind_is_refused() -> None:
    message = refusal(DATA / "lint-undefined-kind.yaml")
    assert "infractions.noise.penalty.high.sanctions[0]" in message
    assert "sanction kind 'banishment' is not defined" in message


def test_several_reference_problems_are_all_named(tmp_path: Path) -> None:
    path = tmp_path / "refs.yaml"
    path.write_text((DATA / "lint-undefined-kind.yaml").read_text("utf-8")
                    .replace("ladder: [caution, warning]", "ladder: [caution, warning, ghost]")
                    .replace("penalty: {low: caution, high: banishment}",
                             "penalty: {low: caution, high: banishment, top: warning}"), "utf-8")
    message = refusal(path)
    assert "'banishment' is not defined" in message
    assert "ladder: sanction kind 'ghost' is not defined" in message
    assert "level 'top' is not defined" in message


# ----------------------------------------------------- rulebook folders (editions)


def test_rulebook_path_adds_folders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    monkeypatch.setenv("SUDYA_RULEBOOK_PATH", str(tmp_path))
    assert loader.search_path() == [tmp_path, loader.BUNDLED]
    assert "tiny" in loader.bundled_ids()
    assert loader.load("tiny").id == "tiny"


def test_earlier_folder_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    text = (loader.BUNDLED / "team-wargame.yaml").read_text("utf-8")
    (tmp_path / "team-wargame.yaml").write_text(
        text.replace('en: "Team wargame tournament — judges and penalties"',
                     'en: "Local copy"', 1), "utf-8")
    monkeypatch.setenv("SUDYA_RULEBOOK_PATH", str(tmp_path))
    assert loader.edition_files("team-wargame") == {"1": tmp_path / "team-wargame.yaml"}
    assert loader.load("team-wargame").title.en == "Local copy"


def test_edition_files_ignore_other_names(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    for name in ("berserk.2.yaml", "berserk.draft.yaml", "berserk-extra.yaml"):
        (tmp_path / name).write_text("id: x\n", "utf-8")
    monkeypatch.setenv("SUDYA_RULEBOOK_PATH", str(tmp_path))
    assert sorted(loader.edition_files("berserk")) == ["1", "2"]


# -------------------------------------------------- rulebook files in scenarios


SCENARIO = """\
rulebook: {ref}
level: low
date: 2026-03-01
players: [p1]
events:
  - {{id: n1, infraction: noise, player: p1}}
  - {{id: g1, infraction: digging, player: p1, details: {{depth: 4}}}}
"""


@pytest.mark.parametrize("ref", ["tiny.yaml", "../books/tiny.yaml"])
def test_scenario_rulebook_file_is_relative_to_the_scenario(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, ref: str) -> None:
    (tmp_path / "sc").mkdir()
    (tmp_path / "books").mkdir()
    target = tmp_path / ("sc" if ref == "tiny.yaml" else "books") / "tiny.yaml"
    shutil.copy(DATA / "tiny.yaml", target)
    scenario_path = tmp_path / "sc" / "scenario.yaml"
    scenario_path.write_text(SCENARIO.format(ref=ref), "utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for given in (scenario_path, Path("../sc/scenario.yaml")):
        scenario = load_scenario_file(given)
        assert Path(scenario["rulebook"]).resolve() == target.resolve()
        result = replay(scenario)
        assert result["rulebook"] == {"id": "tiny", "edition": "1"}
        assert [r["sanctions"][0]["kind"] for r in result["rulings"]] == ["caution", "ore"]
        assert result["rulings"][1]["sanctions"][0]["amount"] == 40
        assert result["subjects"]["p1"]["ore"] == 40


def test_json_scenario_with_rulebook_file(tmp_path: Path) -> None:
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({
        "rulebook": "tiny.yaml", "level": "high", "date": "2026-03-01", "players": ["p1"],
        "events": [{"id": "n1", "infraction": "noise", "player": "p1"}],
    }), "utf-8")
    result = replay(load_scenario_file(path))
    assert [s["kind"] for s in result["rulings"][0]["sanctions"]] == ["warning"]


def test_scenario_with_broken_rulebook_file(tmp_path: Path) -> None:
    shutil.copy(DATA / "wrong-type.yaml", tmp_path / "wrong-type.yaml")
    path = tmp_path / "scenario.yaml"
    path.write_text(SCENARIO.format(ref="wrong-type.yaml"), "utf-8")
    with pytest.raises(ScenarioError) as info:
        replay(load_scenario_file(path))
    message = str(info.value)
    assert message.startswith("rulebook: ")
    assert "wrong-type.yaml:" in message and "sanctions[warning].rank" in message
