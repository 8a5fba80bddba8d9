"""The ledger's tables. Reports, rulings, sanctions and revocations are append-only."""

from __future__ import annotations

import datetime as dt
from typing import Any, overload

from sqlalchemy import (
    JSON,
    Boolean,
    Date,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    func,
    text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


def now() -> dt.datetime:
    """The time rows are stamped with (UTC)."""
    return dt.datetime.now(dt.UTC)


@overload
def aware(value: dt.datetime) -> dt.datetime: ...
@overload
def aware(value: None) -> None: ...
def aware(value: dt.datetime | None) -> dt.datetime | None:
    """A stored time with its zone: SQLite keeps none, and its rows are UTC."""
    return value if value is None or value.tzinfo else value.replace(tzinfo=dt.UTC)


class Audited:
    """Who wrote a row, when, and within which request."""

    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now,
                                                    server_default=func.now())
    created_by: Mapped[str] = mapped_column(String(100), default="system")
    request_id: Mapped[str | None] = mapped_column(String(64))


class Chained:
    """An append-only row's link in its series' hash chain (db.chain); set by the writer."""

    chain: Mapped[str | None] = mapped_column(String(64))


class Series(Audited, Base):
    """An organiser's championship or league: tournaments under one rulebook."""

    __tablename__ = "series"
    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    rulebook: Mapped[str] = mapped_column(String(200))
    last_seq: Mapped[int] = mapped_column(Integer, default=0)  # the lock row; see services
    chain_head: Mapped[str | None] = mapped_column(String(64))  # the last row's hash (db.chain)
    tournaments: Mapped[list[Tournament]] = relationship(back_populates="series",
                                                         order_by="Tournament.position")


class Tournament(Audited, Base):
    __tablename__ = "tournament"
    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)  # 0, 1, 2… within the series
    name: Mapped[str] = mapped_column(String(200))
    edition: Mapped[str] = mapped_column(String(20))
    level: Mapped[str | None] = mapped_column(String(50))
    settings: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    date: Mapped[dt.date] = mapped_column(Date)
    # how it is run (domain.plan.Plan): configuration, not an event of the ledger
    plan: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    series: Mapped[Series] = relationship(back_populates="tournaments")
    __table_args__ = (UniqueConstraint("series_id", "position"),
                      UniqueConstraint("series_id", "name"))


class Person(Audited, Base):
    """A player with a stable id across tournaments and series."""

    __tablename__ = "person"
    id: Mapped[int] = mapped_column(primary_key=True)
    handle: Mapped[str] = mapped_column(String(100), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    # what the handle looks like (sudya.domain.handles.skeleton): look-alikes are refused
    skeleton: Mapped[str | None] = mapped_column(String(100), index=True)
    # `m` or `f` where known (0026), for the Russian pages' agreement; None: not known
    gender: Mapped[str | None] = mapped_column(String(1))


class Team(Audited, Base):
    __tablename__ = "team"
    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"), index=True)
    handle: Mapped[str] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    skeleton: Mapped[str | None] = mapped_column(String(100), index=True)  # as a person's
    __table_args__ = (UniqueConstraint("series_id", "handle"),)


class Entry(Audited, Base):
    """A person plays in a tournament (for a team, when the tournament has teams)."""

    __tablename__ = "entry"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    person_id: Mapped[int] = mapped_column(ForeignKey("person.id"), index=True)
    team_id: Mapped[int | None] = mapped_column(ForeignKey("team.id"))
    table_no: Mapped[int | None] = mapped_column(Integer)
    # dropped: the last round they played (not paired after it); None: playing
    dropped_after: Mapped[int | None] = mapped_column(Integer)
    __table_args__ = (UniqueConstraint("tournament_id", "person_id"),)


class Staff(Audited, Base):
    """A judge (or official) of a tournament with a role from the rulebook."""

    __tablename__ = "staff"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    handle: Mapped[str] = mapped_column(String(100))
    name: Mapped[str] = mapped_column(String(200))
    role: Mapped[str] = mapped_column(String(50))
    official: Mapped[bool] = mapped_column(Boolean, default=False)
    __table_args__ = (UniqueConstraint("tournament_id", "handle"),)


class Event(Chained, Audited, Base):
    """One input to the engine, in series order: the ledger's source of truth."""

    __tablename__ = "event"
    id: Mapped[int] = mapped_column(primary_key=True)
    # no index of its own: (series_id, seq) and (series_id, kind) lead with it (0015)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"))
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    ext_id: Mapped[str] = mapped_column(String(100))
    kind: Mapped[str] = mapped_column(String(30))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    idempotency_key: Mapped[str | None] = mapped_column(String(100), unique=True)
    __table_args__ = (UniqueConstraint("series_id", "seq"),
                      UniqueConstraint("series_id", "ext_id"),
                      # a series' corrections, appeals… by kind (the read side, 0013)
                      Index("ix_event_series_id_kind", "series_id", "kind"))


# the rulings that settle or revoke another (ix_ruling_series_id_resolves and _revokes' rows)
RESOLVES = text("resolves IS NOT NULL")
REVOKES = text("revokes IS NOT NULL")


class Ruling(Chained, Audited, Base):
    """What the engine decided, with its reasons, the edition and the judge."""

    __tablename__ = "ruling"
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)
    # no index of their own: the indexes below lead with them (0015)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"))
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"))
    position: Mapped[int] = mapped_column(Integer)  # engine order within the series
    event_ext_id: Mapped[str] = mapped_column(String(100))
    subject: Mapped[str] = mapped_column(String(100), index=True)
    infraction: Mapped[str | None] = mapped_column(String(100))
    cause: Mapped[str] = mapped_column(String(30))
    pending: Mapped[bool] = mapped_column(Boolean, default=False)
    aggravated: Mapped[bool] = mapped_column(Boolean, default=False)
    offered: Mapped[Any] = mapped_column(JSON, nullable=True)
    revokes: Mapped[str | None] = mapped_column(String(100))
    resolves: Mapped[str | None] = mapped_column(String(100))
    applies_to: Mapped[Any] = mapped_column(JSON, nullable=True)
    notes: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)  # reasons
    edition: Mapped[str] = mapped_column(String(20))
    judge: Mapped[str | None] = mapped_column(String(100))
    round: Mapped[int | None] = mapped_column(Integer)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    sanctions: Mapped[list[SanctionRow]] = relationship(order_by="SanctionRow.position",
                                                     back_populates="ruling")
    # the read side reads a tournament's rulings in engine order (migration 0013), and finds
    # the records that settle or revoke one by its event: indexed alone (partial), not an
    # entry with a null for every other ruling written (0016)
    __table_args__ = (UniqueConstraint("series_id", "position"),
                      Index("ix_ruling_tournament_id_position", "tournament_id", "position"),
                      Index("ix_ruling_series_id_resolves", "series_id", "resolves",
                            sqlite_where=RESOLVES, postgresql_where=RESOLVES),
                      Index("ix_ruling_series_id_revokes", "series_id", "revokes",
                            sqlite_where=REVOKES, postgresql_where=REVOKES))


# the sanctions that keep their bearer out of the series (ix_sanction_series_scope's rows)
SERIES_SCOPE = text("scope = 'series'")


class SanctionRow(Chained, Audited, Base):
    """A sanction as stored (the engine's is sudya.domain.engine.model.Sanction)."""

    __tablename__ = "sanction"
    id: Mapped[int] = mapped_column(primary_key=True)
    ruling_id: Mapped[int] = mapped_column(ForeignKey("ruling.id"), index=True)
    position: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(50))
    subject: Mapped[str] = mapped_column(String(100), index=True)
    amount: Mapped[int | None] = mapped_column(Integer)
    score: Mapped[str | None] = mapped_column(String(20))
    attached: Mapped[bool] = mapped_column(Boolean, default=False)
    valid_until: Mapped[dt.date | None] = mapped_column(Date)
    never_expires: Mapped[bool] = mapped_column(Boolean, default=False)
    # the status it gives its bearer where the table gave one, and how long it keeps them out
    status: Mapped[str | None] = mapped_column(String(20))
    scope: Mapped[str | None] = mapped_column(String(20))
    ruling: Mapped[Ruling] = relationship(back_populates="sanctions")
    # the few that keep their bearer out of the series are looked up by scope: indexed alone
    # (partial), not one index entry more for every sanction written (0015)
    __table_args__ = (Index("ix_sanction_series_scope", "scope",
                            sqlite_where=SERIES_SCOPE, postgresql_where=SERIES_SCOPE),)


class Revocation(Chained, Audited, Base):
    """A sanction stops counting because a later ruling (appeal, cancellation…) revoked it."""

    __tablename__ = "revocation"
    id: Mapped[int] = mapped_column(primary_key=True)
    sanction_id: Mapped[int] = mapped_column(ForeignKey("sanction.id"), unique=True)
    ruling_id: Mapped[int] = mapped_column(ForeignKey("ruling.id"), index=True)


class Result(Chained, Audited, Base):
    """A game or match result, as the scorekeeper recorded it."""

    __tablename__ = "result"
    id: Mapped[int] = mapped_column(primary_key=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), unique=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    round: Mapped[int | None] = mapped_column(Integer)
    player_a: Mapped[str] = mapped_column(String(100))
    player_b: Mapped[str] = mapped_column(String(100))
    score_a: Mapped[int] = mapped_column(Integer)
    score_b: Mapped[int] = mapped_column(Integer)


class Statement(Chained, Audited, Base):
    """A written statement about a disqualification or suspension: the player's own, the
    opponent's, a witness's, or the head judge's statement of facts and decision with the
    rule cited. Append-only: a correction is a new statement. `created_by`/`created_at` say
    who typed it and when; `author` whose statement it is. It is linked into the series'
    chain after the event that was the series' last when it was written (`after_seq`)."""

    __tablename__ = "statement"
    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"), index=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    event_id: Mapped[int] = mapped_column(ForeignKey("event.id"), index=True)  # the DQ's
    after_seq: Mapped[int] = mapped_column(Integer)  # its place in the series' chain
    role: Mapped[str] = mapped_column(String(20))  # player, opponent, witness, head-judge
    author: Mapped[str] = mapped_column(String(200))
    text: Mapped[str] = mapped_column(String(4000))
    rule_cited: Mapped[str | None] = mapped_column(String(200))  # the head judge's only
    decision: Mapped[str | None] = mapped_column(String(2000))  # the head judge's only
    idempotency_key: Mapped[str | None] = mapped_column(String(100), unique=True)


APPEND_ONLY = (Event, Ruling, SanctionRow, Revocation, Result, Statement)
"""Rows of these tables are inserted, never updated or deleted (a trigger enforces it)."""

# used by the migration to create the triggers; kept beside the models they protect
APPEND_ONLY_TABLES = tuple(m.__tablename__ for m in APPEND_ONLY)

__all__ = ["Base", "Series", "Tournament", "Person", "Team", "Entry", "Staff", "Event",
           "Ruling", "SanctionRow", "Revocation", "Result", "Statement", "APPEND_ONLY",
           "APPEND_ONLY_TABLES"]


class RulebookEdition(Audited, Base):
    """A published edition of an organiser's rulebook (app.rulebook_store) for one series: its
    YAML text as published, never changed (append-only, its own triggers); a change is a new
    edition.
    `in_force_from`: the first day it is in force, or NULL for «со следующего турнира» (from
    the first tournament dated on or after the day it was published, `created_at`)."""

    __tablename__ = "rulebook_edition"
    id: Mapped[int] = mapped_column(primary_key=True)
    rulebook: Mapped[str] = mapped_column(String(200), index=True)
    edition: Mapped[str] = mapped_column(String(20))
    text: Mapped[str] = mapped_column(Text)
    sha256: Mapped[str] = mapped_column(String(64))
    in_force_from: Mapped[dt.date | None] = mapped_column(Date)
    summary: Mapped[str] = mapped_column(String(2000), default="")
    # its own test cases as published: name -> [scenario YAML, expected JSON or error text]
    cases: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # the series it was published for, in force only in that series' tournaments (NULL: an
    # edition published before editions had a series, shared as it was)
    series_id: Mapped[int | None] = mapped_column(ForeignKey("series.id"), index=True)
    __table_args__ = (UniqueConstraint("rulebook", "edition"),)


class User(Audited, Base):
    """A person who signs in to the web app (a judge, an organiser, a player…)."""

    __tablename__ = "app_user"
    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(100), unique=True)
    password_hash: Mapped[str] = mapped_column(String(300))
    display_name: Mapped[str] = mapped_column(String(200))
    person_handle: Mapped[str | None] = mapped_column(String(100))  # a player's own record
    lang: Mapped[str] = mapped_column(String(5), default="ru")
    # may start a series of its own from the web app (the first organiser of an install, and
    # whom the owner of the database lets): then organiser of each tournament it creates
    may_start_series: Mapped[bool] = mapped_column(Boolean, default=False,
                                                   server_default=false())


class PasswordCode(Audited, Base):
    """A one-time code that sets an account's password: an invitation to a new account, or a
    reset an organiser gives a judge who forgot theirs. Only its hash is kept; used once,
    within its days."""

    __tablename__ = "password_code"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("app_user.id"), index=True)
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    used_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class WebSession(Base):
    """A signed-in session, kept on the server so it can be revoked."""

    __tablename__ = "web_session"
    id: Mapped[int] = mapped_column(primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("app_user.id"), index=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now)
    expires_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True))
    revoked_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))


class Assignment(Audited, Base):
    """A user's role in a tournament: a rulebook role, or organiser, scorekeeper, player."""

    __tablename__ = "assignment"
    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("app_user.id"), index=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    role: Mapped[str] = mapped_column(String(50))
    __table_args__ = (UniqueConstraint("user_id", "tournament_id", "role"),)


class RoundClock(Audited, Base):
    """A round started: its number, when, and how many minutes it lasts."""

    __tablename__ = "round_clock"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    started_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now)
    minutes: Mapped[int] = mapped_column(Integer)


class AppealRequest(Audited, Base):
    """A player appeals the rulings of one event; the head judge's decision is a ledger event.

    The request only records who appealed and why: whether it was decided, and how, is read
    from the ledger's appeal event on the same ruling, so the two can never disagree.
    """

    __tablename__ = "appeal_request"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    event_ext_id: Mapped[str] = mapped_column(String(100))  # the appealed ruling's event
    appellant: Mapped[str] = mapped_column(String(100))  # the player (or team) appealing
    reason: Mapped[str] = mapped_column(String(1000), default="")
    idempotency_key: Mapped[str | None] = mapped_column(String(100), unique=True)
    __table_args__ = (UniqueConstraint("tournament_id", "event_ext_id"),)


class RoundBye(Audited, Base):
    """The player a Swiss round gives the bye (one at most: an odd number of players); paired
    with the round's tables, and replaced with them."""

    __tablename__ = "round_bye"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"))
    round: Mapped[int] = mapped_column(Integer)
    player: Mapped[str] = mapped_column(String(100))
    __table_args__ = (UniqueConstraint("tournament_id", "round"),)


class Pairing(Audited, Base):
    """Who plays whom at which table in a round: players, or teams in a team event.

    A round's pairings are imported as a whole (services.people.import_pairings): importing
    the round again replaces all of its rows in one transaction, stamped with who imported
    them and when (Audited)."""

    __tablename__ = "pairing"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)
    player_a: Mapped[str] = mapped_column(String(100))  # a person's handle, or a team's
    player_b: Mapped[str] = mapped_column(String(100))
    __table_args__ = (UniqueConstraint("tournament_id", "round", "table_no"),)


class Matchup(Audited, Base):
    """One game of a team table in a round, as the captains' matchups set it (issue 36): who
    of each team plays whom, in the order the games were matched, and which side defended
    where the format has a defender. The table's games are replaced as a whole."""

    __tablename__ = "matchup"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"))
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)  # the team table (the pairing's)
    game: Mapped[int] = mapped_column(Integer)  # 1, 2, … in the order matched
    player_a: Mapped[str] = mapped_column(String(100))  # of the table's first team
    player_b: Mapped[str] = mapped_column(String(100))
    defender: Mapped[str | None] = mapped_column(String(1))  # "a", "b" or none
    __table_args__ = (UniqueConstraint("tournament_id", "round", "table_no", "game"),)


class ResultReport(Audited, Base):
    """A result a player reported for their match of a round, waiting for the opponent (or
    disputed by them): not a result until confirmed (then the ledger has it, and the row
    goes). The score is the table's first side's first."""

    __tablename__ = "result_report"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"))
    round: Mapped[int] = mapped_column(Integer)
    table_no: Mapped[int] = mapped_column(Integer)
    reporter: Mapped[str] = mapped_column(String(100))
    score_a: Mapped[int] = mapped_column(Integer)
    score_b: Mapped[int] = mapped_column(Integer)
    disputed: Mapped[bool] = mapped_column(default=False)
    __table_args__ = (UniqueConstraint("tournament_id", "round", "table_no"),)


class IncidentReport(Audited, Base):
    """A judge's account of an incident, filed for a judge who may rule (a junior judge
    files; a senior or the head judge rules). It waits until settled: by the ruling recorded
    for it (its event) or without a penalty; who settled it and when are kept."""

    __tablename__ = "incident_report"
    id: Mapped[int] = mapped_column(primary_key=True)
    tournament_id: Mapped[int] = mapped_column(ForeignKey("tournament.id"), index=True)
    subject: Mapped[str] = mapped_column(String(100))  # the player's (or team's) handle
    table_no: Mapped[int | None] = mapped_column(Integer)
    round: Mapped[int | None] = mapped_column(Integer)
    text: Mapped[str] = mapped_column(String(2000))
    idempotency_key: Mapped[str | None] = mapped_column(String(100), unique=True)
    settled_at: Mapped[dt.datetime | None] = mapped_column(DateTime(timezone=True))
    settled_by: Mapped[str | None] = mapped_column(String(100))
    event_ext_id: Mapped[str | None] = mapped_column(String(100))  # the ruling recorded for it
    settled_note: Mapped[str] = mapped_column(String(1000), default="")


class AuditCheck(Audited, Base):
    """One run of `sudya audit verify` over a series: when, by whom, and what it found
    (a message code and its parameters, rendered where it is shown)."""

    __tablename__ = "audit_check"
    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"), index=True)
    records: Mapped[int] = mapped_column(Integer)
    ok: Mapped[bool] = mapped_column(Boolean)
    head: Mapped[str | None] = mapped_column(String(64))
    code: Mapped[str] = mapped_column(String(50))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class EngineSnapshot(Base):
    """A series' engine state as of event `seq` (services.snapshots), so that a restarted
    server replays only the events since. A cache, not a record: it is kept only while it
    matches the ledger (the event at `seq` still has hash `chain`), the code that made it
    (`code`) and its signature (`digest`, an HMAC of `data` under the server's key);
    anything else is rebuilt from the events."""

    __tablename__ = "engine_snapshot"
    id: Mapped[int] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    chain: Mapped[str] = mapped_column(String(64))
    code: Mapped[str] = mapped_column(String(64))
    digest: Mapped[str] = mapped_column(String(64))
    data: Mapped[bytes] = mapped_column(LargeBinary)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True),
                                                    server_default=func.now())


class ServerSecret(Base):
    """A secret every worker and every restart of the server shares (CSRF and preview
    tokens are signed with it): made on the first start, kept here, so a token one worker
    signed is good at another and a form stays good across a restart. SUDYA_SECRET, when
    set, is used instead."""

    __tablename__ = "server_secret"
    name: Mapped[str] = mapped_column(String(50), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now)


class LoginFailure(Base):
    """Failed logins of one key (a username, an address), shared by every worker: the login
    throttle's state (app.accounts.Throttle). An attempt is counted here before its password
    is hashed; a success takes its count back."""

    __tablename__ = "login_failure"
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer, default=0)
    last_at: Mapped[dt.datetime] = mapped_column(DateTime(timezone=True), default=now,
                                                 index=True)
