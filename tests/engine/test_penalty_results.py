"""Issue 36: a match loss given as a penalty enters the table's result by itself.

A paired table whose match a ruling decides (a match loss, a fixed score) counts in the
standings without a result being entered: the other side wins it 2-0, as a bye; the result
is the ruling's, gone with it when revoked; a result entered later takes its place and the
penalty still applies to it. Expected numbers are worked out by hand."""

from __future__ import annotations

from sudya.domain.engine.model import Result, Roster, Ruling, Sanction
from sudya.domain.rulebook import loader
from sudya.domain.standings import Seat, by_penalty, standings

BOOK = loader.load("berserk")
ROSTER = Roster(players=["ada", "bob", "cy", "dee"])
ROUND_1 = [Seat(0, 1, 1, "ada", "bob"), Seat(0, 1, 2, "cy", "dee")]


def loss(player: str, round: int = 1, *, next_match: bool = False,
         kind: str = "match-loss", revoked: bool = False) -> Ruling:
    ruling = Ruling(event=f"e-{player}-{kind}", subject=player, infraction="conduct.major",
                    cause="table", round=round,
                    applies_to={kind: "next-match"} if next_match else None)
    sanction = Sanction(kind=kind, subject=player, rank=4, ruling=ruling)
    sanction.revoked = revoked
    ruling.sanctions = [sanction]
    return ruling


def line(rows: dict[str, dict[str, object]], player: str) -> tuple[object, ...]:
    row = rows[player]
    return (row["match_points"], row["wins"], row["losses"], row["games_won"],
            row["games_lost"])


def table(rulings: list[Ruling], results: list[tuple[Result, int]],
          seats: list[Seat] = ROUND_1) -> dict[str, dict[str, object]]:
    out = standings(BOOK, ROSTER, rulings, results, always=True, pairings=seats)
    assert out is not None
    return out["players"]


def test_a_match_loss_at_a_table_without_a_result_counts_as_lost_2_0() -> None:
    rows = table([loss("ada")], [])
    assert line(rows, "ada") == (0, 0, 1, 0, 2)
    assert line(rows, "bob") == (3, 1, 0, 2, 0)
    assert line(rows, "cy") == (0, 0, 0, 0, 0)  # the other table waits for its result
    [(made, position)] = by_penalty(BOOK, ROSTER, [loss("ada")], [], ROUND_1)
    assert (made.id, made.players, made.score, made.round, position) == \
        ("penalty:1:1", ("ada", "bob"), (0, 2), 1, 0)


def test_the_second_side_losing_is_scored_from_its_side() -> None:
    rows = table([loss("bob")], [])
    assert line(rows, "ada") == (3, 1, 0, 2, 0) and line(rows, "bob") == (0, 0, 1, 0, 2)


def test_both_sides_losing_is_a_loss_for_each() -> None:
    rows = table([loss("ada"), loss("bob")], [])
    assert line(rows, "ada") == (0, 0, 1, 0, 0) and line(rows, "bob") == (0, 0, 1, 0, 0)


def test_a_result_entered_takes_the_place_of_the_penalty_one() -> None:
    entered = [(Result("r1", ("bob", "ada"), (1, 2), 1), 0)]
    assert by_penalty(BOOK, ROSTER, [loss("ada")], entered, ROUND_1) == []
    rows = table([loss("ada")], entered)
    # ada won 2-1 at the table, and still loses the match to the penalty: counted once
    assert line(rows, "ada") == (0, 0, 1, 2, 1) and line(rows, "bob") == (3, 1, 0, 1, 2)


def test_a_revoked_loss_enters_nothing() -> None:
    assert by_penalty(BOOK, ROSTER, [loss("ada", revoked=True)], [], ROUND_1) == []
    assert line(table([loss("ada", revoked=True)], []), "bob") == (0, 0, 0, 0, 0)


def test_a_loss_for_the_next_match_decides_the_next_rounds_table() -> None:
    seats = [*ROUND_1, Seat(0, 2, 1, "ada", "cy"), Seat(0, 2, 2, "bob", "dee")]
    results = [(Result("r1", ("ada", "bob"), (2, 0), 1), 0),
               (Result("r2", ("cy", "dee"), (2, 0), 1), 0)]
    made = by_penalty(BOOK, ROSTER, [loss("ada", next_match=True)], results, seats)
    assert [(r.id, r.score) for r, _t in made] == [("penalty:2:1", (0, 2))]
    rows = table([loss("ada", next_match=True)], results, seats)
    assert line(rows, "ada") == (3, 1, 1, 2, 2) and line(rows, "cy") == (6, 2, 0, 4, 0)


def test_a_game_loss_alone_decides_no_table() -> None:
    assert by_penalty(BOOK, ROSTER, [loss("ada", kind="game-loss")], [], ROUND_1) == []


def test_a_table_of_another_tournament_is_not_decided() -> None:
    # the ruling is of the tournament at position 0; the seat of position 1
    assert by_penalty(BOOK, ROSTER, [loss("ada")], [], [Seat(1, 1, 1, "ada", "bob")]) == []
