"""The quick way of deciding a scenario's plain infractions and results
(sudya.domain.commands.quick_event) gives exactly what the one decoder gives, or nothing; and a
JSON file's data checked where orjson put it is what the copying check gives.

Whatever the raw event holds, either the quick way declines it (None: the full way then
decides it, and refuses it with its own field-named error) or it gives the very event
`decode`, `fits`, `known` and `event(id)` give. And a scenario replays to the same events,
and is refused with the same message, with the quick way as without it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudya.adapters import scenario_file
from sudya.adapters.scenario_file import (
    MAX_DEPTH,
    PlainDataError,
    load_scenario_file,
    plain,
    surely_plain,
)
from sudya.app.scenario import Replay
from sudya.domain import commands
from sudya.domain.commands import CommandError
from sudya.domain.engine.model import Event, Roster
from sudya.domain.errors import ScenarioError
from sudya.domain.rulebook import loader

HERE = Path(__file__).parent
SHARED = HERE.parents[1].parent / "shared" / "scenarios"
CASES = sorted(HERE.glob("*/*.yaml")) + sorted(SHARED.glob("*.yaml"))

BOOK = loader.load("clan-championship")
INFRACTION = BOOK.infractions[0].id
# `x1` is a member of a team the series knows, not one of the file's players
ROSTER = Roster(players=["p1", "p2", "m1"], teams={"t1": ["m1", "x1"]})
ENTERED = set(ROSTER.players)


def full(kind: str, raw: Any) -> Event:
    """The event the one decoder gives (what Replay._event did before the quick way)."""
    cmd = commands.decode(kind, raw)
    commands.fits(cmd, BOOK)
    commands.known(cmd, ROSTER, ENTERED)
    return cmd.event("e1")  # type: ignore[attr-defined,no-any-return]


def same_or_declined(kind: str, raw: Any) -> Event | None:
    quick = commands.quick_event(kind, raw, "e1", BOOK, ROSTER, ENTERED)
    try:
        expected = full(kind, raw)
    except CommandError:
        assert quick is None, (raw, quick)
        return None
    assert quick is None or quick == expected, (raw, quick, expected)
    return quick


IDS = st.sampled_from(["p1", "p2", "m1", "x1", "t1", "nobody", INFRACTION, "min", "", " ",
                       "\u3000", "a\x00b", "a\x7f", "tab\tbed", "x" * 100, "x" * 101, "п1"])
ODD = st.sampled_from([None, True, False, 0, 1, -1, 1.5, float("nan"), [], {}, ["p1"],
                       {"p1": 1}, dt.date(2026, 1, 1), 10**20])
ROUNDS = st.sampled_from([None, 0, 1, 1000, 1001, -1, True, 1.0, "1", 2**70])
FACT = st.recursive(
    st.sampled_from([0, 6, -1, 10**9, 10**9 + 1, 1.5, float("inf"), True, None, "x",
                     "x" * 1001, "a\x01", "tab\t", dt.date(2026, 3, 1), dt.date(3000, 1, 1),
                     dt.datetime(2026, 3, 1, 12)]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["a", "level", "attacks"]), inner, max_size=3),
    max_leaves=8)
DETAILS = st.dictionaries(st.sampled_from(["level", "attacks", "x"]), FACT, max_size=3) | ODD
CHOICES = IDS | ODD | st.sampled_from([{"points": -1}, {"amount": 2}, {"points": "x"}])
SCORES = st.sampled_from(["12-8", "0-0", " 12 - 8 ", "1-2-3", "a-b", "100000-1",
                          "100001-0", "-1-2", "12-", "٣-٤", "+1-2", "00012-8", [12, 8],
                          (1, 2), 5, None, ""])


def some_of(fields: dict[str, st.SearchStrategy[Any]]) -> st.SearchStrategy[dict[str, Any]]:
    """Mappings holding any of `fields` (and now and then a field neither way takes)."""
    return st.fixed_dictionaries({}, optional={**fields, "judge": IDS, "note": IDS,
                                               "date": ODD | st.just("2026-03-01")})


def near(base: dict[str, Any], fields: dict[str, st.SearchStrategy[Any]]
         ) -> st.SearchStrategy[dict[str, Any]]:
    """`base` (a plain event) with one field changed or left out: mostly one thing wrong."""
    change = st.one_of(*(st.tuples(st.just(k), v) for k, v in fields.items()))
    drop = st.sampled_from(sorted(base)).map(lambda k: {x: v for x, v in base.items()
                                                        if x != k})
    return change.map(lambda kv: {**base, kv[0]: kv[1]}) | drop


INFRACTION_FIELDS = {"infraction": IDS | ODD, "player": IDS | ODD, "team": IDS | ODD,
                     "round": ROUNDS, "details": DETAILS, "choice": CHOICES}
RESULT_FIELDS = {"players": st.lists(IDS, max_size=3) | ODD | st.tuples(IDS, IDS),
                 "score": SCORES, "round": ROUNDS}
INFRACTIONS = some_of(INFRACTION_FIELDS) | near(
    {"infraction": INFRACTION, "player": "p1", "round": 2, "details": {"level": 6}},
    INFRACTION_FIELDS)
RESULTS = some_of(RESULT_FIELDS) | near(
    {"players": ["p1", "p2"], "score": "2-1", "round": 2}, RESULT_FIELDS)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=INFRACTIONS)
def test_an_infraction_quick_is_the_decoders(raw: dict[str, Any]) -> None:
    same_or_declined("infraction", raw)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(raw=RESULTS)
def test_a_result_quick_is_the_decoders(raw: dict[str, Any]) -> None:
    same_or_declined("result", raw)


@pytest.mark.parametrize(("kind", "raw"), [
    ("infraction", {"infraction": INFRACTION, "player": "p1"}),
    ("infraction", {"infraction": INFRACTION, "player": "x1", "round": 3}),
    ("infraction", {"infraction": INFRACTION, "team": "t1", "choice": "min",
                    "details": {"level": 6, "attacks": 1, "on": dt.date(2026, 3, 1)}}),
    ("result", {"players": ["p1", "p2"], "score": "12-8", "round": 1}),
    ("result", {"players": ["p1", "m1"], "score": " 3 - 0 "}),
])
def test_the_plain_case_is_decided_quickly(kind: str, raw: dict[str, Any]) -> None:
    assert same_or_declined(kind, raw) is not None


@pytest.mark.parametrize(("kind", "raw"), [
    ("infraction", {"infraction": INFRACTION, "player": "nobody"}),
    ("infraction", {"infraction": "no.such-infraction", "player": "p1"}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "team": "t1"}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "round": True}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "details": {"a": 10**10}}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "details": None}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "details": []}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "details": {1: 2}}),
    ("infraction", {"infraction": INFRACTION, "player": None, "team": None}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "choice": ""}),
    ("infraction", {"infraction": INFRACTION, "player": "p1", "judge": "j1"}),
    ("infraction", {"infraction": " ", "player": "p1"}),
    ("infraction", {"infraction": INFRACTION, "player": "x" * 101}),
    ("infraction", {"infraction": INFRACTION, "team": "p1"}),
    ("result", {"players": ["p1", "p2"], "score": "1-0", "round": 1001}),
    ("result", {"players": ["p1", "p2"], "score": "1-0", "extra": 1}),
    ("result", {"players": ["p1", "p2"]}),
    ("result", {"players": ["p1", "p2"], "score": "1:0"}),
    ("result", {"players": ["p1", "p1"], "score": "1-0"}),
    ("result", {"players": ["p1", "p2"], "score": "100001-0"}),
    ("result", {"players": ["p1", "p2", "m1"], "score": "1-0"}),
    ("result", {"players": ["p1", "x1"], "score": "1-0"}),  # a result names entered players
])
def test_what_the_decoder_refuses_is_declined(kind: str, raw: dict[str, Any]) -> None:
    with pytest.raises(CommandError):
        full(kind, raw)
    assert commands.quick_event(kind, raw, "e1", BOOK, ROSTER, ENTERED) is None


def prepared(path: Path) -> list[Any] | str:
    """A scenario file's events as Replay decides them, or the message refusing it."""
    try:
        return Replay(load_scenario_file(path)).events
    except ScenarioError as exc:
        return f"{exc.code} {exc.field} {exc}"


@pytest.mark.parametrize("path", CASES, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_a_scenario_decides_the_same_either_way(path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    quick = prepared(path)
    monkeypatch.setattr(commands, "quick_event", lambda *args: None)
    assert quick == prepared(path)


# what orjson reads: texts (some with a control character or a lone surrogate escaped),
# numbers beyond what a database holds, nesting
JSON_TEXTS = st.sampled_from(["a", "p1", "tab\\t", "nul\\u0000", "esc\\u001b", "\\ud800x",
                              "\\u00e9", "\\n", "bs\\b", "ff\\f", "\\ud83d\\ude00", "\\\\u0001",
                              "DEL\\u007f", "[{]}", "\\u0009"])
JSON_SCALARS = (JSON_TEXTS.map(lambda t: f'"{t}"') | st.sampled_from(
    ["0", "-1", "1.5", "true", "false", "null", str(2**63 - 1), str(2**63), str(-2**64),
     "1e300", str(2**53), str(2**53 + 1), str(-2**53 - 1)]))
JSON_TEXT = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=3).map(lambda xs: f"[{','.join(xs)}]")
    | st.lists(st.tuples(JSON_TEXTS, inner), max_size=3).map(
        lambda kvs: "{" + ",".join(f'"{k}":{v}' for k, v in kvs) + "}"),
    max_leaves=12)


def plain_or_refusal(text: str, fresh: bool) -> Any:
    try:
        return ("plain", plain(orjson.loads(text), where="f.json", fresh=fresh))
    except orjson.JSONDecodeError:
        return ("unreadable",)  # load_scenario_file refuses it before any check
    except PlainDataError as exc:
        return ("refused", str(exc), exc.field, exc.loc)


@settings(max_examples=300, deadline=None)
@given(text=JSON_TEXT)
def test_freshly_read_json_is_checked_as_a_copy_would_be(text: str) -> None:
    """plain(..., fresh=True), which checks orjson's data where it lies, keeps the same values
    and refuses the same ones, naming the same field, as the walk that copies."""
    assert plain_or_refusal(text, fresh=True) == plain_or_refusal(text, fresh=False)


@settings(max_examples=300, deadline=None)
@given(text=JSON_TEXT)
def test_what_is_surely_plain_is_plain(text: str) -> None:
    """surely_plain, which spares load_scenario_file the walk, says so only of data the walk
    refuses nothing of (the same values: orjson's own)."""
    try:
        raw = orjson.loads(text)
    except orjson.JSONDecodeError:
        return
    if surely_plain(text, raw):
        assert plain_or_refusal(text, fresh=True) == ("plain", raw)


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 2])
@pytest.mark.parametrize("inner", ["1", "[]", "{}", '{"k": "v"}', '"]]]]"'])
@pytest.mark.parametrize("outer", ["[", '{"k": '])
def test_surely_plain_knows_the_depth_limit(depth: int, inner: str, outer: str) -> None:
    """Nesting at the limit and past it: surely_plain says plain exactly when the walk does."""
    close = "]" if outer == "[" else "}"
    text = outer * depth + inner + close * depth
    raw = orjson.loads(text)
    assert surely_plain(text, raw) == (plain_or_refusal(text, fresh=True)[0] == "plain")


def test_a_plain_json_file_is_not_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    """A season's plain JSON is taken as orjson read it, and a file that is not still goes
    through the walk that names the field."""
    path = tmp_path / "s.json"
    scenario = {"rulebook": "berserk", "date": "2026-03-01", "players": ["a", "b"],
                "events": [{"id": "e1", "infraction": "x", "player": "a", "round": 2}]}
    path.write_bytes(orjson.dumps(scenario))

    def no_walk(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("walked")

    monkeypatch.setattr(scenario_file, "plain", no_walk)
    assert load_scenario_file(path) == scenario
    monkeypatch.undo()
    path.write_text('{"rulebook": "berserk", "events": [{"id": "e\\u0001"}]}')
    with pytest.raises(PlainDataError, match="control character") as refused:
        load_scenario_file(path)
    assert refused.value.field == "events[0].id"


def test_the_shorthands_of_an_event_are_read_as_before(tmp_path: Path) -> None:
    """An end of match written with nothing (`end-of-match:`) is one with no fields, and an
    appeal's `choice` may stand beside the appeal as beside an infraction (both were skipped
    once the quick way came first)."""
    written = HERE / "team-wargame" / "appeal-frivolous-warning.yaml"
    beside = tmp_path / "beside.yaml"
    beside.write_text(written.read_text(encoding="utf-8").replace(
        "outcome: frivolous, choice: warning}\n", "outcome: frivolous}\n    choice: warning\n"),
        encoding="utf-8")
    assert "    choice: warning\n" in beside.read_text(encoding="utf-8")
    assert prepared(beside) == prepared(written)
    empty, fields = tmp_path / "empty.yaml", tmp_path / "fields.yaml"
    text = ("rulebook: berserk\ndate: 2026-03-01\nlevel: professional\nplayers: [a, b]\n"
            "events:\n  - {id: e1, infraction: gameplay.slow-play, player: a, round: 1}\n")
    empty.write_text(text + "  - {id: m1, end-of-match: }\n", encoding="utf-8")
    fields.write_text(text + "  - {id: m1, end-of-match: {}}\n", encoding="utf-8")
    assert not isinstance(prepared(empty), str)
    assert prepared(empty) == prepared(fields)
