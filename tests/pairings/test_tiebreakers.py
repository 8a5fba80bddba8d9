"""The tiebreakers after match points (src/sudya/domain/standings.py, `scoring.tiebreakers`):
`gw`, `ogw`, `buchholz` and `sb` beside `omw`, each worked out by hand on a small tournament,
and the rulebook's order of them deciding the places.

The four players' three rounds (win 3, draw 1, loss 0; a score is games won):

    round 1: A–B 2-0, C–D 1-1     round 2: A–C 1-1, B–D 2-0     round 3: A–D 2-0, B–C 1-1

    points      A 7 (W D W)   B 4 (L W D)   C 3 (D D D)   D 1 (D L L)
    games       A 5-1         B 3-3         C 3-3         D 1-5
    gw          A 5/6 = .8333 B 1/2         C 1/2         D 1/6 = .1667
    buchholz    A 4+3+1 = 8   B 7+1+3 = 11  C 1+7+4 = 12  D 3+4+7 = 14
    sb          A 4 + 3/2 + 1 = 6.5;  B 1 + 3/2 = 2.5;  C 1/2 + 7/2 + 4/2 = 6;  D 3/2 = 1.5
    ogw, floor 1/3 (D's 1/6 counts 1/3):
                A (1/2 + 1/2 + 1/3)/3 = 4/9 = .4444;  B (5/6 + 1/3 + 1/2)/3 = 5/9 = .5556;
                C (1/3 + 5/6 + 1/2)/3 = .5556;        D (1/2 + 1/2 + 5/6)/3 = 11/18 = .6111
    ogw, floor 0: A (1/2 + 1/2 + 1/6)/3 = 7/18 = .3889;  B and C 1/2;  D .6111
    omw, floor 1/3 (rates 7/9, 4/9, 3/9, 1/9 → 3/9):
                A 10/27 = .3704;  B 13/27 = .4815;  C 14/27 = .5185;  D 14/27 = .5185

Expected numbers are worked out by hand, never read from the code.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sudya.domain.engine.model import Result, Roster, Ruling, Sanction
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook, Scoring, Tiebreaker
from sudya.domain.standings import standings

FOUR = [("A", "B", 2, 0, 1), ("C", "D", 1, 1, 1),
        ("A", "C", 1, 1, 2), ("B", "D", 2, 0, 2),
        ("A", "D", 2, 0, 3), ("B", "C", 1, 1, 3)]


def book_with(*tiebreakers: str | dict[str, str]) -> Rulebook:
    """The «Берсерк» rulebook with these tiebreakers instead of its own."""
    book = loader.load("berserk")
    assert book.scoring is not None
    scoring = book.scoring.model_copy(
        update={"tiebreakers": [Tiebreaker.model_validate(t) for t in tiebreakers]})
    return book.model_copy(update={"scoring": scoring})


def table(book: Rulebook, games: list[tuple[str, str, int, int, int]]) -> dict[str, Any]:
    players = sorted({p for g in games for p in g[:2]})
    results = [(Result(id=f"r{i}", players=(a, b), score=(ga, gb), round=rnd), 0)
               for i, (a, b, ga, gb, rnd) in enumerate(games)]
    out = standings(book, Roster(players=players), [], results)
    assert out is not None
    players_table = out["players"]
    assert isinstance(players_table, dict)
    return players_table


def test_each_tiebreaker_by_hand_in_the_rulebooks_order() -> None:
    rows = table(book_with("buchholz", "sb", "gw", "ogw", {"id": "omw", "floor": "1/3"}),
                 FOUR)
    got = {p: {k: rows[p][k] for k in ("buchholz", "sb", "gw", "ogw", "omw")} for p in rows}
    assert got == {
        "A": {"buchholz": 8, "sb": 6.5, "gw": 0.8333, "ogw": 0.4444, "omw": 0.3704},
        "B": {"buchholz": 11, "sb": 2.5, "gw": 0.5, "ogw": 0.5556, "omw": 0.4815},
        "C": {"buchholz": 12, "sb": 6, "gw": 0.5, "ogw": 0.5556, "omw": 0.5185},
        "D": {"buchholz": 14, "sb": 1.5, "gw": 0.1667, "ogw": 0.6111, "omw": 0.5185},
    }
    # a line's tiebreakers follow the rulebook's order, after the counts, before the status
    keys = list(rows["A"])
    assert keys[keys.index("match_points") + 1:] == ["buchholz", "sb", "gw", "ogw", "omw",
                                                     "status"]
    assert [rows[p]["place"] for p in "ABCD"] == [1, 2, 3, 4]  # by points: 7, 4, 3, 1


def test_ogw_floor_is_one_third_unless_the_rulebook_says_otherwise() -> None:
    assert Tiebreaker.model_validate("ogw").floor == "1/3"
    assert Tiebreaker.model_validate("omw").floor == "0"  # as before: no change for omw
    rows = table(book_with({"id": "ogw", "floor": "0"}), FOUR)
    assert {p: rows[p]["ogw"] for p in rows} == {"A": 0.3889, "B": 0.5, "C": 0.5,
                                                 "D": 0.6111}


# six players, two rounds: P, Q, W and X all on 3 points; Buchholz puts P and W (9) above
# Q and X (3), game-win percentage Q (3-2: .6) above P and X (2-2: .5) above W (2-3: .4)
SIX = [("P", "X", 2, 0, 1), ("Q", "Z", 2, 0, 1), ("Y", "W", 2, 0, 1),
       ("Y", "P", 2, 0, 2), ("W", "Q", 2, 1, 2), ("X", "Z", 2, 0, 2)]


@pytest.mark.parametrize(("order", "places"), [
    (("buchholz", "gw"), ["Y", "P", "W", "Q", "X", "Z"]),
    (("gw", "buchholz"), ["Y", "Q", "P", "X", "W", "Z"]),
], ids=["buchholz-first", "gw-first"])
def test_the_rulebooks_order_of_tiebreakers_decides_the_places(
        order: tuple[str, str], places: list[str]) -> None:
    rows = table(book_with(*order), SIX)
    assert list(rows) == places
    assert [rows[p]["place"] for p in places] == [1, 2, 3, 4, 5, 6]


def test_a_player_without_a_counted_match_has_zero() -> None:
    book = book_with("buchholz", "sb", "gw", "ogw")
    results = [(Result(id="r1", players=("A", "B"), score=(2, 0), round=1), 0)]
    out = standings(book, Roster(players=["A", "B", "C"]), [], results)
    assert out is not None
    rows = out["players"]
    assert {k: rows["C"][k] for k in ("buchholz", "sb", "gw", "ogw")} == \
        {"buchholz": 0, "sb": 0, "gw": 0.0, "ogw": 0.0}
    # A beat B, who has no point: nothing for Sonneborn–Berger; B's Buchholz is A's 3
    assert (rows["A"]["sb"], rows["B"]["buchholz"], rows["B"]["ogw"]) == (0, 3, 1.0)


def test_sb_counts_the_match_as_the_rulings_made_it() -> None:
    """A won 2-0 on the board but was given a match loss in that round («Берсерк»: a match
    loss loses the match whatever the score): B beat A. Then A beat C. Points A 3, B 3, C 0:
    B's Sonneborn–Berger is A's 3, A's is C's 0."""
    ruling = Ruling(event="e1", subject="A", infraction="conduct.major", cause="table",
                    round=1)
    ruling.sanctions = [Sanction(kind="match-loss", subject="A", rank=4, ruling=ruling)]
    results = [(Result(id="r1", players=("A", "B"), score=(2, 0), round=1), 0),
               (Result(id="r2", players=("A", "C"), score=(2, 0), round=2), 0)]
    out = standings(book_with("sb", "buchholz"), Roster(players=["A", "B", "C"]), [ruling],
                    results)
    assert out is not None
    rows = out["players"]
    assert {p: (rows[p]["match_points"], rows[p]["sb"], rows[p]["buchholz"]) for p in rows} \
        == {"A": (3, 0, 3), "B": (3, 3, 3), "C": (0, 0, 3)}


@pytest.mark.parametrize("tiebreakers", [
    [{"id": "gw", "floor": "1/3"}],  # a floor belongs to the opponents' rates only
    [{"id": "sb", "floor": "0"}],
    ["omw", "omw"],  # one column each
    ["median"],
])
def test_the_schema_refuses(tiebreakers: list[Any]) -> None:
    with pytest.raises(ValidationError):
        Scoring.model_validate({"kind": "match-points", "tiebreakers": tiebreakers})
