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

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.app.accounts import AuthError, Roles, roles_from, user_view
from sudya.app.common import Actor, LedgerError
from sudya.app.queries import find_tournament
from sudya.app.views import TournamentView
from sudya.domain import commands as c
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

# what a command needs of its author in its tournament (Roles.can), or `owner`: the owner of
# the database (the CLI's administration, or the first organiser), or `organise`: an
# organiser of the tournament's series (or the owner)
Permission = Literal["owner", "organise", "manage", "rule", "decide", "hear-appeals",
                     "results", "pairings", "report", "member", "audit", "publish"]

PERMISSION: dict[type[Any], Permission] = {
    c.RecordInfraction: "rule",
    c.EndMatch: "rule",
    c.Appeal: "hear-appeals",
    c.Decide: "decide",
    c.Correct: "decide",
    c.RecordResult: "results",
    c.CreateSeries: "owner",
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
}


class Refused(AuthError):
    """The actor may not do this here (403), or is not signed in (401)."""

    code = "access"


@dataclass(frozen=True)
class Standing:
    """An actor in one tournament: the tournament, its rulebook and the actor's roles."""

    tournament: TournamentView
    book: Rulebook
    roles: Roles
    owner: bool

    def can(self, permission: Permission) -> bool:
        if self.owner:
            return True
        if permission in ("owner", "organise", "publish"):
            return False  # (organisers are asked by `organises_series`, `organises_any`)
        if permission == "member":
            return bool(self.roles.names)
        if permission == "audit":
            return self.roles.can("hear-appeals") or self.roles.can("manage")
        return self.roles.can(permission)  # type: ignore[arg-type]


def standing(s: Session, actor: Actor, tournament: int) -> Standing:
    """The actor's standing in a tournament (404-like refusal for an unknown one)."""
    t = find_tournament(s, tournament=tournament)
    if t is None:
        raise LedgerError("tournament.unknown", field="tournament", tournament=tournament)
    book = loader.load(t.series.rulebook, t.edition)
    return Standing(t, book, roles_of(s, actor, t, book), actor.owner)


def roles_of(s: Session, actor: Actor, t: TournamentView, book: Rulebook) -> Roles:
    """The actor's roles in a tournament: a signed-in user's assignments and the staff list's
    entry under their username; an actor named on the command line (`--by`) the same, found
    by that name (a judge on the staff list needs no account)."""
    user = actor.user
    if user is None and actor.name:
        row = s.execute(select(m.User.id, m.User.username, m.User.display_name,
                               m.User.person_handle, m.User.lang)
                        .where(m.User.username == actor.name)).first()
        user = user_view(row) if row is not None else None
    found: list[tuple[str, str | None]] = []
    if user is not None:
        found += [(role, None) for role in s.scalars(select(m.Assignment.role).where(
            m.Assignment.user_id == user.id, m.Assignment.tournament_id == t.id))]
    handle = user.username if user is not None else actor.name
    found += [(role, h) for role, h in s.execute(select(m.Staff.role, m.Staff.handle).where(
        m.Staff.tournament_id == t.id, m.Staff.handle == handle))]
    if user is None:  # a judge on the staff list, named on the command line
        names = frozenset(role for role, _h in found)
        may = frozenset(a for n in names if (r := book.roles.get(n)) for a in r.may)
        return Roles(names, may, None, handle if found else None)
    return roles_from(user, found, t, book)


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
        "audit": "access.audit", "publish": "access.publish"}


def refuse(actor: Actor, permission: Permission, where: str = "") -> Refused:
    """The refusal of a permission (401 for nobody at all)."""
    if actor.user is None and not actor.name and not actor.owner:
        return Refused("access.sign-in", status=401)
    return Refused(WHAT[permission], status=403, tournament=where)


# ---------------------------------------------------------------------- the scope
def entered(s: Session, tournament: int, handles: Iterable[str]) -> set[str]:
    """Which of `handles` are registered for the tournament (players or teams)."""
    wanted = sorted({h for h in handles if h})
    if not wanted:
        return set()
    players = set(s.scalars(select(m.Person.handle)
                            .join(m.Entry, m.Entry.person_id == m.Person.id)
                            .where(m.Entry.tournament_id == tournament,
                                   m.Person.handle.in_(wanted))))
    teams = set(s.scalars(select(m.Team.handle).distinct()
                          .join(m.Entry, m.Entry.team_id == m.Team.id)
                          .where(m.Entry.tournament_id == tournament,
                                 m.Team.handle.in_(wanted))))
    return players | teams


def _people(s: Session, t: TournamentView, named: list[tuple[str, str | None]]) -> None:
    """Each (field, handle) names a player or team registered for the tournament."""
    here = entered(s, t.id, [h for _f, h in named if h])
    for field, handle in named:
        if handle and handle not in here:
            raise LedgerError("scope.not-entered", field=field, handle=handle,
                              tournament=t.name)


def _judge(s: Session, t: TournamentView, judge: str | None) -> None:
    if judge and s.scalar(select(m.Staff.id).where(m.Staff.tournament_id == t.id,
                                                   m.Staff.handle == judge)) is None:
        raise LedgerError("scope.not-staff", field="judge", judge=judge, tournament=t.name)


def _event(s: Session, t: TournamentView, of: str, field: str = "of",
           earlier: bool = False) -> None:
    """`of` is an event of this tournament (an event of another tournament of the series is
    that tournament's to settle); with `earlier`, one of an earlier tournament of the series
    too (a ruling still pending a decision: the college decides it in a later tournament,
    003 «Совокупность наказаний», regulations.md §2.3)."""
    found = s.execute(select(m.Event.tournament_id, m.Tournament.position)
                      .join(m.Tournament, m.Tournament.id == m.Event.tournament_id)
                      .where(m.Event.series_id == t.series.id, m.Event.ext_id == of)).first()
    if found is None or found.tournament_id == t.id:
        return
    if earlier and found.position < t.position:
        return
    raise LedgerError("scope.other-tournament", field=field, event=of, tournament=t.name)


def _current(s: Session, t: TournamentView) -> None:
    """The series' current tournament (its latest): the engine rules in it."""
    last = s.scalar(select(m.Tournament.id).where(m.Tournament.series_id == t.series.id)
                    .order_by(m.Tournament.position.desc()).limit(1))
    if last is not None and last != t.id:
        raise LedgerError("scope.not-current", field="tournament", tournament=t.name)


def _infraction(s: Session, st: Standing, cmd: c.RecordInfraction) -> None:
    _current(s, st.tournament)
    named = [("player", cmd.player), ("team", cmd.team)]
    inf = st.book.infraction(cmd.infraction)
    if inf is not None:
        for name, d in {**st.book.common_details, **inf.details}.items():
            value = cmd.details.get(name)
            if d.type == "player" and isinstance(value, str):
                named.append((f"details.{name}", value))
    _people(s, st.tournament, named)
    _judge(s, st.tournament, cmd.judge)


def _players(s: Session, st: Standing, cmd: c.EndMatch | c.RecordResult) -> None:
    _current(s, st.tournament)
    _people(s, st.tournament, [(f"players.{i}", p) for i, p in enumerate(cmd.players or [])])


def _answer(s: Session, st: Standing,
            cmd: c.Appeal | c.Decide | c.Correct | c.CorrectResult) -> None:
    _event(s, st.tournament, cmd.of, earlier=isinstance(cmd, c.Decide))
    _judge(s, st.tournament, cmd.judge)


def _replacement(s: Session, st: Standing, cmd: c.ReplacePlayer) -> None:
    _people(s, st.tournament, [("replace", cmd.replace)])




def organises_any(s: Session, actor: Actor) -> bool:
    """Whether the actor organises some tournament (who writes and publishes rulebooks)."""
    username = actor.user.username if actor.user is not None else actor.name
    return bool(username) and s.scalar(
        select(m.Assignment.id).join(m.User, m.User.id == m.Assignment.user_id)
        .where(m.User.username == username, m.Assignment.role == "organiser")
        .limit(1)) is not None


def _appeal(s: Session, st: Standing, cmd: c.FileAppeal) -> None:
    """The player concerned appeals (a judge who may rule, or an organiser, for them)."""
    roles = st.roles
    if not (st.owner or roles.can("rule") or roles.can("manage")
            or roles.person == cmd.appellant):
        raise Refused("access.appeal-own", status=403)
    _event(s, st.tournament, cmd.event, "event")


def _statement(s: Session, st: Standing, cmd: c.AddStatement) -> None:
    if cmd.tournament != st.tournament.id:
        raise LedgerError("scope.other-tournament", field="tournament", event=cmd.event,
                          tournament=st.tournament.name)
    _event(s, st.tournament, cmd.event, "event")


def _decklist(s: Session, st: Standing, cmd: c.RegisterDecklist) -> None:
    _people(s, st.tournament, [("player", cmd.player)])


def _incident(s: Session, st: Standing, cmd: c.FileIncident) -> None:
    _people(s, st.tournament, [("subject", cmd.subject)])


def _settled(s: Session, st: Standing, cmd: c.SettleIncident) -> None:
    if cmd.event:
        _event(s, st.tournament, cmd.event, "event")


def _undo(s: Session, st: Standing, cmd: c.Undo) -> None:
    _event(s, st.tournament, cmd.event, "event")


SCOPE: dict[type[Any], Callable[[Session, Standing, Any], None]] = {
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


def check(s: Session, st: Standing, cmd: Any, actor: Actor) -> None:
    """The actor may send `cmd` in this tournament, and everything it names is of it."""
    permission = PERMISSION[type(cmd)]
    if permission == "organise":
        if not (actor.owner or organises_series(s, actor, st.tournament.series.id)):
            raise refuse(actor, permission, st.tournament.name)
    elif permission == "publish":
        # organisers write rulebooks; a tournament's head judge turns its college's
        # decision into a precedent (003): who hears appeals there
        if not (actor.owner or organises_any(s, actor) or st.roles.can("hear-appeals")):
            raise refuse(actor, permission, st.tournament.name)
    elif not st.can(permission):
        raise refuse(actor, permission, st.tournament.name)
    judge = getattr(cmd, "judge", None)
    if not actor.owner and judge is not None and judge != st.roles.judge_handle:
        # who ruled is the one who sends it: a judge records in their own name only
        raise LedgerError("scope.judge-not-you", field="judge", judge=judge)
    scope = SCOPE.get(type(cmd))
    if scope is not None:
        scope(s, st, cmd)
