"""`sudya rulebook import / publish / editions / test` with `--db`: the command over a real
SQLite file, run in this process as the console script runs it (cli_kit.run); refusals are
one line naming the field, exit 2, and store nothing."""

from __future__ import annotations

import json
from pathlib import Path

from cli_kit import refused, run, run_all

TINY = Path(__file__).parents[1] / "rulebooks" / "data" / "tiny.yaml"
CASE = """\
date: 2026-03-01
level: low
players: [ann]
events:
  - {id: e1, infraction: digging, player: ann, details: {depth: 2}}
"""


def expected(amount: int) -> str:
    return json.dumps({"rulings": [{"event": "e1", "subject": "ann", "infraction": "digging",
                                    "cause": "table", "pending": False,
                                    "sanctions": [{"kind": "ore", "amount": amount}]}],
                       "subjects": {"ann": {"status": "active"}}})


def write(folder: Path, name: str, text: str, amount: int) -> Path:
    """A rulebook file with its case beside it (NAME.cases/)."""
    path = folder / f"{name}.yaml"
    path.write_text(text, "utf-8")
    cases = folder / f"{name}.cases"
    cases.mkdir()
    (cases / "digging.yaml").write_text(CASE, "utf-8")
    (cases / "digging.expected.json").write_text(expected(amount), "utf-8")
    return path


def test_import_publish_editions_and_test_with_db(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'sudya.db'}"
    run(tmp_path, "db", "upgrade", "--db", db).ok()
    club = TINY.read_text("utf-8").replace("id: tiny", "id: club-cli", 1)
    first = write(tmp_path, "club", club, 20)
    imported = run(tmp_path, "rulebook", "import", first, "--from", "2026-01-01",
                   "--summary", "first", "--db", db, "--json").json()
    assert (imported["rulebook"], imported["edition"], imported["in_force_from"]) == (
        "club-cli", "1", "2026-01-01")
    wrong = write(tmp_path, "wrong", club.replace("depth * 10", "depth * 20"), 20)
    second = write(tmp_path, "club2", club.replace("depth * 10", "depth * 20"), 40)
    (tmp_path / "broken.yaml").write_text("id: [\n", "utf-8")
    publish = ("rulebook", "publish", "club-cli", "--db", db, "--summary", "double")
    failing, bad_day, broken, stranger = run_all(
        tmp_path,
        (*publish, "--file", wrong, "--from", "2026-06-01"),  # its case fails
        (*publish, "--file", second, "--from", "2026-13-01"),
        ("rulebook", "import", tmp_path / "broken.yaml", "--db", db),
        (*publish, "--file", second, "--from", "2026-06-01", "--by", "nobody"))
    refused(failing, "cases.digging")
    refused(bad_day, "--from")
    refused(broken, "text")
    refused(stranger, "--by")  # an organiser of some tournament publishes, or the owner
    run(tmp_path, *publish, "--file", second, "--from", "2026-06-01").ok()
    overlap, editions, tested = run_all(
        tmp_path,
        (*publish, "--file", second, "--from", "2026-05-01"),  # within the second's days
        ("rulebook", "editions", "club-cli", "--db", db, "--json"),
        ("rulebook", "test", "club-cli", "--db", db, "--lang", "en"))
    refused(overlap, "in_force_from")
    assert [(r["edition"], r["in_force_from"], r["summary"], r["stored"])
            for r in editions.json()] == [("1", "2026-01-01", "first", True),
                                          ("2", "2026-06-01", "double", True)]
    assert "1 case(s), 1 passed, 0 failed" in tested.ok().stdout


def test_a_bundled_rulebook_is_imported_for_a_series_only(tmp_path: Path) -> None:
    """Issue 35: `rulebook import` of a bundled rulebook names the --series it is for; without
    one it is refused (exit 2, the field named) and nothing is stored."""
    from sudya.domain.rulebook import loader

    db = f"sqlite:///{tmp_path / 'sudya.db'}"
    run(tmp_path, "init", "--db", db).ok()
    run(tmp_path, "tournament", "create", "--name", "Этап 1", "--series", "Лига", "--date",
        "2026-03-01", "--rulebook", "berserk", "--level", "amateur", "--db", db).ok()
    harsh = tmp_path / "berserk-club.yaml"  # the bundled text: its bundled cases pass
    harsh.write_text(loader.edition_files("berserk")["1"].read_text("utf-8"), "utf-8")
    line = refused(run(tmp_path, "rulebook", "import", harsh, "--summary", "клубная",
                       "--db", db, lang="ru"), "series:", "встроенный регламент berserk")
    assert "Traceback" not in line
    refused(run(tmp_path, "rulebook", "import", harsh, "--summary", "клубная", "--series",
                "Нет такой", "--db", db), "series:")
    done = run(tmp_path, "rulebook", "import", harsh, "--summary", "клубная", "--series",
               "Лига", "--from", "2026-04-01", "--db", db, "--json").json()
    assert (done["rulebook"], done["edition"], done["series"]) == ("berserk", "2", "Лига")
    listed = run(tmp_path, "rulebook", "editions", "berserk", "--db", db, "--json").json()
    assert [(e["edition"], e.get("series")) for e in listed] == [("1", None), ("2", "Лига")]
