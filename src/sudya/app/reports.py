"""The paper reports' data: the judge report, penalty slips, a player's record, the DQ report.

Each report is one typed view (`sudya.app.report_views`) built here from the read side that the
pages already use (readback, queries, appeals, incidents, people), in the language asked:
rulebook names from the edition the tournament uses, causes and reasons from the message
catalogues (`messages`). Nothing here writes; nothing here knows how a report is printed.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.appeals import requests as appeal_requests
from sudya.app.incidents import incidents
from sudya.app.ledger import LedgerError
from sudya.app.people import display_names, fold, person_name, staff_names, tournament_people
from sudya.app.queries import (
    person_history,
    tournament_standings,
    tournament_subjects,
)
from sudya.app.readback import stored_reason, tournament_rulings
from sudya.app.recording import incident_notes
from sudya.app.report_views import (
    AppealEntry,
    CorrectionEntry,
    Count,
    DecisionEntry,
    DqReportView,
    DqStatement,
    EventInfo,
    JudgeReportView,
    Lang,
    OpenItem,
    PlayerRecordView,
    RecordLine,
    ReportRuling,
    ReportSanction,
    RoundSheetView,
    SheetName,
    SheetTable,
    Signature,
    SlipsView,
    SlipView,
    StaffMember,
    StandingLine,
    StandingsTable,
    StatusEntry,
)
from sudya.app.statements import dq_event, statements_of
from sudya.app.views import ReasonView
from sudya.domain.engine.model import FOREVER, Reason, Ruling, Sanction
from sudya.domain.errors import SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.describe import amount_text
from sudya.domain.rulebook.schema import Rulebook
from sudya.i18n.messages import reason_text, render, source_text

# statuses that take a player (or team) out: the report lists who issued each
OUT = ("disqualified", "suspended", "removed")
# causes that follow up an earlier ruling: not counted again per infraction
FOLLOW_UPS = ("appeal", "decision", "correction", "cancellation")
# reasons shown apart: the rule's source (its own column) and the interpretation notes
APART = ("rule.source", "rule.interpretation")
BIGGEST_ID = 2**31 - 1
# the judge report's standings: the first 16 places unless asked (issue 37: the whole table
# of a 500-player event was 26 of its 28 pages, and most of the time WeasyPrint took);
# 16 is a top cut of 8 and the places just below it, where disputes about places happen
TOP_STANDINGS = 16
MOST_STANDINGS = 100_000
Standings = int | Literal["all"]


def standings_option(text: str) -> Standings:
    """The judge report's `standings` as typed (the page's query, the CLI's option): `all`,
    `none` (0) or how many places; anything else is refused, naming the field."""
    word = text.strip().lower()
    if word == "all":
        return "all"
    if word == "none":
        return 0
    if word.isascii() and word.isdigit() and int(word) <= MOST_STANDINGS:
        return int(word)
    raise LedgerError("report.bad-standings", field="standings", value=text)



def _tournament(s: Session, tournament: int) -> m.Tournament:
    t = s.get(m.Tournament, tournament) if 0 < tournament <= BIGGEST_ID else None
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    return t


class _Words:
    """Names in the report's language: the rulebook's, the catalogues', people's."""

    def __init__(self, book: Rulebook, lang: Lang, names: dict[str, str] | None = None,
                 people: dict[str, str] | None = None) -> None:
        self.book, self.lang = book, lang
        self.names = names or {}  # players and teams: handle -> display name
        self.people = people or {}  # judges and accounts: handle -> name


    def who(self, handle: str | None) -> str:
        return "" if handle is None else self.names.get(handle, handle)

    def person(self, handle: str | None) -> str | None:
        return None if handle is None else self.people.get(handle, handle)

    def kind(self, kind: str) -> str:
        try:
            return self.book.kind(kind).name.get(self.lang)
        except KeyError:
            return kind

    def amount(self, kind: str, value: int | None) -> str:
        if value is None:
            return ""
        try:
            return amount_text(self.book.kind(kind), value, self.lang)
        except KeyError:
            return str(value)

    def infraction(self, infraction: str | None) -> str:
        inf = self.book.infraction(infraction) if infraction else None
        return inf.name.get(self.lang) if inf is not None else (infraction or "")

    def source(self, infraction: str | None) -> str:
        inf = self.book.infraction(infraction) if infraction else None
        return source_text(inf.source, self.lang) if inf is not None else ""

    def cause(self, cause: str) -> str:
        return render(f"cause.{cause}", None, self.lang)

    def reasons(self, notes: Iterable[Reason], infraction: str | None) -> list[str]:
        # the source is shown on its own where the ruling names an infraction
        apart = APART if infraction else ("rule.interpretation",)
        return [reason_text(n, self.lang, self.book) for n in notes if n.code not in apart]

    def sanction(self, sn: Sanction, subject: str | None) -> ReportSanction:
        until = None if sn.valid_until in (None, FOREVER) else sn.valid_until
        other = sn.subject if subject is not None and sn.subject != subject else None
        return ReportSanction(kind=sn.kind, name=self.kind(sn.kind), amount=sn.amount,
                              amount_text=self.amount(sn.kind, sn.amount), score=sn.score,
                              attached=sn.attached, subject=other,
                              subject_name=self.who(other) if other else None,
                              valid_until=until, revoked=sn.revoked)

    def status(self, sn: Sanction) -> str | None:
        try:
            return sn.status or self.book.kind(sn.kind).status
        except KeyError:
            return sn.status

    def level(self, level: str | None) -> str | None:
        if level is None:
            return None
        return next((lv.name.get(self.lang) for lv in self.book.levels if lv.id == level),
                    level)


def _words(s: Session, t: m.Tournament, book: Rulebook, lang: Lang
           ) -> tuple[_Words, list[m.Staff]]:
    """The words of a tournament's report, and its staff list."""
    staff = list(s.scalars(select(m.Staff).where(m.Staff.tournament_id == t.id)
                           .order_by(m.Staff.id)))
    accounts: dict[str, str] = {u: n for u, n in s.execute(
        select(m.User.username, m.User.display_name))}
    people = {h: n or h for h, n in accounts.items()}
    # a judge by the staff list's name, else by their account's display name
    people.update({j.handle: j.name if j.name and j.name != j.handle
                   else accounts.get(j.handle) or j.handle for j in staff})
    return _Words(book, lang, display_names(s, tournament=t.id), people), staff


def _event_info(t: m.Tournament, w: _Words) -> EventInfo:
    return EventInfo(id=t.id, name=t.name, series=t.series.name, position=t.position,
                     rulebook=w.book.id, rulebook_title=w.book.title.get(w.lang),
                     edition=t.edition, level=t.level, level_name=w.level(t.level),
                     date=t.date, chain_head=t.series.chain_head,
                     chain_seq=t.series.last_seq)


def _staff(s: Session, t: m.Tournament, w: _Words, staff: list[m.Staff]
           ) -> list[StaffMember]:
    """Everyone working at the tournament, once each, with all their roles."""
    roles: dict[str, list[tuple[str, str]]] = {}
    official: set[str] = set()
    for j in staff:
        role = w.book.roles.get(j.role)
        roles.setdefault(j.handle, []).append(
            (j.role, role.name.get(w.lang) if role else j.role))
        if j.official:
            official.add(j.handle)
    rows = s.execute(select(m.User.username, m.Assignment.role)
                     .join(m.Assignment, m.Assignment.user_id == m.User.id)
                     .where(m.Assignment.tournament_id == t.id, m.Assignment.role != "player")
                     .order_by(m.Assignment.id))
    for username, role_id in rows:
        roles.setdefault(username, []).append(
            (role_id, render(f"role.{role_id}", None, w.lang)))
    return [StaffMember(handle=h, name=w.person(h) or h, roles=[r for r, _n in held],
                        role_names=[n for _r, n in held], official=h in official)
            for h, held in roles.items()]


class _Events:
    """The tournament's events by id: when, by whom, what."""

    def __init__(self, s: Session, t: m.Tournament) -> None:
        self.rows = {e.ext_id: e for e in s.scalars(
            select(m.Event).where(m.Event.tournament_id == t.id).order_by(m.Event.seq))}

    def at(self, event: str) -> dt.datetime | None:
        row = self.rows.get(event)
        return m.aware(row.created_at) if row is not None else None

    def payload(self, event: str) -> dict[str, Any]:
        row = self.rows.get(event)
        return dict(row.payload or {}) if row is not None else {}

    def by(self, event: str) -> str | None:
        """Who decided: the judge the event names, else the account that recorded it."""
        row = self.rows.get(event)
        if row is None:
            return None
        return (row.payload or {}).get("judge") or row.created_by

    def of_kind(self, kind: str) -> list[m.Event]:
        return [e for e in self.rows.values() if e.kind == kind]


def _tables(s: Session, t: m.Tournament, rounds: Collection[int | None]
            ) -> dict[tuple[int | None, str], int]:
    """(round, handle) -> table: the round's pairings, else the registered seats; a team
    sits at its members' table."""
    out: dict[tuple[int | None, str], int] = {}
    for rnd in set(rounds):
        if rnd is None:
            continue
        for p in tournament_people(s, tournament=t.id, round=rnd):
            if p.table is None:
                continue
            out[(rnd, p.handle)] = p.table
            if p.team is not None:
                out.setdefault((rnd, p.team), p.table)
    return out


def _rulings_of(s: Session, t: m.Tournament) -> list[Ruling]:
    return tournament_rulings(s, t)


def _report_ruling(r: Ruling, w: _Words, events: _Events,
                   tables: dict[tuple[int | None, str], int], notes: dict[str, str]
                   ) -> ReportRuling:
    return ReportRuling(
        event=r.event, at=events.at(r.event), round=r.round,
        table=tables.get((r.round, r.subject)), subject=r.subject,
        subject_name=w.who(r.subject), infraction=r.infraction,
        infraction_name=w.infraction(r.infraction), cause=r.cause, cause_text=w.cause(r.cause),
        judge=r.judge, judge_name=w.person(r.judge),
        sanctions=[w.sanction(sn, r.subject) for sn in r.sanctions],
        reasons=w.reasons(r.notes, r.infraction),
        reason_codes=[ReasonView.of(n) for n in r.notes], source=w.source(r.infraction),
        pending=r.pending, aggravated=r.aggravated, revokes=r.revokes, resolves=r.resolves,
        resolved_by=r.resolved_by, note=notes.get(r.event, ""))


def _appeals(s: Session, t: m.Tournament, w: _Words, events: _Events,
             rulings: list[Ruling]) -> list[AppealEntry]:
    """Every appeal of the tournament: each request with its decision, and each decision
    taken without a request (the head judge heard it at the table)."""
    first: dict[str, Ruling] = {}
    for r in rulings:
        first.setdefault(r.event, r)
    given = {(r.event, r.subject): r for r in rulings if r.cause == "appeal"}
    out = []
    seen = set()

    def entry(of: str, subject: str, decision: m.Event | None, **extra: Any) -> AppealEntry:
        ruled = first.get(of)
        frivolous = given.get((decision.ext_id, subject)) if decision is not None else None
        return AppealEntry(
            event=of, subject=subject, subject_name=w.who(subject),
            infraction_name=w.infraction(ruled.infraction if ruled else None),
            outcome=decision.payload.get("outcome") if decision is not None else None,
            outcome_text=render(f"appeal.{decision.payload['outcome']}", None, w.lang)
            if decision is not None else "",
            decision=decision.ext_id if decision is not None else None,
            decided_by=events.by(decision.ext_id) if decision is not None else None,
            decided_by_name=w.person(events.by(decision.ext_id)) if decision else None,
            decided_at=m.aware(decision.created_at) if decision is not None else None,
            sanctions=[w.sanction(sn, subject) for sn in frivolous.sanctions]
            if frivolous is not None else [], **extra)

    decisions = {e.payload.get("of"): e for e in events.of_kind("appeal")}
    for a in appeal_requests(s, t.id):
        decision = decisions.get(a["event"])
        seen.add(a["event"])
        out.append(entry(a["event"], a["appellant"], decision, reason=a["reason"],
                         filed_by=a["by"], filed_at=m.aware(a["at"])))
    for of, decision in decisions.items():
        if of in seen or of is None:
            continue
        ruled = first.get(of)
        out.append(entry(of, ruled.subject if ruled else "", decision))
    return out


def _decisions(w: _Words, events: _Events, rulings: list[Ruling]) -> list[DecisionEntry]:
    pending = {(r.event, r.subject): r for r in rulings if r.pending or r.resolved_by}
    out = []
    for r in rulings:
        if r.cause != "decision":
            continue
        of = r.resolves or events.payload(r.event).get("of") or ""
        earlier = pending.get((of, r.subject))
        by = r.judge or events.by(r.event)
        out.append(DecisionEntry(
            event=r.event, of=of, subject=r.subject, subject_name=w.who(r.subject),
            infraction_name=w.infraction(earlier.infraction if earlier else r.infraction),
            decided_by=by, decided_by_name=w.person(by), at=events.at(r.event),
            sanctions=[w.sanction(sn, r.subject) for sn in r.sanctions]))
    return out


def _corrections(s: Session, t: m.Tournament, w: _Words, events: _Events,
                 rulings: list[Ruling]) -> list[CorrectionEntry]:
    about: dict[str, list[str]] = {}
    for r in rulings:
        if r.subject not in about.setdefault(r.event, []):
            about[r.event].append(r.subject)
    rows = s.execute(select(m.Event.ext_id, m.Result.player_a, m.Result.player_b,
                            m.Result.score_a, m.Result.score_b)
                     .join(m.Result, m.Result.event_id == m.Event.id)
                     .where(m.Event.tournament_id == t.id))
    results = {ext: (a, b, sa, sb) for ext, a, b, sa, sb in rows}
    out = []
    for e in events.of_kind("correction"):
        of = str(e.payload.get("of") or "")
        by = events.by(e.ext_id)
        if of in results:
            a, b, sa, sb = results[of]
            what, text = "result", f"{w.who(a)} — {w.who(b)} {sa}:{sb}"
        else:
            ruled = [r for r in rulings if r.event == of]
            what = "ruling"
            text = "; ".join(f"{w.who(r.subject)}: {w.infraction(r.infraction) or w.cause(r.cause)}"
                             for r in ruled)
        out.append(CorrectionEntry(event=e.ext_id, of=of, what=what, about=text,
                                   reason=str(e.payload.get("reason") or ""), by=by,
                                   by_name=w.person(by), at=m.aware(e.created_at)))
    return out


def _statuses(w: _Words, events: _Events, rulings: list[Ruling]) -> list[StatusEntry]:
    out = []
    for r in rulings:
        for sn in r.sanctions:
            status = w.status(sn)
            if status not in OUT:
                continue
            judge = r.judge or events.by(r.event)
            out.append(StatusEntry(event=r.event, subject=sn.subject,
                                   subject_name=w.who(sn.subject), kind=sn.kind,
                                   name=w.kind(sn.kind), status=status, round=r.round,
                                   judge=judge, judge_name=w.person(judge),
                                   at=events.at(r.event), revoked=sn.revoked))
    return out


def _open(s: Session, t: m.Tournament, w: _Words, rulings: list[Ruling],
          appeals: list[AppealEntry]) -> list[OpenItem]:
    out = [OpenItem(what="ruling", ref=r.event, subject=r.subject,
                    subject_name=w.who(r.subject),
                    text=render("report.open-ruling",
                                {"infraction": w.infraction(r.infraction) or w.cause(r.cause)},
                                w.lang))
           for r in rulings if r.pending]
    out += [OpenItem(what="appeal", ref=a.event, subject=a.subject,
                     subject_name=a.subject_name,
                     text=render("report.open-appeal", {"infraction": a.infraction_name},
                                 w.lang))
            for a in appeals if a.outcome is None]
    out += [OpenItem(what="incident", ref=str(i.id), subject=i.subject, subject_name=i.name,
                     text=render("report.open-incident", {"text": i.text}, w.lang))
            for i in incidents(s, tournament=t.id) if i.settled_at is None]
    return out


def _counts(w: _Words, rulings: list[Ruling]) -> tuple[list[Count], list[Count]]:
    infractions: Counter[str] = Counter(r.infraction for r in rulings
                                        if r.infraction and r.cause not in FOLLOW_UPS)
    kinds: Counter[str] = Counter(sn.kind for r in rulings for sn in r.sanctions
                                  if not sn.revoked)
    by_inf = [Count(id=i.id, name=i.name.get(w.lang), count=infractions[i.id])
              for i in w.book.infractions if infractions[i.id]]
    by_inf += [Count(id=i, name=i, count=n) for i, n in infractions.items()
               if w.book.infraction(i) is None]
    known = [k.id for k in w.book.sanctions]
    by_kind = [Count(id=k, name=w.kind(k), count=kinds[k]) for k in known if kinds[k]]
    by_kind += [Count(id=k, name=k, count=n) for k, n in kinds.items() if k not in known]
    return by_inf, by_kind


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def _standings(s: Session, t: m.Tournament, w: _Words, places: Standings
               ) -> tuple[StandingsTable | None, StandingsTable | None]:
    if places == 0:
        return None, None
    try:
        table = tournament_standings(s, t.id)
    except LedgerError:  # the rulebook keeps no standings
        return None, None
    held = tournament_subjects(s, tournament=t.id)

    def penalties(subject: str) -> list[str]:
        have = held.get(subject)
        if have is None:
            return []
        return [w.kind(k) if n == 1 else f"{w.kind(k)} ×{n}"
                for k, n in have.sanctions.items()]

    def of(rows: dict[str, dict[str, Any]]) -> StandingsTable | None:
        if not rows:
            return None
        line = next(iter(rows.values()))
        columns = [c for c, v in line.items() if c not in ("place", "status")
                   and not isinstance(v, dict)]
        shown = list(rows.items())
        if places != "all":
            shown = shown[:places]
        return StandingsTable(columns=columns, total=len(rows), rows=[
            StandingLine(subject=sid, name=w.who(sid), place=row.get("place"),
                         status=str(row.get("status")
                                    or (held[sid].status if sid in held else "active")),
                         values={c: _value(row.get(c)) for c in columns},
                         penalties=penalties(sid))
            for sid, row in shown])

    return of(table.get("players") or {}), of(table.get("teams") or {})


def judge_report(s: Session, *, tournament: int, lang: Lang = "ru",
                 standings: Standings = TOP_STANDINGS) -> JudgeReportView:
    """The judge report of a tournament, in `lang`, with the first `standings` places of
    the standings (`all`: the whole table; 0: none)."""
    t = _tournament(s, tournament)
    book = loader.load(t.series.rulebook, t.edition)
    w, staff = _words(s, t, book, lang)
    rulings = _rulings_of(s, t)
    events = _Events(s, t)
    tables = _tables(s, t, {r.round for r in rulings})
    notes = incident_notes(s, t.id, {r.event for r in rulings})
    appeals = _appeals(s, t, w, events, rulings)
    by_inf, by_kind = _counts(w, rulings)
    players, teams = _standings(s, t, w, standings)
    return JudgeReportView(
        lang=lang, made_at=dt.datetime.now(dt.UTC), event=_event_info(t, w),
        staff=_staff(s, t, w, staff),
        rulings=[_report_ruling(r, w, events, tables, notes) for r in rulings],
        appeals=appeals, decisions=_decisions(w, events, rulings),
        corrections=_corrections(s, t, w, events, rulings),
        statuses=_statuses(w, events, rulings), open=_open(s, t, w, rulings, appeals),
        by_infraction=by_inf, by_sanction=by_kind, standings=standings, players=players,
        teams=teams)


def penalty_slips(s: Session, *, tournament: int, event: str, lang: Lang = "ru",
                  subject: str | None = None) -> SlipsView:
    """The slips of the rulings an event gave in a tournament (only `subject`'s, when
    given: a ruling about them or a sanction they bear)."""
    t = _tournament(s, tournament)
    book = loader.load(t.series.rulebook, t.edition)
    w, _staff_list = _words(s, t, book, lang)
    rulings = [r for r in _rulings_of(s, t) if r.event == event]
    if subject is not None:
        rulings = [r for r in rulings
                   if r.subject == subject or any(sn.subject == subject for sn in r.sanctions)]
    if not rulings:
        raise LedgerError("report.no-ruling", field="event", event=event)
    events = _Events(s, t)
    tables = _tables(s, t, {r.round for r in rulings})
    info = _event_info(t, w)
    return SlipsView(lang=lang, event=info, slips=[
        SlipView(lang=lang, event=info, ruling=_report_ruling(r, w, events, tables, {}))
        for r in rulings])


def player_record(s: Session, *, tournament: int, handle: str, on: dt.date,
                  lang: Lang = "ru") -> PlayerRecordView:
    """A player's record in the tournament's series, with each sanction's state on `on`."""
    t = _tournament(s, tournament)
    book = loader.load(t.series.rulebook, t.edition)
    entries = person_history(s, handle, on, series={t.series_id})
    judges = staff_names(s, tournament=tournament, handles={e.judge for e in entries})
    lines = []
    for e in entries:
        try:
            their = loader.load(t.series.rulebook, e.edition)
        except SudyaError:  # an edition no longer bundled: the tournament's own
            their = book
        w = _Words(their, lang)
        reasons = [stored_reason(r.as_json()) for r in e.reasons]
        lines.append(RecordLine(
            tournament=e.tournament, date=e.date, event=e.event, infraction=e.infraction,
            infraction_name=w.infraction(e.infraction), cause=e.cause,
            cause_text=w.cause(e.cause), judge=e.judge, judge_name=judges.get(e.judge or ""),
            sanctions=[ReportSanction(kind=sn.kind, name=w.kind(sn.kind), amount=sn.amount,
                                      amount_text=w.amount(sn.kind, sn.amount),
                                      attached=sn.attached,
                                      valid_until=None if sn.valid_until == FOREVER
                                      else sn.valid_until,
                                      revoked=sn.state == "revoked", state=sn.state)
                       for sn in e.sanctions],
            reasons=w.reasons(reasons, e.infraction), pending=e.pending,
            resolved_by=e.resolved_by))
    return PlayerRecordView(lang=lang, made_at=dt.datetime.now(dt.UTC), series=t.series.name,
                            rulebook_title=book.title.get(lang), handle=handle,
                            name=person_name(s, handle=handle) or handle, on=on, lines=lines)


def dq_report(s: Session, *, tournament: int, event: str, lang: Lang = "ru") -> DqReportView:
    """The report of the disqualification (or suspension) an event gave, with its statements
    and lines to sign; refused for an event that disqualified no one."""
    t = _tournament(s, tournament)
    dq = dq_event(s, tournament=tournament, event=event)
    book = loader.load(t.series.rulebook, t.edition)
    w, staff = _words(s, t, book, lang)
    rulings = [r for r in _rulings_of(s, t) if r.event == event]
    events = _Events(s, t)
    tables = _tables(s, t, {r.round for r in rulings})
    notes = incident_notes(s, t.id, {event})
    statements = [DqStatement(statement=st,
                              role_name=render(f"report.role-{st.role}", None, lang))
                  for st in statements_of(s, tournament=tournament, event=event)]
    members = _staff(s, t, w, staff)
    appeal_roles = {rid for rid, role in book.roles.items() if "hear-appeals" in role.may}
    heads = [p for p in members if appeal_roles & set(p.roles)]
    signatures = [Signature(name=name, capacity=render("report.role-player", None, lang))
                  for name in dq.names]
    for st in statements:
        if st.statement.role in ("opponent", "witness"):
            signatures.append(Signature(name=st.statement.author, capacity=st.role_name))
    signatures += [Signature(name=p.name, capacity=render("report.role-head-judge", None,
                                                          lang)) for p in heads[:1]]
    if not heads:  # no head judge on the staff list: a line for whoever signs as one
        signatures.append(Signature(name="", capacity=render("report.role-head-judge", None,
                                                             lang)))
    return DqReportView(
        lang=lang, made_at=dt.datetime.now(dt.UTC), event=_event_info(t, w), dq=dq,
        sanction_names=[w.kind(k) for k in dq.kinds],
        rulings=[_report_ruling(r, w, events, tables, notes) for r in rulings],
        statements=statements, head_judges=heads, signatures=signatures)


def round_sheet(s: Session, *, tournament: int, round: int | None,
                part: Literal["tables", "names", "slips"], lang: Lang) -> RoundSheetView:
    """A round's pairings on paper: by table, by name (alphabetical, as a venue posts them),
    or one result slip per table. `round` None: the current round."""
    from sudya.app.people import current_round
    from sudya.app.swiss_rounds import byes

    t = _tournament(s, tournament)
    book = loader.load(t.series.rulebook, t.edition)
    w, _staff_list = _words(s, t, book, lang)
    if round is None:
        round = current_round(s, tournament=tournament)
    if round is None:
        raise LedgerError("pairing.no-round", field="round")
    rows = list(s.scalars(select(m.Pairing).where(m.Pairing.tournament_id == tournament,
                                                  m.Pairing.round == round)
                          .order_by(m.Pairing.table_no)))
    bye = next((p for p, rounds in byes(s, tournament).items() if round in rounds), None)
    if not rows and bye is None:
        raise LedgerError("pairing.none-in-round", field="round", round=round)
    tables = [SheetTable(table=r.table_no, a=r.player_a, a_name=w.who(r.player_a),
                         b=r.player_b, b_name=w.who(r.player_b)) for r in rows]
    names = [SheetName(handle=h, name=w.who(h), table=tb.table, opponent_name=o)
             for tb in tables for h, o in ((tb.a, tb.b_name), (tb.b, tb.a_name))]
    if bye is not None:
        names.append(SheetName(handle=bye, name=w.who(bye), table=None))
    names.sort(key=lambda n: (fold(n.name), n.handle))
    return RoundSheetView(lang=lang, event=_event_info(t, w), round=round, part=part,
                          tables=tables, names=names, bye=bye,
                          bye_name=w.who(bye) if bye else None)
