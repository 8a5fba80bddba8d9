"""Issue 36: an organiser sets a tournament up from the web app — a tournament of a series they
organise, or a new series when the owner let them start one — with its level, rounds,
pairing, match points and tie-breakers; the tournament's own match points then score its
standings. Each refusal stands beside its field; one who organises nothing cannot."""

from __future__ import annotations

import datetime as dt
import html
import re
from collections.abc import Callable

from fastapi import FastAPI
from fastapi.testclient import TestClient
from web_testkit import csrf_of

from sudya.app.demo import PASSWORD
from sudya.app.ledger import Actor, Ledger
from sudya.app.queries import find_tournament, tournament_standings
from sudya.domain import commands as c
from sudya.domain.plan import Plan

SignIn = Callable[[str], TestClient]
OWNER = Actor(name="owner", owner=True)


def create(client: TestClient, **fields: str) -> tuple[int, str, str]:
    """The form sent; its status, page and where it went."""
    data = {"csrf": csrf_of(client, "/tournaments/new"), "date": "2026-12-20",
            "pairing": "swiss", **fields}
    r = client.post("/tournaments/new", data=data, follow_redirects=False)
    return r.status_code, html.unescape(r.text), r.headers.get("location", "")


def beside(page: str, field: str) -> str:
    return page.split(f'id="{field}-error">')[1].split("</p>")[0]


def test_an_organiser_adds_a_tournament_to_their_series(signed_in: SignIn,
                                                        ledger: Ledger) -> None:
    head = signed_in("glavsud")
    assert 'href="/tournaments/new"' in head.get("/tournaments").text
    page = html.unescape(head.get("/tournaments/new").text)
    found = re.search(r'<option value="(\d+)"[^>]*>Кубок «Берсерк» \(berserk\)</option>', page)
    assert found is not None
    status, page, where = create(head, series=found.group(1), name="Этап 2",
                                 level="berserk:professional", rounds="5", win="2", draw="1",
                                 loss="0", tb1="omw", tb2="gw", tb3="buchholz")
    assert status == 303, page
    tid = int(re.fullmatch(r"/t/(\d+)/people", where).group(1))  # type: ignore[union-attr]
    assert head.get(where).status_code == 200  # its organiser: the author, and the series'
    with ledger.factory() as s:
        t = find_tournament(s, tournament=tid)
    assert t is not None and t.level == "professional"
    assert t.plan == Plan(rounds=5, pairing="swiss", win=2, draw=1, loss=0,
                          tiebreakers=["omw", "gw", "buchholz"])


def test_refusals_stand_beside_their_fields(signed_in: SignIn) -> None:
    head = signed_in("glavsud")
    page = html.unescape(head.get("/tournaments/new").text)
    series = re.search(r'<option value="(\d+)"[^>]*>Кубок «Берсерк»', page)
    assert series is not None
    status, page, _ = create(head, series=series.group(1), name="", level="")
    assert status == 422 and beside(page, "name")
    status, page, _ = create(head, series=series.group(1), name="Этап 3", date="завтра")
    assert status == 422 and beside(page, "date")
    status, page, _ = create(head, series=series.group(1), name="Этап 3",
                             level="clan-championship:none")
    assert status == 422 and "level" in page and beside(page, "level")
    status, page, _ = create(head, series="new", new_series="Своя", rulebook="berserk",
                             name="Этап 1", level="berserk:amateur")
    assert status == 422  # glavsud may not start a series: said beside the series' choice
    assert "начать новую серию" in beside(page, "series")


def test_a_first_organiser_starts_a_series(app: FastAPI, signed_in: SignIn) -> None:
    sudya = app.state.sudya
    sudya.handle(c.AddUser(username="klub", password=PASSWORD), OWNER)
    sudya.handle(c.AllowSeries(username="klub"), OWNER)
    klub = signed_in("klub")
    status, page, where = create(klub, series="new", new_series="Клубный вечер",
                                 rulebook="berserk", name="Вечер 1", level="berserk:amateur")
    assert status == 303, page
    assert klub.get(where).status_code == 200


def test_one_who_organises_nothing_sets_nothing_up(signed_in: SignIn) -> None:
    judge = signed_in("sudya")
    assert judge.get("/tournaments/new").status_code == 403
    assert 'href="/tournaments/new"' not in judge.get("/tournaments").text


def test_the_tournaments_match_points_score_its_standings(app: FastAPI,
                                                          ledger: Ledger) -> None:
    sudya = app.state.sudya
    tid = sudya.handle(c.CreateTournament(
        series="Очки", name="Этап 1", date=dt.date(2026, 12, 20), level="professional",
        new_series_rulebook="berserk", plan=Plan(win=2, draw=1, loss=0)), OWNER)
    for p in ("anya", "boba"):
        sudya.handle(c.AddPlayer(handle=p), OWNER, tid)
    sudya.handle(c.RecordResult(players=("anya", "boba"), score=(2, 0), round=1), OWNER, tid)
    with ledger.factory() as s:
        first = tournament_standings(s, tid)["players"]
    assert first["anya"]["match_points"] == 2
    sudya.handle(c.SetPlan(plan=Plan(win=5)), OWNER, tid)  # kept tables follow the plan
    with ledger.factory() as s:
        assert tournament_standings(s, tid)["players"]["anya"]["match_points"] == 5


def test_the_tournaments_tiebreakers_order_its_standings(app: FastAPI, ledger: Ledger) -> None:
    sudya = app.state.sudya
    tid = sudya.handle(c.CreateTournament(
        series="Показатели", name="Этап 1", date=dt.date(2026, 12, 20), level="professional",
        new_series_rulebook="berserk", plan=Plan(tiebreakers=["buchholz", "gw", "omw"])),
        OWNER)
    for p in ("anya", "boba", "vova", "gena"):
        sudya.handle(c.AddPlayer(handle=p), OWNER, tid)
    sudya.handle(c.RecordResult(players=("anya", "boba"), score=(2, 0), round=1), OWNER, tid)
    sudya.handle(c.RecordResult(players=("vova", "gena"), score=(2, 1), round=1), OWNER, tid)
    with ledger.factory() as s:
        line = tournament_standings(s, tid)["players"]["anya"]
    assert list(k for k in line if k in ("buchholz", "gw", "omw")) == ["buchholz", "gw", "omw"]
    assert line["gw"] == 1.0 and line["buchholz"] == 0 and line["omw"] == round(1 / 3, 4)
