"""The read side of the end of a match and of corrections: which matches of a round were
played and which have ended, and which records of a tournament a correction may name.

The writes are the ledger's (`Ledger.end_match`, `Ledger.correct`, `Ledger.correct_result`);
the pages that call them are sudya.edges.web.pages_match.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.queries import tournament_roster
from sudya.app.readback import corrected_results, tournament_results, tournament_rulings
from sudya.app.views import TableResultView
from sudya.domain.plan import Plan
from sudya.domain.rulebook import loader
from sudya.domain.standings import Seat, by_penalty

# rulings a correction does not name: a correction itself, an appeal's decision (final), a
# rule's cancellation (it follows from another record: that one is corrected instead)
NOT_CORRECTED = ("correction", "appeal", "cancellation")


def match_ends(s: Session, *, tournament: int) -> list[dict[str, Any]]:
    """Every end of a match recorded in a tournament, the newest first: its event, round,
    the players it named (None: the whole round), who and when."""
    rows = s.scalars(select(m.Event).where(m.Event.tournament_id == tournament,
                                           m.Event.kind == "end-of-match")
                     .order_by(m.Event.seq.desc()))
    return [{"event": e.ext_id, "round": e.payload.get("round"),
             "players": e.payload.get("players"), "by": e.created_by,
             "at": _utc(e.created_at)} for e in rows]


def round_matches(s: Session, *, tournament: int, round: int) -> list[dict[str, Any]]:
    """The matches of a round: its tables (the pairings imported for it), then any other pair
    whose result is entered (a corrected result is not), each with its table (None without
    pairings), its results, and the end of the match if recorded — one naming the pair's
    players (or teams), or the end of the whole round."""
    t = s.get(m.Tournament, tournament)
    if t is None:
        return []
    out: dict[frozenset[str], dict[str, Any]] = {}
    for table, a, b in s.execute(select(m.Pairing.table_no, m.Pairing.player_a,
                                        m.Pairing.player_b)
                                 .where(m.Pairing.tournament_id == tournament,
                                        m.Pairing.round == round)
                                 .order_by(m.Pairing.table_no)):
        out[frozenset((a, b))] = {"table": table, "players": (a, b), "results": [],
                                  "ended": None}
    corrected = corrected_results(s, t.series_id)
    rows = s.execute(select(m.Result, m.Event.ext_id)
                     .join(m.Event, m.Event.id == m.Result.event_id)
                     .where(m.Result.tournament_id == tournament, m.Result.round == round)
                     .order_by(m.Event.seq))
    for r, ext in rows:
        if ext in corrected:
            continue
        pair = frozenset((r.player_a, r.player_b))
        match = out.setdefault(pair, {"table": None, "players": (r.player_a, r.player_b),
                                      "results": [], "ended": None})
        match["results"].append({"event": ext, "score": f"{r.score_a}:{r.score_b}"})
    ends = [e for e in match_ends(s, tournament=tournament) if e["round"] == round]
    whole = next((e for e in ends if e["players"] is None), None)
    for pair, match in out.items():
        mine = next((e for e in ends if e["players"] and pair <= set(e["players"])), None)
        match["ended"] = mine or whole
    return list(out.values())


def table_results(s: Session, *, tournament: int, round: int) -> dict[int, TableResultView]:
    """table -> what each paired table of a round counts as: the score entered for its pair
    (the last one that counts), or the result a penalty gave it (standings.by_penalty);
    a table with neither is missing."""
    t = s.get(m.Tournament, tournament)
    if t is None:
        return {}
    seats = [Seat(t.position, round, table, a, b) for table, a, b in s.execute(
        select(m.Pairing.table_no, m.Pairing.player_a, m.Pairing.player_b)
        .where(m.Pairing.tournament_id == tournament, m.Pairing.round == round))]
    if not seats:
        return {}
    results = tournament_results(s, t)
    entered = {frozenset(r.players): r for r, _t in results if r.round == round}
    out: dict[int, TableResultView] = {}
    for seat in seats:
        r = entered.get(frozenset((seat.a, seat.b)))
        if r is not None:
            own = r.players[0] == seat.a
            out[seat.table] = TableResultView(score_a=r.score[0 if own else 1],
                                              score_b=r.score[1 if own else 0])
    book = Plan.model_validate(t.plan or {}).scored(loader.load(t.series.rulebook, t.edition))
    for r, _t in by_penalty(book, tournament_roster(s, t), tournament_rulings(s, t), results,
                            [seat for seat in seats if seat.table not in out]):
        table = int(r.id.rsplit(":", 1)[1])
        a, b = r.score
        out[table] = TableResultView(score_a=a, score_b=b, penalty=True,
                                     loser=None if a == b else r.players[0 if a < b else 1])
    return out


def standing_events(rulings: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The events whose rulings still stand and a correction may name (rulings in the
    replay format, oldest first): event -> its rulings. Revoked ones (by a correction, an
    appeal, a cancellation) and the rulings that revoke are left out."""
    revoked = {r["revokes"] for r in rulings if r.get("revokes")}
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rulings:
        if r["cause"] in NOT_CORRECTED or r.get("resolves") or r["event"] in revoked:
            continue
        out.setdefault(r["event"], []).append(r)
    return out


def _utc(at: dt.datetime | None) -> dt.datetime | None:
    if at is not None and at.tzinfo is None:  # SQLite keeps no zone: the rows are UTC
        return at.replace(tzinfo=dt.UTC)
    return at
