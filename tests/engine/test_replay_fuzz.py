"""Whatever a scenario holds, replay answers with a result or one ScenarioError — never
another exception (the CLI turns ScenarioError into one line and exit 2).

The values include what JSON and YAML files can hold and Python can make: NaN and infinities,
integers of any size (5,000 digits cannot even be printed), lone surrogates, nesting deeper
than any stack. `sudya.replay` reads them as the file reader and the API do
(sudya.adapters.scenario_file.plain) before the engine sees them.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sudya
from sudya.app.scenario import replay
from sudya.domain.errors import ScenarioError

TEXT = st.characters(exclude_categories=())  # every code point, lone surrogates too
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), st.integers(),
                    st.floats(), st.text(TEXT, max_size=8),
                    st.sampled_from([10**400, -(10**400), 2**63, 2**64, float("nan"),
                                     float("inf"), float("-inf"), 1e308, "\udc80", "a\x00b",
                                     "\ud800\udc00"]),
                    # digits past what str() prints (Hypothesis repr()s a sampled_from's list)
                    st.integers(4301, 6000).map(lambda digits: 10**digits),
                    st.sampled_from(["2026-03-01", "9999-12-31", "p1", "t1", "e1", "min",
                                     "warning", "head-judge", "team-a"]))


def nest(depth: int, leaf: Any, kind: str) -> Any:
    for _ in range(depth):
        leaf = [leaf] if kind == "list" else {"k": leaf}
    return leaf


shallow = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(TEXT, max_size=6), inner, max_size=3)),
    max_leaves=12)
# deeper than the reader allows (100 levels) and than Python's repr manages (1,000)
deep = st.builds(nest, st.integers(50, 1500), scalars, st.sampled_from(["list", "dict"]))
values = st.one_of(shallow, shallow, shallow, deep)
INFRACTIONS = {
    "berserk": ["gameplay.missed-trigger", "deck.invalid-decklist", "conduct.severe",
                "gameplay.incorrect-play"],
    "clan-championship": ["attack.undeclared-on-participant", "deceiving-official",
                          "attack.during-ban", "hoops", "team.no-show"],
    "team-wargame": ["serious-cheating", "time-wasting", "disruptive-behaviour",
                     "frivolous-appeal"],
}
DETAIL_KEYS = ["opponent", "both_could_control", "level", "attacks", "side", "between_stages",
               "next_tournament", "phase", "turns", "time_used", "models", "card", "item"]


@st.composite
def events(draw: Any, book: str) -> dict[str, Any]:
    kind = draw(st.sampled_from(["infraction", "end-of-match", "tournament", "decision",
                                 "appeal", "result", "junk"]))
    if kind == "infraction":
        event: dict[str, Any] = {
            "infraction": draw(st.one_of(st.sampled_from(INFRACTIONS[book]), values)),
            draw(st.sampled_from(["player", "team"])): draw(st.sampled_from(
                ["p1", "p2", "team-a", "ghost"]) | values)}
        if draw(st.booleans()):
            event["details"] = draw(st.dictionaries(st.sampled_from(DETAIL_KEYS), values,
                                                    max_size=4))
        if draw(st.booleans()):
            event["choice"] = draw(values)
        if draw(st.booleans()):
            event["judge"] = draw(st.sampled_from(["j1", "ghost"]) | values)
    else:
        event = {kind: draw(values | st.dictionaries(
            st.sampled_from(["of", "round", "date", "outcome", "players", "score", "choice",
                             "sanctions", "judge"]), values, max_size=4))}
    if draw(st.booleans()):
        event["id"] = draw(st.sampled_from(["e1", "e2"]) | values)
    return event


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    book = draw(st.sampled_from(sorted(INFRACTIONS)))
    sc: dict[str, Any] = {"rulebook": book, "date": draw(st.sampled_from(
        ["2026-03-01", "2026-12-31"]) | values), "players": ["p1", "p2"],
        "teams": {"team-a": ["p1", "p2"]},
        "judges": {"j1": {"role": draw(st.sampled_from(
            ["head-judge", "senior-judge", "junior-judge", "tournament-master"]))}},
        "events": draw(st.lists(events(book), max_size=6))}
    if book == "berserk":
        sc["level"] = draw(st.sampled_from(["amateur", "professional", "highest"]) | values)
    if draw(st.integers(0, 9)) == 0:
        sc[draw(st.sampled_from(["players", "teams", "judges", "settings", "edition"]))] = \
            draw(values)
    return sc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_replay_never_fails_with_anything_but_a_scenario_error(sc: dict[str, Any]) -> None:
    try:
        result = sudya.replay(sc)
    except ScenarioError as exc:
        assert "\n" not in str(exc)
    else:
        assert set(result) >= {"rulebook", "rulings", "subjects"}


DETAIL_VALUES: dict[str, Any] = {
    "opponent": st.sampled_from(["p1", "p2", "p3"]),
    "both_could_control": st.booleans(), "pointed_out_immediately": st.booleans(),
    "optional": st.booleans(), "dice_rolled_since": st.booleans(),
    "card": st.sampled_from(["Гном", "Вайл"]), "level": st.integers(1, 300),
    "attacks": st.integers(1, 20), "repented": st.booleans(),
    "side": st.sampled_from(["attacker", "joined-attacker", "third-side", "defender"]),
    "between_stages": st.booleans(), "next_tournament": st.sampled_from(["2026-06-01"]),
    "last_fight_in_category": st.booleans(), "captains_agree": st.booleans(),
    "college_counts": st.booleans(),
    "cast_by": st.sampled_from(["participant", "clan-mate", "ally", "unrelated"]),
    "phase": st.sampled_from(["in-game", "after-game"]), "under_watch": st.booleans(),
    "turns": st.integers(0, 6), "time_sheet": st.booleans(),
    "time_used": st.fixed_dictionaries({"p1": st.integers(0, 200), "p2": st.integers(0, 200)}),
    "models": st.fixed_dictionaries({"p1": st.integers(1, 60), "p2": st.integers(1, 60)}),
    "between_games": st.booleans(), "between_matches": st.booleans(),
}
CHOICES = st.sampled_from(["min", "max", "warning", "yellow-card", "red-card", "none",
                           {"points": -12}, {"points": -5}, {"amount": 40}, None])


@st.composite
def wellformed(draw: Any) -> dict[str, Any]:
    """Scenarios whose every field has the right type: the rules themselves are exercised."""
    from sudya.domain.rulebook import loader

    book_id = draw(st.sampled_from(sorted(INFRACTIONS)))
    book = loader.load(book_id)
    ids: list[str] = []
    evs: list[dict[str, Any]] = []
    for n in range(draw(st.integers(1, 12))):
        eid = f"e{n}"
        kind = draw(st.sampled_from(["infraction"] * 6 + ["end-of-match", "tournament",
                                                          "decision", "appeal", "result"]))
        if kind == "infraction":
            inf = draw(st.sampled_from([i.id for i in book.infractions]))
            spec = {**book.common_details, **book.infraction(inf).details}  # type: ignore[union-attr]
            keys = draw(st.lists(st.sampled_from(sorted(spec)), unique=True)) if spec else []
            ev: dict[str, Any] = {"id": eid, "infraction": inf,
                                  "player": draw(st.sampled_from(["p1", "p2", "p3"])),
                                  "round": draw(st.integers(1, 3)),
                                  "details": {k: draw(DETAIL_VALUES[k]) for k in keys
                                              if k in DETAIL_VALUES},
                                  "judge": draw(st.sampled_from(["j1", "j2"]))}
            choice = draw(CHOICES)
            if choice is not None:
                ev["choice"] = choice
        elif kind == "end-of-match":
            ev = {"id": eid, "end-of-match": {"round": draw(st.integers(1, 3))}}
        elif kind == "tournament":
            ev = {"id": eid, "tournament": {"date": "2026-04-20"}}
        elif kind == "result":
            ev = {"id": eid, "result": {"round": draw(st.integers(1, 3)),
                                        "players": ["p1", "p2"], "score": "2-1"}}
        elif not ids:
            continue
        elif kind == "decision":
            ev = {"id": eid, "decision": {"of": draw(st.sampled_from(ids)), "judge": "j1",
                                          "choice": draw(CHOICES),
                                          "sanctions": [{"kind": "fighter-dq"}]}}
        else:
            ev = {"id": eid, "appeal": {"of": draw(st.sampled_from(ids)), "judge": "j1",
                                        "outcome": draw(st.sampled_from(
                                            ["upheld", "overturned", "frivolous"])),
                                        "choice": draw(CHOICES)}}
        ids.append(eid)
        evs.append(ev)
    roles = list(book.roles)
    sc: dict[str, Any] = {"rulebook": book_id, "date": "2026-03-01",
                          "players": ["p1", "p2", "p3"], "teams": {"team-a": ["p1", "p2"]},
                          "judges": {"j1": {"role": roles[0], "official": True},
                                     "j2": {"role": draw(st.sampled_from(roles))}},
                          "events": evs}
    if book.levels:
        sc["level"] = draw(st.sampled_from(book.level_ids()))
    return sc


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(wellformed())
def test_wellformed_scenarios_never_crash_the_engine(sc: dict[str, Any]) -> None:
    try:
        result = replay(sc)
    except ScenarioError as exc:
        assert "\n" not in str(exc)
    else:
        assert set(result) >= {"rulebook", "rulings", "subjects"}


BASE = {"rulebook": "berserk", "level": "amateur", "date": "2026-03-01", "players": ["p1"]}


@pytest.mark.parametrize("scenario", [
    {**BASE, "events": [{"id": nest(5000, "e1", "list"), "infraction": "gameplay.slow-play",
                         "player": "p1"}]},
    {**BASE, "date": nest(5000, "2026-03-01", "list")},
    {**BASE, "edition": nest(5000, 1, "list")},
    {**BASE, "edition": 10**5000},
], ids=["deep-id", "deep-date", "deep-edition", "edition-of-5000-digits"])
def test_raw_replay_of_what_no_file_can_hold(scenario: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError):
        replay(scenario)
    with pytest.raises(ScenarioError):  # through the public entry point it is refused
        sudya.replay(scenario)
