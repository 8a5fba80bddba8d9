"""Read-only views of the ledger: a tournament, its standings, a person's history."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import orjson
from sqlalchemy import Row, bindparam, func, literal, select, union
from sqlalchemy.orm import Session, aliased, joinedload, selectinload

from sudya.adapters.db import models as m
from sudya.app.common import Kept
from sudya.app.ledger import LedgerError
from sudya.app.people import display_names, fold, names_and_teams
from sudya.app.readback import (
    SETTLING,
    plain_rows,
    stored_reason,
)
from sudya.app.readback import tournament_results as counted_results
from sudya.app.readback import tournament_rulings as rulings_of
from sudya.app.views import (
    STATUS_RANK,
    EntrantView,
    JudgeView,
    ReasonView,
    RecordEntryView,
    RecordSanctionView,
    SeriesView,
    StandingsPageView,
    SubjectView,
    TournamentSummaryView,
    TournamentView,
    ruling_json,
    subjects_view,
)
from sudya.domain.bulk import paused_gc
from sudya.domain.engine.model import Roster
from sudya.domain.plan import Plan
from sudya.domain.rulebook import loader
from sudya.domain.standings import Seat, standings
from sudya.i18n.messages import reason_text

BIGGEST_ID = 2**31 - 1  # a database integer: an id above it names no row


def _tournament(s: Session, tournament_id: int) -> m.Tournament:
    t = s.get(m.Tournament, tournament_id)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament_id)
    return t


def tournament_roster(s: Session, t: m.Tournament) -> Roster:
    rows = plain_rows(s, select(m.Person.handle, m.Team.handle)
                      .join(m.Entry, m.Entry.person_id == m.Person.id)
                      .outerjoin(m.Team, m.Team.id == m.Entry.team_id)
                      .where(m.Entry.tournament_id == t.id).order_by(m.Entry.id))
    players: list[str] = []
    teams: dict[str, list[str]] = {}
    for person, team in rows:
        players.append(person)
        if team is not None:
            teams.setdefault(team, []).append(person)
    return Roster(players=players, teams=teams)


def tournament_summary(s: Session, tournament_id: int) -> TournamentSummaryView:
    """A tournament with its people and judges: one query of its entries (players, teams
    and display names) and one of its staff; its rulings are not read (`rulings_json`)."""
    t = _tournament(s, tournament_id)
    rows = [(handle, name or handle, team, team_name) for handle, name, team, team_name
            in plain_rows(s, select(m.Person.handle, m.Person.name, m.Team.handle, m.Team.name)
                          .join(m.Entry, m.Entry.person_id == m.Person.id)
                          .outerjoin(m.Team, m.Team.id == m.Entry.team_id)
                          .where(m.Entry.tournament_id == t.id).order_by(m.Entry.id))]
    players = [EntrantView(handle=handle, name=name, team=team)
               for handle, name, team, _team_name in rows]
    names, teams = names_and_teams(rows)
    judges = [JudgeView(handle=handle, name=name, role=role, official=official)
              for handle, name, role, official in plain_rows(
                  s, select(m.Staff.handle, m.Staff.name, m.Staff.role, m.Staff.official)
                  .where(m.Staff.tournament_id == t.id).order_by(m.Staff.id))]
    return TournamentSummaryView(
        id=t.id, name=t.name, series=t.series.name, rulebook=t.series.rulebook,
        edition=t.edition, level=t.level, date=t.date, settings=dict(t.settings or {}),
        players=players, teams=teams, names=names, judges=judges)


def rulings_json(s: Session, tournament_id: int) -> list[dict[str, Any]]:
    """Every ruling of a tournament in the replay format, in engine order (what later
    records changed included: readback.tournament_rulings).

    Kept while the series has not changed (`RULINGS`, as the standings' `TABLES`): the
    dashboard, the pending and appeals pages and the live answers all start from this list,
    and a busy day reads it far more often than it records. The list and its rulings are
    shared by the requests that read it: read only (the pages make their own views)."""
    marks = _marks(s, tournament_id)
    key = _kept_under(tournament_id, marks)
    kept = RULINGS.get(key) if marks.chain_head else None
    if kept is not None:
        return kept
    t = _tournament(s, tournament_id)
    with_validity = loader.load(t.series.rulebook, t.edition).validity is not None
    rulings = rulings_of(s, t)
    # the reasons' English texts, each rendered once: a long day repeats the same few
    # reasons (the same infraction, the same step of the ladder) hundreds of times
    texts: dict[int, str] = {}
    rendered: dict[bytes, str] = {}
    for r in rulings:
        for n in r.notes:
            try:
                said = orjson.dumps([n.code, n.params, n.source], option=orjson.OPT_SORT_KEYS)
            except TypeError:  # a parameter JSON does not hold: rendered on its own
                continue
            text = rendered.get(said)
            if text is None:
                text = rendered[said] = reason_text(n)
            texts[id(n)] = text
    made = [ruling_json(r, with_validity, texts) for r in rulings]
    if marks.chain_head:
        RULINGS.put(key, made)
    return made


def tournament_standings(s: Session, tournament_id: int) -> dict[str, Any]:
    """Standings of one tournament from its stored results and rulings."""
    table = _standings_table(s, tournament_id)
    # the caller's own copy: the table itself is shared by the requests that read it
    return {"players": {p: dict(row) for p, row in table.players},
            "teams": {t: dict(row) for t, row in table.teams.items()}}


@dataclass(frozen=True, slots=True)
class _Table:
    """A tournament's standings as made, shared (read only) until its series changes."""

    players: list[tuple[str, dict[str, Any]]]  # in table order
    teams: dict[str, dict[str, Any]]
    columns: list[str]
    team_columns: list[str]


# The latest standings made, by tournament and what its series held when made (32: a
# federation's busy day, each table a few MB at most).
#
# Standings change only when the series does: every event (a result, a ruling, a roster
# change) raises the series' `last_seq` and moves its `chain_head` (the hash of the last
# row written, db.chain) in the transaction that stores it. A table made from a state of
# the series is kept under those marks, read before the rows (so the rows are at least as
# new as the marks), and given to every request that finds the same marks. The chain head
# makes the key a name of the content: another database (a test's, a restored copy) with
# the same numbers holds other rows and so another head. Names are not kept here (a
# person's display name changes without an event): pages read them for the lines shown.
TABLES: Kept[tuple[Any, ...], _Table] = Kept(32)
# the same for a tournament's rulings in the replay format (`rulings_json`)
RULINGS: Kept[tuple[Any, ...], list[dict[str, Any]]] = Kept(32)

# a round's bye changes the standings without an event (it is paired, not recorded), and so
# do its tables (a table a penalty decided counts without a result, standings.by_penalty):
# the tournament's byes and tables, by the newest row of each (a round paired again gets
# new rows), are among the marks
_BYES = (select(func.max(m.RoundBye.id)).where(m.RoundBye.tournament_id == m.Tournament.id)
         .scalar_subquery())
_TABLES = (select(func.max(m.Pairing.id)).where(m.Pairing.tournament_id == m.Tournament.id)
           .scalar_subquery())
_MARKS = (select(m.Tournament.series_id, m.Tournament.edition, m.Series.rulebook,
                 m.Series.last_seq, m.Series.chain_head,
                 select(func.count(m.RoundBye.id))
                 .where(m.RoundBye.tournament_id == m.Tournament.id)
                 .scalar_subquery().label("byes"),
                 _BYES.label("last_bye"), _TABLES.label("last_table"), m.Tournament.plan)
          .join(m.Series, m.Series.id == m.Tournament.series_id))


def _kept_under(tournament_id: int, marks: Row[Any]) -> tuple[Any, ...]:
    """The key a table is kept under: the series' marks, and the tournament's plan (its
    match points and tie-breakers change the standings without an event)."""
    *series, plan = marks
    return (tournament_id, *series, orjson.dumps(plan, option=orjson.OPT_SORT_KEYS))
_MARKS_OF = _MARKS.where(m.Tournament.id == bindparam("tournament"))


def _marks(s: Session, tournament_id: int) -> Row[Any]:
    """What a tournament's series holds now (its series, edition, rulebook, last event and
    chain head): read before the rows a kept table or list is made from."""
    rows = plain_rows(s, _MARKS_OF, {"tournament": tournament_id}) \
        if 0 < tournament_id <= BIGGEST_ID else ()
    marks = rows[0] if rows else None
    if marks is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament_id)
    return marks


def _standings_table(s: Session, tournament_id: int) -> _Table:
    """The tournament's standings: kept from an earlier request while its series has not
    changed (`TABLES`), else made from its stored results and rulings."""
    marks = _marks(s, tournament_id)
    key = _kept_under(tournament_id, marks)
    kept = TABLES.get(key) if marks.chain_head else None
    if kept is not None:
        return kept
    t = _tournament(s, tournament_id)
    # the tournament's own match points and tie-breakers, where its plan sets them
    book = Plan.model_validate(t.plan or {}).scored(loader.load(t.series.rulebook, t.edition))
    roster = tournament_roster(s, t)
    # thousands of results and their objects, none garbage until the table is made: a
    # collection half-way would walk them all for nothing (sudya.domain.bulk)
    byes = dict(s.execute(select(m.RoundBye.player, func.count()).where(
        m.RoundBye.tournament_id == t.id).group_by(m.RoundBye.player)).tuples().all()) \
        if marks.byes else {}
    seats = [Seat(t.position, rnd, table, a, b) for rnd, table, a, b in s.execute(
        select(m.Pairing.round, m.Pairing.table_no, m.Pairing.player_a, m.Pairing.player_b)
        .where(m.Pairing.tournament_id == t.id))] if marks.last_table else []
    with paused_gc():
        made = standings(book, roster, rulings_of(s, t), counted_results(s, t), always=True,
                         byes=byes, pairings=seats)
    if made is None:
        raise LedgerError("scoring.none", field="tournament", rulebook=book.id)
    players: dict[str, dict[str, Any]] = made["players"]
    teams: dict[str, dict[str, Any]] = made["teams"]
    table = _Table(players=list(players.items()), teams=teams,
                   columns=list(next(iter(players.values()), {})),
                   team_columns=list(next(iter(teams.values()), {})))
    if marks.chain_head:
        TABLES.put(key, table)
    return table


STANDINGS_PAGE = 100  # lines of the players' table per page


def standings_page(s: Session, tournament_id: int, *, page: int = 1,
                   limit: int = STANDINGS_PAGE, q: str = "") -> StandingsPageView:
    """One page of a tournament's standings: the players' lines `limit` at a time in table
    order (each with its place in the whole table), or those whose name or handle holds `q`
    (case and «ё» folded); every team. The table is made whole (a place depends on every
    line) once per state of the series (`TABLES`), only the page is turned into a view."""
    table = _standings_table(s, tournament_id)
    players = table.players
    wanted = fold(q)
    if wanted:
        names = display_names(s, tournament=tournament_id)
        players = [(p, row) for p, row in players
                   if wanted in fold(p) or wanted in fold(names.get(p, p))]
    page, limit = max(page, 1), max(limit, 1)
    start = (page - 1) * limit
    return StandingsPageView(
        players=dict(players[start:start + limit]),
        teams=table.teams, total=len(players), page=page, limit=limit,
        pages=max(1, -(-len(players) // limit)), offset=start, q=q, columns=table.columns,
        team_columns=table.team_columns)


def person_history(s: Session, handle: str, on: dt.date,
                   series: Collection[int] | None = None) -> list[RecordEntryView]:
    """Every ruling about a person (and the sanctions they bear) in every tournament, or in
    the tournaments of `series` (ids) only."""
    if s.scalar(select(m.Person.id).where(m.Person.handle == handle)) is None:
        raise LedgerError("person.unknown", field="person", person=handle)
    # the rulings about them and those whose sanctions they bear, found by the subject
    # indexes (with the series as a filter the planner would walk the series' rulings)
    about = union(select(m.Ruling.id, m.Ruling.series_id).where(m.Ruling.subject == handle),
                  select(m.Ruling.id, m.Ruling.series_id)
                  .join(m.SanctionRow, m.SanctionRow.ruling_id == m.Ruling.id)
                  .where(m.SanctionRow.subject == handle))
    ids = [rid for rid, sid in s.execute(about) if series is None or sid in series]
    rows = list(s.scalars(select(m.Ruling).where(m.Ruling.id.in_(ids))
                          .options(selectinload(m.Ruling.sanctions))
                          .order_by(m.Ruling.series_id, m.Ruling.position))) if ids else []
    # the revocations of the sanctions shown (the person's own), not the whole table
    shown = [sn.id for r in rows for sn in r.sanctions if sn.subject == handle]
    revoked = set(s.scalars(select(m.Revocation.sanction_id)
                            .where(m.Revocation.sanction_id.in_(shown)))) if shown else set()
    # the tournaments of these rulings with their series, in one query
    list(s.scalars(select(m.Tournament).options(joinedload(m.Tournament.series))
                   .where(m.Tournament.id.in_({r.tournament_id for r in rows}))))
    entries: list[dict[str, Any]] = []
    waiting: dict[tuple[int, str], list[dict[str, Any]]] = {}  # pending, by series and event
    for r in rows:
        # a later decision on a pending ruling (or its appeal or correction) settles it: the
        # stored row stays pending, as the ledger is append-only (readback.settle_later)
        target = r.resolves if r.cause == "decision" else (
            r.revokes if r.cause in SETTLING else None)
        if target is not None:
            for pending in waiting.pop((r.series_id, target), []):
                pending.update(pending=False, resolved_by=r.event_ext_id)
        t = s.get(m.Tournament, r.tournament_id)
        assert t is not None
        sanctions = []
        for sn in r.sanctions:
            if sn.subject != handle:
                continue
            if sn.id in revoked:
                state = "revoked"
            elif sn.never_expires or sn.valid_until is None:
                state = "valid" if sn.never_expires else "recorded"
            else:
                state = "valid" if sn.valid_until >= on else "expired"
            sanctions.append(RecordSanctionView(
                kind=sn.kind, amount=sn.amount, attached=sn.attached,
                valid_until=sn.valid_until, state=state))
        reasons = [stored_reason(n) for n in r.notes or []]
        entry: dict[str, Any] = dict(
            series=t.series.name, tournament=t.name, date=t.date, event=r.event_ext_id,
            infraction=r.infraction, cause=r.cause, judge=r.judge,
            rulebook=t.series.rulebook, edition=r.edition, sanctions=sanctions,
            notes=[reason_text(n) for n in reasons],
            reasons=[ReasonView.of(n) for n in reasons], pending=r.pending,
            resolves=r.resolves)
        if r.pending and r.cause != "decision":
            waiting.setdefault((r.series_id, r.event_ext_id), []).append(entry)
        entries.append(entry)
    return [RecordEntryView(**e) for e in entries]


def person_exists(s: Session, handle: str) -> bool:
    """Whether the ledger knows a person by this id."""
    return s.scalar(select(m.Person.id).where(m.Person.handle == handle)) is not None


def person_series(s: Session, handle: str) -> frozenset[int]:
    """The series a person plays in: entered in one of its tournaments, or ruled on in it."""
    entered = (select(m.Tournament.series_id)
               .join(m.Entry, m.Entry.tournament_id == m.Tournament.id)
               .join(m.Person, m.Person.id == m.Entry.person_id)
               .where(m.Person.handle == handle))
    ruled = select(m.Ruling.series_id).where(m.Ruling.subject == handle)
    borne = (select(m.Ruling.series_id)
             .join(m.SanctionRow, m.SanctionRow.ruling_id == m.Ruling.id)
             .where(m.SanctionRow.subject == handle))
    return frozenset(s.scalars(union(entered, ruled, borne)))


def event_by_key(s: Session, key: str) -> m.Event | None:
    """The event stored under an idempotency key, if any."""
    return s.scalar(select(m.Event).where(m.Event.idempotency_key == key))


def event_of_request(s: Session, tournament_id: int, request_id: str,
                     kind: str) -> m.Event | None:
    """The latest event of this kind a request stored in a tournament."""
    return s.scalar(select(m.Event).where(
        m.Event.tournament_id == tournament_id, m.Event.request_id == request_id,
        m.Event.kind == kind).order_by(m.Event.seq.desc()).limit(1))


# a tournament as the edges show it, read as columns (every request of its pages and API
# asks for one): no ORM rows
TOURNAMENT = (select(m.Tournament.id, m.Tournament.name, m.Tournament.position,
                      m.Tournament.edition, m.Tournament.level, m.Tournament.date,
                      m.Tournament.settings, m.Tournament.plan, m.Series.id.label("series_id"),
                      m.Series.name.label("series_name"), m.Series.rulebook)
               .join(m.Series, m.Series.id == m.Tournament.series_id))

# built once, and read as plain rows (see accounts._SESSION_USER)
_TOURNAMENT_BY_ID = TOURNAMENT.where(m.Tournament.id == bindparam("tournament"))


def tournament_view(row: Row[Any]) -> TournamentView:
    return TournamentView(id=row.id, name=row.name, position=row.position,
                          edition=row.edition, level=row.level, date=row.date,
                          settings=dict(row.settings or {}),
                          plan=Plan.model_validate(row.plan or {}),
                          series=SeriesView(id=row.series_id, name=row.series_name,
                                            rulebook=row.rulebook))


def find_tournament(s: Session, *, tournament: int) -> TournamentView | None:
    """The tournament with this id; None for an unknown id (or one no database integer holds)."""
    if not 0 < tournament <= BIGGEST_ID:
        return None
    rows = plain_rows(s, _TOURNAMENT_BY_ID, {"tournament": tournament})
    return tournament_view(rows[0]) if rows else None


def all_tournaments(s: Session) -> list[TournamentView]:
    """Every tournament, the newest first."""
    return [tournament_view(row) for row in s.execute(
        TOURNAMENT.order_by(m.Tournament.date.desc(), m.Tournament.id))]


def series_exists(s: Session, *, name: str) -> bool:
    """Whether a series of this name is in the ledger."""
    return s.scalar(select(m.Series.id).where(m.Series.name == name)) is not None


def series_rulebooks(s: Session) -> dict[str, str]:
    """Each series' name and the rulebook it is judged by."""
    return {name: rulebook for name, rulebook in s.execute(
        select(m.Series.name, m.Series.rulebook))}


def tournament_players(s: Session, *, tournament: int) -> list[str]:
    """The ids of the players registered for a tournament, in the order they entered."""
    return list(s.scalars(select(m.Person.handle).join(m.Entry).where(
        m.Entry.tournament_id == tournament).order_by(m.Entry.id)))


def team_name(s: Session, *, series: int, handle: str) -> str | None:
    """A team's name in a series (None: no team by this id)."""
    team = s.scalar(select(m.Team).where(m.Team.series_id == series, m.Team.handle == handle))
    return None if team is None else team.name


RESULTS_PAGE = 100  # results a page of the results list shows


def tournament_results(s: Session, *, tournament: int, limit: int | None = None,
                       offset: int = 0) -> list[dict[str, Any]]:
    """The results entered in a tournament, the newest first, with who entered them; a
    corrected one with its correction (`corrected`: event, reason, who, when). `limit`
    results from the `offset`-th newest (a large open tournament enters thousands)."""
    t = _tournament(s, tournament)
    # the corrections of this tournament's results only (not every correction of the
    # series with its payload): found from the series' corrections by the event they name
    fix, named = aliased(m.Event), aliased(m.Event)
    corrections = {of: fixed for of, *fixed in plain_rows(
        s, select(named.ext_id, fix.ext_id, fix.payload, fix.created_by, fix.created_at)
        .join(named, (named.series_id == fix.series_id)
              & (named.ext_id == fix.payload["of"].as_string()))
        .join(m.Result, m.Result.event_id == named.id)
        .where(fix.series_id == t.series_id, fix.kind == "correction",
               m.Result.tournament_id == tournament)
        .order_by(fix.seq))}  # a later correction of the same result is the one shown
    out = []
    for ext, rnd, a, b, sa, sb, by, at in plain_rows(
            s, select(m.Event.ext_id, m.Result.round, m.Result.player_a, m.Result.player_b,
                      m.Result.score_a, m.Result.score_b, m.Result.created_by,
                      m.Result.created_at)
            .join(m.Event, m.Event.id == m.Result.event_id)
            .where(m.Result.tournament_id == tournament).order_by(m.Result.id.desc())
            .limit(limit).offset(max(offset, 0))):
        fixed = corrections.get(ext)
        out.append({"event": ext, "round": rnd, "player_a": a, "player_b": b,
                    "score_a": sa, "score_b": sb, "created_by": by, "created_at": at,
                    "corrected": None if fixed is None else {
                        "event": fixed[0], "reason": (fixed[1] or {}).get("reason") or "",
                        "by": fixed[2], "at": fixed[3]}})
    return out


def result_count(s: Session, *, tournament: int) -> int:
    """How many results were entered in a tournament (corrected ones included)."""
    return int(s.scalar(select(func.count(m.Result.id))
                        .where(m.Result.tournament_id == tournament)) or 0)


def latest_result_round(s: Session, *, tournament: int) -> int | None:
    """The latest round with a result entered in a tournament (None: no result has one)."""
    return s.scalar(select(func.max(m.Result.round)).where(m.Result.tournament_id == tournament))


def tournament_subjects(s: Session, *, tournament: int) -> dict[str, SubjectView]:
    """Each player's and team's status, sanctions, points and ore in one tournament."""
    t = _tournament(s, tournament)
    book = loader.load(t.series.rulebook, t.edition)
    subjects = subjects_view(book, tournament_roster(s, t), rulings_of(s, t))
    # a disqualification «с турнира/чемпионата» of an earlier tournament keeps its bearer out
    # for the rest of the series (regulations.md §4 E7): the status, not the sanction, carries;
    # only those sanctions are read (by scope), not the earlier tournaments' rulings; the
    # scope is written in the SQL, not bound, so that the partial index of those sanctions
    # (ix_sanction_series_scope) serves every plan: PostgreSQL's generic plan of a prepared
    # statement cannot use it for a bound value, which may be anything
    if t.position == 0:
        return subjects
    carried = s.execute(
        select(m.SanctionRow.subject, m.SanctionRow.kind, m.SanctionRow.status)
        .join(m.Ruling, m.Ruling.id == m.SanctionRow.ruling_id)
        .join(m.Tournament, m.Tournament.id == m.Ruling.tournament_id)
        .outerjoin(m.Revocation, m.Revocation.sanction_id == m.SanctionRow.id)
        .where(m.SanctionRow.scope == literal("series", literal_execute=True),
               m.Ruling.series_id == t.series_id,
               m.Tournament.position < t.position, m.Revocation.id.is_(None))
        .order_by(m.Ruling.position, m.SanctionRow.position))
    for subject, kind, own in carried:
        status = own or book.kind(kind).status
        held = subjects.get(subject)
        if (status is not None and held is not None
                and STATUS_RANK[status] > STATUS_RANK[held.status]):
            subjects[subject] = held.model_copy(update={"status": status})
    return subjects


def events_by(s: Session, *, tournament: int, username: str, limit: int = 5) -> list[str]:
    """The latest events of a tournament an account recorded (its ids, the newest first): a
    judge's own latest rulings on the dashboard."""
    return list(s.scalars(select(m.Event.ext_id).where(
        m.Event.tournament_id == tournament, m.Event.created_by == username)
        .order_by(m.Event.seq.desc()).limit(limit)))
