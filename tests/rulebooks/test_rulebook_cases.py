"""A rulebook's own test cases (sudya.app.rulebook_cases): where they are kept, how each is
compared, what is bad input; and the editions' days in force (sudya.domain.rulebook.editions)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sudya.app import rulebook_cases
from sudya.domain.errors import RulebookError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.editions import history, in_force_on

DATA = Path(__file__).parent / "data"
BUNDLED_IDS = ("berserk", "clan-championship", "team-wargame")

CASE = """\
date: 2026-03-01
level: low
players: [ann, bob]
events:
  - {id: e1, infraction: noise, player: ann}
  - {id: e2, infraction: noise, player: ann}
"""
EXPECTED: dict[str, Any] = {
    "rulebook": {"id": "tiny"},
    "rulings": [
        {"event": "e1", "subject": "ann", "infraction": "noise", "cause": "table",
         "sanctions": [{"kind": "caution"}]},
        {"event": "e2", "subject": "ann", "infraction": "noise", "cause": "repeat",
         "sanctions": [{"kind": "warning"}]},
    ],
    "subjects": {"ann": {"sanctions": {"caution": 1, "warning": 1}}, "bob": {}},
}


def club(tmp_path: Path, expected: dict[str, Any] | None = None) -> Path:
    """tiny.yaml as an organiser's club.yaml, with club.cases/ holding one case."""
    book = tmp_path / "club.yaml"
    shutil.copy(DATA / "tiny.yaml", book)
    (tmp_path / "club.cases").mkdir()
    (tmp_path / "club.cases" / "repeat.yaml").write_text(CASE, "utf-8")
    (tmp_path / "club.cases" / "repeat.expected.json").write_text(
        json.dumps(expected or EXPECTED), "utf-8")
    return book


def refusal(ref: str) -> RulebookError:
    with pytest.raises(RulebookError) as info:
        rulebook_cases.run(ref)
    return info.value


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_each_bundled_rulebook_keeps_passing_cases(rid: str) -> None:
    outcomes = rulebook_cases.run(rid)
    assert len(outcomes) >= 5
    assert rulebook_cases.report(outcomes) == []
    # drawn from the project's scenarios: the same files, so they cannot drift apart
    for o in outcomes:
        assert o.path.parent == loader.BUNDLED / "cases" / rid


def test_where_cases_are_kept(tmp_path: Path) -> None:
    assert rulebook_cases.folder("berserk") == loader.BUNDLED / "cases" / "berserk"
    assert rulebook_cases.folder(str(tmp_path / "club.yaml")) == tmp_path / "club.cases"
    assert rulebook_cases.folder(str(tmp_path / "club.2.yaml")) == tmp_path / "club.cases"


def test_a_file_s_case_passes_and_fails(tmp_path: Path) -> None:
    book = club(tmp_path)
    (outcome,) = rulebook_cases.run(str(book))
    assert outcome.passed and outcome.name == "repeat"
    wrong = json.loads(json.dumps(EXPECTED))
    wrong["rulings"][1]["cause"] = "table"
    (tmp_path / "club.cases" / "repeat.expected.json").write_text(json.dumps(wrong), "utf-8")
    (outcome,) = rulebook_cases.run(str(book))
    assert outcome.problems == [
        "rulings[1] (event 'e2', subject 'ann').cause: expected 'table', got 'repeat'"]
    lines = rulebook_cases.report([outcome])
    assert lines[0].startswith("FAIL repeat (") and lines[1].startswith("  rulings[1]")


def test_a_case_runs_under_the_rulebook_it_is_kept_with(tmp_path: Path) -> None:
    """A case may leave `rulebook:` out, or name the rulebook's id or its file."""
    book = club(tmp_path)
    case = tmp_path / "club.cases" / "repeat.yaml"
    for named in ("tiny", "../club.yaml"):
        case.write_text(f"rulebook: {named}\n" + CASE, "utf-8")
        assert [o.passed for o in rulebook_cases.run(str(book))] == [True]
    case.write_text("rulebook: berserk\n" + CASE, "utf-8")
    assert refusal(str(book)).code == "cases.other-rulebook"


def test_error_cases(tmp_path: Path) -> None:
    book = club(tmp_path)
    cases = tmp_path / "club.cases"
    (cases / "no-level.yaml").write_text(CASE.replace("level: low\n", ""), "utf-8")
    pinned = cases / "no-level.error.txt"
    pinned.write_text("code: level.required\nfield: level\nrequired by tiny\n", "utf-8")
    assert all(o.passed for o in rulebook_cases.run(str(book)))
    pinned.write_text("field: date\nno such words\n", "utf-8")
    (outcome, _) = rulebook_cases.run(str(book))  # by name: no-level, repeat
    assert outcome.problems[0] == "field: expected 'date', got 'level'"
    assert outcome.problems[1].startswith("message: expected it to hold 'no such words'")
    (cases / "no-level.yaml").write_text(CASE, "utf-8")  # now it replays
    (outcome, _) = rulebook_cases.run(str(book))
    assert outcome.problems[0].startswith("expected a refusal")


def test_a_refused_case_with_an_expected_result_fails(tmp_path: Path) -> None:
    book = club(tmp_path)
    (tmp_path / "club.cases" / "repeat.yaml").write_text(
        CASE.replace("infraction: noise", "infraction: nois", 1), "utf-8")
    (outcome,) = rulebook_cases.run(str(book))
    assert outcome.problems[0].startswith("refused: ") and "nois" in outcome.problems[0]


def test_bad_input_is_refused(tmp_path: Path) -> None:
    bare = tmp_path / "bare.yaml"
    shutil.copy(DATA / "tiny.yaml", bare)
    error = refusal(str(bare))
    assert error.code == "cases.none" and "bare.cases" in str(error)
    assert "unknown rulebook 'chess'" in str(refusal("chess"))  # the loader's own refusal
    book = club(tmp_path)
    cases = tmp_path / "club.cases"
    (cases / "lonely.yaml").write_text(CASE, "utf-8")
    assert refusal(str(book)).code == "cases.no-expected"
    (cases / "lonely.yaml").unlink()
    (cases / "repeat.expected.json").write_text("[1, 2", "utf-8")
    assert refusal(str(book)).code == "cases.unreadable"
    (cases / "repeat.expected.json").write_text("[]", "utf-8")
    assert refusal(str(book)).code == "cases.unreadable"
    (cases / "repeat.yaml").write_text("events: [\n", "utf-8")
    assert refusal(str(book)).code == "cases.unreadable"


# ------------------------------------------------------------------- editions in force


def test_history_and_the_edition_in_force_on_a_day(tmp_path: Path) -> None:
    text = (DATA / "tiny.yaml").read_text("utf-8")
    one = '  - {id: "1", in_force_from: 2026-02-01, in_force_until: 2026-06-30}\n'
    two = '  - {id: "2", date: 2026-06-01, in_force_from: 2026-07-10}\n'
    (tmp_path / "club.yaml").write_text(
        text.replace('edition: "1"\n', 'edition: "1"\neditions:\n' + one), "utf-8")
    (tmp_path / "club.2.yaml").write_text(
        text.replace('edition: "1"\n', 'edition: "2"\neditions:\n' + one + two), "utf-8")
    rows = history(str(tmp_path / "club.yaml"))
    assert [(e.id, e.in_force_from, e.in_force_until) for e in rows] == [
        ("1", dt.date(2026, 2, 1), dt.date(2026, 6, 30)), ("2", dt.date(2026, 7, 10), None)]

    def on(day: str) -> str | None:
        found = in_force_on(rows, dt.date.fromisoformat(day))
        return found.id if found else None

    assert [on(d) for d in ("2026-01-31", "2026-02-01", "2026-06-30", "2026-07-05",
                            "2026-07-10", "2030-01-01")] == [None, "1", "1", None, "2", "2"]


def test_bundled_editions() -> None:
    (clan,) = history("clan-championship")
    assert clan.in_force_from == dt.date(2020, 3, 8)  # «обновлена с 08.03.2020»
    (berserk,) = history("berserk")
    assert berserk.in_force_from == "now" and berserk.file == loader.BUNDLED / "berserk.yaml"
