"""Whatever a scenario holds, replay answers with a result or one ScenarioError — never
another exception (the CLI turns ScenarioError into one line and exit 2)."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudya.errors import ScenarioError
from sudya.scenario import replay

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**12), st.text(max_size=8),
                    st.sampled_from(["2026-03-01", "9999-12-31", "p1", "t1", "e1", "min",
                                     "warning", "head-judge", "team-a"]))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6)
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
        result = replay(sc)
    except ScenarioError as exc:
        assert "\n" not in str(exc)
    else:
        assert set(result) >= {"rulebook", "rulings", "subjects"}
