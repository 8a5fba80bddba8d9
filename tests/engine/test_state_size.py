"""What the engine keeps per subject stays small (issue 16: a federation's season).

A clan season's state is mostly its indexes over many subjects that each offend a few
times: what counts as an earlier offence (repeats' tallies). Counted, not measured in
bytes: the containers (dicts, lists, tuples) an index holds beyond the rulings and
sanctions themselves, per entry, after a season where most fighters offend once per
infraction. Deterministic: a seeded season.
"""

from __future__ import annotations

import datetime as dt
import gc
import random
from typing import Any

from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import (
    NewTournament,
    Offence,
    Roster,
    RosterChange,
    Ruling,
    Sanction,
    Tournament,
)
from sudya.domain.errors import RuleError
from sudya.domain.rulebook import loader

START = dt.date(2026, 1, 10)
KINDS = ("elixirs.forbidden-combat", "interference", "fight.unauthorised-start", "hoops",
         "attack.undeclared-on-participant")


def clan_season(events: int = 3000) -> RulesEngine:
    """3,000 fighters in 300 clans; a tournament a week of 300 reports."""
    rng = random.Random(16)
    teams = {f"clan{i}": [f"c{i}.{j}" for j in range(10)] for i in range(300)}
    fighters = [m for ms in teams.values() for m in ms]
    engine = RulesEngine(loader.load("clan-championship"),
                         Roster(players=list(fighters), teams=teams),
                         Tournament(0, START, None, {}))
    day = START
    for k in range(1, events + 1):
        if k % 300 == 0:
            day += dt.timedelta(days=7)
            engine.apply(NewTournament(id=f"t{k}", date=day))
            continue
        inf = rng.choice(KINDS)
        details = {"level": rng.randint(1, 20), "attacks": 1} if inf.startswith("attack") \
            else {}
        try:
            engine.apply(Offence(id=f"e{k}", infraction=inf, offender=rng.choice(fighters),
                                 details=details))
        except RuleError:  # a disqualified fighter or clan
            continue
    return engine


def containers(roots: list[Any]) -> int:
    """The dicts, lists and tuples reachable from `roots` (not counting the list of them),
    not looking inside rulings and sanctions (the history itself, kept anyway)."""
    seen: set[int] = set()
    count = 0
    todo = list(roots)
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (Ruling, Sanction, str, int, dt.date)):
            continue
        seen.add(id(obj))
        if isinstance(obj, (dict, list, tuple)):
            count += 1
            todo.extend(gc.get_referents(obj))
    return count


def test_a_lone_earlier_offence_is_kept_as_its_ruling() -> None:
    """Most tallies hold one ruling: kept as the ruling itself, not as a Tally of a dict, a
    heap and its entry, and a dict of sums (five containers each)."""
    engine = clan_season()
    tallies = list(engine.tallies.values())
    assert len(tallies) > 1000
    lone = sum(1 for t in tallies if isinstance(t, Ruling))
    assert lone > len(tallies) / 2
    per_tally = containers(tallies) / len(tallies)
    assert per_tally < 2, f"{per_tally:.2f} containers per tally"


def test_a_subject_given_one_sanction_is_indexed_by_it() -> None:
    """What subjects hold (validity's held and until): a subject given one sanction is
    indexed by that sanction and its last day, not by a dict of lists and a dict of days
    (three containers each); one given a few (of one kind or several) by a tuple of them,
    not a dict of a list each (0.49 containers a subject here with those; 0.30 with a tuple
    only for one of each of a few kinds)."""
    engine = clan_season()
    subjects = list(engine.held)
    assert len(subjects) > 1000
    lone = sum(1 for s in subjects if isinstance(engine.held[s], Sanction))
    assert lone > len(subjects) / 2
    per_subject = containers([*engine.held.values(), *engine.until.values()]) / len(subjects)
    assert per_subject < 0.25, f"{per_subject:.2f} containers per subject"


def test_an_event_that_made_one_ruling_is_indexed_by_it() -> None:
    """The rulings each event made (state.primary) and the derived rulings each sanction was
    used by (state.used_by): one ruling, mostly, indexed as itself (a tuple of one each)."""
    engine = clan_season()
    assert len(engine.primary) > 1000 and len(engine.used_by) > 100
    for index in (engine.primary, engine.used_by):
        per_entry = containers(list(index.values())) / len(index)
        assert per_entry < 0.5, f"{per_entry:.2f} containers per entry"
    some = next(iter(engine.primary))
    assert engine.made(some) == tuple(r for r in engine.rulings if r.event == some and
                                      r.cause not in ("appeal", "decision", "cancellation",
                                                      "stacking", "conversion",
                                                      "accumulation"))


def test_a_fighter_disqualified_for_the_series_once_is_indexed_by_the_sanction() -> None:
    """Who is out for the series (state.series_out): a subject disqualified once, as most
    are, by that sanction, not by a list of it."""
    engine = clan_season()
    assert len(engine.series_out) > 100
    per_subject = containers(list(engine.series_out.values())) / len(engine.series_out)
    assert per_subject < 0.5, f"{per_subject:.2f} containers per subject"


def test_rulings_share_their_reasons_and_details() -> None:
    """Rulings that show the same reasons share one tuple of them (an infraction's source,
    with a held ruling's or a repeat's reason; a team's ruling's), and those given the same
    details (an attack's level) one dict of them: not a list and a dict each. A ruling's
    notes are never changed in place (a tuple: `Ruling.add_notes`)."""
    engine = clan_season()
    rulings = engine.rulings
    assert len(rulings) > 1000
    assert all(isinstance(r.notes, tuple) for r in rulings)
    notes = {id(r.notes) for r in rulings if r.notes}
    assert len(notes) <= 40, f"{len(notes)} tuples of notes for {len(rulings)} rulings"
    given = [r for r in rulings if r.details]
    assert len(given) > 100
    details = {id(r.details) for r in given}
    assert len(details) <= 40, f"{len(details)} details dicts for {len(given)} rulings"
    # the reasons of held and of team rulings are shared too, not one object each
    reasons = {id(n) for r in rulings for n in r.notes}
    assert len(reasons) <= 40, f"{len(reasons)} reasons"


def test_players_places_are_kept_only_while_the_rulebook_stacks() -> None:
    """The engine knows every player (state.player_order), but their places in the roster's
    order only for a rulebook that stacks (the end of a match takes its players in that
    order): a clan season's hundreds of thousands of fighters are not an int each. An
    edition that stacks, after one that did not, finds them, the players who joined
    meanwhile last."""
    engine = clan_season(300)
    assert len(engine.player_order) == 3000
    assert set(engine.player_order.values()) == {None}
    stacks = loader.load("berserk")
    plain = stacks.model_copy(update={"edition": "no stacking", "stacking": None})
    engine = RulesEngine(plain, Roster(players=["a", "b"]), Tournament(0, START, None, {}))
    engine.apply(RosterChange(id="j1", players=("c",)))
    assert list(engine.player_order.items()) == [("a", None), ("b", None), ("c", None)]
    engine.apply(NewTournament(id="t1", date=START + dt.timedelta(days=7), rulebook=stacks))
    engine.apply(RosterChange(id="j2", players=("d",)))
    assert engine.player_order == {"a": 0, "b": 1, "c": 2, "d": 3}
    assert [engine.place(p) for p in ("d", "a", "team")] == [3, 0, 4]


def test_a_ruling_keeps_24_fields() -> None:
    """A season's most numerous objects are its rulings: one of 24 slots is 224 bytes, one
    of 25 was 240 (objects come in sizes of 16 bytes), 13 MB more at 800,000 rulings. What
    only some rulings need (the cell a pending one waits on) the state keeps beside them."""
    assert len(Ruling.__slots__) <= 24
