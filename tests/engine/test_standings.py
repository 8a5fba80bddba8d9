"""Standings: where a carried loss is counted, who takes no place, and how the tables are
ranked (src/sudya/domain/standings.py with the bundled rulebooks' `scoring`).

(a) a sanction whose ruling says it applies to the next match (`applies_to`) is counted in the
    next round's match, on every path: given between matches, made by stacking at the end of
    a match (regulations.md §1.2–1.3), carried by the judge (§4 E8) — and read back from the
    ledger, where only `applies_to` says so;
(b) a disqualified team or fighter of the clan championship takes no place (003
    «Дисквалификация команды», «с турнира/чемпионата»: out of the tournament) and is listed
    after everyone placed; a disqualified «Берсерк» player keeps the place (002);
(c) the team wargame's tables are ranked by the final result (004), ties by game points.

Expected numbers are worked out by hand from the regulations, never read from the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from sudya.app.scenario import replay
from sudya.domain.engine.model import Result, Roster, Ruling, Sanction
from sudya.domain.rulebook import loader
from sudya.domain.standings import standings


def table(scenario: dict[str, Any]) -> dict[str, Any]:
    out = replay(scenario)["standings"]
    assert isinstance(out, dict)
    return out


def outcome(rows: dict[str, Any], player: str) -> tuple[int, int]:
    return rows[player]["wins"], rows[player]["losses"]


# ---------------------------------------------------------------------------------- (a)
BERSERK = {"rulebook": "berserk", "level": "professional", "date": "2026-03-01",
           "settings": {"decklists": True}, "players": ["ada", "bob"]}
TWO_ROUNDS = [{"result": {"round": 1, "players": ["ada", "bob"], "score": "2-0"}},
              {"result": {"round": 2, "players": ["ada", "bob"], "score": "2-0"}}]


@pytest.mark.parametrize("given", [
    # §1.2: a match loss given between matches applies to the next match
    [{"id": "e1", "infraction": "conduct.major", "player": "ada", "round": 1,
      "details": {"between_matches": True}}],
    # §4 E8: the judge carries it there near the end of the round
    [{"id": "e1", "infraction": "conduct.major", "player": "ada", "round": 1,
      "details": {"carry_to_next": True}}],
    # §1.3: three rank-3 penalties become a match loss at the end of the match
    [{"id": "g1", "infraction": "deck.invalid-decklist", "player": "ada", "round": 1},
     {"id": "g2", "infraction": "procedure.draft-violation", "player": "ada", "round": 1},
     {"id": "g3", "infraction": "marked-cards.significant", "player": "ada", "round": 1},
     {"id": "m1", "end-of-match": {"round": 1}}],
], ids=["between-matches", "carry-to-next", "stacking"])
def test_a_match_loss_applying_to_the_next_match_is_counted_there(
        given: list[dict[str, Any]]) -> None:
    rulings = replay({**BERSERK, "events": [*given, *TWO_ROUNDS]})["rulings"]
    assert rulings[-1]["applies_to"] == {"match-loss": "next-match"}
    rows = table({**BERSERK, "events": [*given, *TWO_ROUNDS]})["players"]
    # round 1 stands as played (ada 2-0); ada loses round 2 although she won it 2-0
    assert outcome(rows, "ada") == (1, 1) and outcome(rows, "bob") == (1, 1)
    assert rows["ada"]["games_won"] == 4  # games stay as played (+ none lost to penalties)


def test_a_match_loss_given_during_the_match_is_counted_in_it() -> None:
    given = [{"id": "e1", "infraction": "conduct.major", "player": "ada", "round": 1}]
    rows = table({**BERSERK, "events": [*given, *TWO_ROUNDS]})["players"]
    assert outcome(rows, "ada") == (1, 1) and outcome(rows, "bob") == (1, 1)
    # the loss is in round 1: ada loses the match she won, and wins round 2
    only_round_1 = table({**BERSERK, "events": [*given, TWO_ROUNDS[0]]})["players"]
    assert outcome(only_round_1, "ada") == (0, 1)


def test_a_game_loss_carried_to_the_next_game_stays_in_the_rounds_match() -> None:
    # the next game is of the same match (as for a game loss given between games)
    given = [{"id": "e1", "infraction": "deck.invalid-decklist", "player": "ada", "round": 1,
              "details": {"carry_to_next": True}},
             {"result": {"round": 1, "players": ["ada", "bob"], "score": "1-1"}}]
    rows = table({**BERSERK, "events": given})["players"]
    assert outcome(rows, "bob") == (1, 0)
    assert (rows["bob"]["games_won"], rows["bob"]["games_lost"]) == (2, 1)


def test_a_stored_ruling_moves_by_its_applies_to_alone() -> None:
    """The ledger reads back applies_to; no detail or cause is needed to find the match."""
    book = loader.load("berserk")
    roster = Roster(players=["ada", "bob"])
    ruling = Ruling(event="e1", subject="ada", infraction="conduct.major", cause="table",
                    round=1, applies_to={"match-loss": "next-match"})
    ruling.sanctions = [Sanction(kind="match-loss", subject="ada", rank=4, ruling=ruling),
                        Sanction(kind="warning", subject="ada", rank=2, attached=True,
                                 ruling=ruling)]
    results = [(Result(id="r1", players=("ada", "bob"), score=(2, 0), round=1), 0),
               (Result(id="r2", players=("ada", "bob"), score=(2, 0), round=2), 0)]
    out = standings(book, roster, [ruling], results)
    assert out is not None
    assert outcome(out["players"], "ada") == (1, 1)
    ruling.applies_to = None  # the same ruling given during the match: round 1
    out = standings(book, roster, [ruling], results[:1])
    assert out is not None and outcome(out["players"], "ada") == (0, 1)


# ---------------------------------------------------------------------------------- (b)
CLAN = {"rulebook": "clan-championship", "date": "2026-03-01",
        "players": ["a1", "a2", "b1", "b2", "c1", "c2"],
        "teams": {"north": ["a1", "a2"], "south": ["b1", "b2"], "east": ["c1", "c2"]}}
# north wins all four of its fights, south one, east one
FIGHTS = [{"result": {"round": 1, "players": ["a1", "b1"], "score": "1-0"}},
          {"result": {"round": 1, "players": ["a2", "c1"], "score": "1-0"}},
          {"result": {"round": 1, "players": ["b2", "c2"], "score": "1-0"}},
          {"result": {"round": 2, "players": ["a1", "c2"], "score": "1-0"}},
          {"result": {"round": 2, "players": ["a2", "b2"], "score": "1-0"}},
          {"result": {"round": 2, "players": ["c1", "b1"], "score": "1-0"}}]


def test_the_clan_table_without_disqualifications() -> None:
    teams = table({**CLAN, "events": FIGHTS})["teams"]
    assert [(t, row["place"], row["match_points"]) for t, row in teams.items()] == [
        ("north", 1, 4), ("east", 2, 1), ("south", 3, 1)]


def test_a_disqualified_team_does_not_stay_first() -> None:
    # north's captain was absent in round 2 (003: team DQ): it keeps the fights it won, but is
    # out of the tournament — no place, listed after everyone; the others close up
    dq = {"id": "t1", "infraction": "team.captain-absent", "team": "north", "round": 2}
    teams = table({**CLAN, "events": [*FIGHTS, dq]})["teams"]
    assert [(t, row["place"], row["status"]) for t, row in teams.items()] == [
        ("east", 1, "active"), ("south", 2, "active"), ("north", None, "disqualified")]
    assert teams["north"]["match_points"] == 4


def test_disqualified_teams_and_fighters_are_listed_after_everyone_placed() -> None:
    dqs = [{"id": "t1", "infraction": "team.captain-absent", "team": "north", "round": 2},
           {"id": "t2", "infraction": "team.no-show", "team": "east", "round": 2},
           {"id": "f1", "infraction": "heal-after-ban", "player": "a1", "round": 2}]
    out = table({**CLAN, "events": [*FIGHTS, *dqs]})
    assert [(t, row["place"]) for t, row in out["teams"].items()] == [
        ("south", 1), ("north", None), ("east", None)]  # the unplaced by points, then id
    players = out["players"]
    # a1 (2 fights won) is disqualified: a2 (2) leads; a1 is listed last with no place
    assert list(players)[0] == "a2" and list(players)[-1] == "a1"
    assert players["a1"]["place"] is None and players["a1"]["status"] == "disqualified"
    assert [row["place"] for row in players.values()] == [1, 2, 3, 4, 5, None]


def test_a_disqualification_overturned_gives_the_place_back() -> None:
    dq = {"id": "t1", "infraction": "team.captain-absent", "team": "north", "round": 2}
    undo = {"id": "a1", "appeal": {"of": "t1", "judge": "m", "outcome": "overturned"}}
    teams = table({**CLAN, "judges": {"m": {"role": "tournament-master"}},
                   "events": [*FIGHTS, dq, undo]})["teams"]
    assert (teams["north"]["place"], teams["north"]["status"]) == (1, "active")


def test_a_disqualified_berserk_player_keeps_the_place() -> None:
    # 002: «Текущее количество его очков остаётся прежним, и он вправе ... рассчитывать на
    # призы, положенные ему за занятое место»
    scenario = {**BERSERK, "level": "amateur", "events": [
        {"result": {"round": 1, "players": ["ada", "bob"], "score": "2-0"}},
        {"id": "e1", "infraction": "cheating.fraud", "player": "ada", "round": 1,
         "details": {"between_matches": True}}]}
    rows = table(scenario)["players"]
    assert (rows["ada"]["place"], rows["ada"]["status"]) == (1, "disqualified")


# ---------------------------------------------------------------------------------- (c)
WARGAME = {"rulebook": "team-wargame", "date": "2026-03-01",
           "players": ["ivan", "petr", "olga", "nina"],
           "teams": {"wolves": ["ivan", "petr"], "bears": ["olga", "nina"]},
           "judges": {"yuri": {"role": "senior-judge"}}}


def test_team_wargame_tables_are_ranked_by_the_final_result() -> None:
    # wolves registered first and won more game points (23 to 17), but their two red cards
    # cost 5 each (004: «вычитает из итогового результата 5 К.О.»): wolves 13, bears 17
    events = [{"result": {"round": 1, "players": ["ivan", "olga"], "score": "12-8"}},
              {"result": {"round": 1, "players": ["petr", "nina"], "score": "11-9"}},
              {"id": "r1", "infraction": "red-list-model", "player": "ivan", "judge": "yuri",
               "round": 1},
              {"id": "r2", "infraction": "red-list-model", "player": "petr", "judge": "yuri",
               "round": 1}]
    teams = table({**WARGAME, "events": events})["teams"]
    assert [(t, row["place"], row["game_points"], row["total"]) for t, row in teams.items()] \
        == [("bears", 1, 17, 17), ("wolves", 2, 23, 13)]


def test_team_wargame_ties_go_to_the_game_points_then_the_id() -> None:
    # petr's second disruptive behaviour costs him 5 points (004): equal totals are ordered
    # by game points, then by id
    events = [{"result": {"round": 1, "players": ["ivan", "olga"], "score": "10-10"}},
              {"result": {"round": 1, "players": ["petr", "nina"], "score": "15-5"}},
              {"id": "d1", "infraction": "disruptive-behaviour", "player": "petr",
               "judge": "yuri", "round": 1},
              {"id": "d2", "infraction": "disruptive-behaviour", "player": "petr",
               "judge": "yuri", "round": 1}]
    players = table({**WARGAME, "events": events})["players"]
    # petr 15 - 5 = 10 ties ivan and olga at 10; petr has more game points (15)
    assert [(p, row["place"], row["total"]) for p, row in players.items()] == [
        ("petr", 1, 10), ("ivan", 2, 10), ("olga", 3, 10), ("nina", 4, 5)]
