"""`Sudya`: the only Python API of the application.

`handle(cmd, actor, tournament)` checks the command's one permission and scope
(sudya.app.access) and runs its one handler (`HANDLERS`, as cosmicpython's
`COMMAND_HANDLERS`): a ledger event is stored with the rulings the engine makes on it, a
set-up command sets up a series, a tournament, its people or an account. `preview` rules on
a report without storing it. `read` gives what the pages, the API and the CLI show, as typed
views. The edges decode, call this, and render: none of them opens a database session.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy.orm import Session

from sudya.app import access, accounts
from sudya.app.access import Standing
from sudya.app.common import Actor, LedgerError
from sudya.app.ledger import Ledger, Recorded
from sudya.app.queries import find_tournament
from sudya.app.views import (
    AccountView,
    GameView,
    PairedRoundView,
    PasswordCodeView,
    RosterImportView,
)
from sudya.domain import commands as c
from sudya.domain.engine.model import Ruling
from sudya.domain.plan import Plan
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook

__all__ = ["HANDLERS", "Actor", "Recorded", "Sudya", "Where"]


@dataclass(frozen=True)
class Where:
    """Where a command is sent, and how: its tournament, its idempotency key (a retry with
    the same key answers the first answer), the event id it asks for."""

    tournament: int | None = None
    key: str | None = None
    event_id: str | None = None


Handler = Callable[["Sudya", Any, Actor, Where], Any]
FACTS_FOR = 5.0  # seconds a tournament's facts are kept (another worker's change: seen then)


class Sudya:
    """The application over one database."""

    def __init__(self, ledger: Ledger, *, undo_seconds: float = 120) -> None:
        self.ledger = ledger
        self.undo_seconds = undo_seconds  # how long a judge may take a ruling back
        self.read = Reads(self)
        self._books: dict[int, Rulebook] = {}
        self._facts: dict[int, tuple[access.Facts, float]] = {}
        ledger.changes.listen(self._changed)  # this process's roster and tournament events

    def _changed(self, change: Any) -> None:
        """A committed event of this process: a roster change drops its tournament's facts,
        a new tournament every kept one (the series' others are not current any more)."""
        if change.kind == "roster":
            self.forget(change.tournament)
        elif change.kind == "tournament":
            self.forget()

    @classmethod
    def open(cls, settings: Any, engine: Any = None) -> Sudya:
        """The application over the database `settings` name (or `engine`), refused when it
        is not migrated to this version."""
        from sudya.adapters.db.migrate import require_current
        from sudya.adapters.db.session import make_engine

        db = engine or make_engine(settings.database_url, settings.pool(), create=False)
        require_current(db)
        ledger = Ledger(db, write_timeout=settings.write_timeout,
                        snapshot_key=settings.snapshot_key())
        if settings.anchor_file is not None:
            from sudya.app.anchor import AnchorFile

            AnchorFile(ledger, settings.anchor_file)
        return cls(ledger, undo_seconds=settings.undo_seconds)

    # ------------------------------------------------------------------ accounts
    def sign_in(self, *, username: str, password: str, throttle: accounts.Throttle,
                address: str) -> tuple[Any, str]:
        """Log in: the user and the new session's token (throttled per address, username)."""
        return accounts.sign_in(self.ledger, username=username, password=password,
                                throttle=throttle, address=address)

    def account_list(self, actor: Actor, tournament: int | None = None) -> list[AccountView]:
        """The accounts and their roles: a tournament's, for one who manages it; every
        account, for the owner of the database."""
        if tournament is None:
            if not actor.owner:
                raise access.refuse(actor, "owner")
        elif not self.standing(actor, tournament).can("manage"):
            raise access.refuse(actor, "manage", self.facts(tournament).tournament.name)
        return self.read(accounts.account_list, tournament)

    def use_code(self, *, code: str, password: str, throttle: accounts.Throttle,
                 address: str) -> tuple[Any, str]:
        """Set a password with its one-time code: the user and the new session's token."""
        return accounts.use_code(self.ledger, code=code, password=password,
                                 throttle=throttle, address=address)

    def sign_out(self, token: str | None) -> int:
        """End the session of this token."""
        return accounts.sign_out(self.ledger, token=token)

    def secret(self, given: str | None = None) -> str:
        """The secret tokens are signed with: `given` (SUDYA_SECRET), else the database's,
        shared by every worker and restart (app.secret)."""
        from sudya.app.secret import shared_secret

        return shared_secret(self.ledger, given)

    @property
    def changes(self) -> Any:
        """What this process commits, for the pages that update themselves (app.changes)."""
        return self.ledger.changes

    def last_check(self, tournament: int) -> Any:
        """The last `audit verify` of a tournament's series."""
        from sudya.app.audit import last_check

        return last_check(self.ledger, tournament)

    def stop(self) -> None:
        """The server stops: the writes already sent finish, each cached engine is stored as
        its series' snapshot, and a SQLite file folds its write-ahead log in (a copy of the
        file alone is then complete)."""
        self.ledger.shutdown()
        try:
            self.save_snapshots()
        finally:
            self.checkpoint()

    def checkpoint(self) -> None:
        """SQLite: fold the write-ahead log into the database file (nothing elsewhere)."""
        from sudya.adapters.db.session import checkpoint

        checkpoint(self.ledger.db)

    def close(self) -> None:
        """Let the series' writers finish, fold the log in, close the connections."""
        self.ledger.shutdown()
        self.checkpoint()
        self.ledger.db.dispose()

    def save_snapshots(self) -> int:
        """Store each cached series engine as its snapshot (the server does it as it stops)."""
        return self.ledger.save_snapshots()

    # ------------------------------------------------------------------ sessions (inside)
    @contextmanager
    def reading(self) -> Iterator[Session]:
        """A read session (each statement sees the newest commit)."""
        with self.ledger.factory() as s:
            yield s

    # ------------------------------------------------------------------ commands
    def handle(self, cmd: Any, actor: Actor, tournament: int | None = None, *,
               key: str | None = None, event_id: str | None = None) -> Any:
        """Check `cmd`'s permission and scope for `actor`, then run its handler."""
        handler = HANDLERS.get(type(cmd))
        if handler is None:
            raise TypeError(f"no handler for {type(cmd).__name__}")
        where = Where(tournament, key, event_id)
        if tournament is None:
            if access.PERMISSION[type(cmd)] not in ("owner", "organise", "publish",
                                                    "start-series"):
                if isinstance(cmd, c.AddStatement):  # (it names its tournament itself)
                    return handler(self, cmd, actor, where)
                raise LedgerError("tournament.required", field="tournament")
            if access.PERMISSION[type(cmd)] == "owner" and not actor.owner:
                raise access.refuse(actor, "owner")
        return handler(self, cmd, actor, where)

    def facts(self, tournament: int) -> access.Facts:
        """A tournament's facts the checks read (who is registered, its staff, the accounts'
        roles, whether it is current): kept FACTS_FOR seconds, and dropped at once when this
        process changes them (`forget`); another worker's change is seen within that time."""
        now = time.monotonic()
        kept = self._facts.get(tournament)
        if kept is not None and now - kept[1] < FACTS_FOR:
            return kept[0]
        with self.reading() as s:
            found = access.facts_of(s, tournament)
        self._facts[tournament] = (found, now)
        return found

    def forget(self, tournament: int | None = None) -> None:
        """Drop the kept facts of a tournament (None: of every tournament)."""
        if tournament is None:
            self._facts.clear()
        else:
            self._facts.pop(tournament, None)

    def standing(self, actor: Actor, tournament: int) -> Standing:
        """The actor in a tournament: its rulebook and the actor's roles."""
        return access.standing_in(self.facts(tournament), actor)

    def check(self, cmd: Any, actor: Actor, tournament: int) -> Standing:
        """Refused unless `actor` may send `cmd` in the tournament (everything it names of
        it); the actor's standing there."""
        st = self.standing(actor, tournament)
        access.check(self.reading, st, cmd, actor)
        return st

    def preview(self, cmd: c.RecordInfraction, actor: Actor, tournament: int) -> list[Ruling]:
        """The rulings `handle(cmd)` would make now, storing nothing."""
        cmd = _own(self.check(cmd, actor, tournament), cmd, actor)  # type: ignore[assignment]
        return self.ledger.projection.preview(
            self.ledger.factory, self.ledger._series_of(tournament), cmd, "preview")

    def book_of(self, tournament: int) -> Rulebook:
        """The rulebook (edition) a tournament is judged by (cached: it never changes)."""
        book = self._books.get(tournament)
        if book is None:
            with self.reading() as s:
                t = find_tournament(s, tournament=tournament)
            if t is None:
                raise LedgerError("tournament.unknown", field="tournament",
                                  tournament=tournament)
            book = self._books[tournament] = loader.load(t.series.rulebook, t.edition)
        return book


# ---------------------------------------------------------------------- the handlers
def _event(app: Sudya, cmd: c.Command, actor: Actor, where: Where) -> Recorded:
    """A ledger event: stored with the rulings the engine makes on it (the rulebook they were
    made under beside them). A judge's command that names no judge is theirs."""
    assert where.tournament is not None
    cmd = _own(app.check(cmd, actor, where.tournament), cmd, actor)
    done = app.ledger.execute(where.tournament, cmd, event_id=where.event_id,
                              idempotency_key=where.key, actor=actor)
    return dataclasses.replace(done, book=app.book_of(where.tournament))


def _own(st: Standing, cmd: c.Command, actor: Actor) -> c.Command:
    """The command in its author's name where it names no judge and the author is one."""
    if (not actor.owner and "judge" in type(cmd).model_fields
            and getattr(cmd, "judge", None) is None and st.roles.judge_handle is not None):
        return cmd.model_copy(update={"judge": st.roles.judge_handle})
    return cmd


def _may_start_series(app: Sudya, actor: Actor) -> None:
    """The owner, or an account the owner allowed to start series (AllowSeries)."""
    if actor.owner:
        return
    with app.reading() as s:
        if not accounts.may_start_series(s, actor.user.username if actor.user else actor.name):
            raise access.refuse(actor, "start-series")


def _create_series(app: Sudya, cmd: c.CreateSeries, actor: Actor, where: Where) -> int:
    _may_start_series(app, actor)
    return app.ledger.create_series(name=cmd.name, rulebook=cmd.rulebook, actor=actor)


def _create_tournament(app: Sudya, cmd: c.CreateTournament, actor: Actor, where: Where) -> int:
    """A tournament of a series its author organises (a new series: one they may start);
    they become its organiser, with every organiser of the series' earlier tournaments."""
    if not actor.owner:
        with app.reading() as s:
            series = accounts_series(s, cmd.series)
        if series is None and cmd.new_series_rulebook is not None:
            _may_start_series(app, actor)
        else:
            with app.reading() as s:
                if series is None or not access.organises_series(s, actor, series):
                    raise access.refuse(actor, "organise")
    try:
        tid = app.ledger.create_tournament(
            series=cmd.series, name=cmd.name, date=cmd.date, level=cmd.level,
            settings=cmd.settings, edition=cmd.edition, actor=actor,
            new_series_rulebook=cmd.new_series_rulebook)
        with app.ledger.uow().begin() as s:
            if cmd.plan is not None:
                _store_plan(s, tid, cmd.plan)
            accounts.organisers_follow(s, tournament=tid,
                                       author=None if actor.owner else
                                       (actor.user.username if actor.user else actor.name))
        return tid
    finally:
        app.forget()  # the series' other tournaments are not its current one any more


def accounts_series(s: Session, series: int | str) -> int | None:
    from sqlalchemy import select

    from sudya.adapters.db import models as m

    if isinstance(series, int):
        return series
    return s.scalar(select(m.Series.id).where(m.Series.name == series))


def _in(app: Sudya, cmd: Any, actor: Actor, where: Where) -> int:
    """The tournament of a set-up command, once its author may send it there."""
    assert where.tournament is not None
    app.check(cmd, actor, where.tournament)
    return where.tournament


def _add_player(app: Sudya, cmd: c.AddPlayer, actor: Actor, where: Where) -> None:
    tournament = _in(app, cmd, actor, where)
    try:
        app.ledger.add_player(tournament=tournament, handle=cmd.handle, name=cmd.name,
                              team=cmd.team, table=cmd.table, gender=cmd.gender, actor=actor)
    finally:
        app.forget(tournament)


def _add_team(app: Sudya, cmd: c.AddTeam, actor: Actor, where: Where) -> None:
    tournament = _in(app, cmd, actor, where)
    try:
        app.ledger.add_team(tournament=tournament, handle=cmd.handle, name=cmd.name,
                            members=list(cmd.members), actor=actor)
    finally:
        app.forget(tournament)


def _add_judge(app: Sudya, cmd: c.AddJudge, actor: Actor, where: Where) -> None:
    tournament = _in(app, cmd, actor, where)
    try:
        app.ledger.add_judge(tournament=tournament, handle=cmd.handle, role=cmd.role,
                             official=cmd.official, name=cmd.name, actor=actor)
    finally:
        app.forget(tournament)


def _replace_player(app: Sudya, cmd: c.ReplacePlayer, actor: Actor, where: Where
                    ) -> Recorded:
    tournament = _in(app, cmd, actor, where)
    try:
        return app.ledger.replace_player(tournament=tournament, removed=cmd.replace, by=cmd.by,
                                         army=cmd.army, coach=cmd.coach, name=cmd.name,
                                         idempotency_key=where.key, actor=actor)
    finally:
        app.forget(tournament)


def _correct_result(app: Sudya, cmd: c.CorrectResult, actor: Actor, where: Where
                    ) -> tuple[Recorded, Recorded | None]:
    return app.ledger.correct_result(tournament=_in(app, cmd, actor, where), of=cmd.of,
                                     score=cmd.score, judge=cmd.judge, reason=cmd.reason,
                                     idempotency_key=where.key, actor=actor)


def _add_user(app: Sudya, cmd: c.AddUser, actor: Actor, where: Where
              ) -> PasswordCodeView | None:
    """The account; without a password, the one-time code that sets it."""
    try:
        return accounts.add_user(app.ledger, username=cmd.username, password=cmd.password,
                                 display_name=cmd.display_name, person=cmd.person,
                                 roles=[(t, r) for t, r in cmd.roles], actor_name=actor.name)
    finally:
        app.forget()


def _assign_role(app: Sudya, cmd: c.AssignRole, actor: Actor, where: Where) -> None:
    tournament = _in(app, cmd, actor, where)
    try:
        with app.ledger.uow().begin() as s:
            user = accounts.user_named(s, cmd.username)
            accounts.assign(s, user=user, tournament_id=tournament, role=cmd.role)
    finally:
        app.forget(tournament)


def _pair_round(app: Sudya, cmd: c.PairRound, actor: Actor, where: Where) -> PairedRoundView:
    from sudya.app.swiss_rounds import pair

    return pair(app.ledger, tournament=_in(app, cmd, actor, where), round=cmd.round,
                seed=cmd.seed, actor=actor)


def _pair_top_cut(app: Sudya, cmd: c.PairTopCut, actor: Actor, where: Where
                  ) -> PairedRoundView:
    from sudya.app.swiss_rounds import cut

    return cut(app.ledger, tournament=_in(app, cmd, actor, where), round=cmd.round,
               size=cmd.size, actor=actor)


def _set_matchups(app: Sudya, cmd: c.SetMatchups, actor: Actor, where: Where
                  ) -> list[GameView]:
    from sudya.app.team_rounds import set_games

    return set_games(app.ledger, tournament=_in(app, cmd, actor, where), round=cmd.round,
                     table=cmd.table, games=list(cmd.games), actor=actor)


def _report_result(app: Sudya, cmd: c.ReportResult, actor: Actor, where: Where) -> None:
    from sudya.app.self_results import report

    tournament = _in(app, cmd, actor, where)
    report(app.ledger, tournament=tournament, cmd=cmd,
           person=app.standing(actor, tournament).roles.person, actor=actor)


def _confirm_result(app: Sudya, cmd: c.ConfirmResult, actor: Actor, where: Where
                    ) -> Recorded | None:
    """Agreed: the reported result entered in the opponent's name (the result's own checks
    apply, as for a scorekeeper's), then the report goes; disputed: None."""
    from sudya.app.self_results import confirm, settle

    tournament = _in(app, cmd, actor, where)
    found = confirm(app.ledger, tournament=tournament, cmd=cmd,
                    person=app.standing(actor, tournament).roles.person, actor=actor)
    if found is None:
        return None
    a, b, score = found
    done = app.ledger.execute(tournament, c.RecordResult(players=(a, b), score=score,
                                                         round=cmd.round),
                              idempotency_key=where.key, actor=actor)
    settle(app.ledger, tournament=tournament, round=cmd.round, pair=(a, b))
    return done


def _drop_player(app: Sudya, cmd: c.DropPlayer, actor: Actor, where: Where) -> None:
    from sudya.app.swiss_rounds import drop

    drop(app.ledger, tournament=_in(app, cmd, actor, where), player=cmd.player,
         after=cmd.after)


def _store_plan(s: Session, tournament: int, plan: Plan) -> None:
    from sqlalchemy import update

    from sudya.adapters.db import models as m

    s.execute(update(m.Tournament).where(m.Tournament.id == tournament)
              .values(plan=plan.model_dump(mode="json", exclude_defaults=True)))


def _set_plan(app: Sudya, cmd: c.SetPlan, actor: Actor, where: Where) -> None:
    tournament = _in(app, cmd, actor, where)
    try:
        with app.ledger.uow().begin() as s:
            _store_plan(s, tournament, cmd.plan)
    finally:
        app.forget(tournament)


def _import_roster(app: Sudya, cmd: c.ImportRoster, actor: Actor, where: Where
                   ) -> RosterImportView:
    from sudya.app.imports import import_roster
    from sudya.domain.roster_files import read_roster

    tournament = _in(app, cmd, actor, where)
    roster = read_roster(cmd.data, cmd.filename, cmd.kind)
    try:
        return import_roster(app.ledger, roster, tournament=tournament, actor=actor,
                             dry_run=cmd.dry_run)
    finally:
        app.forget(tournament)


def _invite_user(app: Sudya, cmd: c.InviteUser, actor: Actor, where: Where
                 ) -> PasswordCodeView:
    tournament = _in(app, cmd, actor, where)
    try:
        with app.ledger.uow().begin() as s:
            return accounts.invite(s, username=cmd.username, display_name=cmd.display_name,
                                   person=cmd.person, tournament=tournament, role=cmd.role,
                                   actor_name=actor.name)
    finally:
        app.forget(tournament)


def _remove_role(app: Sudya, cmd: c.RemoveRole, actor: Actor, where: Where) -> None:
    tournament = _in(app, cmd, actor, where)
    try:
        with app.ledger.uow().begin() as s:
            user = accounts.user_named(s, cmd.username)
            accounts.remove_role(s, user=user, tournament=tournament, role=cmd.role)
    finally:
        app.forget(tournament)


def _reset_password(app: Sudya, cmd: c.ResetPassword, actor: Actor, where: Where
                    ) -> PasswordCodeView:
    """A code for an account of the organiser's own events only (the owner: any account):
    an organiser of one event cannot take over an account that runs others."""
    tournament = _in(app, cmd, actor, where)
    with app.ledger.uow().begin() as s:
        user = accounts.user_named(s, cmd.username)
        if not actor.owner:
            mine = accounts.organised_by(s, actor.user.username if actor.user else actor.name)
            if tournament not in mine or not accounts.of_own_events(s, user, mine):
                raise LedgerError("user.not-of-your-events", field="username",
                                  username=cmd.username)
        return accounts.new_code(s, user, actor.name)


def _allow_series(app: Sudya, cmd: c.AllowSeries, actor: Actor, where: Where) -> None:
    with app.ledger.uow().begin() as s:
        accounts.user_named(s, cmd.username).may_start_series = True


def _file_appeal(app: Sudya, cmd: c.FileAppeal, actor: Actor, where: Where) -> int:
    from sudya.app.appeals import file_appeal

    return file_appeal(app.ledger, tournament=_in(app, cmd, actor, where), event=cmd.event,
                       appellant=cmd.appellant, reason=cmd.reason, idempotency_key=where.key,
                       actor=actor)


def _add_statement(app: Sudya, cmd: c.AddStatement, actor: Actor, where: Where) -> Any:
    from sudya.app import statements

    st = app.check(cmd, actor, cmd.tournament)
    if not actor.owner:
        with app.reading() as s:
            dq = statements.dq_event(s, tournament=cmd.tournament, event=cmd.event)
            may = statements.permission(s, st.roles, tournament=cmd.tournament,
                                        subjects=dq.subjects)
        if not may.allows(cmd.role):
            raise access.Refused("access.statement-role", status=403, role=cmd.role)
        if may.author is not None and cmd.author not in ("", may.author):
            raise access.Refused("access.statement-author", status=403, author=may.author)
        if may.author is not None and not cmd.author:
            cmd = cmd.model_copy(update={"author": may.author})
    return statements.add_statement(app.ledger, cmd, actor)


def _import_pairings(app: Sudya, cmd: c.ImportPairings, actor: Actor, where: Where) -> int:
    from sudya.app.people import import_pairings

    return import_pairings(app.ledger, tournament=_in(app, cmd, actor, where), round=cmd.round,
                           text=cmd.text, where=cmd.where, actor=actor)


def _start_round(app: Sudya, cmd: c.StartRound, actor: Actor, where: Where) -> int:
    from sudya.app.clock import start_round

    return start_round(app.ledger, tournament=_in(app, cmd, actor, where), round=cmd.round,
                       minutes=cmd.minutes, idempotency_key=where.key, actor=actor)


def _register_decklist(app: Sudya, cmd: c.RegisterDecklist, actor: Actor, where: Where
                       ) -> int:
    from sudya.app.decks import register_decklist_once

    return register_decklist_once(app.ledger, user=actor.name, key=where.key,
                                  tournament=_in(app, cmd, actor, where), player=cmd.player,
                                  text=cmd.text, fmt=cmd.fmt or "", findings=cmd.findings)


def _file_incident(app: Sudya, cmd: c.FileIncident, actor: Actor, where: Where) -> int:
    from sudya.app.incidents import file_incident

    return file_incident(app.ledger, tournament=_in(app, cmd, actor, where),
                         subject=cmd.subject, text=cmd.text, table=cmd.table,
                         round=cmd.round, idempotency_key=where.key, actor=actor)


def _settle_incident(app: Sudya, cmd: c.SettleIncident, actor: Actor, where: Where) -> Any:
    from sudya.app.incidents import settle_incident

    return settle_incident(app.ledger, tournament=_in(app, cmd, actor, where),
                           incident=cmd.incident, event=cmd.event, note=cmd.note, actor=actor)


def _verify(app: Sudya, cmd: c.VerifyLedger, actor: Actor, where: Where) -> Any:
    from sudya.app.audit import verify

    st = app.check(cmd, actor, _in(app, cmd, actor, where))
    return verify(app.ledger, series=st.tournament.series.name, actor=actor)


def _publish(app: Sudya, cmd: c.PublishRulebook, actor: Actor, where: Where) -> Any:
    """An edition for one series: the tournament's it is sent in (its organisers; its head
    judge for a college precedent), or the named one (its organisers); without either, an
    edition of a rulebook of one's own id, shared (rulebook_store.publish refuses a bundled
    one, and another author's)."""
    from sudya.app.rulebook_store import publish

    series: int | None = None
    if where.tournament is not None:
        series = app.check(cmd, actor, where.tournament).tournament.series.id
    elif cmd.series is not None:
        with app.reading() as s:
            series = accounts_series(s, cmd.series)
            if series is None:
                raise LedgerError("series.unknown", field="series", series=str(cmd.series))
            if not (actor.owner or access.organises_series(s, actor, series)):
                raise access.refuse(actor, "publish")
    elif not actor.owner:
        with app.reading() as s:
            if not access.organises_any(s, actor):
                raise access.refuse(actor, "publish")
    return publish(app.ledger, text=cmd.text, in_force_from=cmd.in_force_from,
                   summary=cmd.summary, actor=actor, cases=cmd.cases, series=series)


def _undo(app: Sudya, cmd: c.Undo, actor: Actor, where: Where) -> Recorded:
    from sudya.app.recording import undo

    st = app.check(cmd, actor, _in(app, cmd, actor, where))
    return undo(app.ledger, tournament=st.tournament.id, event=cmd.event,
                judge=st.roles.judge_handle, within=app.undo_seconds, reason=cmd.reason,
                actor=actor)


HANDLERS: dict[type[Any], Handler] = {
    c.RecordInfraction: _event,
    c.EndMatch: _event,
    c.Appeal: _event,
    c.Decide: _event,
    c.Correct: _event,
    c.RecordResult: _event,
    c.CreateSeries: _create_series,
    c.CreateTournament: _create_tournament,
    c.AddPlayer: _add_player,
    c.AddTeam: _add_team,
    c.AddJudge: _add_judge,
    c.ReplacePlayer: _replace_player,
    c.CorrectResult: _correct_result,
    c.AddUser: _add_user,
    c.AssignRole: _assign_role,
    c.FileAppeal: _file_appeal,
    c.AddStatement: _add_statement,
    c.ImportPairings: _import_pairings,
    c.StartRound: _start_round,
    c.RegisterDecklist: _register_decklist,
    c.FileIncident: _file_incident,
    c.SettleIncident: _settle_incident,
    c.VerifyLedger: _verify,
    c.PublishRulebook: _publish,
    c.InviteUser: _invite_user,
    c.RemoveRole: _remove_role,
    c.ResetPassword: _reset_password,
    c.AllowSeries: _allow_series,
    c.ImportRoster: _import_roster,
    c.SetPlan: _set_plan,
    c.PairRound: _pair_round,
    c.DropPlayer: _drop_player,
    c.PairTopCut: _pair_top_cut,
    c.SetMatchups: _set_matchups,
    c.ReportResult: _report_result,
    c.ConfirmResult: _confirm_result,
    c.Undo: _undo,
}


P = ParamSpec("P")
R = TypeVar("R")


class Reads:
    """What the edges show: `app.read(queries.tournament_summary, tid)` runs one of the
    application's read functions (each takes a session first and returns a typed view) in a
    read session of its own, given back at once; the edges never hold one."""

    def __init__(self, app: Sudya) -> None:
        self.app = app

    def __call__(self, fn: Callable[Concatenate[Session, P], R], *args: P.args,
                 **kwargs: P.kwargs) -> R:
        with self.app.reading() as s:
            return fn(s, *args, **kwargs)

    def today(self) -> dt.date:
        return dt.date.today()
