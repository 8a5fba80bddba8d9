"""`sudya rulebook test` (a rulebook's own cases), `sudya rulebook editions`, and the linter's
warnings, on the command line (issue 17): exit codes, output, no traceback; run in this
process as the console script runs it (cli_kit.run_all). What they check case by case is in
tests/rulebooks/test_rulebook_cases.py."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from cli_kit import Run, run_all

DATA = Path(__file__).parents[1] / "rulebooks" / "data"

CASE = """\
date: 2026-03-01
level: low
players: [ann]
events:
  - {id: e1, infraction: noise, player: ann}
  - {id: e2, infraction: noise, player: ann}
"""


def with_case(folder: Path, second: str) -> Path:
    """tiny.yaml as `folder/club.yaml`, its case expecting `second` for the repeat."""
    folder.mkdir()
    shutil.copy(DATA / "tiny.yaml", folder / "club.yaml")
    (folder / "club.cases").mkdir()
    (folder / "club.cases" / "repeat.yaml").write_text(CASE, "utf-8")
    expected = {"rulings": [
        {"event": "e1", "subject": "ann", "infraction": "noise", "cause": "table",
         "sanctions": [{"kind": "caution"}]},
        {"event": "e2", "subject": "ann", "infraction": "noise", "cause": "repeat",
         "sanctions": [{"kind": second}]}], "subjects": {"ann": {}}}
    (folder / "club.cases" / "repeat.expected.json").write_text(json.dumps(expected), "utf-8")
    return folder / "club.yaml"


def refused(r: Run, *needles: str) -> None:
    assert r.returncode == 2, (r.args, r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and r.stdout == ""
    (line,) = r.stderr.splitlines()
    assert line.startswith("sudya: ") and all(n in line for n in needles), line


def test_rulebook_test_exit_codes(tmp_path: Path) -> None:
    good = with_case(tmp_path / "good", "warning")
    bad = with_case(tmp_path / "bad", "caution")
    shutil.copy(DATA / "tiny.yaml", tmp_path / "bare.yaml")
    bundled, ok, failed, bare = run_all(
        tmp_path, ("rulebook", "test", "berserk"), ("rulebook", "test", good, "--lang", "ru"),
        ("rulebook", "test", bad), ("rulebook", "test", "bare.yaml"), lang="en")
    n = int(bundled.ok().stdout.split()[0])
    assert n >= 5 and bundled.stdout.splitlines() == [f"{n} case(s), {n} passed, 0 failed"]
    assert ok.ok().stdout.splitlines() == ["случаев: 1, прошло: 1, не прошло: 0"]
    assert failed.returncode == 1 and "Traceback" not in failed.stderr
    lines = failed.stdout.splitlines()
    assert lines[0] == f"FAIL repeat ({bad.parent / 'club.cases' / 'repeat.yaml'})"
    assert lines[1] == ("  rulings[1] (event 'e2', subject 'ann').sanctions: expected "
                        "[{'kind': 'caution'}], got [{'kind': 'warning'}]")
    assert lines[-1] == "1 case(s), 0 passed, 1 failed"
    refused(bare, "has no test cases", "bare.cases")


def test_editions_and_lint_warnings(tmp_path: Path) -> None:
    text = (DATA / "tiny.yaml").read_text("utf-8")
    one = '  - {id: "1", in_force_from: 2026-02-01, in_force_until: 2026-06-30}\n'
    two = ('  - {id: "2", date: 2026-06-01, in_force_from: next-tournament,'
           ' summary: {ru: "Новое", en: "New"}}\n')
    (tmp_path / "club.yaml").write_text(
        text.replace('edition: "1"\n', 'edition: "1"\neditions:\n' + one), "utf-8")
    (tmp_path / "club.2.yaml").write_text(
        text.replace('edition: "1"\n', 'edition: "2"\neditions:\n' + one + two), "utf-8")
    fine = '  - {id: fine, rank: 5, name: {ru: "Штраф", en: "Fine"}}\n'
    (tmp_path / "warned.yaml").write_text(text.replace("sanctions:\n", "sanctions:\n" + fine),
                                          "utf-8")
    clan, club, lint, strict = run_all(
        tmp_path, ("rulebook", "editions", "clan-championship", "--json"),
        ("rulebook", "editions", "club.yaml"),
        ("rulebook", "lint", "warned.yaml"),
        ("rulebook", "lint", "warned.yaml", "--strict", "--lang", "en"))
    (entry,) = clan.json()
    assert entry["edition"] == "1" and entry["in_force_from"] == "2020-03-08"
    assert entry["in_force_until"] is None and "08.03.2020" in entry["summary"]["ru"]
    rows = [line for line in club.ok().stdout.splitlines() if "club" in line]
    assert "2026-02-01" in rows[0] and "2026-06-30" in rows[0] and "club.yaml" in rows[0]
    assert "со следующего турнира" in rows[1] and "Новое" in rows[1]
    assert lint.ok().stdout.splitlines() == [
        "warning: warned.yaml:9: sanctions.fine: ни одно правило не даёт это наказание "
        "(дать его может только решение или апелляция)",
        "ошибок: 0, предупреждений: 1, заметок: 0"]
    assert strict.returncode == 1
    assert strict.stdout.splitlines()[-1] == "0 error(s), 1 warning(s), 0 note(s)"
