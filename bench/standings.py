"""Standings of a large open tournament, as a ratio to reading its results in the same run.

Builds a berserk series through the ledger (`Ledger`: players and each round's results in one
batch transaction each, penalties one `execute` at a time, as judges enter them): a finished
tournament of the same size before it, so the series holds twice what the tournament does,
then `--players` players (2,000) playing `--rounds` rounds (9) with `--players`/50 penalties a
round. Then measures, interleaved and `--repeat` times each (the median):

- the baseline: a plain SELECT of the tournament's result rows (the columns the standings
  use), every row fetched, in a fresh session;
- the whole table (`services.queries.tournament_standings`, in a fresh session);
- the JSON API's first page (`GET /api/v1/tournaments/ID/standings`, 100 players);
- the standings page (`GET /t/ID/standings`, its first 100 players), what a player waits for;
- the same page made afresh: the first request after a change of the series (a result, a
  ruling), which makes the table again (`services.queries.TABLES` emptied before it); every
  later request until the next change finds it made. The results read before are kept
  (`services.readback.ENTERED`), as after a change: a new result is the one row read;
- the head judge's dashboard (`GET /t/ID`, as the tournament's organiser), and the same made
  afresh (`services.queries.RULINGS` emptied before it: the tournament's rulings read again,
  as after a ruling is recorded).

The last line is the page: `STANDINGS: X ms (goal 200 ms)`, with the made-afresh figure.

    python bench/standings.py [--players 2000] [--rounds 9] [--repeat 7] [--db URL [--reuse]]

`--db` names an empty database (SQLite or PostgreSQL); by default a fresh SQLite file. The
build takes a minute or two at the full size; `--players 400` is a quick look;
`--reuse` measures again a database built by an earlier run with `--db`.
"""

from __future__ import annotations

# bench/ goes last on sys.path, after the standard library (a file in bench/ named as one of
# its modules, as bench/http.py once was, would shadow it for the test client)
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.append(_HERE)  # last: bench/throwaway.py, after the standard library's modules

import argparse  # noqa: E402
import contextlib  # noqa: E402
import datetime as dt  # noqa: E402
import random  # noqa: E402
import statistics  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

# the test client is the app in-process, not a server (bench/http_record.py measures one)
warnings.filterwarnings("ignore", message=".*httpx2.*")

from fastapi.testclient import TestClient  # noqa: E402
from sqlalchemy import select  # noqa: E402
from sqlalchemy.orm import Session  # noqa: E402
from throwaway import database  # noqa: E402
from timing import interleaved  # noqa: E402

from sudya.adapters.db import models as m  # noqa: E402
from sudya.adapters.db.migrate import upgrade  # noqa: E402
from sudya.adapters.db.session import make_engine  # noqa: E402
from sudya.app.accounts import add_user  # noqa: E402
from sudya.app.core import Sudya  # noqa: E402
from sudya.app.ledger import Actor, Ledger  # noqa: E402
from sudya.app.queries import RULINGS, TABLES, tournament_standings  # noqa: E402
from sudya.app.settings import Settings  # noqa: E402
from sudya.domain.commands import RecordInfraction, SetPlan  # noqa: E402
from sudya.domain.plan import Plan  # noqa: E402
from sudya.edges.web.app import create_app  # noqa: E402

INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor",
               "deck.careless-decklist"]
GOAL_MS = 200
ORGANISER_PASSWORD = "bench-organiser-password"


def tournament(ledger: Ledger, name: str, day: dt.date, players: int, rounds: int,
               rng: random.Random, tiebreakers: list[str]) -> int:
    """A tournament of the series: its plan's tie-breakers, its players, then each round's
    results and penalties."""
    actor = Actor("bench")
    tid = ledger.create_tournament(series="Сезон", name=name, date=day, level="professional",
                                   actor=actor)
    Sudya(ledger).handle(SetPlan(plan=Plan(pairing="swiss", tiebreakers=tiebreakers)),
                         Actor("bench", owner=True), tid)
    handles = [f"p{i}" for i in range(players)]
    with ledger.writing(tournament=tid) as s:
        for h in handles:
            ledger.add_player(tournament=tid, handle=h, name=f"Игрок {h}", actor=actor,
                              session=s)
    for rnd in range(1, rounds + 1):
        order = handles[:]
        rng.shuffle(order)
        with ledger.writing(tournament=tid) as s:
            for a, b in zip(order[::2], order[1::2], strict=False):
                ledger.record_result(tournament=tid, players=(a, b),
                                     score=rng.choice([(2, 0), (2, 1), (1, 2), (0, 2), (1, 1)]),
                                     round=rnd, actor=actor, session=s)
        for _ in range(max(1, players // 50)):
            ledger.execute(tid, RecordInfraction(infraction=rng.choice(INFRACTIONS),
                                                 player=rng.choice(handles), round=rnd),
                           actor=actor)
    return tid


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--tiebreakers", default="omw,gw,ogw,buchholz,sb",
                        help="the tournaments' tie-breakers in order (the plan's)")
    parser.add_argument("--db", default=None)
    parser.add_argument("--reuse", action="store_true",
                        help="--db holds a season this benchmark built: measure it again")
    args = parser.parse_args()
    if args.reuse and not args.db:
        parser.error("--reuse measures the database --db names again")
    with tempfile.TemporaryDirectory() as tmp, (
            contextlib.nullcontext(args.db) if args.reuse
            else database(args.db, Path(tmp), "standings")) as url:
        measure(url, args)


def measure(url: str, args: argparse.Namespace) -> None:
    engine = make_engine(url)
    upgrade(engine)
    ledger = Ledger(engine)
    rng = random.Random(16)
    start = time.perf_counter()
    if args.reuse:
        with Session(engine) as s:
            tid = s.scalars(select(m.Tournament.id).where(m.Tournament.name == "Этап 2")).one()
    else:
        ledger.create_series(name="Сезон", rulebook="berserk", actor=Actor("bench"))
        order = [tb for tb in args.tiebreakers.split(",") if tb]
        tournament(ledger, "Этап 1", dt.date(2026, 3, 1), args.players, args.rounds, rng, order)
        tid = tournament(ledger, "Этап 2", dt.date(2026, 4, 1), args.players, args.rounds, rng,
                         order)
    built = time.perf_counter() - start
    with Session(engine) as s:
        results = len(s.scalars(select(m.Result.id).where(m.Result.tournament_id == tid))
                      .all())
        rulings = len(s.scalars(select(m.Ruling.id).where(m.Ruling.tournament_id == tid))
                      .all())
    how = "reused" if args.reuse else f"built through the ledger in {built:.0f} s"
    print(f"{how}: 2 tournaments of {args.players:,} players x {args.rounds} rounds "
          f"({results:,} results and {rulings} rulings each)")

    def baseline() -> None:
        with Session(engine) as s:
            s.execute(select(m.Result.event_id, m.Result.round, m.Result.player_a,
                             m.Result.player_b, m.Result.score_a, m.Result.score_b)
                      .where(m.Result.tournament_id == tid)).all()

    def whole() -> None:
        with Session(engine) as s:
            tournament_standings(s, tid)

    # the head judge's dashboard is read as the tournament's organiser (a role that sees all)
    with Session(engine) as s:
        known = s.scalar(select(m.User.id).where(m.User.username == "bench-organiser"))
    if known is None:
        add_user(ledger, username="bench-organiser", password=ORGANISER_PASSWORD,
                 roles=[(tid, "organiser")])
    app = create_app(Settings(database_url=url), engine=engine)
    with TestClient(app) as client:
        signed = client.post("/api/v1/login", json={"username": "bench-organiser",
                                                     "password": ORGANISER_PASSWORD})
        signed.raise_for_status()
        bearer = {"authorization": f"Bearer {signed.json()['token']}"}

        def get(path: str, headers: dict[str, str] | None = None) -> Callable[[], None]:
            def call() -> None:
                response = client.get(path, headers=headers)
                assert response.status_code == 200, (path, response.status_code)
            return call

        page, api = get(f"/t/{tid}/standings"), get(f"/api/v1/tournaments/{tid}/standings")
        dashboard = get(f"/t/{tid}", bearer)
        shown = client.get(f"/t/{tid}/standings").text
        assert "p0" in shown or "Игрок" in shown
        def afresh() -> None:
            TABLES.clear()
            page()

        def dashboard_afresh() -> None:
            RULINGS.clear()
            dashboard()

        measures: dict[str, Callable[[], None]] = {
            "baseline": baseline, "whole": whole, "api": api, "page": page, "afresh": afresh,
            "dashboard": dashboard, "dashboard_afresh": dashboard_afresh}
        for call in measures.values():  # warm: the rulebook, the templates, the pool
            call()
        took = interleaved(measures, args.repeat)
    ms = {name: median_ms(samples) for name, samples in took.items()}
    print(f"baseline: SELECT of the tournament's {results:,} result "
          f"rows {ms['baseline']:.1f} ms (median of {args.repeat})")
    for name, what in (("whole", "the whole table (tournament_standings)"),
                       ("api", "the API's first page (100 players)"),
                       ("page", "the standings page, first 100 players"),
                       ("afresh", "the page made afresh (the first request after a change)")):
        print(f"{what}: {ms[name]:.1f} ms = {ms[name] / ms['baseline']:.1f} x baseline")
    print(f"the head judge's dashboard: {ms['dashboard']:.1f} ms = "
          f"{ms['dashboard'] / ms['baseline']:.1f} x baseline; its first request after a change "
          f"of the series (the rulings read again): {ms['dashboard_afresh']:.1f} ms = "
          f"{ms['dashboard_afresh'] / ms['baseline']:.1f} x baseline")
    print(f"STANDINGS: {ms['page']:.0f} ms, made afresh {ms['afresh']:.0f} ms "
          f"(goal {GOAL_MS} ms)")
    engine.dispose()


if __name__ == "__main__":
    main()
