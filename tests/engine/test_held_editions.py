"""What subjects hold is kept only while the rulebook asks (validity.reads_held).

A rulebook without aggravation, `lost_while` or accumulation never asks what a subject holds,
so its sanctions wait in a list (a replay's append) instead of the index; an edition that
asks tracks them when it comes into force. Its rulings must be those of an engine that kept
the index all along: here the team wargame's, with corrections (revocations), under an
edition with aggravation from the second tournament, without it from the fifth, with it
again from the seventh.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterator

import pytest

from sudya.domain.engine import state as engine_state
from sudya.domain.engine import validity
from sudya.domain.engine.core import RulesEngine
from sudya.domain.engine.model import (
    Correction,
    Event,
    NewTournament,
    Offence,
    Result,
    Roster,
    Ruling,
    Tournament,
)
from sudya.domain.errors import RuleError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

START = dt.date(2026, 1, 10)
KINDS = ["disruptive-behaviour", "petty-cheating", "third-party-help", "time-wasting"]


def season(plain: Rulebook, asking: Rulebook) -> Iterator[Event]:
    rng = random.Random(7)
    players = [f"p{i}" for i in range(300)]
    recent: list[str] = []
    day = START
    for k in range(1, 1601):
        if k % 200 == 0:
            day += dt.timedelta(days=7)
            n = k // 200  # the index of the tournament that starts (the first is 0)
            yield NewTournament(id=f"t{k}", date=day,
                                rulebook={1: asking, 4: plain, 6: asking}.get(n))
        elif k % 4 == 0 and recent:
            yield Correction(id=f"c{k}", of=rng.choice(recent[-30:]))
        elif k % 7 == 0:
            a, b = rng.sample(players, 2)
            yield Result(id=f"r{k}", players=(a, b), score=(1, 0), round=k % 5)
        else:
            recent.append(f"e{k}")
            yield Offence(id=f"e{k}", infraction=rng.choice(KINDS),
                          offender=rng.choice(players), round=k % 5)


def replay(plain: Rulebook, asking: Rulebook) -> list[Ruling]:
    players = [f"p{i}" for i in range(300)]
    teams = {f"team{i}": players[i * 5:(i + 1) * 5] for i in range(60)}
    engine = RulesEngine(plain, Roster(players=players, teams=teams),
                         Tournament(0, START, None, {}))
    for ev in season(plain, asking):
        try:
            engine.apply(ev)
        except RuleError:
            continue
    return engine.rulings


def digest(rulings: list[Ruling]) -> list[tuple[object, ...]]:
    return [(r.event, r.subject, r.cause, r.pending, r.aggravated, r.revoked, r.edition,
             tuple((s.kind, s.subject, s.revoked, s.consumed) for s in r.sanctions),
             tuple(n.code for n in r.notes)) for r in rulings]


def test_an_edition_that_asks_what_subjects_hold_rules_as_if_it_was_kept_all_along(
        monkeypatch: pytest.MonkeyPatch) -> None:
    plain = loader.load("team-wargame")
    clan = loader.load("clan-championship")
    asking = plain.model_copy(update={"edition": "aggravating",
                                      "aggravation": clan.aggravation})
    assert not validity.reads_held(plain) and validity.reads_held(asking)
    waited = replay(plain, asking)
    # the index kept from the first sanction on, whatever the edition
    monkeypatch.setattr(engine_state.validity, "reads_held", lambda book: True)
    kept = replay(plain, asking)
    assert digest(waited) == digest(kept)
    aggravated = [r for r in waited if r.aggravated]
    assert aggravated and {r.edition for r in aggravated} == {"aggravating"}
    # some subjects held nothing any more when the edition came in (their sanctions revoked)
    assert any(r.cause == "correction" for r in waited if r.tournament < 2)
