"""What a judge's phone downloads at a 500-player, 250-table event: the dashboard's HTML and a
live update of it (the judge's work alone, /t/ID/live/work), compressed as the server sends
them (gzip), as a ratio to the login page's in the same run.

Builds the event through the application core (`Sudya.handle`): a Swiss tournament, its
players uploaded, round 1 paired, `--rulings` rulings recorded; then asks for the pages as
its organiser, who is also its head judge (a role that sees everything).

    python -P bench/dashboard_size.py [--players 500] [--rulings 60]

The last line: `DASHBOARD: X KB compressed, a live update Y KB (goals 30 KB, 2 KB)`.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
sys.path.append(_HERE)

import argparse  # noqa: E402
import datetime as dt  # noqa: E402
import gzip  # noqa: E402
import tempfile  # noqa: E402
from pathlib import Path  # noqa: E402

from fastapi.testclient import TestClient  # noqa: E402

from sudya.adapters.db.migrate import upgrade  # noqa: E402
from sudya.adapters.db.session import make_engine  # noqa: E402
from sudya.app.core import Sudya  # noqa: E402
from sudya.app.ledger import Actor, Ledger  # noqa: E402
from sudya.app.settings import Settings  # noqa: E402
from sudya.domain import commands as c  # noqa: E402
from sudya.domain.plan import Plan  # noqa: E402
from sudya.edges.web.app import create_app  # noqa: E402

GOAL_PAGE_KB, GOAL_LIVE_KB = 30, 2
PASSWORD = "bench-head-judge-password"
INFRACTIONS = ["procedure.tardiness", "procedure.minor", "gameplay.slow-play",
               "conduct.minor"]


def build(app: Sudya, players: int, rulings: int) -> int:
    owner = Actor("bench", owner=True)
    tid: int = app.handle(c.CreateTournament(
        series="Кубок", name="Открытый турнир", date=dt.date(2026, 12, 19),
        level="professional", new_series_rulebook="berserk",
        plan=Plan(pairing="swiss", rounds=9)), owner)
    rows = "".join(f"p{i:03d},Игрок{i:03d} Фамилия{i % 37:02d}\n" for i in range(players))
    app.handle(c.ImportRoster(kind="players", filename="players.csv",
                              data=("handle,name\n" + rows).encode()), owner, tid)
    app.handle(c.AddJudge(handle="glavsud", role="head-judge"), owner, tid)
    app.handle(c.AddUser(username="glavsud", password=PASSWORD,
                         roles=[(tid, "organiser")]), owner)
    app.handle(c.PairRound(round=1), owner, tid)
    for i in range(rulings):
        app.handle(c.RecordInfraction(infraction=INFRACTIONS[i % len(INFRACTIONS)],
                                      player=f"p{(i * 7) % players:03d}", round=1,
                                      judge="glavsud"), owner, tid)
    return tid


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=500)
    parser.add_argument("--rulings", type=int, default=60)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite:///{Path(tmp) / 'dashboard.db'}"
        engine = make_engine(url)
        upgrade(engine)
        app = Sudya(Ledger(engine))
        tid = build(app, args.players, args.rulings)
        web = create_app(Settings(database_url=url), engine=engine)
        with TestClient(web) as client:
            login = client.get("/login").content
            r = client.post("/api/v1/login", json={"username": "glavsud",
                                                   "password": PASSWORD})
            r.raise_for_status()
            head = {"authorization": f"Bearer {r.json()['token']}"}
            page = client.get(f"/t/{tid}", headers=head)
            live = client.get(f"/t/{tid}/live/work", headers=head)
            assert page.status_code == live.status_code == 200
        engine.dispose()
    sizes = {name: (len(body), len(gzip.compress(body, 6))) for name, body in (
        ("login", login), ("page", page.content), ("live", live.content))}
    base = sizes["login"][1]
    print(f"{args.players} players, {args.players // 2} tables, {args.rulings} rulings")
    print(f"baseline: the login page {sizes['login'][0] / 1024:.1f} KB, "
          f"{base / 1024:.1f} KB compressed")
    for name, what in (("page", "the dashboard"), ("live", "a live update (the work)")):
        raw, packed = sizes[name]
        print(f"{what}: {raw / 1024:.1f} KB, {packed / 1024:.1f} KB compressed = "
              f"{packed / base:.1f} x baseline")
    print(f"DASHBOARD: {sizes['page'][1] / 1024:.1f} KB compressed, a live update "
          f"{sizes['live'][1] / 1024:.1f} KB (goals {GOAL_PAGE_KB} KB, {GOAL_LIVE_KB} KB)")


if __name__ == "__main__":
    main()
