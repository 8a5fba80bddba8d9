"""Reading the ledger back: rulings, subjects and standings as stored, in the replay format."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Executable, Row, func, select
from sqlalchemy.orm import Session, aliased, selectinload

from sudya.adapters.db import models as m
from sudya.app.common import Kept
from sudya.app.views import replay_json
from sudya.domain.engine.model import FOREVER, Reason, Result, Roster, Ruling, Sanction, is_frozen
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

# causes whose `revokes` settle a pending ruling (an overturned pending ruling is resolved)
SETTLING = ("appeal", "correction")


def stored_reason(raw: Any) -> Reason:
    """A reason as the ledger stores it (`{code, params, source}`)."""
    return Reason(str(raw["code"]), dict(raw.get("params") or {}), str(raw.get("source") or ""))


def _to_engine(row: m.Ruling | Row[Any], revoked: set[int], position: int = 0,
               sanctions: Iterable[m.SanctionRow | Row[Any]] | None = None) -> Ruling:
    ruling = Ruling(event=row.event_ext_id, subject=row.subject, infraction=row.infraction,
                    cause=row.cause, pending=row.pending, offered=row.offered,
                    notes=[stored_reason(n) for n in row.notes or []], revokes=row.revokes,
                    resolves=row.resolves,
                    aggravated=row.aggravated, applies_to=row.applies_to, round=row.round,
                    judge=row.judge, edition=row.edition, details=dict(row.details or {}),
                    seq=row.position, ref=row.id, tournament=position)
    for srow in row.sanctions if sanctions is None else sanctions:
        until: dt.date | None = FOREVER if srow.never_expires else srow.valid_until
        ruling.sanctions.append(Sanction(
            kind=srow.kind, subject=srow.subject, rank=0, amount=srow.amount, score=srow.score,
            attached=srow.attached, valid_until=until, revoked=srow.id in revoked,
            status=srow.status, scope=srow.scope or "tournament", ruling=ruling, ref=srow.id))
    return ruling


def plain_rows(s: Session, statement: Executable,
               params: Mapping[str, Any] | None = None) -> Sequence[Row[Any]]:
    """The rows of a column SELECT as Core gives them, in the session's transaction (what it
    has flushed included), with the values of its bound parameters: for thousands of plain
    rows the ORM's result machinery costs about twice the fetch itself (a large tournament's
    9,000 results: 29 ms against 88 ms), and for the one row of every request's reads the
    ORM session's execute costs more than the statement (111 against 44 us here)."""
    if s.autoflush:
        s.flush()
    return s.connection().execute(statement, params).all()


RULING_COLUMNS = tuple(c for c in m.Ruling.__table__.c if c.key not in ("chain", "created_at",
                                                                       "created_by",
                                                                       "request_id"))
SANCTION_COLUMNS = tuple(c for c in m.SanctionRow.__table__.c
                         if c.key not in ("chain", "created_at", "created_by", "request_id"))


def series_rulings(s: Session, series_id: int) -> list[Ruling]:
    """Every ruling of a series in engine order, with what later records changed."""
    rows = list(s.scalars(select(m.Ruling).where(m.Ruling.series_id == series_id)
                          .options(selectinload(m.Ruling.sanctions))
                          .order_by(m.Ruling.position)))
    revoked = set(s.scalars(select(m.Revocation.sanction_id).join(
        m.SanctionRow, m.SanctionRow.id == m.Revocation.sanction_id).join(
        m.Ruling, m.Ruling.id == m.SanctionRow.ruling_id).where(m.Ruling.series_id == series_id)))
    positions: dict[int, int] = {
        tid: pos for tid, pos in s.execute(select(m.Tournament.id, m.Tournament.position)
                                           .where(m.Tournament.series_id == series_id))}
    rulings = [_to_engine(r, revoked, positions[r.tournament_id]) for r in rows]
    settle_later(rulings)
    return rulings


def tournament_rulings(s: Session, t: m.Tournament) -> list[Ruling]:
    """The rulings of one tournament in engine order, as `series_rulings` gives them (what
    later records changed, in this tournament or a later one), reading only this tournament's
    rulings, the revocations of their sanctions, and the few records that settle them."""
    # plain rows, not ORM objects: a large tournament's rulings are read on every page
    rows = plain_rows(s, select(*RULING_COLUMNS).where(m.Ruling.tournament_id == t.id)
                      .order_by(m.Ruling.position))
    sanctions: dict[int, list[Row[Any]]] = defaultdict(list)
    revoked: set[int] = set()
    for srow in plain_rows(s, select(*SANCTION_COLUMNS, m.Revocation.id.label("revocation"))
                           .join(m.Ruling, m.Ruling.id == m.SanctionRow.ruling_id)
                           .outerjoin(m.Revocation,
                                      m.Revocation.sanction_id == m.SanctionRow.id)
                           .where(m.Ruling.tournament_id == t.id)
                           .order_by(m.SanctionRow.ruling_id, m.SanctionRow.position)):
        sanctions[srow.ruling_id].append(srow)
        if srow.revocation is not None:
            revoked.add(srow.id)
    rulings = [_to_engine(r, revoked, t.position, sanctions.get(r.id, ())) for r in rows]
    targets = [r.event for r in rulings
               if (r.pending or is_frozen(r)) and r.cause != "decision"]
    if not targets:
        return rulings
    # a pending ruling may be settled by a record stored in a later tournament of the series
    settlers = [Ruling(event=ext, subject=subject, infraction=None, cause=cause,
                       revokes=revokes, resolves=resolves, seq=position)
                for ext, subject, cause, revokes, resolves, position in s.execute(
        select(m.Ruling.event_ext_id, m.Ruling.subject, m.Ruling.cause, m.Ruling.revokes,
               m.Ruling.resolves, m.Ruling.position)
        .where(m.Ruling.series_id == t.series_id, m.Ruling.tournament_id != t.id,
               ((m.Ruling.cause == "decision") & m.Ruling.resolves.in_(targets))
               | (m.Ruling.cause.in_(SETTLING) & m.Ruling.revokes.in_(targets))))]
    settle_later(sorted(rulings + settlers, key=lambda r: r.seq))
    return rulings


@dataclass(frozen=True, slots=True)
class _Entered:
    """A tournament's results as read, oldest first, up to its result row `last`."""

    last: int  # the highest result row id read
    chain: str  # that row's link in the series' hash chain: names everything up to it
    rows: tuple[tuple[str, Result], ...]  # (event, result)


# The results of the latest tournaments read, kept across the series' changes.
#
# Results are append-only and each is written under its series' lock, so a tournament's
# result rows come in the order of their ids; a later read fetches only the rows after the
# last one kept (a new result), or none (a ruling, a correction: which results count is
# read each time). The kept last row's chain hash must still be that row's: another
# database with the same ids (a test's, a restored copy) holds other rows and other hashes.
# The count of rows is checked too, so anything unexpected is read whole again.
ENTERED: Kept[int, _Entered] = Kept(32)

_RESULT_ROWS = (select(m.Event.ext_id, m.Result.player_a, m.Result.player_b, m.Result.score_a,
                       m.Result.score_b, m.Result.round)
                .join(m.Event, m.Event.id == m.Result.event_id))


def _entered(s: Session, t: m.Tournament) -> tuple[tuple[str, Result], ...]:
    """Every result row of a tournament in the order entered: those kept (`ENTERED`) and
    the rows after them, or all of them read again."""
    newest = (select(func.max(m.Result.id)).where(m.Result.tournament_id == t.id)
              .scalar_subquery())
    count, last, chain = plain_rows(s, select(
        func.count(m.Result.id), newest,
        select(m.Result.chain).where(m.Result.id == newest).scalar_subquery())
        .where(m.Result.tournament_id == t.id))[0]
    if not count:
        return ()
    kept = ENTERED.get(t.id)
    rows: tuple[tuple[str, Result], ...] | None = None
    if kept is not None and (kept.chain == chain if kept.last == last else (
            kept.last < last and s.scalar(select(m.Result.chain).where(
                m.Result.id == kept.last, m.Result.tournament_id == t.id)) == kept.chain)):
        rows = kept.rows
        if kept.last < last:
            rows += _result_rows(s, t, after=kept.last)
        if len(rows) != count:
            rows = None
    if rows is None:
        rows = _result_rows(s, t)
    if chain and len(rows) == count:
        ENTERED.put(t.id, _Entered(last=last, chain=chain, rows=rows))
    return rows


def _result_rows(s: Session, t: m.Tournament, after: int = 0
                 ) -> tuple[tuple[str, Result], ...]:
    return tuple((ext, Result(id=ext, players=(a, b), score=(sa, sb), round=rnd))
                 for ext, a, b, sa, sb, rnd in plain_rows(
        s, _RESULT_ROWS.where(m.Result.tournament_id == t.id, m.Result.id > after)
        .order_by(m.Event.seq)))


def tournament_results(s: Session, t: m.Tournament) -> list[tuple[Result, int]]:
    """The results of one tournament that count, as `series_results` gives them, read by the
    tournament (its own rows only, not the series'; those entered since the last read only,
    `_entered`)."""
    # those of its results a correction names (corrected_results, for these results only)
    fix = aliased(m.Event)
    corrected = {ext for ext, in plain_rows(
        s, select(m.Event.ext_id).join(m.Result, m.Result.event_id == m.Event.id)
        .where(m.Result.tournament_id == t.id, m.Event.ext_id.in_(
            select(fix.payload["of"].as_string())
            .where(fix.series_id == t.series_id, fix.kind == "correction"))))}
    position = t.position
    return [(result, position) for ext, result in _entered(s, t) if ext not in corrected]


def settle_later(rulings: list[Ruling]) -> None:
    """A pending ruling is resolved by a later decision on it, or by overturning it."""
    by_event: dict[str, list[Ruling]] = defaultdict(list)
    for r in rulings:
        by_event[r.event].append(r)
    for r in rulings:
        target = r.resolves if r.cause == "decision" else (
            r.revokes if r.cause in SETTLING else None)
        if target is None:
            continue
        for pending in by_event.get(target, ()):
            if pending.seq >= r.seq or pending.cause == "decision":
                continue
            if pending.pending:
                pending.pending = False
                pending.resolved_by = r.event
            elif r.cause == "decision" and is_frozen(pending):  # a frozen fight (§4 E18)
                pending.resolved_by = r.event


def rulings_of_event(s: Session, event: m.Event) -> list[Ruling]:
    rows = list(s.scalars(select(m.Ruling).where(m.Ruling.event_id == event.id)
                          .options(selectinload(m.Ruling.sanctions))
                          .order_by(m.Ruling.position)))
    return [_to_engine(r, set()) for r in rows]


def series_roster(s: Session, series_id: int) -> Roster:
    """Players in the order they first entered; teams with their latest members."""
    players: list[str] = []
    seen: set[str] = set()
    entries = s.execute(
        select(m.Person.handle, m.Entry.team_id)
        .join(m.Entry, m.Entry.person_id == m.Person.id)
        .join(m.Tournament, m.Tournament.id == m.Entry.tournament_id)
        .where(m.Tournament.series_id == series_id)
        .order_by(m.Tournament.position, m.Entry.id))
    members: dict[int, list[str]] = defaultdict(list)
    for handle, team_id in entries:
        if handle not in seen:
            seen.add(handle)
            players.append(handle)
        if team_id is not None and handle not in members[team_id]:
            members[team_id].append(handle)
    teams = {t.handle: members.get(t.id, []) for t in s.scalars(
        select(m.Team).where(m.Team.series_id == series_id).order_by(m.Team.id))}
    return Roster(players=players, teams=teams)


def series_results(s: Session, series_id: int) -> list[tuple[Result, int]]:
    """The results that count, in the order entered: a corrected one is left out (its
    correction names it, engine.appeals.correct_result)."""
    corrected = corrected_results(s, series_id)
    rows = s.execute(select(m.Result, m.Tournament.position, m.Event.ext_id)
                     .join(m.Tournament, m.Tournament.id == m.Result.tournament_id)
                     .join(m.Event, m.Event.id == m.Result.event_id)
                     .where(m.Tournament.series_id == series_id).order_by(m.Event.seq))
    return [(Result(id=ext, players=(r.player_a, r.player_b), score=(r.score_a, r.score_b),
                    round=r.round), position) for r, position, ext in rows
            if ext not in corrected]


def corrected_results(s: Session, series_id: int) -> dict[str, str]:
    """Each corrected result's event -> the correction's (a correction naming an event that
    has a result: only a result's correction can, a ruling's names an event without one)."""
    corrections = {p.get("of"): ext for ext, p in s.execute(
        select(m.Event.ext_id, m.Event.payload).where(m.Event.series_id == series_id,
                                                      m.Event.kind == "correction"))}
    if not corrections:
        return {}
    results = s.scalars(select(m.Event.ext_id).join(m.Result, m.Result.event_id == m.Event.id)
                        .where(m.Event.series_id == series_id,
                               m.Event.ext_id.in_([k for k in corrections if k])))
    return {ext: corrections[ext] for ext in results}


def series_book(s: Session, series_id: int) -> Rulebook:
    series = s.get(m.Series, series_id)
    assert series is not None
    last = s.scalar(select(m.Tournament.edition).where(m.Tournament.series_id == series_id)
                    .order_by(m.Tournament.position.desc()))
    return loader.load(series.rulebook, last)


def series_json(s: Session, series_id: int) -> dict[str, Any]:
    """The series in the replay output format, read from the database only."""
    book = series_book(s, series_id)
    rulings = series_rulings(s, series_id)
    return replay_json(book, series_roster(s, series_id), rulings,
                       series_results(s, series_id))
