"""`sudya pairings import FILE -t TID --round N --db URL` on a real SQLite file, run in this
process as the console script runs it (cli_kit.run): a round's tables imported by the
scorekeeper (`--by`), a file with bad rows refused with one line per row (exit 2, no
traceback, nothing stored), a re-import by the owner of the database replacing the round,
and one-line refusals."""

from __future__ import annotations

import getpass
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from cli_kit import refused, run


def pairings(url: str) -> list[tuple[Any, ...]]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(
                "SELECT round, table_no, player_a, player_b, created_by FROM pairing "
                "ORDER BY round, table_no"))]
    finally:
        engine.dispose()


def test_pairings_import(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'sudya.db'}"
    db = ("--db", url)
    run(tmp_path, "init", *db).ok()
    cup = run(tmp_path, "tournament", "create", "--name", "Day 1", "--series", "Cup",
              "--date", "2026-03-01", "--rulebook", "berserk", "--level", "professional",
              *db).ok().stdout.strip()
    for handle in ("alice", "bob", "carol", "dan"):
        run(tmp_path, "player", "add", handle, "-t", cup, *db).ok()
    run(tmp_path, "user", "add", "scorer", "--role", f"{cup}:scorekeeper", *db,
        env={"SUDYA_NEW_PASSWORD": "password-scorer"}).ok()
    owner = getpass.getuser()  # who writes without --by: the owner of the database file

    good = tmp_path / "round1.csv"
    good.write_text("table,player_a,player_b\n1,alice,bob\n2,carol,dan\n", encoding="utf-8")
    refused(run(tmp_path, "pairings", "import", good, "-t", cup, "--round", "1", "--by",
                "dan", *db), "--by")  # a player does not seat the round
    done = run(tmp_path, "pairings", "import", good, "-t", cup, "--round", "1", "--by",
               "scorer", *db).ok()
    assert done.stdout.strip() == "тур 1: загружено столов: 2"
    assert pairings(url) == [(1, 1, "alice", "bob", "scorer"), (1, 2, "carol", "dan", "scorer")]

    # bad rows: one line each, then the summary; nothing stored, round 1 as it was
    bad = tmp_path / "bad.csv"
    bad.write_text("table,player_a,player_b\n1,alice,carol\n2,bob,zed\nx,dan,bob\n",
                   encoding="utf-8")
    r = run(tmp_path, "pairings", "import", bad, "-t", cup, "--round", "1", *db)
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert r.stderr.splitlines() == [
        f"sudya: {bad}: строка 3: player_b: «zed» не играет в этом турнире",
        f"sudya: {bad}: строка 4: table: должно быть целым числом",
        f"sudya: {bad}: отклонено строк: 2; ничего не загружено"]
    english = run(tmp_path, "pairings", "import", bad, "-t", cup, "--round", "1", *db,
                  lang="en")
    assert english.returncode == 2
    assert english.stderr.splitlines()[0] == \
        f"sudya: {bad}: line 3: player_b: 'zed' is not a player of this tournament"
    assert pairings(url)[0] == (1, 1, "alice", "bob", "scorer")

    # a re-import replaces the round as a whole
    again = tmp_path / "again.csv"
    again.write_text("table,player_a,player_b\n5,dan,alice\n", encoding="utf-8")
    run(tmp_path, "pairings", "import", again, "-t", cup, "--round", "1", *db).ok()
    assert pairings(url) == [(1, 5, "dan", "alice", owner)]

    # whole-command refusals: one line, exit 2
    refused(run(tmp_path, "pairings", "import", good, "-t", cup, "--round", "0", *db),
            "round", "1", "1000")
    refused(run(tmp_path, "pairings", "import", tmp_path / "none.csv", "-t", cup, "--round",
                "2", *db), "none.csv", "не удаётся прочитать")
    refused(run(tmp_path, "pairings", "import", good, "-t", "99", "--round", "2", *db),
            "tournament", "99")
    header = tmp_path / "header.csv"
    header.write_text("table,a,b\n1,alice,bob\n", encoding="utf-8")
    refused(run(tmp_path, "pairings", "import", header, "-t", cup, "--round", "2", *db),
            "player_a")
    latin1 = tmp_path / "latin1.csv"
    latin1.write_bytes("table,player_a,player_b\n1,é,bob\n".encode("latin-1"))
    refused(run(tmp_path, "pairings", "import", latin1, "-t", cup, "--round", "2", *db),
            "UTF-8")
    assert pairings(url) == [(1, 5, "dan", "alice", owner)]


def test_pairings_matchups(tmp_path: Path) -> None:
    """`sudya pairings matchups`: a team table's games, checked; bad input exits 2."""
    url = f"sqlite:///{tmp_path / 'sudya.db'}"
    db = ("--db", url)
    run(tmp_path, "init", *db).ok()
    cup = run(tmp_path, "tournament", "create", "--name", "Кубок", "--series", "Команды",
              "--date", "2026-03-01", "--rulebook", "team-wargame", *db).ok().stdout.strip()
    run(tmp_path, "team", "add", "north", "-t", cup, "--members", "n1,n2", *db).ok()
    run(tmp_path, "team", "add", "south", "-t", cup, "--members", "s1,s2", *db).ok()
    teams = tmp_path / "round1.csv"
    teams.write_text("table,team_a,team_b\n1,north,south\n", encoding="utf-8")
    run(tmp_path, "pairings", "import", teams, "-t", cup, "--round", "1", *db).ok()
    base = ("pairings", "matchups", "-t", cup, "--round", "1", "--table", "1")
    done = run(tmp_path, *base, "--game", "n2:s1:a", "--game", "n1:s2", *db).ok()
    assert [line.split() for line in done.stdout.splitlines()] == [
        ["1", "n2", "s1", "a"], ["2", "n1", "s2"]]
    r = run(tmp_path, *base, "--game", "n1:s1", *db)  # n2 and s2 left out
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "нужно партий: 2, указано: 1; не сыграют: n2" in r.stderr
    refused(run(tmp_path, *base, "--game", "n1-s1", "--game", "n2:s2", *db), "--game")
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            stored = [tuple(row) for row in conn.execute(sa.text(
                "SELECT game, player_a, player_b, defender FROM matchup ORDER BY game"))]
    finally:
        engine.dispose()
    assert stored == [(1, "n2", "s1", "a"), (2, "n1", "s2", None)]
