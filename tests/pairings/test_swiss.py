"""Swiss pairings and the top cut (src/sudya/domain/swiss.py), case by case.

Each case's pairing is worked out by hand from the rules in the module's docstring: no
rematch; the bye to the lowest-ranked of those with the fewest byes; within score groups,
an odd group's lowest player paired down to the top of the next group; neighbours in the
standings meet; dropped players are left out; round 1 folds the given order.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from sudya.domain.swiss import Entrant, Notice, Pairing, Round, pair_round, top_cut


def entrants(*rows: tuple[str, int, str] | tuple[str, int, str, int]) -> list[Entrant]:
    """(handle, points, opponents separated by spaces[, byes]) in standing order; each
    opponent recorded on both sides, as a real history has it."""
    met: dict[str, set[str]] = {row[0]: set() for row in rows}
    for row in rows:
        for other in row[2].split():
            met[row[0]].add(other)
            met.setdefault(other, set()).add(row[0])
    return [Entrant(handle=row[0], points=row[1], rank=i + 1,
                    opponents=frozenset(met[row[0]]), byes=row[3] if len(row) > 3 else 0)
            for i, row in enumerate(rows)]


def tables(r: Round) -> list[tuple[str, str]]:
    assert [t.table for t in r.tables] == list(range(1, len(r.tables) + 1))
    return [(t.a, t.b) for t in r.tables]


# ---------------------------------------------------------------------- rematches
def test_no_rematch_the_nearest_alternative() -> None:
    """All on 3 points, A has met B and C has met D: not 1 v 2, 3 v 4 but 1 v 3, 2 v 4 (the
    nearest in the standings; 1 v 4, 2 v 3 is further)."""
    r = pair_round(entrants(("A", 3, "B"), ("B", 3, ""), ("C", 3, "D"), ("D", 3, "")))
    assert tables(r) == [("A", "C"), ("B", "D")]
    assert r.bye is None and r.warnings == ()


def test_a_rematch_only_when_unavoidable_and_reported() -> None:
    """C v D is the only pair who have not met: one rematch (A v B) rather than two."""
    r = pair_round(entrants(("A", 3, "B C D"), ("B", 3, "C D"), ("C", 0, ""), ("D", 0, "")))
    assert tables(r) == [("A", "B"), ("C", "D")]
    assert r.warnings == (Notice("pairing.rematch", ("A", "B")),)


def test_two_players_who_have_met_meet_again_with_a_warning() -> None:
    r = pair_round(entrants(("A", 3, "B"), ("B", 0, "")))
    assert tables(r) == [("A", "B")]
    assert r.warnings == (Notice("pairing.rematch", ("A", "B")),)


# ---------------------------------------------------------------------- byes
def test_the_bye_goes_to_the_lowest_ranked() -> None:
    """E has the bye; the rest: A alone on 6 pairs down to B, then C (alone on 3) to D."""
    r = pair_round(entrants(("A", 6, ""), ("B", 3, ""), ("C", 3, ""), ("D", 0, ""),
                            ("E", 0, "")))
    assert r.bye == "E"
    assert tables(r) == [("A", "B"), ("C", "D")]


def test_the_bye_skips_a_player_who_has_had_one() -> None:
    r = pair_round(entrants(("A", 6, ""), ("B", 3, ""), ("C", 3, ""), ("D", 0, ""),
                            ("E", 3, "", 1)))
    # E (3 points with their bye) is placed above D; D has had no bye and is lowest
    assert r.bye == "D"
    assert tables(r) == [("A", "B"), ("C", "E")]


def test_nobody_has_a_second_bye_while_someone_has_none() -> None:
    r = pair_round(entrants(("A", 6, ""), ("B", 3, ""), ("C", 3, "", 1)))
    assert r.bye == "B"
    assert tables(r) == [("A", "C")]
    # once everyone has had one, the lowest-ranked has the next
    r = pair_round(entrants(("A", 6, "", 1), ("B", 3, "", 1), ("C", 3, "", 1)))
    assert r.bye == "C"


def test_no_second_bye_even_at_the_price_of_a_rematch() -> None:
    """C has had a bye and has met both others: whoever of A and B has the bye, the other
    meets C again. The bye stays with the lowest-ranked of A and B (B)."""
    r = pair_round(entrants(("A", 6, "C"), ("B", 3, "C"), ("C", 3, "", 1)))
    assert r.bye == "B"
    assert tables(r) == [("A", "C")]
    assert r.warnings == (Notice("pairing.rematch", ("A", "C")),)


def test_the_bye_moves_up_when_it_would_force_a_rematch() -> None:
    """C's bye would leave A and B, who have met: B has it instead, reported."""
    r = pair_round(entrants(("A", 3, "B"), ("B", 0, ""), ("C", 0, "")))
    assert r.bye == "B"
    assert tables(r) == [("A", "C")]
    assert r.warnings == (Notice("pairing.bye-moved", ("B", "C")),)


# ---------------------------------------------------------------------- score groups
def test_an_odd_group_pairs_its_lowest_down_to_the_top_of_the_next() -> None:
    r = pair_round(entrants(("A", 6, ""), ("B", 6, ""), ("C", 6, ""),
                            ("D", 3, ""), ("E", 3, ""), ("F", 3, "")))
    assert tables(r) == [("A", "B"), ("C", "D"), ("E", "F")]


def test_a_chain_of_short_pair_downs_rather_than_one_long() -> None:
    """6 v 3 and 3 v 0 (squares 9 + 9) rather than 6 v 0 (36) and 3 v 3."""
    r = pair_round(entrants(("A", 6, ""), ("B", 3, ""), ("C", 3, ""), ("D", 0, "")))
    assert tables(r) == [("A", "B"), ("C", "D")]


def test_the_pair_down_meets_the_highest_of_the_next_group_not_yet_met() -> None:
    """C, the odd one of the 6-point group, has met D; B has met D as well: C v E, and D
    meets F (A v C, B v D would be a rematch; A v B, C v F, D v E is further)."""
    r = pair_round(entrants(("A", 6, ""), ("B", 6, "D"), ("C", 6, "D"),
                            ("D", 3, ""), ("E", 3, ""), ("F", 3, "")))
    assert tables(r) == [("A", "B"), ("C", "E"), ("D", "F")]


def test_tables_start_with_the_highest_scores_whatever_the_input_order() -> None:
    players = entrants(("A", 9, ""), ("B", 9, ""), ("C", 6, ""), ("D", 6, ""),
                       ("E", 3, ""), ("F", 3, ""), ("G", 0, ""), ("H", 0, ""))
    r = pair_round(reversed(players))
    assert tables(r) == [("A", "B"), ("C", "D"), ("E", "F"), ("G", "H")]


def test_a_large_field_pairs_neighbours_within_groups() -> None:
    """100 players (more than are paired on the complete graph): 1 v 2, 3 v 4, … with 51 on
    3 points, the 51st paired down to the 52nd."""
    players = [Entrant(handle=f"p{i:03d}", points=3 if i <= 51 else 0, rank=i,
                       opponents=frozenset({f"x{i}"})) for i in range(1, 101)]
    r = pair_round(players)
    assert tables(r) == [(f"p{i:03d}", f"p{i + 1:03d}") for i in range(1, 101, 2)]
    assert r.bye is None and r.warnings == ()


# ---------------------------------------------------------------------- who is paired
def test_dropped_players_are_never_paired_nor_given_the_bye() -> None:
    players = entrants(("A", 3, ""), ("B", 3, ""), ("C", 0, ""), ("D", 0, ""), ("E", 0, ""))
    players[1] = replace(players[1], dropped=True)
    players[4] = replace(players[4], dropped=True)
    r = pair_round(players)
    assert r.bye == "D"
    assert tables(r) == [("A", "C")]


def test_odd_and_tiny_fields() -> None:
    assert pair_round([]) == Round(tables=())
    assert pair_round([Entrant("A", points=3, rank=1)]) == Round(tables=(), bye="A")
    assert pair_round([Entrant("A", rank=1, dropped=True)]) == Round(tables=())
    r = pair_round(entrants(("A", 0, ""), ("B", 0, ""), ("C", 0, "")))  # round 1
    assert (tables(r), r.bye) == ([("A", "B")], "C")


def test_the_same_handle_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="same handle"):
        pair_round([Entrant("A", rank=1), Entrant("A", rank=2)])


# ---------------------------------------------------------------------- round 1
def test_round_one_folds_the_given_order() -> None:
    """Top half against bottom half: 1 v 4, 2 v 5, 3 v 6 (the input order does not matter,
    the ranks do); with 7 the lowest-ranked has the bye."""
    six = [Entrant(f"s{i}", rank=i) for i in (4, 1, 6, 2, 5, 3)]
    assert tables(pair_round(six)) == [("s1", "s4"), ("s2", "s5"), ("s3", "s6")]
    r = pair_round([*six, Entrant("s7", rank=7)])
    assert r.bye == "s7" and tables(r) == [("s1", "s4"), ("s2", "s5"), ("s3", "s6")]


def test_round_one_with_a_seed_is_a_shuffle_the_seed_repeats() -> None:
    field = [Entrant(f"s{i:02d}", rank=i) for i in range(1, 22)]
    first = pair_round(field, seed=11)
    assert first == pair_round(list(reversed(field)), seed=11)  # the same seed, the same round
    assert first.bye == "s21"  # the bye follows the ranks, not the shuffle
    seated = [h for a, b in tables(first) for h in (a, b)]
    assert sorted(seated) == [f"s{i:02d}" for i in range(1, 21)]
    fold = pair_round(field)
    assert all(tables(pair_round(field, seed=s)) != tables(fold) for s in range(3))


# ---------------------------------------------------------------------- top cut
@pytest.mark.parametrize(("size", "expected"), [
    (8, [(1, 8), (4, 5), (2, 7), (3, 6)]),
    (4, [(1, 4), (2, 3)]),
    (2, [(1, 2)]),
])
def test_top_cut_bracket(size: int, expected: list[tuple[int, int]]) -> None:
    ranked = [f"seed{i}" for i in range(1, 11)]  # more ranked than the cut takes
    got = top_cut(ranked, size)  # type: ignore[arg-type]
    assert got == tuple(Pairing(table=t, a=f"seed{a}", b=f"seed{b}")
                        for t, (a, b) in enumerate(expected, start=1))


def test_top_cut_needs_enough_players() -> None:
    with pytest.raises(ValueError, match="needs 8"):
        top_cut(["a", "b", "c"], 8)
    with pytest.raises(ValueError, match="2, 4 or 8"):
        top_cut(["a"] * 16, 16)  # type: ignore[arg-type]
