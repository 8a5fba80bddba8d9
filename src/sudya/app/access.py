"""Who may do what: one permission per command type, checked with the command's tournament
in scope, and the people, teams and events a command names belong to that tournament.

Declared once (`PERMISSION`), as Tabbycat's views name their permission and pretix's API
reads the view's: `Sudya.handle` asks `check` before any handler runs, whatever the edge —
the web pages, the JSON API, the CLI. A tournament's staff may write in their tournament
only: a player, a team, a judge or an event of another tournament of the series is refused
as not of this tournament (nothing stored), and so is a write to a tournament its series has
left behind (the engine rules in the series' current tournament).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.accounts import AuthError, Roles, roles_from, user_view
from sudya.app.common import Actor, LedgerError
from sudya.app.queries import find_tournament
from sudya.app.views import SeriesChoiceView, TournamentView, UserView
from sudya.domain import commands as c
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

# what a command needs of its author in its tournament (Roles.can), or `owner`: the owner of
# the database (the CLI's administration, or the first organiser), or `organise`: an
# organiser of the tournament's series (or the owner)
Permission = Literal["owner", "organise", "manage", "rule", "decide", "hear-appeals",
                     "results", "pairings", "report", "member", "audit", "publish",
                     "start-series"]

PERMISSION: dict[type[Any], Permission] = {
    c.RecordInfraction: "rule",
    c.EndMatch: "rule",
    c.Appeal: "hear-appeals",
    c.Decide: "decide",
    c.Correct: "decide",
    c.RecordResult: "results",
    c.CreateSeries: "start-series",  # the owner, or an account allowed (AllowSeries)
    c.CreateTournament: "organise",
    c.AddPlayer: "manage",
    c.AddTeam: "manage",
    c.AddJudge: "manage",
    c.ReplacePlayer: "manage",
    c.CorrectResult: "results",
    c.AddUser: "owner",
    c.AssignRole: "manage",
    c.FileAppeal: "member",  # the player concerned, a judge who may rule, an organiser
    c.AddStatement: "member",  # each role of a statement has its writers (app.statements)
    c.ImportPairings: "pairings",
    c.StartRound: "manage",
    c.RegisterDecklist: "rule",
    c.FileIncident: "report",
    c.SettleIncident: "rule",
    c.VerifyLedger: "audit",  # the head judge or the organiser
    c.PublishRulebook: "publish",  # an organiser of some tournament
    c.Undo: "rule",
    c.InviteUser: "manage",
    c.RemoveRole: "manage",
    c.ResetPassword: "manage",  # and only an account of the organiser's own events
    c.AllowSeries: "owner",
    c.ImportRoster: "manage",
    c.SetPlan: "manage",
    c.PairRound: "pairings",
    c.DropPlayer: "manage",
    c.PairTopCut: "pairings",
    c.SetMatchups: "results",  # a judge enters what the captains matched
    c.ReportResult: "member",  # a player of the match, when the plan lets players report
    c.ConfirmResult: "member",  # the reporter's opponent (app.self_results)
}


class Refused(AuthError):
    """The actor may not do this here (403), or is not signed in (401)."""

    code = "access"


@dataclass(frozen=True)
class Facts:
    """What the checks ask of one tournament, read at once: the tournament, its rulebook, who
    is registered (players and teams), its staff list, the accounts' roles in it, and whether
    it is its series' current one. Kept a few seconds by the application (`Sudya`), dropped
    at once when this process changes one of them."""

    tournament: TournamentView
    book: Rulebook
    entered: frozenset[str]
    staff: dict[str, str]  # handle -> role
    assigned: dict[str, tuple[frozenset[str], UserView]]  # username -> roles, account
    current: bool


def facts_of(s: Session, tournament: int) -> Facts:
    """The tournament's facts (refused as unknown when there is no such tournament)."""
    t = find_tournament(s, tournament=tournament)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    book = loader.load(t.series.rulebook, t.edition)
    players = s.scalars(select(m.Person.handle).join(m.Entry, m.Entry.person_id == m.Person.id)
                        .where(m.Entry.tournament_id == t.id))
    teams = s.scalars(select(m.Team.handle).join(m.Entry, m.Entry.team_id == m.Team.id)
                      .where(m.Entry.tournament_id == t.id))
    staff = {h: r for h, r in s.execute(select(m.Staff.handle, m.Staff.role)
                                        .where(m.Staff.tournament_id == t.id))}
    assigned: dict[str, tuple[frozenset[str], UserView]] = {}
    for row in s.execute(select(m.Assignment.role, m.User.id, m.User.username,
                                m.User.display_name, m.User.person_handle, m.User.lang)
                         .join(m.User, m.User.id == m.Assignment.user_id)
                         .where(m.Assignment.tournament_id == t.id)):
        roles, user = assigned.get(row.username, (frozenset(), user_view(row)))
        assigned[row.username] = (roles | {row.role}, user)
    last = s.scalar(select(m.Tournament.id).where(m.Tournament.series_id == t.series.id)
                    .order_by(m.Tournament.position.desc()).limit(1))
    return Facts(t, book, frozenset(players) | frozenset(teams), staff, assigned,
                 last in (None, t.id))


@dataclass(frozen=True)
class Standing:
    """An actor in one tournament: the tournament, its rulebook and the actor's roles."""

    tournament: TournamentView
    book: Rulebook
    roles: Roles
    owner: bool
    facts: Facts | None = None

    def can(self, permission: Permission) -> bool:
        if self.owner:
            return True
        if permission in ("owner", "organise", "publish", "start-series"):
            return False  # (organisers are asked by `organises_series`, `organises_any`)
        if permission == "member":
            return bool(self.roles.names)
        if permission == "audit":
            return self.roles.can("hear-appeals") or self.roles.can("manage")
        return self.roles.can(permission)  # type: ignore[arg-type]


def standing(s: Session, actor: Actor, tournament: int) -> Standing:
    """The actor's standing in a tournament (404-like refusal for an unknown one)."""
    return standing_in(facts_of(s, tournament), actor)


def standing_in(facts: Facts, actor: Actor) -> Standing:
    """The actor's standing in a tournament, from its facts: a signed-in user's assignments
    and the staff list's entry under their username; an actor named on the command line
    (`--by`) the same, found by that name (a judge on the staff list needs no account)."""
    t, book = facts.tournament, facts.book
    user = actor.user
    handle = user.username if user is not None else actor.name
    roles_given, known = facts.assigned.get(handle, (frozenset(), None))
    user = user or known
    found: list[tuple[str, str | None]] = [(role, None) for role in roles_given]
    if handle in facts.staff:
        found.append((facts.staff[handle], handle))
    if user is None:  # a judge on the staff list, named on the command line
        names = frozenset(role for role, _h in found)
        may = frozenset(a for n in names if (r := book.roles.get(n)) for a in r.may)
        roles = Roles(names, may, None, handle if found else None)
    else:
        roles = roles_from(user, found, t, book)
    return Standing(t, book, roles, actor.owner, facts)


def organises_series(s: Session, actor: Actor, series: int) -> bool:
    """Whether the actor organises a tournament of the series."""
    if actor.user is None and not actor.name:
        return False
    username = actor.user.username if actor.user is not None else actor.name
    return s.scalar(select(m.Assignment.id)
                    .join(m.User, m.User.id == m.Assignment.user_id)
                    .join(m.Tournament, m.Tournament.id == m.Assignment.tournament_id)
                    .where(m.User.username == username, m.Assignment.role == "organiser",
                           m.Tournament.series_id == series).limit(1)) is not None


WHAT = {"owner": "access.owner-only", "organise": "access.organise",
        "manage": "access.manage", "rule": "access.rule", "decide": "access.decide",
        "hear-appeals": "access.hear-appeals", "results": "access.results",
        "pairings": "access.pairings", "report": "access.report", "member": "access.member",
        "audit": "access.audit", "publish": "access.publish",
        "start-series": "access.start-series"}


def refuse(actor: Actor, permission: Permission, where: str = "") -> Refused:
    """The refusal of a permission (401 for nobody at all)."""
    if actor.user is None and not actor.name and not actor.owner:
        return Refused("access.sign-in", status=401)
    return Refused(WHAT[permission], status=403, tournament=where)


# ---------------------------------------------------------------------- the scope
def _people(st: Standing, named: list[tuple[str, str | None]]) -> None:
    """Each (field, handle) names a player or team registered for the tournament."""
    assert st.facts is not None
    for field, handle in named:
        if handle and handle not in st.facts.entered:
            raise LedgerError("scope.not-entered", field=field, handle=handle,
                              tournament=st.tournament.name)


def _judge(st: Standing, judge: str | None) -> None:
    assert st.facts is not None
    if judge and judge not in st.facts.staff:
        raise LedgerError("scope.not-staff", field="judge", judge=judge,
                          tournament=st.tournament.name)


def _event(reading: Reading, t: TournamentView, of: str, field: str = "of",
           earlier: bool = False) -> None:
    """`of` is an event of this tournament (an event of another tournament of the series is
    that tournament's to settle); with `earlier`, one of an earlier tournament of the series
    too (a ruling still pending a decision: the college decides it in a later tournament,
    003 «Совокупность наказаний», regulations.md §2.3)."""
    with reading() as s:
        found = s.execute(select(m.Event.tournament_id, m.Tournament.position)
                          .join(m.Tournament, m.Tournament.id == m.Event.tournament_id)
                          .where(m.Event.series_id == t.series.id,
                                 m.Event.ext_id == of)).first()
    if found is None or found.tournament_id == t.id:
        return
    if earlier and found.position < t.position:
        return
    raise LedgerError("scope.other-tournament", field=field, event=of, tournament=t.name)


def _current(st: Standing) -> None:
    """The series' current tournament (its latest): the engine rules in it."""
    assert st.facts is not None
    if not st.facts.current:
        raise LedgerError("scope.not-current", field="tournament",
                          tournament=st.tournament.name)


def _infraction(reading: Reading, st: Standing, cmd: c.RecordInfraction) -> None:
    _current(st)
    named = [("player", cmd.player), ("team", cmd.team)]
    inf = st.book.infraction(cmd.infraction)
    if inf is not None:
        for name, d in {**st.book.common_details, **inf.details}.items():
            value = cmd.details.get(name)
            if d.type == "player" and isinstance(value, str):
                named.append((f"details.{name}", value))
    _people(st, named)
    _judge(st, cmd.judge)


def _players(reading: Reading, st: Standing, cmd: c.EndMatch | c.RecordResult) -> None:
    _current(st)
    _people(st, [(f"players.{i}", p) for i, p in enumerate(cmd.players or [])])


def _answer(reading: Reading, st: Standing,
            cmd: c.Appeal | c.Decide | c.Correct | c.CorrectResult) -> None:
    _event(reading, st.tournament, cmd.of, earlier=isinstance(cmd, c.Decide))
    _judge(st, cmd.judge)


def _replacement(reading: Reading, st: Standing, cmd: c.ReplacePlayer) -> None:
    _people(st, [("replace", cmd.replace)])




def organised_series(s: Session, actor: Actor) -> list[SeriesChoiceView]:
    """The series the actor organises a tournament of (every series for the owner), by name:
    those they may publish a rulebook edition for."""
    query = select(m.Series.id, m.Series.name, m.Series.rulebook).order_by(m.Series.name)
    if not actor.owner:
        username = actor.user.username if actor.user is not None else actor.name
        query = query.where(m.Series.id.in_(
            select(m.Tournament.series_id)
            .join(m.Assignment, m.Assignment.tournament_id == m.Tournament.id)
            .join(m.User, m.User.id == m.Assignment.user_id)
            .where(m.User.username == username, m.Assignment.role == "organiser")))
    return [SeriesChoiceView(id=row.id, name=row.name, rulebook=row.rulebook)
            for row in s.execute(query)]


def organises_any(s: Session, actor: Actor) -> bool:
    """Whether the actor organises some tournament (who writes and publishes rulebooks)."""
    username = actor.user.username if actor.user is not None else actor.name
    return bool(username) and s.scalar(
        select(m.Assignment.id).join(m.User, m.User.id == m.Assignment.user_id)
        .where(m.User.username == username, m.Assignment.role == "organiser")
        .limit(1)) is not None


def _appeal(reading: Reading, st: Standing, cmd: c.FileAppeal) -> None:
    """The player concerned appeals (a judge who may rule, or an organiser, for them)."""
    roles = st.roles
    if not (st.owner or roles.can("rule") or roles.can("manage")
            or roles.person == cmd.appellant):
        raise Refused("access.appeal-own", status=403)
    _event(reading, st.tournament, cmd.event, "event")


def _statement(reading: Reading, st: Standing, cmd: c.AddStatement) -> None:
    if cmd.tournament != st.tournament.id:
        raise LedgerError("scope.other-tournament", field="tournament", event=cmd.event,
                          tournament=st.tournament.name)
    _event(reading, st.tournament, cmd.event, "event")


def _decklist(reading: Reading, st: Standing, cmd: c.RegisterDecklist) -> None:
    _people(st, [("player", cmd.player)])


def _incident(reading: Reading, st: Standing, cmd: c.FileIncident) -> None:
    _people(st, [("subject", cmd.subject)])


def _settled(reading: Reading, st: Standing, cmd: c.SettleIncident) -> None:
    if cmd.event:
        _event(reading, st.tournament, cmd.event, "event")


def _undo(reading: Reading, st: Standing, cmd: c.Undo) -> None:
    _event(reading, st.tournament, cmd.event, "event")


def _dropping(reading: Reading, st: Standing, cmd: c.DropPlayer) -> None:
    _people(st, [("player", cmd.player)])


SCOPE: dict[type[Any], Callable[[Reading, Standing, Any], None]] = {
    c.DropPlayer: _dropping,
    c.RecordInfraction: _infraction,
    c.EndMatch: _players,
    c.RecordResult: _players,
    c.Appeal: _answer,
    c.Decide: _answer,
    c.Correct: _answer,
    c.CorrectResult: _answer,
    c.ReplacePlayer: _replacement,
    c.FileAppeal: _appeal,
    c.AddStatement: _statement,
    c.RegisterDecklist: _decklist,
    c.FileIncident: _incident,
    c.SettleIncident: _settled,
    c.Undo: _undo,
}


Reading = Callable[[], AbstractContextManager[Session]]


def check(reading: Reading, st: Standing, cmd: Any, actor: Actor) -> None:
    """The actor may send `cmd` in this tournament, and everything it names is of it."""
    permission = PERMISSION[type(cmd)]
    if permission == "organise":
        with reading() as s:
            if not (actor.owner or organises_series(s, actor, st.tournament.series.id)):
                raise refuse(actor, permission, st.tournament.name)
    elif permission == "publish":
        # the series' organisers write its rulebook's editions; a tournament's head judge
        # turns its college's decision into a precedent (003): who hears appeals there
        if not (actor.owner or st.roles.can("hear-appeals")):
            with reading() as s:
                if not organises_series(s, actor, st.tournament.series.id):
                    raise refuse(actor, permission, st.tournament.name)
    elif not st.can(permission):
        raise refuse(actor, permission, st.tournament.name)
    judge = getattr(cmd, "judge", None)
    if not actor.owner and judge is not None and judge != st.roles.judge_handle:
        # who ruled is the one who sends it: a judge records in their own name only
        raise LedgerError("scope.judge-not-you", field="judge", judge=judge)
    scope = SCOPE.get(type(cmd))
    if scope is not None:
        scope(reading, st, cmd)
