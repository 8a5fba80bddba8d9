"""A naive reference model of the berserk penalty ladder, compared with the real replay.

The model below is written from shared/spec/regulations.md §1.2–1.3 alone (not from the
engine): a hand-copied subset of the §1.4 table, the ladder and what each penalty always
comes with, repeats, three-of-a-kind stacking at the end of a match, and nothing after a
disqualification. Hypothesis builds random tournaments from that subset; the replay must
make the same rulings (event, subject, cause, sanction kinds with their `attached` flags, in
order) and end with the same subjects (status and sanctions by kind).

Readings the model has to choose where the text is silent (each is stated where it is used):
- a derived (stacking) penalty is its own reason: it never shares "an infraction" with
  another penalty, so it stacks with any two others of its rank;
- when several ranks hold three of a kind at one end of match, the lowest rank is upgraded
  first, and the check repeats until no rank has three; the three used are the oldest;
- players are checked in roster order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sudya.app.scenario import replay

LEVELS = ("amateur", "professional", "highest")

# §1.4, copied by hand: amateur / professional / highest.
TABLE: dict[str, tuple[str, str, str]] = {
    "procedure.minor": ("caution", "caution", "caution"),
    "procedure.significant": ("warning", "warning", "warning"),
    "procedure.wrong-opponent": ("warning", "warning", "warning"),
    "conduct.minor": ("warning", "warning", "warning"),
    "cards.drawing-extra": ("caution", "caution", "warning"),
    "cards.looking-at-extra": ("caution", "caution", "warning"),
    "gameplay.slow-play": ("caution", "warning", "warning"),
    "procedure.tardiness": ("warning", "penalty-point", "match-loss"),
    "procedure.critical": ("penalty-point", "match-loss", "match-loss"),
    "gameplay.incorrect-play": ("warning", "penalty-point", "penalty-point"),
    "marked-cards.significant": ("warning", "penalty-point", "match-loss"),
    "conduct.major": ("penalty-point", "match-loss", "match-loss"),
    # deck lists are switched on in every generated tournament (§1.5 makes it a setting)
    "deck.invalid-decklist": ("warning", "game-loss", "game-loss"),
    "cheating.fraud": ("disqualification", "disqualification-without-prizes",
                       "disqualification-without-prizes"),
    "conduct.random-winner": ("disqualification", "disqualification-without-prizes",
                              "disqualification-without-prizes"),
}

# §1.2: rank, and what the penalty always comes with (transitive).
RANK = {"caution": 1, "warning": 2, "game-loss": 3, "penalty-point": 3, "match-loss": 4,
        "disqualification": 5, "disqualification-without-prizes": 6, "suspension": 7}
COMES_WITH = {"game-loss": "warning", "match-loss": "warning",
              "disqualification": "match-loss", "disqualification-without-prizes": "match-loss",
              "suspension": "disqualification-without-prizes"}
DISQUALIFYING = {"disqualification", "disqualification-without-prizes", "suspension"}
# §1.3: "one rank higher" walks this ladder; penalty-point is never the result.
ESCALATION = ["caution", "warning", "game-loss", "match-loss", "disqualification"]


def one_rank_above(kind: str) -> str:
    """The next step of the escalation ladder above `kind`, capped at disqualification."""
    for step in ESCALATION:
        if RANK[step] > RANK[kind]:
            return step
    return "disqualification"


def with_attached(kind: str) -> list[tuple[str, bool]]:
    """The penalty and, after it, everything it always comes with."""
    out = [(kind, False)]
    while kind in COMES_WITH:
        kind = COMES_WITH[kind]
        out.append((kind, True))
    return out


@dataclass
class Penalty:
    kind: str
    reason: str  # the infraction it was given for, or a unique tag for a derived one
    used: bool = False


@dataclass
class Player:
    last_for: dict[str, str] = field(default_factory=dict)  # infraction -> last principal
    stack: list[Penalty] = field(default_factory=list)  # principals, oldest first
    out: bool = False  # disqualified in this tournament


Ruling = tuple[str, str, str, tuple[tuple[str, bool], ...]]  # event, subject, cause, kinds


def model(scenario: dict[str, Any]) -> tuple[list[Ruling], dict[str, dict[str, Any]]]:
    """The rulings and subjects regulations.md §1.2–1.3 give for a generated scenario."""
    level = LEVELS.index(scenario["level"])
    players = scenario["players"]
    state = {p: Player() for p in players}
    rulings: list[Ruling] = []
    derived = 0

    def give(event: str, subject: str, cause: str, kind: str | None) -> None:
        kinds = tuple(with_attached(kind)) if kind else ()
        rulings.append((event, subject, cause, kinds))
        if kind in DISQUALIFYING:
            state[subject].out = True

    for ev in scenario["events"]:
        if "tournament" in ev:  # repeats, stacking and "left the tournament" start afresh
            state = {p: Player() for p in players}
        elif "infraction" in ev:
            who, inf = ev["player"], ev["infraction"]
            me = state[who]
            if me.out:  # §1.3: recorded, no new penalty
                give(ev["id"], who, "none", None)
                continue
            if inf in me.last_for:  # §1.3: one rank above the LAST penalty for it
                kind, cause = one_rank_above(me.last_for[inf]), "repeat"
            else:
                kind, cause = TABLE[inf][level], "table"
            me.last_for[inf] = kind
            me.stack.append(Penalty(kind, inf))  # attached ones never count for stacking
            give(ev["id"], who, cause, kind)
        elif "end-of-match" in ev:
            for who in players:
                me = state[who]
                while not me.out:
                    by_rank: dict[int, list[Penalty]] = {}
                    for pen in me.stack:
                        if not pen.used:
                            group = by_rank.setdefault(RANK[pen.kind], [])
                            if all(other.reason != pen.reason for other in group):
                                group.append(pen)
                    full = sorted(r for r, group in by_rank.items() if len(group) >= 3)
                    if not full:
                        break
                    for pen in by_rank[full[0]][:3]:
                        pen.used = True  # the three that produced an upgrade are used up
                    kind = one_rank_above(by_rank[full[0]][0].kind)
                    derived += 1
                    me.stack.append(Penalty(kind, f"stacking #{derived}"))  # derived counts
                    give(ev["id"], who, "stacking", kind)

    subjects: dict[str, dict[str, Any]] = {
        p: {"status": "active", "sanctions": Counter()} for p in players}
    for _event, subject, _cause, kinds in rulings:
        for kind, _attached in kinds:
            subjects[subject]["sanctions"][kind] += 1
            if kind in DISQUALIFYING:
                subjects[subject]["status"] = "disqualified"
    return rulings, {p: {"status": s["status"], "sanctions": dict(s["sanctions"])}
                     for p, s in subjects.items()}


def from_replay(result: dict[str, Any]) -> tuple[list[Ruling], dict[str, dict[str, Any]]]:
    rulings = [(r["event"], r["subject"], r["cause"],
                tuple((s["kind"], bool(s.get("attached"))) for s in r["sanctions"]))
               for r in result["rulings"]]
    subjects = {p: {"status": s["status"], "sanctions": s["sanctions"]}
                for p, s in result["subjects"].items()}
    return rulings, subjects


PLAYERS = ["ada", "bob", "cid"]


@st.composite
def scenarios(draw: Any) -> dict[str, Any]:
    players = PLAYERS[: draw(st.integers(1, len(PLAYERS)))]
    # a few infractions per tournament, so that repeats and three of a kind are common
    pool = draw(st.lists(st.sampled_from(sorted(TABLE)), min_size=3, max_size=6, unique=True))
    events: list[dict[str, Any]] = []
    for i in range(1, draw(st.integers(6, 40)) + 1):
        roll = draw(st.integers(0, 19))  # 1 in 20 a new tournament, 4 in 20 an end of match
        if roll == 0:
            ev: dict[str, Any] = {"tournament": {"date": f"2026-{3 + i // 5:02d}-01"}}
        elif roll <= 4:
            ev = {"end-of-match": {}}
        else:
            ev = {"infraction": draw(st.sampled_from(pool)),
                  "player": draw(st.sampled_from(players))}
        events.append({"id": f"e{i}", **ev})
    events.append({"id": "last", "end-of-match": {}})
    return {"rulebook": "berserk", "level": draw(st.sampled_from(LEVELS)),
            "date": "2026-03-01", "settings": {"decklists": True}, "players": players,
            "events": events}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_replay_agrees_with_the_reference_model(scenario: dict[str, Any]) -> None:
    want_rulings, want_subjects = model(scenario)
    got_rulings, got_subjects = from_replay(replay(scenario))
    assert got_rulings == want_rulings
    assert got_subjects == want_subjects


# The model itself, on the regulation's own examples (so a wrong model cannot agree with a
# wrong engine unnoticed).
def test_model_repeat_ladder_caution_warning_game_loss() -> None:
    sc = {"level": "amateur", "players": ["ada"], "events": [
        {"id": f"e{i}", "infraction": "procedure.minor", "player": "ada"} for i in (1, 2, 3)]}
    rulings, _ = model(sc)
    assert [(r[2], r[3][0][0]) for r in rulings] == [
        ("table", "caution"), ("repeat", "warning"), ("repeat", "game-loss")]


def test_model_repeat_after_penalty_point_is_match_loss_then_disqualification() -> None:
    sc = {"level": "professional", "players": ["ada"], "events": [
        {"id": f"e{i}", "infraction": "procedure.tardiness", "player": "ada"}
        for i in (1, 2, 3, 4)]}
    rulings, subjects = model(sc)
    assert [r[3] for r in rulings] == [
        (("penalty-point", False),),
        (("match-loss", False), ("warning", True)),
        (("disqualification", False), ("match-loss", True), ("warning", True)),
        ()]
    assert rulings[-1][2] == "none"
    assert subjects["ada"]["status"] == "disqualified"


def test_model_three_of_a_kind_stacks_once_and_attached_do_not_count() -> None:
    sc = {"level": "professional", "players": ["ada"], "events": [
        {"id": "e1", "infraction": "procedure.significant", "player": "ada"},
        {"id": "e2", "infraction": "conduct.minor", "player": "ada"},
        {"id": "e3", "infraction": "deck.invalid-decklist", "player": "ada"},  # + warning
        {"id": "m1", "end-of-match": {}},
        {"id": "e4", "infraction": "procedure.wrong-opponent", "player": "ada"},
        {"id": "m2", "end-of-match": {}}]}
    rulings, _ = model(sc)
    # m1: only two principal warnings; m2: the third one (e4) completes the group
    assert [(r[0], r[2]) for r in rulings if r[2] == "stacking"] == [("m2", "stacking")]
    assert rulings[-1][3] == (("game-loss", False), ("warning", True))
