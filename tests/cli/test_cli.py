"""The `sudya` command: replay, rulebooks, lookup, lint, editions, demo.

Every test goes through the console entry point (`sudya.edges.cli.entry:main`), in this
process (the `sudya` fixture, cli_kit.run), so exit codes, what lands on stdout and stderr,
and the absence of tracebacks are the user's view; the tests marked slow run it as a real
process: the console script, `python -m sudya`, the replay's fast exit, Ctrl-C, a closed pipe.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_kit import COMMAND, process, run_process
from cli_kit import env as kit_env

HERE = Path(__file__).parent
SHARED_SCENARIOS = HERE.parents[1].parent / "shared" / "scenarios"
DATA = HERE.parent / "rulebooks" / "data"
BUNDLED_IDS = ("berserk", "clan-championship", "team-wargame")

# The `sudya` fixture (conftest.py) and the run it returns: returncode, stdout, stderr.
Sudya = Callable[..., Any]
Run = Any


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


ENGLISH = {"SUDYA_LANG": "en"}  # messages asserted in English; Russian is the default


def assert_refused(run: Run, *needles: str) -> str:
    """Exit 2, nothing on stdout, exactly one `sudya: ...` line on stderr holding every needle."""
    assert run.returncode == 2, (run.returncode, run.stdout, run.stderr)
    assert "Traceback" not in run.stderr
    assert run.stdout == ""
    lines = run.stderr_lines
    assert len(lines) == 1, run.stderr
    line = lines[0]
    assert line.startswith("sudya: "), line
    for needle in needles:
        assert needle in line, f"{needle!r} not in {line!r}"
    return line


def replay_json(run: Run) -> dict[str, Any]:
    assert run.returncode == 0, run.stderr
    assert run.stderr == ""
    result = json.loads(run.stdout)
    assert isinstance(result, dict)
    return result


def line_with(text: str, *needles: str) -> str:
    """The first line of `text` containing every needle (fails if there is none)."""
    for line in text.splitlines():
        if all(n in line for n in needles):
            return line
    raise AssertionError(f"no line with {needles!r} in:\n{text}")


# --------------------------------------------------------------------------- replay


SHARED_CASES = sorted(SHARED_SCENARIOS.glob("*.yaml"))


def test_shared_scenarios_exist() -> None:
    assert len(SHARED_CASES) >= 4, SHARED_SCENARIOS


@pytest.mark.parametrize("path", SHARED_CASES, ids=[p.stem for p in SHARED_CASES])
def test_replay_shared_scenario(sudya: Sudya, path: Path) -> None:
    result = replay_json(sudya("replay", path))
    assert set(result) >= {"rulebook", "rulings", "subjects"}
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text("utf-8"))
    assert result["rulebook"]["id"] == expected["rulebook"]["id"]
    assert result["rulebook"]["edition"] == "1"

    def shape(rulings: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        return [(r["event"], r["subject"], r["infraction"], r["cause"],
                 [s["kind"] for s in r["sanctions"]]) for r in rulings]

    assert shape(result["rulings"]) == shape(expected["rulings"])
    assert result["subjects"] == expected["subjects"]
    for ruling in result["rulings"]:
        assert isinstance(ruling["pending"], bool)
        assert isinstance(ruling["notes"], list)


BASICS_SCENARIO: dict[str, Any] = {
    "rulebook": "berserk",
    "level": "professional",
    "date": "2026-03-01",
    "settings": {"decklists": True},
    "players": ["alice", "bob"],
    "events": [
        {"id": "e1", "infraction": "deck.invalid-decklist", "player": "alice", "round": 1},
        {"id": "e2", "infraction": "gameplay.missed-trigger", "player": "bob", "round": 1,
         "details": {"opponent": "alice", "both_could_control": True}},
        {"id": "e3", "infraction": "gameplay.slow-play", "player": "bob", "round": 1},
        {"id": "e4", "infraction": "gameplay.slow-play", "player": "bob", "round": 2},
    ],
}


def test_replay_json_scenario(sudya: Sudya, tmp_path: Path) -> None:
    path = write(tmp_path / "basics.json", json.dumps(BASICS_SCENARIO, indent=2))
    result = replay_json(sudya("replay", path.name))
    assert result["rulebook"] == {"id": "berserk", "edition": "1"}
    assert [(r["event"], r["subject"], r["cause"]) for r in result["rulings"]] == [
        ("e1", "alice", "table"), ("e2", "bob", "table"), ("e2", "alice", "table"),
        ("e3", "bob", "table"), ("e4", "bob", "repeat"),
    ]
    assert result["rulings"][0]["sanctions"] == [
        {"kind": "game-loss"}, {"kind": "warning", "attached": True}]
    assert result["subjects"]["bob"]["sanctions"] == {"caution": 1, "warning": 2, "game-loss": 1}


def test_json_and_yaml_scenarios_replay_the_same(sudya: Sudya, tmp_path: Path) -> None:
    as_json = replay_json(sudya("replay", write(tmp_path / "s.json",
                                                json.dumps(BASICS_SCENARIO)).name))
    as_yaml = replay_json(sudya("replay", SHARED_SCENARIOS / "berserk-basics.yaml"))
    assert as_json == as_yaml


# ---------------------------------------------------------------- refused scenarios

TEAM_HEAD = """\
rulebook: team-wargame
date: 2026-03-01
players: [ivan, petr, olga]
teams: {wolves: [ivan, petr], bears: [olga]}
judges:
  sergey: {role: head-judge}
  yuri: {role: senior-judge}
  kostya: {role: junior-judge}
events:
"""

BERSERK_PRO = """\
rulebook: berserk
level: professional
date: 2026-03-01
judges:
  anna: {role: head-judge, official: true}
  oleg: {role: floor-judge}
players: [p1, p2]
events:
"""

REFUSED = {
    "unknown-rulebook": (
        "rulebook: chess\nlevel: amateur\ndate: 2026-03-01\nplayers: [p1]\n"
        "events:\n  - {id: e1, infraction: procedure.minor, player: p1}\n",
        ["rulebook", "'chess'"]),
    "unknown-level": (
        "rulebook: berserk\nlevel: expert\ndate: 2026-03-01\nplayers: [p1]\n"
        "events:\n  - {id: e1, infraction: procedure.minor, player: p1}\n",
        ["level", "'expert'"]),
    "missing-level": (
        "rulebook: berserk\ndate: 2026-03-01\nplayers: [p1]\n"
        "events:\n  - {id: e1, infraction: procedure.minor, player: p1}\n",
        ["level", "required"]),
    "unknown-infraction": (
        BERSERK_PRO + "  - {id: e1, infraction: deck.lost-cards, player: p1}\n",
        ["event e1", "infraction", "'deck.lost-cards'"]),
    "unknown-infraction-by-position": (
        BERSERK_PRO + "  - {infraction: procedure.minor, player: p1}\n"
                      "  - {infraction: procedure.enormous, player: p1}\n",
        ["event #2", "infraction", "'procedure.enormous'"]),
    "unknown-player": (
        BERSERK_PRO + "  - {id: e1, infraction: procedure.minor, player: p1}\n"
                      "  - {id: e2, infraction: procedure.minor, player: zed}\n",
        ["event e2", "player", "'zed'"]),
    "missing-required-detail": (
        "rulebook: clan-championship\ndate: 2026-03-01\nplayers: [grom]\nevents:\n"
        "  - {id: a1, infraction: attack.undeclared-on-participant, player: grom,"
        " details: {level: 10}}\n",
        ["event a1", "details.attacks", "required"]),
    "missing-conditionally-required-detail": (
        BERSERK_PRO + "  - {id: e1, infraction: gameplay.missed-trigger, player: p1,"
                      " details: {both_could_control: true}}\n",
        ["event e1", "details.opponent"]),
    "not-applicable-at-level": (
        BERSERK_PRO.replace("professional", "highest")
        + "  - {id: e1, infraction: deck.invalid-deck-no-decklist, player: p1}\n",
        ["event e1", "infraction", "highest"]),
    "not-applicable-with-settings": (
        BERSERK_PRO.replace("players:", "settings: {decklists: false}\nplayers:")
        + "  - {id: e1, infraction: deck.invalid-decklist, player: p1}\n",
        ["event e1", "infraction", "decklists"]),
    "junior-judge-may-not-rule": (
        TEAM_HEAD + "  - {id: w1, infraction: disruptive-behaviour, player: ivan,"
                    " judge: kostya}\n",
        ["event w1", "judge", "kostya"]),
    "decision-about-no-ruling": (
        TEAM_HEAD + "  - {id: w1, infraction: disruptive-behaviour, player: ivan, judge: yuri}\n"
                    "  - {id: d1, decision: {of: w9, judge: sergey,"
                    " sanctions: [{kind: warning}]}}\n",
        ["event d1", "decision.of", "w9"]),
    "decision-about-a-ruling-not-pending": (
        TEAM_HEAD + "  - {id: w1, infraction: disruptive-behaviour, player: ivan, judge: yuri}\n"
                    "  - {id: d1, decision: {of: w1, judge: sergey,"
                    " sanctions: [{kind: warning}]}}\n",
        ["event d1", "decision.of", "w1"]),
    "appeal-about-no-ruling": (
        BERSERK_PRO + "  - {id: e1, infraction: procedure.minor, player: p1, judge: oleg}\n"
                      "  - {id: a1, appeal: {of: e9, judge: anna, outcome: overturned}}\n",
        ["event a1", "appeal.of", "e9"]),
    "choice-outside-range": (
        TEAM_HEAD + "  - {id: w1, infraction: disruptive-behaviour, player: ivan, judge: yuri}\n"
                    "  - {id: w2, infraction: serious-cheating, player: petr, judge: yuri,"
                    " choice: {points: -3}}\n",
        ["event w2", "choice", "-3"]),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_wrong_scenario_is_refused_in_one_line(sudya: Sudya, tmp_path: Path, name: str) -> None:
    text, needles = REFUSED[name]
    path = write(tmp_path / f"{name}.yaml", text)
    assert_refused(sudya("replay", path.name, env=ENGLISH), *needles)


def test_refusals_are_in_russian_by_default(sudya: Sudya, tmp_path: Path) -> None:
    text, _needles = REFUSED["missing-conditionally-required-detail"]
    line = assert_refused(sudya("replay", write(tmp_path / "ru.yaml", text).name))
    assert "событие" in line and "обязательно для" in line, line


def test_refused_after_valid_events_prints_no_partial_json(sudya: Sudya, tmp_path: Path) -> None:
    text = BERSERK_PRO + ("  - {id: e1, infraction: procedure.minor, player: p1}\n"
                          "  - {id: e2, infraction: procedure.minor, player: p2}\n"
                          "  - {id: e3, infraction: procedure.minor, player: ghost}\n")
    assert_refused(sudya("replay", write(tmp_path / "s.yaml", text).name, env=ENGLISH),
                   "event e3", "(#3)", "player", "'ghost'")


def test_malformed_yaml_scenario(sudya: Sudya, tmp_path: Path) -> None:
    path = write(tmp_path / "broken.yaml",
                 BERSERK_PRO + "  - {id: e1, infraction: procedure.minor, player: p1\n"
                               "  - {id: e2, infraction: procedure.minor, player: p1}\n")
    line = assert_refused(sudya("replay", path.name), "broken.yaml:", "ошибка в YAML")
    assert line.split("broken.yaml:")[1].split(":")[0].isdigit(), line


def test_malformed_json_scenario(sudya: Sudya, tmp_path: Path) -> None:
    path = write(tmp_path / "broken.json",
                 '{"rulebook": "berserk", "level": "amateur",\n'
                 ' "date": "2026-03-01", "players": ["p1"\n')
    assert_refused(sudya("replay", path.name, env=ENGLISH), "broken.json:3:", "malformed JSON")
    assert_refused(sudya("replay", path.name), "broken.json:3:", "ошибка в JSON")


def test_missing_scenario_file(sudya: Sudya) -> None:
    assert_refused(sudya("replay", "no-such-scenario.yaml"),
                   "no-such-scenario.yaml", "не удаётся прочитать")


# --------------------------------------------------------- custom rulebook files


def tiny_scenario(rulebook_ref: str) -> str:
    return (f"rulebook: {rulebook_ref}\nlevel: low\ndate: 2026-03-01\nplayers: [p1]\n"
            "events:\n"
            "  - {id: n1, infraction: noise, player: p1}\n"
            "  - {id: n2, infraction: noise, player: p1}\n"
            "  - {id: g1, infraction: digging, player: p1, details: {depth: 3}}\n")


def check_tiny_result(result: dict[str, Any]) -> None:
    """noise at `low` is a caution, its repeat one rank up; digging is depth × 10 ore."""
    assert result["rulebook"] == {"id": "tiny", "edition": "1"}
    assert [(r["event"], r["cause"], [s["kind"] for s in r["sanctions"]])
            for r in result["rulings"]] == [
        ("n1", "table", ["caution"]), ("n2", "repeat", ["warning"]), ("g1", "table", ["ore"]),
    ]
    assert result["rulings"][2]["sanctions"][0]["amount"] == 30
    assert result["subjects"]["p1"]["ore"] == 30


@pytest.mark.parametrize("layout", ["sibling", "parent-folder"])
def test_scenario_names_rulebook_file_relative_to_itself(
        sudya: Sudya, tmp_path: Path, layout: str) -> None:
    if layout == "sibling":
        (tmp_path / "sc").mkdir()
        shutil.copy(DATA / "tiny.yaml", tmp_path / "sc" / "tiny.yaml")
        ref = "tiny.yaml"
    else:
        (tmp_path / "books").mkdir()
        shutil.copy(DATA / "tiny.yaml", tmp_path / "books" / "tiny.yaml")
        ref = "../books/tiny.yaml"
    write(tmp_path / "sc" / "scenario.yaml", tiny_scenario(ref))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    # run from another folder: the path is resolved against the scenario file, not the cwd
    result = replay_json(sudya("replay", "../sc/scenario.yaml", cwd=elsewhere))
    check_tiny_result(result)


def test_scenario_by_absolute_path_with_relative_rulebook_file(
        sudya: Sudya, tmp_path: Path) -> None:
    """scenarios.md: `sudya replay FILE`, `rulebook:` may be a path to a rulebook file.

    Regression: the scenario's folder joined to the rulebook path is absolute, and globbing
    f"{ref}*.yaml" in the rulebook folders raised NotImplementedError (a traceback).
    """
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    path = write(tmp_path / "scenario.yaml", tiny_scenario("tiny.yaml"))
    run = sudya("replay", path.resolve())
    assert "Traceback" not in run.stderr
    check_tiny_result(replay_json(run))


def test_scenario_names_rulebook_by_absolute_path(sudya: Sudya, tmp_path: Path) -> None:
    """Regression, as above: `rulebook: /abs/path/tiny.yaml`."""
    book = tmp_path / "books" / "tiny.yaml"
    book.parent.mkdir()
    shutil.copy(DATA / "tiny.yaml", book)
    path = write(tmp_path / "scenario.yaml", tiny_scenario(str(book.resolve())))
    run = sudya("replay", path.name)
    assert "Traceback" not in run.stderr
    check_tiny_result(replay_json(run))


def test_scenario_with_broken_rulebook_file_is_refused(sudya: Sudya, tmp_path: Path) -> None:
    shutil.copy(DATA / "unknown-key.yaml", tmp_path / "unknown-key.yaml")
    path = write(tmp_path / "s.yaml", tiny_scenario("unknown-key.yaml"))
    assert_refused(sudya("replay", path.name), "rulebook", "unknown-key.yaml:",
                   "infractions[noise].colour")


# ------------------------------------------------------------------ rulebooks


def test_rulebooks_lists_the_bundled_ones(sudya: Sudya) -> None:
    run = sudya("rulebooks")
    assert run.returncode == 0, run.stderr
    for rid in BUNDLED_IDS:
        row = line_with(run.stdout, rid)
        assert "1" in row
    assert "amateur, professional, highest" in line_with(run.stdout, "berserk")
    assert "Название" in run.stdout


def test_rulebooks_in_english(sudya: Sudya) -> None:
    run = sudya("rulebooks", "--lang", "en")
    assert run.returncode == 0, run.stderr
    assert "Title" in run.stdout and "Название" not in run.stdout
    assert "Berserk — penalty guide" in run.stdout


def test_rulebook_show_level_in_russian(sudya: Sudya) -> None:
    run = sudya("rulebook", "show", "berserk", "--level", "highest")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Неверный дек-лист" in out
    assert "Предупреждение" in out
    assert "Высший" in out
    # only the asked level has a column
    assert "Любительский" not in out and "Профессиональный" not in out
    assert "Поражение в партии" in line_with(out, "deck.invalid-decklist")
    assert "Предупреждение" in line_with(out, "gameplay.missed-trigger")
    assert "Замечание" in line_with(out, "procedure.minor")
    assert "не применяется" in line_with(out, "deck.invalid-deck-no-decklist")
    assert "002 §1.1" in line_with(out, "deck.invalid-decklist")
    # the marks: a conflict (!) on the deck list row, an interpretation (*) on a merged cell
    assert line_with(out, "deck.invalid-decklist").rstrip(" │").endswith("!")
    assert line_with(out, "conduct.severe").rstrip(" │").endswith("*")
    # rulebook-wide rules: the ladder and the suspension authority
    assert "Замечание → Предупреждение → Поражение в партии" in out
    assert "официальный представитель" in out


def test_rulebook_show_all_levels(sudya: Sudya) -> None:
    run = sudya("rulebook", "show", "berserk")
    assert run.returncode == 0, run.stderr
    row = line_with(run.stdout, "gameplay.missed-trigger")
    assert row.count("Замечание") == 2 and "Предупреждение" in row
    for name in ("Любительский", "Профессиональный", "Высший"):
        assert name in run.stdout


def test_rulebook_show_in_english(sudya: Sudya) -> None:
    run = sudya("rulebook", "show", "berserk", "--level", "highest", "--lang", "en")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Invalid deck list" in out and "Warning" in out and "Highest" in out
    assert "Неверный дек-лист" not in out and "Предупреждение" not in out
    assert "Game loss" in line_with(out, "deck.invalid-decklist")
    assert "not applicable" in line_with(out, "deck.invalid-deck-no-decklist")


def test_sudya_lang_environment_variable(sudya: Sudya) -> None:
    run = sudya("rulebook", "show", "berserk", "--level", "highest", env={"SUDYA_LANG": "en"})
    assert run.returncode == 0, run.stderr
    assert "Invalid deck list" in run.stdout and "Неверный дек-лист" not in run.stdout


def test_rulebook_show_levelless_rulebooks(sudya: Sudya) -> None:
    clan = sudya("rulebook", "show", "clan-championship")
    assert clan.returncode == 0, clan.stderr
    assert "Каторга без права откупа" in line_with(clan.stdout, "deceiving-official")
    team = sudya("rulebook", "show", "team-wargame")
    assert team.returncode == 0, team.stderr
    assert "Красная карточка" in line_with(team.stdout, "red-list-model")
    assert "2 × Предупреждение = 1 × Жёлтая карточка" in team.stdout


def test_rulebook_show_unknown_level(sudya: Sudya) -> None:
    assert_refused(sudya("rulebook", "show", "berserk", "--level", "expert"),
                   "--level", "неизвестный уровень «expert»", "amateur")
    assert_refused(sudya("rulebook", "show", "berserk", "--level", "expert", "--lang", "en"),
                   "--level", "unknown level 'expert'", "amateur")


def test_unknown_lang(sudya: Sudya) -> None:
    assert_refused(sudya("rulebook", "show", "berserk", "--lang", "fr"), "--lang", "'fr'")


def test_rulebook_show_unknown_rulebook(sudya: Sudya) -> None:
    """Refused in Russian by default, naming the bundled rulebooks; --lang en in English."""
    line = assert_refused(sudya("rulebook", "show", "chess"),
                          "нет встроенного регламента «chess»", "встроенные: ",
                          "или укажите путь к файлу")
    assert all(rid in line for rid in BUNDLED_IDS), line
    line = assert_refused(sudya("rulebook", "show", "chess", "--lang", "en"),
                          "unknown rulebook 'chess'", "bundled: ")
    assert all(rid in line for rid in BUNDLED_IDS), line


def test_lookup_refuses_in_the_language_of_its_lang_option(sudya: Sudya) -> None:
    """--lang makes the command's errors English too, not only its output; without it (and
    without SUDYA_LANG) they are Russian; --lang wins over SUDYA_LANG."""
    assert_refused(sudya("lookup", "--lang", "en", "berserk", "NOSUCH"),
                   "INFRACTION: unknown infraction 'NOSUCH' in berserk")
    assert_refused(sudya("lookup", "berserk", "NOSUCH"),  # the language chosen did not stay
                   "INFRACTION: в регламенте «berserk» нет нарушения «NOSUCH»")
    assert_refused(sudya("lookup", "berserk", "NOSUCH", "--lang", "ru", env=ENGLISH),
                   "нет нарушения «NOSUCH»")
    assert_refused(sudya("lookup", "berserk", "NOSUCH", env=ENGLISH),
                   "unknown infraction 'NOSUCH'")
    # an error the loader raises after --lang was read, and a language refused in Russian
    assert_refused(sudya("lookup", "chess", "x", "--lang", "en"), "unknown rulebook 'chess'")
    assert_refused(sudya("lookup", "berserk", "x", "--lang", "de"),
                   "--lang: должен быть ru или en, а не 'de'")


# -------------------------------------------------------------------- lookup


def test_lookup_missed_trigger(sudya: Sudya) -> None:
    run = sudya("lookup", "berserk", "gameplay.missed-trigger")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Пропущенные срабатывающие особенности (gameplay.missed-trigger)" in out
    lines = out.splitlines()
    assert "Любительский: Замечание" in lines
    assert "Профессиональный: Замечание" in lines
    assert "Высший: Предупреждение" in lines
    assert "Источник: 000 §7.1" in lines
    for detail in ("both_could_control", "pointed_out_immediately", "optional", "card"):
        assert f"details.{detail}:" in out
    assert "both_could_control and not pointed_out_immediately" in line_with(
        out, "details.opponent:")
    assert "Повтор" in out


def test_lookup_one_level(sudya: Sudya) -> None:
    run = sudya("lookup", "berserk", "gameplay.missed-trigger", "--level", "highest")
    assert run.returncode == 0, run.stderr
    assert "Высший: Предупреждение" in run.stdout.splitlines()
    assert "Любительский:" not in run.stdout and "Профессиональный:" not in run.stdout


def test_lookup_in_english(sudya: Sudya) -> None:
    run = sudya("lookup", "berserk", "gameplay.missed-trigger", "--lang", "en")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "Missed trigger (gameplay.missed-trigger)" in lines
    assert "Highest: Warning" in lines and "Amateur: Caution" in lines
    assert "Source: 000 §7.1" in lines
    assert "Пропущенные" not in run.stdout


def test_lookup_conduct_severe_shows_interpretation(sudya: Sudya) -> None:
    run = sudya("lookup", "berserk", "conduct.severe")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Приостановление членства" in line_with(out, "Профессиональный:")
    assert "Дисквалификация без призов" in line_with(out, "Любительский:")
    interpretation = line_with(out, "* Толкование:")
    assert "Объединённая ячейка" in interpretation
    assert "разбор регламентов §1.4" in interpretation  # the document in words (E11)


def test_lookup_conduct_severe_shows_suspension_authority(sudya: Sudya) -> None:
    run = sudya("lookup", "berserk", "conduct.severe")
    assert run.returncode == 0, run.stderr
    assert "официальный представитель" in run.stdout


def test_lookup_before_calling_a_judge(sudya: Sudya) -> None:
    run = sudya("lookup", "team-wargame", "time-wasting")
    assert run.returncode == 0, run.stderr
    assert "таймщит" in line_with(run.stdout, "Перед вызовом судьи")
    assert "Наличие заполненного таймщита" in run.stdout
    assert "Пенальти: Предупреждение" in run.stdout.splitlines()
    en = sudya("lookup", "team-wargame", "time-wasting", "--lang", "en")
    assert en.returncode == 0, en.stderr
    assert "A filled time sheet" in line_with(en.stdout, "Before calling a judge")


def test_lookup_shows_conditions_verbatim(sudya: Sudya) -> None:
    run = sudya("lookup", "team-wargame", "time-wasting")
    assert run.returncode == 0, run.stderr
    assert "time_used[offender] - time_used[opponent] <= 30" in run.stdout


def test_lookup_english_keeps_bracketed_parameters(sudya: Sudya) -> None:
    run = sudya("lookup", "clan-championship", "deceiving-official", "--lang", "en")
    assert run.returncode == 0, run.stderr
    assert "amount set by the college" in line_with(run.stdout, "Penalty:")


def test_lookup_russian_keeps_bracketed_parameters(sudya: Sudya) -> None:
    run = sudya("lookup", "clan-championship", "deceiving-official")
    assert run.returncode == 0, run.stderr
    assert "[объём устанавливает коллегия]" in line_with(run.stdout, "Пенальти:")
    assert "* Толкование:" in run.stdout and "! Расхождение источников:" in run.stdout


def test_lookup_unknown_infraction(sudya: Sudya) -> None:
    assert_refused(sudya("lookup", "berserk", "gameplay.nope"),
                   "INFRACTION", "«gameplay.nope»", "«berserk»")


def test_a_misspelt_or_mixed_script_id_gets_a_hint(sudya: Sudya) -> None:
    """Issue 38: «did you mean» for a misspelt id; a Cyrillic letter in a Latin id named."""
    assert_refused(sudya("lookup", "berserk", "gameplay.slow-plya"),
                   "INFRACTION", "может быть, «gameplay.slow-play»?")
    assert_refused(sudya("lookup", "berserk", "gаmeplay.slow-play"),  # a Cyrillic «а»
                   "INFRACTION", "смешаны латинские и русские буквы (а)")


def test_lookup_unknown_level(sudya: Sudya) -> None:
    assert_refused(sudya("lookup", "berserk", "gameplay.missed-trigger", "--level", "pro"),
                   "--level", "«pro»")


def test_lookup_rulebook_file(sudya: Sudya, tmp_path: Path) -> None:
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    run = sudya("lookup", "tiny.yaml", "digging")
    assert run.returncode == 0, run.stderr
    assert "Подкоп (digging)" in run.stdout
    assert "Каторга" in line_with(run.stdout, "Высокий:")
    assert "details.depth: int, обязательно" in run.stdout
    assert "Источник: tiny §2" in run.stdout.splitlines()


def test_lookup_shows_penal_labour_formula(sudya: Sudya) -> None:
    run = sudya("lookup", "clan-championship", "attack.undeclared-on-participant")
    assert run.returncode == 0, run.stderr
    assert "level * attacks" in line_with(run.stdout, "Пенальти:")
    assert "level * (earlier_attacks + attacks)" in line_with(run.stdout, "Повтор")


def test_rulebook_show_shows_penal_labour_formula(sudya: Sudya) -> None:
    run = sudya("rulebook", "show", "clan-championship")
    assert run.returncode == 0, run.stderr
    assert "level * attacks" in line_with(run.stdout, "attack.undeclared-on-participant")


# -------------------------------------------------------------------- schema


def test_rulebook_schema_is_json(sudya: Sudya) -> None:
    run = sudya("rulebook", "schema")
    assert run.returncode == 0, run.stderr
    schema = json.loads(run.stdout)
    assert "infractions" in schema["properties"]
    assert "sanctions" in schema["properties"]
    assert {"id", "infractions", "sanctions"} <= set(schema["required"])
    assert schema["additionalProperties"] is False
    assert "Infraction" in schema["$defs"]


# ---------------------------------------------------------------------- lint


def lint_summary(run: Run) -> tuple[int, int]:
    """(errors, notes) from the last line: `ошибок: E, заметок: N` or `E error(s), N note(s)`."""
    last = run.stdout.splitlines()[-1]
    digits = [int(w.strip(",")) for w in last.split() if w.strip(",").isdigit()]
    assert len(digits) == 2, last
    assert ("ошибок" in last) or ("error(s)" in last), last
    return digits[0], digits[1]


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_lint_bundled(sudya: Sudya, rid: str) -> None:
    run = sudya("rulebook", "lint", rid)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines[-1].startswith("ошибок: 0, заметок: ")
    errors, notes = lint_summary(run)
    assert errors == 0 and notes > 0
    assert len(lines) - 1 == notes
    assert all(line.startswith("note: ") for line in lines[:-1])


@pytest.mark.parametrize("rid", BUNDLED_IDS)
def test_lint_bundled_in_english(sudya: Sudya, rid: str) -> None:
    ru = sudya("rulebook", "lint", rid)
    en = sudya("rulebook", "lint", rid, "--lang", "en")
    assert en.returncode == 0, en.stdout + en.stderr
    assert en.stdout.splitlines()[-1].startswith("0 error(s), ")
    assert lint_summary(en) == lint_summary(ru)
    # the same findings, in the same places, only the wording differs
    where = [line.split(": ")[1] for line in en.stdout.splitlines()[:-1]]
    assert where == [line.split(": ")[1] for line in ru.stdout.splitlines()[:-1]]


def test_lint_clan_notes(sudya: Sudya) -> None:
    run = sudya("rulebook", "lint", "clan-championship")
    assert run.returncode == 0
    snowball = line_with(run.stdout, "infractions.scrolls.astral-snowball",
                         "расхождение источников")
    assert "снежки и астральные стрелы" in snowball
    deceiving = line_with(run.stdout, "infractions.deceiving-official",
                          "расхождение источников")
    assert "не указано" in deceiving
    assert "устанавливает коллегия" in line_with(run.stdout, "infractions.deceiving-official",
                                                 "толкование")


def test_lint_clan_notes_in_english(sudya: Sudya) -> None:
    run = sudya("rulebook", "lint", "clan-championship", "--lang", "en")
    assert run.returncode == 0
    snowball = line_with(run.stdout, "infractions.scrolls.astral-snowball", "conflict")
    assert "stricter reading" in snowball
    deceiving = line_with(run.stdout, "infractions.deceiving-official", "conflict")
    assert "unspecified" in deceiving
    assert "college sets it" in line_with(run.stdout, "infractions.deceiving-official",
                                          "interpretation")


def test_lint_team_wargame_notes(sudya: Sudya) -> None:
    run = sudya("rulebook", "lint", "team-wargame", "--lang", "en")
    assert "rejected as an error" in line_with(run.stdout, "roles.junior-judge")


LINT_ERRORS = {
    "lint-undefined-kind.yaml": ["sanction kind 'banishment' is not defined",
                                 "infractions.noise.penalty.high"],
    "lint-never-applies.yaml": ["infractions.noise", "can never apply"],
    "lint-unreachable-ladder.yaml": ["ladder.exile", "can ever reach"],
}


@pytest.mark.parametrize("name", list(LINT_ERRORS))
def test_lint_broken_file(sudya: Sudya, tmp_path: Path, name: str) -> None:
    shutil.copy(DATA / name, tmp_path / name)
    run = sudya("rulebook", "lint", name)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "Traceback" not in run.stderr
    error = line_with(run.stdout, "error: ", *LINT_ERRORS[name])
    assert error.startswith("error: ")
    assert lint_summary(run)[0] == 1


def test_lint_reports_every_problem(sudya: Sudya, tmp_path: Path) -> None:
    text = (DATA / "lint-unreachable-ladder.yaml").read_text("utf-8").replace(
        "    penalty: {low: caution, high: warning}",
        "    applies: {levels: [high]}\n    penalty: {low: caution}")
    write(tmp_path / "two.yaml", text)
    run = sudya("rulebook", "lint", "two.yaml")
    assert run.returncode == 1
    line_with(run.stdout, "error: infractions.noise", "can never apply")
    line_with(run.stdout, "error: ladder.exile")
    # noise gave the only warning: with it unusable, that ladder step is unreachable too
    line_with(run.stdout, "error: ladder.warning")
    assert lint_summary(run)[0] == 3


def test_lint_reports_every_undefined_reference(sudya: Sudya, tmp_path: Path) -> None:
    text = (DATA / "lint-undefined-kind.yaml").read_text("utf-8").replace(
        "ladder: [caution, warning]", "ladder: [caution, warning, ghost]")
    write(tmp_path / "refs.yaml", text)
    run = sudya("rulebook", "lint", "refs.yaml")
    assert run.returncode == 1
    line_with(run.stdout, "error: ", "'banishment' is not defined")
    line_with(run.stdout, "error: ", "ladder", "'ghost' is not defined")
    assert lint_summary(run)[0] == 2


def test_lint_a_valid_file(sudya: Sudya, tmp_path: Path) -> None:
    shutil.copy(DATA / "tiny.yaml", tmp_path / "tiny.yaml")
    run = sudya("rulebook", "lint", "tiny.yaml")
    assert run.returncode == 0, run.stdout
    assert lint_summary(run) == (0, 0)


def test_lint_file_by_absolute_path(sudya: Sudya, tmp_path: Path) -> None:
    shutil.copy(DATA / "lint-never-applies.yaml", tmp_path / "never.yaml")
    (tmp_path / "other").mkdir()
    run = sudya("rulebook", "lint", (tmp_path / "never.yaml").resolve(), cwd=tmp_path / "other")
    assert "Traceback" not in run.stderr
    assert run.returncode == 1
    line_with(run.stdout, "error: infractions.noise", "can never apply")


def test_lint_unknown_rulebook(sudya: Sudya) -> None:
    run = sudya("rulebook", "lint", "chess")
    assert run.returncode == 1
    assert "Traceback" not in run.stderr
    line_with(run.stdout, "error: ", "нет встроенного регламента «chess»")
    run = sudya("rulebook", "lint", "chess", "--lang", "en")
    assert run.returncode == 1
    line_with(run.stdout, "error: ", "unknown rulebook 'chess'")


# ------------------------------------------------------------------ editions


def precedent(sudya: Sudya, books: Path, *extra: str) -> Run:
    return sudya("rulebook", "precedent", "clan-championship", "--infraction", "bot-usage",
                 "--name", "Использование бота", "--sanctions", "fighter-dq,technical-defeat",
                 *extra, env={"SUDYA_RULEBOOK_PATH": str(books)})


def bot_scenario(edition: str | None) -> str:
    head = f'edition: "{edition}"\n' if edition else ""
    return ("rulebook: clan-championship\n" + head + "date: 2026-03-01\nplayers: [grom]\n"
            "events:\n  - {id: b1, infraction: bot-usage, player: grom}\n")


def test_precedent_writes_next_edition(sudya: Sudya, tmp_path: Path) -> None:
    books = tmp_path / "books"
    books.mkdir()
    run = precedent(sudya, books, "--decided-on", "2026-04-01")
    assert run.returncode == 0, run.stderr
    target = books / "clan-championship.2.yaml"
    assert run.stdout.strip() == str(target)
    assert [p.name for p in books.iterdir()] == ["clan-championship.2.yaml"]
    text = target.read_text("utf-8")
    assert 'edition: "2"' in text or "edition: '2'" in text
    assert "bot-usage" in text and "Использование бота" in text and "2026-04-01" in text

    env = {"SUDYA_RULEBOOK_PATH": str(books)}
    diff = sudya("rulebook", "diff", "clan-championship", "1", "2", env=env)
    assert diff.returncode == 0, diff.stderr
    assert diff.stdout.splitlines() == ["+ infraction bot-usage"]
    back = sudya("rulebook", "diff", "clan-championship", "2", "1", env=env)
    assert back.stdout.splitlines() == ["- infraction bot-usage"]

    listed = sudya("rulebooks", env=env)
    assert "1, 2" in line_with(listed.stdout, "clan-championship")

    looked = sudya("lookup", "clan-championship", "bot-usage", env=env)
    assert looked.returncode == 0, looked.stderr
    assert "Дисквалификация бойца без права замены" in line_with(looked.stdout, "Пенальти:")
    assert "решение коллегии (прецедент)" in line_with(looked.stdout, "Источник:")

    write(tmp_path / "ed2.yaml", bot_scenario("2"))
    result = replay_json(sudya("replay", "ed2.yaml", env=env))
    assert result["rulebook"] == {"id": "clan-championship", "edition": "2"}
    (ruling,) = result["rulings"]
    assert ruling["infraction"] == "bot-usage" and ruling["cause"] == "table"
    assert [s["kind"] for s in ruling["sanctions"]] == ["fighter-dq", "technical-defeat"]
    assert result["subjects"]["grom"]["status"] == "disqualified"

    write(tmp_path / "newest.yaml", bot_scenario(None))
    newest = replay_json(sudya("replay", "newest.yaml", env=env))
    assert newest["rulebook"]["edition"] == "2"

    write(tmp_path / "ed1.yaml", bot_scenario("1"))
    assert_refused(sudya("replay", "ed1.yaml", env={**env, **ENGLISH}),
                   "event b1", "infraction", "'bot-usage'")


def test_edition_2_is_unknown_without_the_precedent(sudya: Sudya, tmp_path: Path) -> None:
    write(tmp_path / "ed2.yaml", bot_scenario("2"))
    assert_refused(sudya("replay", "ed2.yaml"), "rulebook", "нет редакции «2»")
    assert_refused(sudya("rulebook", "diff", "clan-championship", "1", "2", env=ENGLISH),
                   "edition '2'")


def test_second_precedent_builds_on_the_first(sudya: Sudya, tmp_path: Path) -> None:
    books = tmp_path / "books"
    books.mkdir()
    assert precedent(sudya, books).returncode == 0
    env = {"SUDYA_RULEBOOK_PATH": str(books)}
    again = precedent(sudya, books)
    assert_refused(again, "нарушение «bot-usage» уже есть в редакции 2")
    run = sudya("rulebook", "precedent", "clan-championship", "--infraction", "macro-usage",
                "--name", "Макросы", "--sanctions", "warning", env=env)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in books.iterdir()) == [
        "clan-championship.2.yaml", "clan-championship.3.yaml"]
    diff = sudya("rulebook", "diff", "clan-championship", "1", "3", env=env)
    assert sorted(diff.stdout.splitlines()) == ["+ infraction bot-usage",
                                                "+ infraction macro-usage"]


def test_precedent_unknown_sanction_writes_nothing(sudya: Sudya, tmp_path: Path) -> None:
    books = tmp_path / "books"
    books.mkdir()
    run = sudya("rulebook", "precedent", "clan-championship", "--infraction", "bot-usage",
                "--name", "Использование бота", "--sanctions", "fighter-dq,banishment",
                env={"SUDYA_RULEBOOK_PATH": str(books)})
    assert_refused(run, "--sanctions", "неизвестный вид наказания «banishment»", "fighter-dq")
    assert list(books.iterdir()) == []


def test_precedent_empty_sanctions(sudya: Sudya, tmp_path: Path) -> None:
    books = tmp_path / "books"
    books.mkdir()
    run = sudya("rulebook", "precedent", "clan-championship", "--infraction", "x",
                "--name", "X", "--sanctions", " , ", env={"SUDYA_RULEBOOK_PATH": str(books)})
    assert_refused(run, "--sanctions")
    assert list(books.iterdir()) == []


# ---------------------------------------------------------------------- demo


def test_demo(sudya: Sudya) -> None:
    run = sudya("demo")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "┏" in out and "┃ event" in out
    assert "Демо-турнир «Берсерк»" in out
    assert "stacking" in line_with(out, "│ m1")
    assert "repeat" in line_with(out, "│ d7")
    assert "suspension" in line_with(out, "│ d8", "conduct.severe")
    assert out.splitlines()[-1].startswith("sudya replay ")
    assert out.splitlines()[-1].endswith("berserk-demo.yaml")


def test_demo_in_english(sudya: Sudya) -> None:
    run = sudya("demo", "--lang", "en")
    assert run.returncode == 0, run.stderr
    assert "Demo tournament" in run.stdout and "player" in run.stdout


# ----------------------------------------------------------- the console script


def test_help(sudya: Sudya) -> None:
    run = sudya("--help")
    assert run.returncode == 0
    for command in ("replay", "rulebooks", "rulebook", "lookup", "demo"):
        assert command in run.stdout


def test_a_database_error_is_one_line_and_exit_1(sudya: Sudya, tmp_path: Path) -> None:
    """SQLAlchemy is imported only by commands that open a ledger, yet its errors are still
    one line: a file that is no database."""
    bad = tmp_path / "not-a.db"
    bad.write_bytes(b"not a database at all, just text")
    run = sudya("audit", "verify", "--db", f"sqlite:///{bad}")
    assert run.returncode == 1, (run.stdout, run.stderr)
    assert run.stderr_lines == ["sudya: database error: file is not a database"]


# ------------------------------------------------------- end to end: real processes


@pytest.mark.slow
def test_console_script(tmp_path: Path) -> None:
    """The installed `sudya` script, and `python -m sudya`, as the user runs them."""
    script = Path(sys.executable).parent / "sudya"
    if not script.exists():
        pytest.skip(f"no console script beside {sys.executable}")
    listed = run_process(tmp_path, "rulebooks", command=[str(script)])
    assert listed.returncode == 0, listed.stderr
    for rid in BUNDLED_IDS:
        assert rid in listed.stdout
    refused = run_process(tmp_path, "rulebook", "show", "chess", lang="en",
                          command=[sys.executable, "-m", "sudya"])
    assert_refused(refused, "unknown rulebook", "'chess'")


def _after(tmp_path: Path, expression: str, *args: str, env: dict[str, str] | None = None
           ) -> Any:
    """The value of `expression` (a Python literal's text) once `sudya ARGS` has ended, run by
    the console entry point in a fresh interpreter (a replay's end at once, `os._exit`, is an
    exit the code after it sees, as sys.exit's)."""
    code = ("import os, sys; from sudya.edges.cli.entry import main; "
            "ended = []; os._exit = lambda status: (ended.append(status), sys.exit(status)); "
            f"sys.argv = ['sudya', *{list(args)!r}]\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            f"sys.stderr.write(repr({expression}))")
    with process([sys.executable, "-c", code], tmp_path, environ=env or kit_env(),
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    return ast.literal_eval(err.splitlines()[-1])


def _modules_after(tmp_path: Path, *args: str) -> list[str]:
    """The modules `sudya ARGS` has imported when it ends."""
    loaded: list[str] = _after(tmp_path, "sorted(sys.modules)", *args)
    return loaded


@pytest.mark.slow
def test_replay_needs_no_database_library(tmp_path: Path) -> None:
    """`sudya replay FILE` imports no SQLAlchemy (0.2 s of every replay's start), no rich,
    none of the other commands' modules (0.1-0.2 s more), not the application's core and not
    the command-line library (typer and click, 40-50 ms); pydantic's plugins are not looked
    for (40-80 ms)."""
    scenario = str(SHARED_SCENARIOS / "berserk-basics.yaml")
    loaded = _modules_after(tmp_path, "replay", scenario)
    assert "sudya.app.scenario" in loaded  # it did replay
    assert [m for m in loaded if m.startswith(("sqlalchemy", "rich", "typer", "click",
                                               "sudya.edges.cli."))] == ["sudya.edges.cli.entry"]
    assert "sudya.app.core" not in loaded and "sudya.app.ledger" not in loaded
    # anything more on the command line (help, options) is typer's, as every other command
    assert "typer" in _modules_after(tmp_path, "replay", "--help")


@pytest.mark.slow
def test_replay_ends_at_once_with_all_its_output(tmp_path: Path) -> None:
    """A replay's process ends as soon as its last byte is written (`os._exit(0)`), not after
    the interpreter has freed its rulings one by one (0.5 s of a season's replay): its output
    is whole all the same, into a file as into a pipe; a refused scenario still exits 2."""
    scenario = str(SHARED_SCENARIOS / "berserk-basics.yaml")
    assert _after(tmp_path, "ended", "replay", scenario) == [0]
    bad = write(tmp_path / "bad.yaml", "rulebook: berserk\n")
    assert _after(tmp_path, "ended", "replay", str(bad)) == []
    refused = run_process(tmp_path, "replay", bad, lang="en")
    assert_refused(refused, "level", "required")
    out = tmp_path / "out.json"
    with out.open("wb") as sink, process([*COMMAND, "replay", scenario], tmp_path,
                                         stdout=sink, stderr=subprocess.PIPE) as proc:
        _nothing, error = proc.communicate(timeout=120)
    assert proc.returncode == 0, error
    assert out.read_bytes().endswith(b"\n}\n")
    assert json.loads(out.read_bytes())["rulings"]


@pytest.mark.slow
def test_replay_into_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`sudya replay FILE | head`: once the reader stops reading, exit 1 and not a word (no
    BrokenPipeError traceback), as typer ends the commands it runs."""
    players = [f"p{i}" for i in range(3000)]  # 3,000 rulings: more than a pipe's buffer
    scenario = {"rulebook": "berserk", "level": "professional", "date": "2026-03-01",
                "players": players,
                "events": [{"id": f"e{i}", "infraction": "gameplay.slow-play", "player": p,
                            "round": 1} for i, p in enumerate(players)]}
    path = tmp_path / "big.json"
    path.write_text(json.dumps(scenario), encoding="utf-8")
    with process([sys.executable, "-m", "sudya", "replay", path], tmp_path,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE) as proc:
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.read(100).startswith(b"{")
        proc.stdout.close()
        error = proc.stderr.read()
        assert proc.wait(timeout=120) == 1
    assert error == b""


@pytest.mark.slow
def test_replay_interrupted_ends_as_every_command_does(tmp_path: Path) -> None:
    """Ctrl-C while `sudya replay FILE` reads its file: exit 130 and not a word (no
    KeyboardInterrupt traceback), as typer ends the commands it runs."""
    fifo = tmp_path / "season.json"
    os.mkfifo(fifo)
    # opening the pipe to write returns once the command has opened it to read: it is then
    # inside the replay, waiting for the file's bytes
    # Ctrl-C as a terminal delivers it, whatever this test process inherited: a shell runs
    # a background job with SIGINT ignored, and an ignored SIGINT stays ignored in a child
    # (Python then never turns it into KeyboardInterrupt, and the replay waits for ever)
    with process([sys.executable, "-m", "sudya", "replay", fifo], tmp_path,
                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                 preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)
                 ) as proc, fifo.open("wb"):
        proc.send_signal(signal.SIGINT)
        out, error = proc.communicate()
    assert (proc.returncode, out, error) == (130, b"", b"")


@pytest.mark.slow
def test_no_pydantic_plugin_is_looked_for_unless_asked(tmp_path: Path) -> None:
    """The entry point turns pydantic's plugin search off, unless the variable is set."""
    env = {k: v for k, v in kit_env().items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    for given, seen in ((None, "__all__"), ("", "")):
        run_env = env if given is None else {**env, "PYDANTIC_DISABLE_PLUGINS": given}
        assert _after(tmp_path, "os.environ.get('PYDANTIC_DISABLE_PLUGINS')", "rulebooks",
                      env=run_env) == seen
