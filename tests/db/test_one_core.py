"""Issue 34: every write goes through `Sudya.handle`, which checks the command's one
permission with its tournament in scope. Two tournaments' staff, each in their own: one of
tournament A may not revoke, decide, record or enter a result about tournament B, and a
refused command stores nothing. Every command type has exactly one handler and one
permission."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa
from ledger_testkit import counts

from sudya.app import access
from sudya.app.accounts import add_user
from sudya.app.core import HANDLERS, Sudya
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.domain import commands as c

OWNER = Actor(name="owner", owner=True)


def test_every_command_has_one_handler_and_one_permission() -> None:
    kinds = {*c.KINDS.values(), *c.SETUP} - {c.NewTournament, c.ChangeRoster}
    assert set(HANDLERS) == kinds
    assert set(access.PERMISSION) == kinds


@pytest.fixture
def two(ledger: Ledger) -> tuple[Sudya, int, int]:
    """Two berserk tournaments of two series, each with its own head judge, floor judge,
    scorekeeper and players; anna (A) recorded a1 about alice, bea (B) b1 about bob."""
    app = Sudya(ledger)
    tids = []
    for letter, player, head in (("A", "alice", "anna"), ("B", "bob", "bea")):
        series = app.handle(c.CreateSeries(name=f"Серия {letter}", rulebook="berserk"), OWNER)
        tid = app.handle(c.CreateTournament(series=series, name=f"Турнир {letter}",
                                            date=dt.date(2026, 3, 1), level="professional"),
                         OWNER)
        app.handle(c.AddPlayer(handle=player), OWNER, tid)
        app.handle(c.AddJudge(handle=head, role="head-judge", official=True), OWNER, tid)
        app.handle(c.AddJudge(handle=f"floor{letter.lower()}", role="floor-judge"), OWNER, tid)
        add_user(ledger, username=head, password="password-" + head)
        add_user(ledger, username=f"score{letter.lower()}", password="password-x",
                 roles=[(tid, "scorekeeper")])
        tids.append(tid)
    a, b = tids
    app.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="alice",
                                  judge="anna"), Actor(name="anna"), a, event_id="a1")
    app.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="bob",
                                  judge="bea"), Actor(name="bea"), b, event_id="b1")
    return app, a, b


def test_a_tournaments_staff_write_only_in_it(two: tuple[Sudya, int, int],
                                              db_engine: sa.Engine) -> None:
    app, a, b = two
    before = counts(db_engine)
    anna = Actor(name="anna")
    attempts = [
        (c.Appeal(of="b1", outcome="overturned", judge="anna"), a, "of"),
        (c.Correct(of="b1", judge="anna"), a, "of"),
        (c.RecordInfraction(infraction="gameplay.slow-play", player="bob", judge="anna"), a,
         "player"),
        (c.RecordResult(players=("alice", "bob"), score=(2, 0), round=1), a, "players.1"),
        (c.RecordInfraction(infraction="gameplay.slow-play", player="bob"), b, None),
        (c.Appeal(of="b1", outcome="overturned"), b, None),
    ]
    for cmd, tid, field in attempts:
        with pytest.raises((LedgerError, access.Refused)) as refused:
            app.handle(cmd, anna, tid)
        if field is None:
            assert isinstance(refused.value, access.Refused) and refused.value.status == 403
        else:
            assert refused.value.field == field, (cmd, refused.value)
    floor = Actor(name="floora")
    with pytest.raises(LedgerError) as refused:
        app.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="bob"), floor, a)
    assert refused.value.code == "scope.not-entered"
    with pytest.raises(access.Refused):  # a scorekeeper of A records no result in B
        app.handle(c.RecordResult(players=("bob", "bob2"), score=(2, 0)),
                   Actor(name="scorea"), b)
    with pytest.raises(LedgerError) as refused:  # a judge records in their own name
        app.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="alice",
                                      judge="floora"), anna, a)
    assert refused.value.code == "scope.judge-not-you"
    assert counts(db_engine) == before


def test_the_owner_sets_up_and_an_organiser_manages_only_their_tournament(
        two: tuple[Sudya, int, int], ledger: Ledger) -> None:
    app, a, b = two
    with pytest.raises(access.Refused):
        app.handle(c.CreateSeries(name="Чужая", rulebook="berserk"), Actor(name="anna"))
    app.handle(c.AddUser(username="org", password="password-org", roles=[(a, "organiser")]),
               OWNER)
    org = Actor(name="org")
    app.handle(c.AddPlayer(handle="carol"), org, a)
    with pytest.raises(access.Refused):
        app.handle(c.AddPlayer(handle="dave"), org, b)
    # an organiser of the series creates its next tournament, not another series'
    with app.reading() as s:
        series_a = access.standing(s, org, a).tournament.series.id
    app.handle(c.CreateTournament(series=series_a, name="Турнир A2",
                                  date=dt.date(2026, 4, 1), level="amateur"), org)
    with pytest.raises(access.Refused):
        app.handle(c.CreateTournament(series="Серия B", name="Турнир B2",
                                      date=dt.date(2026, 4, 1), level="amateur"), org)


def test_a_tournament_left_behind_takes_no_more_records(two: tuple[Sudya, int, int]) -> None:
    app, a, _b = two
    with app.reading() as s:
        series_a = access.standing(s, OWNER, a).tournament.series.id
    a2 = app.handle(c.CreateTournament(series=series_a, name="Турнир A2",
                                       date=dt.date(2026, 4, 1), level="amateur"), OWNER)
    with pytest.raises(LedgerError) as refused:
        app.handle(c.RecordInfraction(infraction="gameplay.slow-play", player="alice"),
                   OWNER, a)
    assert refused.value.code == "scope.not-current"
    # its events are still settled there: a1 is corrected in A, not in A2
    app.handle(c.AddJudge(handle="anna", role="head-judge", official=True), OWNER, a2)
    with pytest.raises(LedgerError) as refused:
        app.handle(c.Correct(of="a1", judge="anna"), Actor(name="anna"), a2)
    assert refused.value.code == "scope.other-tournament"
    app.handle(c.Correct(of="a1", judge="anna"), Actor(name="anna"), a)
