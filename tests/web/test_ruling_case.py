"""A recorded ruling made a test case of its rulebook («сделать проверочным случаем»,
app.ruling_case): the scenario read back from a real SQLite ledger (the demo) replays to the
ruling the ledger recorded; the dashboard offers it to one who writes rulebooks, and the link
opens the editor on the tournament's rulebook with the case."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from sudya.adapters.scenario_file import plain
from sudya.app.ledger import Ledger
from sudya.app.queries import rulings_json
from sudya.app.rulebook_cases import outcome_texts, run_draft, sanction_shape
from sudya.app.ruling_case import case_from_ruling
from sudya.app.scenario import replay
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader

BERSERK = 1  # the demo's tournaments (sudya.app.demo)
CLAN = 2
WARGAME = 3
RULEBOOK = {BERSERK: "berserk", CLAN: "clan-championship", WARGAME: "team-wargame"}
BUNDLED = Path(loader.__file__).parent / "bundled"
# every infraction the demo records, by tournament
DEMO = [(BERSERK, "e13"), (BERSERK, "e14"), (BERSERK, "e15"), (CLAN, "e6"), (CLAN, "e7"),
        (CLAN, "e8"), (WARGAME, "e9"), (WARGAME, "e10"), (WARGAME, "e11")]


def _shape(r: dict[str, Any]) -> tuple[Any, ...]:
    return (r["subject"], r["infraction"], r["cause"], bool(r.get("pending")),
            [sanction_shape(s, r["subject"]) for s in r["sanctions"]])


def recorded(ledger: Ledger, tournament: int, event: str) -> list[tuple[Any, ...]]:
    with ledger.factory() as s:
        return [_shape(r) for r in rulings_json(s, tournament) if r["event"] == event]


def replayed(scenario: str, event: str) -> list[tuple[Any, ...]]:
    data = plain(loader.parse_yaml(scenario, "case.yaml"))
    return [_shape(r) for r in replay(data)["rulings"] if r["event"] == event]


def case(ledger: Ledger, tournament: int, event: str) -> Any:
    with ledger.factory() as s:
        return case_from_ruling(s, tournament, event)


@pytest.mark.parametrize(("tournament", "event"), DEMO)
def test_the_case_of_each_demo_ruling_gives_what_the_ledger_recorded(
        ledger: Ledger, tournament: int, event: str) -> None:
    made = case(ledger, tournament, event)
    assert recorded(ledger, tournament, event) == replayed(made.scenario, event) != []
    # kept beside the rulebook it came from, the case passes (its expected is the replay's)
    text = (BUNDLED / f"{RULEBOOK[tournament]}.yaml").read_text("utf-8")
    (outcome,) = run_draft(text, [made])
    assert outcome.passed, outcome.problems


def test_a_repeat_brings_the_earlier_infraction_with_it(ledger: Ledger) -> None:
    """boris's second slow play (the demo's e13 was the first): the case holds both, in
    ledger order, and only his; replayed, it escalates as the ledger did."""
    ledger.record(tournament=BERSERK, infraction="gameplay.missed-trigger", player="alisa",
                  judge="sudya", round=2, details={"opponent": "egor"}, event_id="mt-2")
    ledger.record(tournament=BERSERK, infraction="gameplay.slow-play", player="boris",
                  judge="sudya", round=2, event_id="slow-2")
    made = case(ledger, BERSERK, "slow-2")
    assert made.name == "gameplay.slow-play-boris-slow-2"
    assert made.scenario.startswith(
        "rulebook: berserk\nlevel: professional\ndate: ")
    assert "players: [boris]\njudges:\n  sudya: {role: floor-judge}\nevents:\n" \
        "  - {id: e13, infraction: gameplay.slow-play, player: boris, judge: sudya, round: 1}\n" \
        "  - {id: slow-2, infraction: gameplay.slow-play, player: boris, judge: sudya, " \
        "round: 2}\n" in made.scenario
    ruled = recorded(ledger, BERSERK, "slow-2")
    assert ruled == [("boris", "gameplay.slow-play", "repeat", False,
                      [{"kind": "game-loss"}, {"kind": "warning", "attached": True}])]
    assert replayed(made.scenario, "slow-2") == ruled
    assert '"cause": "repeat"' in made.expected and '"event": "e13"' in made.expected

    # under a draft where a slow play at the professional level is a game loss, the case
    # says what changed, in words
    harsh = (BUNDLED / "berserk.yaml").read_text("utf-8").replace(
        "penalty: {amateur: caution, professional: warning, highest: warning}",
        "penalty: {amateur: caution, professional: game-loss, highest: warning}", 1)
    (outcome,) = run_draft(harsh, [made])
    assert not outcome.passed
    book = loader.load("berserk")
    assert outcome_texts(outcome, book, "ru") == [
        "e13 · boris · Замедленный темп игры: ожидали Предупреждение, получили Поражение в "
        "партии",
        "slow-2 · boris · Замедленный темп игры: ожидали Поражение в партии, получили "
        "Поражение в матче",
        "boris: Поражение в матче: ожидали 0, получили 1"]


def test_what_is_no_infraction_is_refused(ledger: Ledger) -> None:
    with pytest.raises(SudyaError) as info:
        case(ledger, BERSERK, "e10")  # a game result
    assert info.value.code == "cases.not-an-infraction"
    with pytest.raises(SudyaError) as info:
        case(ledger, BERSERK, "e6")  # the clan tournament's
    assert info.value.code == "event.no-ruling"


def test_an_organiser_makes_a_ruling_a_test_case(
        signed_in: Callable[[str], TestClient]) -> None:
    head = signed_in("glavsud")  # the demo's organiser
    board = head.get(f"/t/{BERSERK}").text
    assert f'href="/t/{BERSERK}/rulings/e13/case"' in board
    assert "сделать проверочным случаем" in board
    r = head.get(f"/t/{BERSERK}/rulings/e13/case", follow_redirects=False)
    assert r.status_code == 303
    assert r.headers["location"] == f"/rulebooks/editor?from=berserk&case={BERSERK}:e13"
    assert head.get(f"/t/{BERSERK}/rulings/e10/case",
                    follow_redirects=False).status_code == 422
    assert head.get(f"/t/{BERSERK}/rulings/nope/case",
                    follow_redirects=False).status_code == 404


def test_a_judge_who_writes_no_rulebooks_is_not_offered_it(
        signed_in: Callable[[str], TestClient]) -> None:
    floor = signed_in("sudya")  # a floor judge, no organiser
    board = floor.get(f"/t/{BERSERK}").text
    assert "/rulings/e13/case" not in board
    assert floor.get(f"/t/{BERSERK}/rulings/e13/case",
                     follow_redirects=False).status_code == 403
