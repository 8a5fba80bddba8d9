"""Issue 35: a handle has one spelling and none looks like another. `ivаn` (a Cyrillic «а»)
beside `ivan` is refused naming `ivan`; `IVAN` is `ivan`; spaces and commas are refused; a
team may not look like a player either. Nothing is stored by a refusal."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa
from pydantic import ValidationError

from sudya.adapters.db import models as m
from sudya.app.core import Sudya
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.domain import commands as c
from sudya.domain.handles import skeleton

OWNER = Actor(name="owner", owner=True)


def test_look_alikes_share_a_skeleton() -> None:
    assert skeleton("ivаn") == skeleton("ivan") == skeleton("IVAN")
    assert skeleton("boris") != skeleton("borya")


@pytest.mark.parametrize(("raw", "code"), [("ivаn", "handle.mixed-scripts"),
                                           ("a b", "handle.characters"),
                                           ("x,y", "handle.characters")])
def test_a_handle_with_two_scripts_or_a_separator_is_refused(raw: str, code: str) -> None:
    with pytest.raises(ValidationError) as refused:
        c.AddPlayer(handle=raw)
    assert refused.value.errors()[0]["type"] == code


def test_a_handle_like_another_is_refused_naming_it(ledger: Ledger) -> None:
    app = Sudya(ledger)
    series = app.handle(c.CreateSeries(name="Клуб", rulebook="berserk"), OWNER)
    tid = app.handle(c.CreateTournament(series=series, name="Вечер", date=dt.date(2026, 3, 1),
                                        level="amateur"), OWNER)
    app.handle(c.AddPlayer(handle="IVAN", name="Иван"), OWNER, tid)
    app.handle(c.AddPlayer(handle="xop"), OWNER, tid)  # Latin x, o, p
    with ledger.factory() as s:
        handles = sorted(s.scalars(sa.select(m.Person.handle)))
    assert handles == ["ivan", "xop"]
    with pytest.raises(LedgerError) as refused:  # Cyrillic х, о, р: one script, same look
        app.handle(c.AddPlayer(handle="хор"), OWNER, tid)
    assert (refused.value.code, refused.value.field) == ("handle.confusable", "handle")
    assert refused.value.params["existing"] == "xop"
    assert "xop" in refused.value.render("ru")
    with pytest.raises(LedgerError) as refused:  # a team may not look like a player
        app.handle(c.AddTeam(handle="хор", members=[]), OWNER, tid)
    assert refused.value.code == "handle.confusable"
    with ledger.factory() as s:
        assert sorted(s.scalars(sa.select(m.Person.handle))) == ["ivan", "xop"]
        assert list(s.scalars(sa.select(m.Team.handle))) == []
