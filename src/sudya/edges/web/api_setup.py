"""The API's twins of the set-up pages (web.pages_setup, pages_manage, pages_tables,
pages_staff) and of the CLI's set-up commands: a tournament created and its plan set, its
players added one by one or from an uploaded list, a Swiss round or the top cut paired, a
player dropped, its accounts invited, given a role or a new password's code.

Each is a command of sudya.domain.commands sent to `Sudya.handle` as the signed-in user, as
every write of the API (sudya.edges.web.api): the core checks its one permission in the
tournament (`access.manage`, `access.pairings`, `access.organise`: 403) and what it names
(422 naming the field); a refused request changes nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import APIRouter, File, Path
from fastapi.datastructures import UploadFile
from fastapi.responses import Response
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, field_validator
from pydantic_core import PydanticCustomError

from sudya.app.queries import tournament_summary
from sudya.app.swiss_rounds import dropped
from sudya.app.views import (
    EntrantView,
    GameView,
    PairedRoundView,
    PasswordCodeView,
    RosterImportView,
)
from sudya.domain import commands
from sudya.domain.errors import SudyaError
from sudya.domain.plan import Plan
from sudya.edges.web.api import (
    BIGGEST_ID,
    WRITES,
    Answer,
    Caller,
    ErrorItem,
    ErrorOut,
    Strict,
    TournamentId,
    _author,
    _errors,
    _send,
    _standing,
    body_of,
    command_of,
)
from sudya.edges.web.context import Ctx

router = APIRouter(prefix="/api/v1", tags=["api"])
Username = Annotated[commands.Id, Path(description="The account's username.")]
RoleName = Annotated[commands.ExtraRole, Path(description="The role to take away.")]
MAX_FILENAME = 200  # as commands.ImportRoster.filename


# ---------------------------------------------------------------------- input shapes
# A JSON body is validated as Python data: a date the schema says is a string, or a number
# of a plan, is taken only as JSON writes it (not 0 as 1970-01-01, `true` as 1, "3" as 3).
def _iso_date(value: Any) -> Any:
    if not isinstance(value, str):
        raise PydanticCustomError("date_type", "Input should be a date as YYYY-MM-DD")
    return value


class PlanIn(Plan):
    """How the tournament is run; a field left out is the rulebook's (or the default):
    `rounds`, `pairing` (`swiss`: Sudya pairs, `teams`: the judges enter matchups,
    `imported`: a CSV per round), the match points `win`, `draw`, `loss`, the `tiebreakers`
    in order, a `top_cut` after the Swiss."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    @field_validator("*", mode="before")
    @classmethod
    def _no_yes_or_no(cls, value: Any) -> Any:
        """No field of a plan is a yes or no (a choice of numbers would take `true` as 1)."""
        if isinstance(value, bool):
            raise PydanticCustomError("bool_type", "Input should not be true or false")
        return value


class NewTournamentIn(commands.CreateTournament):
    """A tournament of a series you organise a tournament of (you become its organiser, with
    the series' other organisers); with `new_series_rulebook`, of a new series of that name
    under that rulebook — for an account the owner lets start series. `level` is one of the
    rulebook's levels (`GET /api/v1/rulebooks`), `settings` its declared settings, `edition`
    pins a rulebook edition (by default the one in force on `date`), `plan` how it is run."""

    series: Annotated[int, Field(strict=True, ge=1, le=BIGGEST_ID)] | commands.Name = Field(
        description="The series: its id, or its name.")
    date: Annotated[commands.Day, BeforeValidator(_iso_date)]
    plan: PlanIn | None = None


# the bodies of the other commands: their own fields, less what the URL names
if TYPE_CHECKING:
    PlayerIn = commands.AddPlayer
    PairRoundIn = commands.PairRound
    DropIn = commands.DropPlayer
    InviteIn = commands.InviteUser
    MatchupsIn = commands.SetMatchups
else:
    PlayerIn = body_of(
        commands.AddPlayer, "PlayerIn",
        "A player registered for the tournament (a person is created on first sight, named "
        "`name`), maybe in a team of it and seated at a table.", without=())
    PairRoundIn = body_of(
        commands.PairRound, "PairRoundIn",
        "Sudya pairs a Swiss round from the standings, the results and the byes so far (again, "
        "in place of what it had, while the round has no result); `seed` gives round 1 another "
        "random order.", without=())
    MatchupsIn = body_of(
        commands.SetMatchups, "MatchupsIn",
        "The captains' matchups of a team table of a round, game by game in the order "
        "matched: `a` of the table's first team, `b` of the second, `defender` the side "
        "that defended where the format has one. Each player once, every player of both "
        "teams (the smaller, with a reserve); replaces the table's games until one has a "
        "result.", without=())
    DropIn = body_of(
        commands.DropPlayer, "DropIn",
        "A player drops after round `after`, the last they played (never paired after it); "
        "`after: null` enters them again.", without=())
    InviteIn = body_of(
        commands.InviteUser, "InviteIn",
        "A new account with a role in this tournament (`organiser`, `scorekeeper`, `player`; "
        "judges are on the staff list): no password yet — the answer's one-time code sets it "
        "at /welcome.", without=())


class TopCutIn(Strict):
    """The top cut's first round: the best `size` of the standings, still playing, in a
    bracket (1 v 8, 4 v 5, 2 v 7, 3 v 6), stored as round `round`'s pairings."""

    model_config = ConfigDict(extra="forbid", strict=True)

    round: Annotated[int, Field(ge=1, le=100)]
    size: Literal[2, 4, 8] | None = Field(
        default=None, description="How many play on; by default the plan's `top_cut` "
                                  "(refused, naming `size`, when the plan has none).")


class RoleIn(Strict):
    """A role given to an existing account in this tournament (judges' roles come from the
    staff list)."""

    role: commands.ExtraRole


class RosterUploadIn(Strict):
    """An organiser's list of players or teams, as a spreadsheet saves it: CSV (commas,
    semicolons or tabs; UTF-8 or cp1251) or XLSX; the header names the columns (`handle`,
    `name`, `team`, `table`; a team's `members`), the header being line 1. Every row or none."""

    kind: Literal["players", "teams"] = Field(description="What the list holds.")
    file: UploadFile = Field(description="The file, at most 2 MB and 5,000 rows.")
    dry_run: bool = Field(default=False, description="Only the preview: what would be added "
                                                     "and each refused row; nothing stored.")


# ---------------------------------------------------------------------- output shapes
class NewTournamentOut(BaseModel):
    id: int = Field(description="The new tournament's id (in every URL of it).")
    name: str


class DropOut(BaseModel):
    player: str
    after: int | None = Field(description="The last round they played (null: playing).")
    dropped: dict[str, int] = Field(description="Every player of the tournament who has "
                                                "dropped, and the round they played last.")


class MatchupsOut(BaseModel):
    round: int
    table: int
    games: list[GameView] = Field(description="In the order matched.")


class StaffRolesOut(BaseModel):
    username: str
    roles: list[str] = Field(description="The account's roles in this tournament now: "
                                         "organiser, scorekeeper, player, and its role on "
                                         "the judges' staff list.")


def _command(cls: type[commands.Setup], **fields: Any) -> Any:
    """A command of what the URL and the tournament give too: a value beyond the command's
    limits is refused naming its field (422), as the pages refuse it."""
    try:
        return cls.model_validate(fields)
    except ValidationError as exc:
        raise commands.error_of(exc) from None


def _plan(body: PlanIn) -> Plan:
    """The domain's plan of what the body holds."""
    return Plan.model_validate(body.model_dump())


def _code(view: PasswordCodeView) -> Answer[PasswordCodeView]:
    """A one-time code, shown once: kept by no cache on the way."""
    answer = Answer(view)
    answer.headers["Cache-Control"] = "no-store"
    return answer


def _roles(ctx: Ctx, tid: int, username: str) -> StaffRolesOut:
    facts = ctx.app.facts(tid)  # dropped by the core's change: read afresh
    held = set(facts.assigned.get(username, (frozenset(), None))[0])
    if username in facts.staff:
        held.add(facts.staff[username])
    return StaffRolesOut(username=username, roles=sorted(held))


# ---------------------------------------------------------------------- tournaments
@router.post("/tournaments", summary="Create a tournament (an organiser of its series)",
             responses=_errors(*WRITES), response_model=NewTournamentOut)
def create_tournament(body: NewTournamentIn, ctx: Caller) -> Answer[NewTournamentOut]:
    actor = _author(ctx)
    cmd = command_of(commands.CreateTournament, body,
                     plan=None if body.plan is None else _plan(body.plan))
    tid: int = _send(ctx, cmd, actor, None, None)
    return Answer(NewTournamentOut(id=tid, name=cmd.name))


@router.api_route("/tournaments", include_in_schema=False,
                  methods=["OPTIONS", "PUT", "PATCH", "DELETE", "TRACE"])
def tournaments_other_methods() -> Response:
    """405 naming both methods of the path (Starlette's own names only the first route's)."""
    return Response(status_code=405, headers={"Allow": "GET, POST"})


@router.put("/tournaments/{tid}/plan",
            summary="Set how the tournament is run: rounds, pairing, match points, "
                    "tie-breakers, a top cut (the organiser)",
            description="The whole plan: a field left out is the rulebook's (or the "
                        "default). The answer is the plan as stored.",
            responses=_errors(*WRITES), response_model=Plan)
def set_plan(tid: TournamentId, body: PlanIn, ctx: Caller) -> Answer[Plan]:
    actor = _author(ctx)
    plan = _plan(body)
    _send(ctx, commands.SetPlan(plan=plan), actor, tid, None)
    return Answer(plan)


# ---------------------------------------------------------------------- people
@router.post("/tournaments/{tid}/players", summary="Register a player (the organiser)",
             responses=_errors(*WRITES), response_model=EntrantView)
def add_player(tid: TournamentId, body: PlayerIn, ctx: Caller) -> Answer[EntrantView]:
    actor = _author(ctx)
    cmd = command_of(commands.AddPlayer, body)
    _send(ctx, cmd, actor, tid, None)
    entered = ctx.read(tournament_summary, tid).players
    return Answer(next((p for p in entered if p.handle == cmd.handle),
                       EntrantView(handle=cmd.handle, name=cmd.name or cmd.handle,
                                   team=cmd.team)))


@router.post("/tournaments/{tid}/roster",
             summary="Upload a list of players or teams: its preview, or every row or none "
                     "(the organiser)",
             description="`dry_run`: 200 with the preview — every row read, and each row the "
                         "import would refuse with its line (the spreadsheet's, the header "
                         "being 1), field and code; nothing stored. Without it: 200 with "
                         "`imported: true` when every row was added; when any row is refused, "
                         "nothing is added and the answer is 422 with one item per refused "
                         "row (`loc`: `body`, `file`, its line, its field). A file that is no "
                         "list at all is 422 naming `file`.",
             responses=_errors(*WRITES), response_model=RosterImportView)
def import_roster(tid: TournamentId, body: Annotated[RosterUploadIn, File()], ctx: Caller
                  ) -> Answer[Any]:
    actor = _author(ctx)
    data = body.file.file.read()
    cmd = _command(commands.ImportRoster, kind=body.kind, data=data, dry_run=body.dry_run,
                   filename=(body.file.filename or "")[:MAX_FILENAME])
    view: RosterImportView = _send(ctx, cmd, actor, tid, None)
    if body.dry_run or view.imported:
        return Answer(view)
    return Answer(ErrorOut(detail=[
        ErrorItem(loc=["body", "file", p.line, *([p.field] if p.field else [])],
                  msg=f"line {p.line}: " + SudyaError(p.code, field=p.field, **p.params).render(),
                  type=p.code, params={"line": p.line, **p.params})
        for p in view.problems]), status_code=422)


@router.post("/tournaments/{tid}/drops",
             summary="A player drops after a round, or is entered again (the organiser)",
             responses=_errors(*WRITES), response_model=DropOut)
def drop_player(tid: TournamentId, body: DropIn, ctx: Caller) -> Answer[DropOut]:
    actor = _author(ctx)
    cmd = command_of(commands.DropPlayer, body)
    _send(ctx, cmd, actor, tid, None)
    return Answer(DropOut(player=cmd.player, after=cmd.after,
                          dropped=ctx.read(dropped, tid)))


# ---------------------------------------------------------------------- pairings
@router.put("/tournaments/{tid}/matchups",
            summary="A team table's games, as the captains matched them (judges who rule, "
                    "the scorekeeper, the organiser)",
            responses=_errors(*WRITES), response_model=MatchupsOut)
def set_matchups(tid: TournamentId, body: MatchupsIn, ctx: Caller) -> Answer[MatchupsOut]:
    actor = _author(ctx)
    cmd = command_of(commands.SetMatchups, body)
    return Answer(MatchupsOut(round=cmd.round, table=cmd.table,
                              games=_send(ctx, cmd, actor, tid, None)))


@router.post("/tournaments/{tid}/pairings/swiss",
             summary="Pair a Swiss round (the organiser, the scorekeeper, the head judge)",
             description="Its tables (`a` the higher placed), the bye, and what a judge should "
                         "know (`pairing.rematch`, `pairing.bye-moved`, with the players). A "
                         "round that has a result is not paired again (422, `round`).",
             responses=_errors(*WRITES), response_model=PairedRoundView)
def pair_swiss(tid: TournamentId, body: PairRoundIn, ctx: Caller) -> Answer[PairedRoundView]:
    actor = _author(ctx)
    return Answer(_send(ctx, command_of(commands.PairRound, body), actor, tid, None))


@router.post("/tournaments/{tid}/pairings/cut",
             summary="Pair the top cut's first round from the standings",
             responses=_errors(*WRITES), response_model=PairedRoundView)
def pair_cut(tid: TournamentId, body: TopCutIn, ctx: Caller) -> Answer[PairedRoundView]:
    actor = _author(ctx)
    # as the Pairings page: by default the size the tournament's plan sets
    size = body.size if body.size is not None else \
        _standing(ctx, actor, tid).tournament.plan.top_cut
    cmd = _command(commands.PairTopCut, round=body.round, size=size)
    return Answer(_send(ctx, cmd, actor, tid, None))


# ---------------------------------------------------------------------- staff and accounts
@router.post("/tournaments/{tid}/staff",
             summary="Invite a new account with a role here: its one-time code (the "
                     "organiser)",
             description="The code (12 letters and digits, a week, once) sets the account's "
                         "password at /welcome; it is answered once and kept only as a hash.",
             responses=_errors(*WRITES), response_model=PasswordCodeView)
def invite(tid: TournamentId, body: InviteIn, ctx: Caller) -> Answer[PasswordCodeView]:
    actor = _author(ctx)
    return _code(_send(ctx, command_of(commands.InviteUser, body), actor, tid, None))


@router.post("/tournaments/{tid}/staff/{username}/roles",
             summary="Give an existing account a role here (the organiser)",
             responses=_errors(*WRITES), response_model=StaffRolesOut)
def assign_role(tid: TournamentId, username: Username, body: RoleIn, ctx: Caller
                ) -> Answer[StaffRolesOut]:
    actor = _author(ctx)
    _send(ctx, _command(commands.AssignRole, username=username, role=body.role), actor, tid,
          None)
    return Answer(_roles(ctx, tid, username))


@router.delete("/tournaments/{tid}/staff/{username}/roles/{role}",
               summary="Take an account's role here away (never the last organiser's; the "
                       "account stays)",
               responses=_errors(*WRITES), response_model=StaffRolesOut)
def remove_role(tid: TournamentId, username: Username, role: RoleName, ctx: Caller
                ) -> Answer[StaffRolesOut]:
    actor = _author(ctx)
    _send(ctx, _command(commands.RemoveRole, username=username, role=role), actor, tid, None)
    return Answer(_roles(ctx, tid, username))


@router.post("/tournaments/{tid}/staff/{username}/reset",
             summary="A one-time code for a new password (the organiser; an account of your "
                     "own events only)",
             description="The old password keeps working until the code is used.",
             responses=_errors(*WRITES), response_model=PasswordCodeView)
def reset_password(tid: TournamentId, username: Username, ctx: Caller
                   ) -> Answer[PasswordCodeView]:
    actor = _author(ctx)
    return _code(_send(ctx, _command(commands.ResetPassword, username=username), actor, tid,
                       None))


__all__ = ["router"]
