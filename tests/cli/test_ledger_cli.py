"""The ledger commands end to end: `sudya ... --db sqlite:///FILE` on a real SQLite file, run
in this process as the console script runs it (cli_kit.run), with no SUDYA_* variable in
their environment.

Two series share one database file (module-scoped, built once): a berserk cup and a clan
league, so that a person's history spans both. Refusals run against that database and must
leave every row as it was. Then who may write what (`--by`): two tournaments of two series,
each with its own staff, each writing only in its own.
"""

from __future__ import annotations

import csv
import getpass
import io
import itertools
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from cli_kit import Run, refused, run, run_all

from sudya.adapters.scenario_file import load_scenario_file
from sudya.app.scenario import replay

SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "scenarios"
SLOW = "gameplay.slow-play"
DQ = "[{kind: fighter-dq}, {kind: technical-defeat}, {kind: reduce-fighters, amount: 1}]"


def snapshot(url: str) -> dict[str, list[Any]]:
    engine = sa.create_engine(url)
    try:
        meta = sa.MetaData()
        meta.reflect(bind=engine)
        with engine.connect() as conn:
            return {t.name: sorted((tuple(r) for r in conn.execute(sa.select(t))), key=repr)
                    for t in meta.sorted_tables}
    finally:
        engine.dispose()


# ---------------------------------------------------------------------- the shared database
@dataclass
class World:
    dir: Path
    url: str
    runs: dict[str, Run]
    cup: str  # tournament ids as the CLI printed them
    spring: str
    exports: dict[str, Any] = field(default_factory=dict)

    def sudya(self, *args: Any) -> Run:
        return run(self.dir, *args, "--db", self.url)

    def export(self, series: str) -> Any:
        """`sudya export --series SERIES` (JSON), run once per series."""
        if series not in self.exports:
            self.exports[series] = self.sudya("export", "--series", series).json()
        return self.exports[series]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    folder = tmp_path_factory.mktemp("ledger-cli")
    url = f"sqlite:///{folder / 'sudya.db'}"
    runs: dict[str, Run] = {}

    def step(name: str, *args: Any) -> Run:
        r = run(folder, *args, "--db", url).ok()
        runs[name] = r
        return r

    def steps(chain: list[tuple[Any, ...]]) -> None:
        for name, *args in chain:
            step(name, *args)

    step("init", "init")
    cup = step("cup", "tournament", "create", "--name", "Day 1", "--series", "Berserk Cup",
               "--date", "2026-03-01", "--rulebook", "berserk", "--level", "professional",
               "--setting", "decklists=true").stdout.strip()
    spring = step("spring", "tournament", "create", "--name", "Spring", "--series",
                  "Clan League", "--date", "2026-03-01", "--rulebook",
                  "clan-championship").stdout.strip()
    berserk: list[tuple[Any, ...]] = [
        ("team", "team", "add", "wolves", "-t", cup, "--members", "alice,bob", "--name",
         "Wolves"),
        ("carol", "player", "add", "carol", "-t", cup, "--name", "Carol C", "--table", "3"),
        ("veda-cup", "player", "add", "veda", "-t", cup),
        ("anna", "judge", "add", "anna", "-t", cup, "--role", "head-judge", "--official"),
        ("oleg", "judge", "add", "oleg", "-t", cup, "--role", "floor-judge"),
        ("trigger", "record", "gameplay.missed-trigger", "-t", cup, "--player", "bob",
         "--round", "1", "--detail", "opponent=alice", "--detail", "both_could_control=true",
         "--judge", "oleg", "--id", "t1", "--json"),
        *[(f"c{i}", "record", infraction, "-t", cup, "--player", "carol", "--round", "1",
           "--id", f"c{i}")
          for i, infraction in enumerate(("cards.drawing-extra", "cards.looking-at-extra",
                                          "procedure.minor"), start=1)],
        ("end", "end-match", "-t", cup, "--round", "1", "--id", "m1", "--json"),
        ("fraud", "record", "cheating.fraud", "-t", cup, "--player", "alice", "--judge",
         "oleg", "--round", "1", "--id", "f1", "--json"),
        ("appeal", "appeal", "-t", cup, "--of", "f1", "--outcome", "overturned", "--judge",
         "anna", "--id", "a1", "--json"),
        ("minor", "record", "procedure.minor", "-t", cup, "--player", "bob", "--id", "p1"),
        ("correct", "correct", "-t", cup, "--of", "p1", "--reason", "wrong player",
         "--judge", "anna", "--json"),
        ("veda-slow", "record", SLOW, "-t", cup, "--player", "veda", "--id", "v1"),
        ("result", "result", "-t", cup, "alice", "bob", "2-1", "--round", "1"),
    ]
    clan: list[tuple[Any, ...]] = [
        ("north", "team", "add", "north", "-t", spring, "--members", "veda"),
        ("lis", "player", "add", "lis", "-t", spring),
        ("mt", "judge", "add", "mt", "-t", spring, "--role", "tournament-master"),
        ("w1", "record", "elixirs.forbidden-combat", "-t", spring, "--player", "veda",
         "--id", "w1", "--json"),
        ("h1", "record", "hoops", "-t", spring, "--player", "veda", "--id", "h1", "--json"),
        ("d1", "decide", "-t", spring, "--of", "h1", "--judge", "mt", "--sanctions", DQ,
         "--id", "d1", "--json"),
        ("choice", "record", "deceiving-official", "-t", spring, "--player", "lis",
         "--choice", "{amount: 500}", "--id", "x1", "--json"),
    ]
    # the two series recorded turn about, as by two terminals (one command at a time here:
    # in one process the commands share its stdout)
    for pair in itertools.zip_longest(berserk, clan):
        steps([s for s in pair if s is not None])
    yield World(folder, url, runs, cup, spring)


# ---------------------------------------------------------------------- migrations
def test_an_unmigrated_database_is_refused_until_upgraded(tmp_path: Path) -> None:
    from sudya.adapters.db.migrate import current, head
    from sudya.adapters.db.session import make_engine

    url = f"sqlite:///{tmp_path / 'new.db'}"
    line = refused(run(tmp_path, "record", SLOW, "-t", "1", "--player", "bob", "--db", url),
                   "sudya db upgrade")
    assert "new.db" in line
    assert not (tmp_path / "new.db").exists()  # a command that does not make one makes none
    up = run(tmp_path, "db", "upgrade", "--db", url).ok()
    assert head() in up.stdout
    engine = make_engine(url)
    try:
        assert current(engine) == head()
    finally:
        engine.dispose()
    before = snapshot(url)
    assert run(tmp_path, "init", "--db", url).ok()  # again: nothing to do
    assert snapshot(url) == before


def test_without_db_the_default_is_sudya_db_in_the_working_directory(tmp_path: Path) -> None:
    run(tmp_path, "init").ok()
    assert (tmp_path / "sudya.db").exists()


# ---------------------------------------------------------------------- recording
def test_tournaments_people_and_judges(world: World) -> None:
    assert world.cup.isdigit() and world.spring.isdigit() and world.cup != world.spring
    listed = world.sudya("tournament", "list").ok().stdout
    assert "Berserk Cup" in listed and "Clan League" in listed and "Spring" in listed
    shown = world.sudya("tournament", "show", world.cup, "--json").json()
    assert (shown["series"], shown["rulebook"], shown["level"], shown["settings"]) == (
        "Berserk Cup", "berserk", "professional", {"decklists": True})
    players = {p["handle"]: p["team"] for p in shown["players"]}
    assert {k: players[k] for k in ("alice", "bob", "carol", "veda")} == {
        "alice": "wolves", "bob": "wolves", "carol": None, "veda": None}
    assert [(j["handle"], j["role"], j["official"]) for j in shown["judges"]] == [
        ("anna", "head-judge", True), ("oleg", "floor-judge", False)]


def test_record_with_details_and_choice(world: World) -> None:
    trigger = world.runs["trigger"].json()
    assert [(r["event"], r["subject"], r["cause"], [s["kind"] for s in r["sanctions"]])
            for r in trigger] == [("t1", "bob", "table", ["caution"]),
                                  ("t1", "alice", "table", ["caution"])]
    choice = world.runs["choice"].json()
    assert [(s["kind"], s["amount"]) for s in choice[0]["sanctions"]] == [
        ("penal-labour", 500)]
    # the table view names the event, the player and the cause
    c1 = world.runs["c1"].stdout
    assert "c1" in c1 and "carol" in c1 and "caution" not in c1  # names, not codes
    assert "Замечание" in c1 and "по таблице" in c1


def test_end_of_match_stacks_three_cautions(world: World) -> None:
    end = world.runs["end"].json()
    assert [(r["event"], r["subject"], r["cause"], [s["kind"] for s in r["sanctions"]])
            for r in end] == [("m1", "carol", "stacking", ["warning"])]


def test_an_overturned_appeal_leaves_the_ruling_and_stops_it_counting(world: World) -> None:
    fraud = world.runs["fraud"].json()
    assert fraud[0]["sanctions"][0]["kind"] == "disqualification-without-prizes"
    appeal = world.runs["appeal"].json()
    assert [(r["cause"], r["revokes"], r["sanctions"]) for r in appeal] == [
        ("appeal", "f1", [])]
    exported = world.export("Berserk Cup")
    f1 = [r for r in exported["rulings"] if r["event"] == "f1"]
    assert [s["kind"] for s in f1[0]["sanctions"]] == [
        "disqualification-without-prizes", "match-loss", "warning"]
    assert exported["subjects"]["alice"]["status"] == "active"
    assert exported["subjects"]["alice"]["sanctions"] == {"caution": 1}  # t1 only


def test_a_correction_is_a_new_record(world: World) -> None:
    fix = world.runs["correct"].json()
    assert [(r["subject"], r["cause"], r["revokes"]) for r in fix] == [
        ("bob", "correction", "p1")]
    exported = world.export("Berserk Cup")
    p1 = next(r for r in exported["rulings"] if r["event"] == "p1")
    assert [s["kind"] for s in p1["sanctions"]] == ["caution"]
    assert exported["subjects"]["bob"]["sanctions"] == {"caution": 1}  # t1's, not p1's


def test_aggravation_pending_then_decided(world: World) -> None:
    h1 = world.runs["h1"].json()
    assert [(r["cause"], r["pending"], r["sanctions"]) for r in h1] == [
        ("aggravation", True, [])]
    d1 = world.runs["d1"].json()
    assert [(r["cause"], r["resolves"]) for r in d1] == [("decision", "h1")]
    assert [(s["kind"], s.get("subject", "veda")) for s in d1[0]["sanctions"]] == [
        ("fighter-dq", "veda"), ("technical-defeat", "north"), ("reduce-fighters", "north")]
    league = world.export("Clan League")
    stored = next(r for r in league["rulings"] if r["event"] == "h1")
    assert (stored["pending"], stored["resolved_by"]) == (False, "d1")
    assert league["subjects"]["veda"]["status"] == "disqualified"
    assert league["subjects"]["lis"]["ore"] == 500


def test_results_and_standings(world: World) -> None:
    table = world.sudya("standings", "-t", world.cup, "--json").json()
    placed = list(table["players"])
    assert placed.index("alice") < placed.index("bob")
    exported = world.export("Berserk Cup")
    assert exported["standings"] == table
    text = world.sudya("standings", "-t", world.cup).ok().stdout
    assert "alice" in text and "bob" in text
    # the headings as the standings page names them, in Russian; not the JSON's keys
    heading = text.splitlines()[1]
    assert "Игрок" in heading and "матчи" in heading
    assert not {"matches", "status", "match_points"} & set(heading.replace("┃", " ").split())


def test_history_across_series_with_valid_and_expired_marks(world: World) -> None:
    april, may = (world.sudya("history", "veda", "--on", day, "--json").json()
                  for day in ("2026-04-30", "2026-05-02"))
    assert [(e["series"], e["tournament"], e["event"]) for e in april] == [
        ("Berserk Cup", "Day 1", "v1"), ("Clan League", "Spring", "w1"),
        ("Clan League", "Spring", "h1"), ("Clan League", "Spring", "d1")]

    def marks(history: list[dict[str, Any]], event: str) -> list[tuple[str, str]]:
        entry = next(e for e in history if e["event"] == event)
        return [(s["kind"], s["state"]) for s in entry["sanctions"]]

    assert marks(april, "w1") == [("warning", "valid")]
    assert marks(may, "w1") == [("warning", "expired")]
    assert marks(april, "d1") == [("fighter-dq", "valid")]  # north's sanctions are not hers
    assert marks(may, "d1") == [("fighter-dq", "expired")]
    assert next(e for e in april if e["event"] == "w1")["sanctions"][0]["valid_until"] \
        == "2026-05-01"
    text = world.sudya("history", "veda", "--on", "2026-05-02").ok().stdout
    assert "w1" in text and "v1" in text


def test_export_json_and_csv(world: World) -> None:
    from sudya.adapters.db.session import make_engine
    from sudya.app.exports import CSV_COLUMNS
    from sudya.app.ledger import Ledger
    from sudya.app.readback import series_json

    exported = world.export("Berserk Cup")
    assert exported["series"] == {"name": "Berserk Cup", "rulebook": "berserk"}
    assert [t["name"] for t in exported["tournaments"]] == ["Day 1"]
    engine = make_engine(world.url)
    try:
        ledger = Ledger(engine)
        with ledger.factory() as s:
            from sudya.adapters.db import models as m

            sid = s.scalar(sa.select(m.Series.id).where(m.Series.name == "Berserk Cup"))
            stored = series_json(s, sid)
    finally:
        engine.dispose()
    assert {k: v for k, v in exported.items() if k not in ("series", "tournaments")} == stored

    out = world.dir / "cup.csv"
    assert world.sudya("export", "--series", "Berserk Cup", "--format", "csv", "--out",
                       out).ok().stdout == ""
    rows = list(csv.DictReader(io.StringIO(out.read_text("utf-8"))))
    assert rows and list(rows[0]) == CSV_COLUMNS
    assert len(rows) == sum(max(1, len(r["sanctions"])) for r in stored["rulings"])
    assert {r["revoked"] for r in rows if r["event"] == "f1"} == {"True"}
    assert {r["revoked"] for r in rows if r["event"] == "t1"} == {"False"}


# ---------------------------------------------------------------------- refusals
def test_bad_input_is_refused_in_one_line_and_changes_nothing(world: World) -> None:
    cup, db = world.cup, ("--db", world.url)
    cases: dict[str, tuple[tuple[Any, ...], tuple[str, ...]]] = {
        "unknown tournament": (("record", SLOW, "-t", "999", "--player", "bob"),
                               ("tournament", "999")),
        "unknown player": (("record", SLOW, "-t", cup, "--player", "zed"), ("player", "zed")),
        "unknown infraction": (("record", "no.such", "-t", cup, "--player", "bob"),
                               ("infraction", "no.such")),
        "bad --detail": (("record", SLOW, "-t", cup, "--player", "bob", "--detail", "foo"),
                         ("--detail", "foo")),
        "unknown role": (("judge", "add", "zz", "-t", cup, "--role", "king"),
                         ("role", "king")),
        "bad score": (("result", "-t", cup, "alice", "bob", "2:1"), ("SCORE", "2:1")),
        "unknown person": (("history", "nobody"), ("person", "nobody")),
        "bad level": (("tournament", "create", "--name", "Day 2", "--series", "Berserk Cup",
                       "--date", "2026-03-02", "--level", "bogus"), ("level",)),
    }
    before = snapshot(world.url)
    runs = run_all(world.dir, *[args + db for args, _ in cases.values()])
    for (case, (_args, needles)), r in zip(cases.items(), runs, strict=True):
        try:
            refused(r, *needles)
        except AssertionError as exc:
            raise AssertionError(f"{case}: {exc}") from None
    assert snapshot(world.url) == before


def test_a_refused_new_tournament_leaves_no_new_series(world: World) -> None:
    before = snapshot(world.url)
    refused(world.sudya("tournament", "create", "--name", "T", "--series", "Brand New",
                        "--date", "2026-03-01", "--rulebook", "berserk", "--level", "bogus"),
            "level")
    assert snapshot(world.url) == before


def test_a_bad_setting_is_named_as_setting(world: World) -> None:
    refused(world.sudya("tournament", "create", "--name", "T", "--series", "Berserk Cup",
                        "--date", "2026-03-09", "--setting", "decklists"), "--setting")


def test_numbers_too_large_for_the_database_are_refused_in_one_line(world: World) -> None:
    huge = "99999999999999999999"
    big = world.dir / "big.csv"
    big.write_text(f"handle,table\nzoe,\nyan,{huge}\n", encoding="utf-8")
    before = snapshot(world.url)
    runs = run_all(world.dir,
                   ("player", "add", "xena", "-t", world.cup, "--table", huge, "--db",
                    world.url),
                   ("import", "players", big, "-t", world.cup, "--db", world.url))
    assert snapshot(world.url) == before
    for r in runs:
        assert r.returncode == 2 and "Traceback" not in r.stderr, (r.args, r.stderr[-200:])


# ---------------------------------------------------------------------- CSV import
def test_csv_import_is_all_or_nothing(world: World) -> None:
    bad = world.dir / "bad-players.csv"
    bad.write_text("handle,name,team\nhank,Hank,\nivy,Ivy,nope\njill,Jill,\nalice,,\n",
                   encoding="utf-8")
    before = snapshot(world.url)
    r = world.sudya("import", "players", bad, "-t", world.cup)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    lines = r.stderr.splitlines()
    assert [x.split(":")[0:2] for x in lines[:-1]] == [["rejected", " строка 3"],
                                                        ["rejected", " строка 5"]], lines
    assert "nope" in lines[0] and "alice" in lines[1]
    assert lines[-1] == f"sudya: {bad}: отклонено строк: 2; ничего не загружено", lines
    assert "imported" not in r.stdout
    assert snapshot(world.url) == before

    good = world.dir / "players.csv"
    good.write_text("handle,name,team,table\nhank,Hank,wolves,7\nivy,Ivy,,\n", encoding="utf-8")
    assert "imported 2 row(s)" in world.sudya("import", "players", good, "-t",
                                              world.cup).ok().stdout
    results = world.dir / "results.csv"
    results.write_text("round,player_a,player_b,score\n2,hank,ivy,2-0\n", encoding="utf-8")
    assert "imported 1 row(s)" in world.sudya("import", "results", results, "-t",
                                              world.cup).ok().stdout
    from sudya.adapters.db.session import make_engine
    from sudya.app.ledger import Ledger
    from sudya.app.queries import tournament_standings, tournament_summary

    engine = make_engine(world.url)
    try:
        with Ledger(engine).factory() as s:
            players = {p.handle: p.team for p in tournament_summary(s, int(world.cup)).players}
            placed = list(tournament_standings(s, int(world.cup))["players"])
    finally:
        engine.dispose()
    assert (players["hank"], players["ivy"]) == ("wolves", None)
    assert placed.index("hank") < placed.index("ivy")


# ---------------------------------------------------------------------- scenarios
def test_import_scenario_reads_back_as_replay(tmp_path: Path) -> None:
    scenarios = sorted(SHARED.glob("*.yaml"))
    assert len(scenarios) >= 4
    url = f"sqlite:///{tmp_path / 'scenarios.db'}"
    run(tmp_path, "init", "--db", url).ok()
    # one file is also replayed by `sudya replay`, whose output is `sudya.replay` (the others
    # are compared with that directly)
    runs = run_all(tmp_path,
                   *[("ledger", "import-scenario", f, "--name", f.stem, "--db", url)
                     for f in scenarios],
                   ("replay", scenarios[0]))
    imported, replayed = runs[:-1], runs[-1]
    assert replayed.json() == replay(load_scenario_file(scenarios[0]))
    for path, r in zip(scenarios, imported, strict=True):
        assert r.json() == replay(load_scenario_file(path)), path.name


# ---------------------------------------------------------------------- who writes (--by)
@dataclass
class Two:
    """Two berserk tournaments of two series, each with its own staff: A (anna head judge,
    oleg floor judge; alice plays) and B (bea, boris; bob plays). b1 is boris' ruling on bob
    in B, a1 oleg's on alice in A."""

    dir: Path
    url: str
    a: str
    b: str

    def sudya(self, *args: Any) -> Run:
        return run(self.dir, *args, "--db", self.url, lang="en")


@pytest.fixture(scope="module")
def two(tmp_path_factory: pytest.TempPathFactory) -> Two:
    folder = tmp_path_factory.mktemp("two-series")
    w = Two(folder, f"sqlite:///{folder / 'two.db'}", "", "")
    w.sudya("init").ok()
    tids = []
    for letter, player, head, floor in (("A", "alice", "anna", "oleg"),
                                        ("B", "bob", "bea", "boris")):
        tid = w.sudya("tournament", "create", "--name", f"Day {letter}", "--series",
                      f"Cup {letter}", "--date", "2026-03-01", "--rulebook", "berserk",
                      "--level", "professional").ok().stdout.strip()
        w.sudya("player", "add", player, "-t", tid).ok()
        w.sudya("judge", "add", head, "-t", tid, "--role", "head-judge", "--official").ok()
        w.sudya("judge", "add", floor, "-t", tid, "--role", "floor-judge").ok()
        tids.append(tid)
    w.a, w.b = tids
    # each floor judge rules in their own tournament, in their own name (no --judge)
    w.sudya("record", SLOW, "-t", w.b, "--player", "bob", "--by", "boris", "--id", "b1").ok()
    w.sudya("record", SLOW, "-t", w.a, "--player", "alice", "--by", "oleg", "--id", "a1").ok()
    return w


def judges(url: str) -> dict[str, str | None]:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return {e: j for e, j in conn.execute(sa.text(
                "SELECT event.ext_id, ruling.judge FROM ruling JOIN event "
                "ON event.id = ruling.event_id WHERE event.ext_id IN ('a1', 'b1')"))}
    finally:
        engine.dispose()


def refused_field(r: Run, field: str, *needles: str) -> None:
    """Refused in one line that names the field first (`sudya: FIELD: …`)."""
    line = refused(r, *needles)
    assert line.startswith(f"sudya: {field}: "), line


def test_a_judge_rules_in_their_own_name(two: Two) -> None:
    assert judges(two.url) == {"a1": "oleg", "b1": "boris"}


def test_a_judge_of_another_tournament_may_not_record_here(two: Two) -> None:
    before = snapshot(two.url)
    refused_field(two.sudya("record", SLOW, "-t", two.a, "--player", "alice", "--by", "boris"),
                  "--by", "Day A")
    refused_field(two.sudya("record", SLOW, "-t", two.a, "--player", "alice", "--by",
                            "nobody"), "--by")
    # and a judge of A about a player of B, or in another judge's name
    refused_field(two.sudya("record", SLOW, "-t", two.a, "--player", "bob", "--by", "oleg"),
                  "player", "'bob'")
    refused_field(two.sudya("record", SLOW, "-t", two.a, "--player", "alice", "--by", "oleg",
                            "--judge", "anna"), "judge", "'anna'")
    assert snapshot(two.url) == before


def test_an_appeal_is_of_an_event_of_its_own_tournament(two: Two) -> None:
    before = snapshot(two.url)
    for by in ("anna", "bea"):
        refused(two.sudya("appeal", "-t", two.a, "--of", "b1", "--outcome", "overturned",
                          "--by", by))
    refused_field(two.sudya("appeal", "-t", two.a, "--of", "b1", "--outcome", "overturned",
                            "--by", "anna"), "of", "b1")
    refused_field(two.sudya("appeal", "-t", two.a, "--of", "b1", "--outcome", "overturned",
                            "--by", "bea"), "--by")
    # the floor judge may not decide appeals, even of their own tournament
    refused_field(two.sudya("appeal", "-t", two.a, "--of", "a1", "--outcome", "overturned",
                            "--by", "oleg"), "--by")
    assert snapshot(two.url) == before


def test_a_result_names_players_of_its_own_tournament(two: Two) -> None:
    before = snapshot(two.url)
    for by in ((), ("--by", "anna")):  # the owner of the database too
        refused_field(two.sudya("result", "-t", two.a, "alice", "bob", "2-0", *by),
                      "players.1", "'bob'")
    refused_field(two.sudya("result", "-t", two.a, "bob", "alice", "2-0"), "players.0", "'bob'")
    assert snapshot(two.url) == before


def test_the_ledger_of_a_tournament_is_verified_by_its_head_judge(two: Two) -> None:
    verified = two.sudya("audit", "verify", "-t", two.b, "--by", "bea", "--json").json()
    assert [(a["series"], a["ok"]) for a in verified] == [("Cup B", True)]
    refused_field(two.sudya("audit", "verify", "-t", two.a, "--by", "bea"), "--by", "Day A")
    refused_field(two.sudya("audit", "verify", "--by", "bea"), "--tournament")
    everything = two.sudya("audit", "verify", "--json").json()  # the owner: every series
    assert [a["series"] for a in everything] == ["Cup A", "Cup B"]


def test_without_by_the_writer_is_the_owner_of_the_database_file(two: Two,
                                                                 tmp_path: Path) -> None:
    """No --by: the OS user who owns the SQLite file, recorded by their login name; anyone
    else is told to say who they are."""
    url = f"sqlite:///{tmp_path / 'setup.db'}"
    run(tmp_path, "init", "--db", url).ok()
    run(tmp_path, "tournament", "create", "--name", "T", "--series", "S", "--date",
        "2026-03-01", "--rulebook", "berserk", "--level", "amateur", "--db", url).ok()
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text("SELECT created_by FROM tournament")).scalar_one() \
                == getpass.getuser()
    finally:
        engine.dispose()
    if os.getuid() != 0:
        pytest.skip("only root can give a database file to another user here")
    theirs = tmp_path / "theirs.db"
    theirs.write_bytes((two.dir / "two.db").read_bytes())
    os.chown(theirs, 4242, -1)
    url = f"sqlite:///{theirs}"
    before = snapshot(url)
    refused_field(run(tmp_path, "record", SLOW, "-t", two.a, "--player", "alice", "--db", url),
                  "--by", "не вам", "uid 4242", "--by ИМЯ")
    refused_field(run(tmp_path, "user", "add", "zoe", "--db", url,
                      env={"SUDYA_NEW_PASSWORD": "password-zoe"}), "--by")
    assert snapshot(url) == before
    run(tmp_path, "record", SLOW, "-t", two.a, "--player", "alice", "--by", "oleg", "--db",
        url).ok()


def test_a_russian_excel_players_list_is_imported(world: World) -> None:
    """Issue 36: the list as Russian Excel saves it — semicolons, cp1251, Russian headers —
    goes in as it is (it was refused with «нет столбцов: handle»)."""
    saved = world.dir / "игроки.csv"
    saved.write_bytes("Ник;Имя;Команда;Стол\nkira;Кира Белова;;11\nlev;Лев Серов;;12\n"
                      .encode("cp1251"))
    assert "imported 2 row(s)" in world.sudya("import", "players", saved, "-t",
                                              world.cup).ok().stdout
    from sudya.adapters.db.session import make_engine
    from sudya.app.ledger import Ledger
    from sudya.app.queries import tournament_summary

    engine = make_engine(world.url)
    try:
        with Ledger(engine).factory() as s:
            names = {p.handle: p.name for p in tournament_summary(s, int(world.cup)).players}
    finally:
        engine.dispose()
    assert names["kira"] == "Кира Белова" and names["lev"] == "Лев Серов"
