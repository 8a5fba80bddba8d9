"""Issue 35: a bundled rulebook is never changed for everyone. An organiser publishes an
edition of it for the series they organise; it is in force in that series' tournaments only,
another organiser's series keeps the bundled edition (and cannot pin the other's), the
rulebook's default stays the bundled one, and the listing names whose edition it is. A
rulebook of one's own id is its author's: another organiser publishes editions of it for
their own series, never for everyone. On SQLite and PostgreSQL, through the core."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
import sqlalchemy as sa
from ledger_testkit import counts

from sudya.app import access
from sudya.app import rulebook_store as store
from sudya.app.accounts import add_user
from sudya.app.core import Sudya
from sudya.app.ledger import Actor, Ledger, LedgerError
from sudya.domain import commands as c
from sudya.domain.rulebook import loader

OWNER = Actor(name="owner", owner=True)
BERSERK = loader.edition_files("berserk")["1"].read_text("utf-8")
SLOW_PLAY = "penalty: {amateur: caution, professional: warning, highest: warning}"
HARSH = BERSERK.replace(SLOW_PLAY, "penalty: {amateur: disqualification, "
                        "professional: disqualification, highest: disqualification}", 1)
DAY = dt.date(2026, 3, 1)


@pytest.fixture(autouse=True)
def _forget_stored() -> Iterator[None]:
    """The loader's registry is the process's: no stored edition outlives its database."""
    yield
    loader.keep_stored(set())


@pytest.fixture
def two(ledger: Ledger) -> tuple[Sudya, int, int]:
    """Two berserk series, each with a tournament and its own organiser (olga: A, oleg: B);
    returns the core and the two series' ids."""
    app = Sudya(ledger)
    series = []
    for letter, organiser in (("A", "olga"), ("B", "oleg")):
        sid = app.handle(c.CreateSeries(name=f"Лига {letter}", rulebook="berserk"), OWNER)
        tid = app.handle(c.CreateTournament(series=sid, name=f"Тур 1 {letter}", date=DAY,
                                            level="professional"), OWNER)
        add_user(ledger, username=organiser, password="password-" + organiser,
                 roles=[(tid, "organiser")])
        series.append(sid)
    return app, series[0], series[1]


def harsh(series: int | str | None) -> c.PublishRulebook:
    """Slow play → disqualification: the edition of the issue's report."""
    return c.PublishRulebook(text=HARSH, summary="Замедление — дисквалификация",
                             in_force_from=DAY, cases={}, series=series)


def new_tournament(app: Sudya, series: int, name: str, **pinned: str) -> int:
    tid: int = app.handle(c.CreateTournament(series=series, name=name, date=DAY + dt.timedelta(
        days=30), level="professional", **pinned), OWNER)
    return tid


def slow_play(app: Sudya, tid: int) -> str:
    """What slow play gives at the professional level in a tournament's edition."""
    penalty = app.book_of(tid).infraction("gameplay.slow-play").penalty
    assert isinstance(penalty, dict)
    return str(penalty["professional"])


def test_an_organisers_edition_is_in_force_in_their_series_only(
        two: tuple[Sudya, int, int]) -> None:
    app, a, b = two
    view = app.handle(harsh(a), Actor(name="olga"))
    assert view.series == "Лига A" and view.edition == "2"
    in_a, in_b = new_tournament(app, a, "Тур 2 A"), new_tournament(app, b, "Тур 2 B")
    assert "disqualification" in slow_play(app, in_a)
    assert "warning" in slow_play(app, in_b)  # the other organiser's series: unchanged
    assert loader.load("berserk").edition == "1"  # the rulebook's default: the bundled one
    with app.reading() as s:
        listed = {e.edition: e.series for e in store.editions(s, "berserk")}
    assert listed == {"1": None, "2": "Лига A"}


def test_a_bundled_rulebook_is_never_published_for_everyone(
        two: tuple[Sudya, int, int], db_engine: sa.Engine) -> None:
    app, a, _b = two
    before = counts(db_engine)
    for who in (Actor(name="olga"), OWNER):  # not even by the administrator
        with pytest.raises(LedgerError) as refused:
            app.handle(harsh(None), who)
        assert (refused.value.code, refused.value.field) == ("rulebook.bundled-shared", "series")
    assert counts(db_engine) == before


def test_an_organiser_publishes_for_no_other_series(two: tuple[Sudya, int, int],
                                                    db_engine: sa.Engine) -> None:
    app, a, b = two
    before = counts(db_engine)
    with pytest.raises(access.Refused) as refused:
        app.handle(harsh(b), Actor(name="olga"))
    assert refused.value.status == 403
    with pytest.raises(access.Refused):  # nor in a tournament of it
        app.handle(harsh(None), Actor(name="olga"), app.handle(c.CreateTournament(
            series=b, name="Тур 3 B", date=DAY, level="professional"), OWNER))
    with pytest.raises(LedgerError) as unknown:
        app.handle(harsh("Нет такой"), Actor(name="olga"))
    assert (unknown.value.code, unknown.value.field) == ("series.unknown", "series")
    with pytest.raises(LedgerError) as other:  # a series judged by another rulebook
        clan = app.handle(c.CreateSeries(name="Клан", rulebook="clan-championship"), OWNER)
        app.handle(harsh(clan), OWNER)
    assert (other.value.code, other.value.field) == ("rulebook.not-the-series", "text")
    assert counts(db_engine)["rulebook_edition"] == before["rulebook_edition"]


def test_a_series_cannot_pin_another_series_edition(two: tuple[Sudya, int, int]) -> None:
    app, a, b = two
    app.handle(harsh(a), Actor(name="olga"))
    with pytest.raises(LedgerError) as refused:
        new_tournament(app, b, "Тур 2 B", edition="2")
    assert (refused.value.code, refused.value.field) == ("edition.other-series", "edition")
    pinned = new_tournament(app, a, "Тур 2 A", edition="1")  # its own series may go back
    assert "warning" in slow_play(app, pinned)


OWN = """\
id: club-own
title: {ru: "Клубный регламент", en: "A club's rulebook"}
edition: "1"
levels:
  - {id: low, name: {ru: "Низкий", en: "Low"}}
sanctions:
  - {id: caution, rank: 1, name: {ru: "Замечание", en: "Caution"}}
ladder: [caution]
repeats: {mode: escalate}
infractions:
  - id: noise
    name: {ru: "Шум", en: "Noise"}
    source: "club §1"
    penalty: {low: caution}
"""


def test_a_rulebook_of_ones_own_is_its_authors(two: tuple[Sudya, int, int]) -> None:
    app, _a, _b = two
    first = app.handle(c.PublishRulebook(text=OWN, summary="first", cases={}),
                       Actor(name="olga"))
    assert first.series is None and first.edition == "1"
    again = app.handle(c.PublishRulebook(text=OWN, summary="second", cases={}),
                       Actor(name="olga"))
    assert again.edition == "2"
    with pytest.raises(LedgerError) as refused:
        app.handle(c.PublishRulebook(text=OWN, summary="mine now", cases={}),
                   Actor(name="oleg"))
    assert (refused.value.code, refused.value.params["author"]) == ("rulebook.not-yours",
                                                                    "olga")
