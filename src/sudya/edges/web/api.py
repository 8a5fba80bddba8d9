"""The JSON API, /api/v1: the same actions as the pages, over the same services.

Who may do what is checked before the body is read: 401 without a session, 403 when the
caller's role in the tournament may not. A cookie session also needs the `X-CSRF-Token`
header (GET /api/v1/me tells it) on every POST; a bearer token (POST /api/v1/login) doesn't.
Bad input is a 422 whose `detail[].loc` names the field; a refused request stores nothing.
An `idempotency_key` makes a retry return the first answer without recording twice.
"""

from __future__ import annotations

import datetime as dt
import secrets
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from fastapi.security import APIKeyCookie, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

from sudya.adapters.scenario_file import json_error, plain
from sudya.app.accounts import (
    Action,
    AuthError,
    Roles,
    readable_record,
    sign_in,
    sign_out,
)
from sudya.app.decks import card_list, decklist_status, register_decklist_once
from sudya.app.ledger import Actor, Recorded
from sudya.app.people import round_pairings, search_people
from sudya.app.queries import (
    STANDINGS_PAGE,
    all_tournaments,
    person_exists,
    person_history,
    rulings_json,
    standings_page,
    tournament_summary,
)
from sudya.app.scenario import replay
from sudya.app.views import (
    PairingsView,
    PersonView,
    RecordEntryView,
    ReplayResult,
    RulingView,
    StandingsPageView,
    TournamentBrief,
    TournamentView,
    UserView,
    rulings_view,
)
from sudya.domain import commands
from sudya.domain.decks.cards import CardList
from sudya.domain.decks.decklist import Finding, check, compare, parse
from sudya.domain.decks.squad import SquadError, remedy
from sudya.domain.engine.model import Ruling
from sudya.domain.errors import ScenarioError, SudyaError
from sudya.domain.rulebook import loader
from sudya.domain.rulebook.schema import Rulebook
from sudya.edges.web import preview_token
from sudya.edges.web.context import COOKIE, Ctx, get_ctx
from sudya.edges.web.writers import SeriesWriters

router = APIRouter(prefix="/api/v1", tags=["api"])
C = Annotated[Ctx, Depends(get_ctx)]

# documented only: get_ctx reads the header and the cookie itself
_bearer = HTTPBearer(auto_error=False, description="The token from POST /api/v1/login.")
_cookie = APIKeyCookie(name=COOKIE, auto_error=False,
                       description="The web app's session; POSTs need X-CSRF-Token too.")
BIGGEST_ID = 2**31 - 1  # a PostgreSQL integer
FIRST_DAY, LAST_DAY = commands.FIRST_DAY, commands.LAST_DAY  # validity windows fit


class ApiError(AuthError):
    """A refusal with an HTTP status of its own (the app's error handler uses `status`)."""

    code = "api"


# ---------------------------------------------------------------------- error shapes
class ErrorItem(BaseModel):
    loc: list[str | int] = Field(description="Where: `body`, then the field's path.")
    msg: str = Field(description="The message in English.")
    type: str = Field(description="Its code: a key of the message catalogues.")
    params: dict[str, Any] | None = Field(default=None, description="The parameters of the "
                                          "code's text, to render it in another language.")


class ErrorOut(BaseModel):
    """Every refusal: a one-line message, or a list of them, each naming its field."""

    detail: str | list[ErrorItem]


# what a write route may answer besides its result
WRITES = (400, 401, 403, 404, 409, 422, 503)


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    text = {400: "The body is not JSON at all (undecodable bytes).",
            401: "Not signed in (or the session has ended).",
            403: "Signed in, but your role may not do this (or the CSRF header is missing).",
            404: "No such tournament, rulebook or person.",
            409: "The idempotency key was used for another request, or the result of this "
                 "pair in this round is already entered (`result.entered`: correct it "
                 "instead); nothing recorded.",
            422: "Bad input: `detail` names the field.",
            429: "Too many failed logins from this address or for this username: wait the "
                 "seconds `Retry-After` says (`login.throttled`).",
            503: "The series' writes were queued longer than the write timeout "
                 "(`ledger.busy`): nothing recorded; send it again after `Retry-After`."}
    return {code: {"model": ErrorOut, "description": text[code]} for code in codes}


# ---------------------------------------------------------------------- input shapes
# the limits of what a person may send are the commands' (sudya.domain.commands), written once
Handle = commands.Id
Round = Annotated[commands.Round | None, Field(default=None)]
Day = Annotated[commands.Day | None, Field(default=None)]
Number = commands.Number
Choice = commands.Choice
IdempotencyKey = Annotated[
    commands.Id | None,
    Field(default=None, description="Any unique string per action: a retry with the same key "
                                    "and the same request returns the first answer and "
                                    "records nothing new; the same key for another request "
                                    "is refused.")]
TournamentId = Annotated[int, Path(ge=1, le=BIGGEST_ID, description="The tournament's id.")]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoginIn(Strict):
    username: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=200)


class InfractionIn(Strict):
    """A judge reports an infraction by a player (or a team)."""

    infraction: Handle = Field(description="An infraction id from the tournament's rulebook.")
    player: Handle | None = None
    team: Handle | None = Field(default=None, description="For a team (clan) violation.")
    round: Round
    date: Day
    details: commands.Facts = Field(
        default_factory=dict, description="The facts the rule reads (see the rulebook).")
    choice: Choice
    note: commands.Note = Field(
        default="", description="What happened, in the judge's words (at most 2000 "
                                "characters): stored with the ruling, shown to the staff.")
    preview: bool = Field(default=False, description="Only show the rulings; store nothing.")
    preview_token: str | None = Field(
        default=None, max_length=200,
        description="The `preview_token` a preview of this request answered. Optional; when "
                    "sent, the record is refused (422, `preview.changed`, nothing recorded) "
                    "unless it is exactly the command previewed.")
    idempotency_key: IdempotencyKey

    @model_validator(mode="after")
    def _one_offender(self) -> InfractionIn:
        if self.player is None and self.team is None:
            raise ValueError("name the player (or the team)")
        if self.player is not None and self.team is not None:
            raise ValueError("name the player or the team, not both")
        return self


class EndOfMatchIn(Strict):
    round: Round
    players: list[Handle] | None = Field(
        default=None, min_length=1, max_length=100,
        description="The players (or teams) whose match ended, e.g. a table's pair; none: "
                    "every player (the end of the round).")
    idempotency_key: IdempotencyKey


class AppealIn(Strict):
    of: Handle = Field(description="The event whose rulings are appealed.")
    outcome: Literal["upheld", "overturned", "frivolous"]
    choice: Choice
    idempotency_key: IdempotencyKey


class SanctionIn(Strict):
    kind: Handle
    amount: Number | None = None
    score: str | None = Field(default=None, pattern=r"^[0-9]{1,3}-[0-9]{1,3}$")
    valid_until: Day


class DecisionIn(Strict):
    """The college's (or a judge's) decision on a pending ruling."""

    of: Handle = Field(description="The event of the pending ruling.")
    sanctions: list[SanctionIn] | None = Field(
        default=None, max_length=20,
        description="For an aggravated ruling: the sanctions decided (must be stricter than "
                    "the table's).")
    choice: Choice
    date: Day
    result: Literal["release", "annul"] | None = Field(
        default=None, description="For a ruling that froze its fight's result: release it "
                                  "or annul the fight.")
    until: Day = Field(default=None, description="For a suspension: the term's last day.")
    lift: bool = Field(default=False, description="For a suspension: lift it now.")
    idempotency_key: IdempotencyKey


class CorrectionIn(Strict):
    of: Handle = Field(description="The event whose rulings were recorded by mistake.")
    reason: str = Field(default="", max_length=500)
    idempotency_key: IdempotencyKey


class ReplacementIn(Strict):
    """A removed player's place taken (regulations.md §4 E9): by a player of the same army,
    or by the team's coach, as the removal allows. One not yet registered for the tournament
    is registered with it (created on first sight, named `name`)."""

    replace: Handle = Field(description="The removed player.")
    by: Handle = Field(description="Who takes the removed player's place.")
    name: Annotated[str, Field(min_length=1, max_length=200),
                    AfterValidator(commands.plain_id)] | None = Field(
        default=None, description="The replacement's display name (a new person only).")
    army: commands.Text | None = Field(default=None, description="The army both play (the "
                                       "same); or `coach`.")
    coach: bool = Field(default=False, description="The replacement is the team's coach.")
    idempotency_key: IdempotencyKey


class ResultIn(Strict):
    round: Round
    players: tuple[Handle, Handle]
    score: str = Field(pattern=r"^[0-9]{1,3}-[0-9]{1,3}$", description="The first player's "
                       "score first, e.g. `12-8`.")
    idempotency_key: IdempotencyKey


# ---------------------------------------------------------------------- output shapes
class TokenOut(BaseModel):
    token: str = Field(description="Send as `Authorization: Bearer …`.")
    username: str
    display_name: str


class MeOut(BaseModel):
    username: str
    display_name: str
    person: str | None = Field(description="The player this account is, if any.")
    csrf_token: str = Field(description="Send as X-CSRF-Token on POSTs with the cookie "
                            "session.")


class LangText(BaseModel):
    ru: str
    en: str


class RulebookBrief(BaseModel):
    id: str
    title: LangText
    edition: str = Field(description="The newest edition.")
    editions: list[str]
    levels: list[str]


class PlayerOut(BaseModel):
    handle: str
    name: str = Field(description="The display name (the handle when none was given).")
    team: str | None


class JudgeOut(BaseModel):
    handle: str
    name: str
    role: str
    official: bool


class TournamentOut(TournamentBrief):
    settings: dict[str, Any]
    players: list[PlayerOut]
    teams: dict[str, list[str]]
    judges: list[JudgeOut]
    rulings: list[RulingView] = Field(description="Every ruling; a player sees their own.")
    roles: list[str] = Field(description="Your roles in this tournament.")
    may: list[str] = Field(description="What the rulebook lets your roles do.")


class RecordOut(BaseModel):
    preview: bool
    event: str | None = Field(description="The stored event's id (null for a preview).")
    rulings: list[RulingView]
    preview_token: str | None = Field(
        default=None, description="A preview's token (absent otherwise): send it back with "
                                  "the record to bind the record to what was previewed.")


class EventOut(BaseModel):
    event: str = Field(description="The stored event's id.")
    rulings: list[RulingView]


class ResultOut(BaseModel):
    event: str
    round: int | None
    players: tuple[str, str]
    score: str


# ---------------------------------------------------------------------- who may
def _signed_in(ctx: C, _b: Annotated[Any, Security(_bearer)] = None,
               _c: Annotated[Any, Security(_cookie)] = None) -> Ctx:
    _user_of(ctx)
    return ctx


def _user_of(ctx: Ctx) -> UserView:
    """The signed-in user (their session read now, in the caller's thread), or 401."""
    if ctx.user is None:
        raise ApiError("sign in first (POST /api/v1/login)", status=401)
    return ctx.user


Signed = Annotated[Ctx, Depends(_signed_in)]


@dataclass(frozen=True)
class Access:
    """A signed-in user's standing in one tournament."""

    ctx: Ctx
    user: UserView
    tournament: TournamentView
    book: Rulebook
    roles: Roles

    def actor(self) -> Actor:
        request_id = self.ctx.request.headers.get("x-request-id", "")[:64]
        return Actor(name=self.user.username, request_id=request_id or uuid.uuid4().hex)


def _may(action: Action | None, *, write: bool = False) -> Callable[..., Access]:
    """A dependency: the caller may do `action` (None: has any role) in tournament `tid`."""

    # one trip to the thread pool for the user, the tournament and the roles (not `Signed`:
    # each `def` dependency is a trip of its own)
    def dependency(tid: TournamentId, ctx: C, _b: Annotated[Any, Security(_bearer)] = None,
                   _c: Annotated[Any, Security(_cookie)] = None) -> Access:
        ctx.read_standing(tid)  # the user, the tournament and the roles: one statement
        user = _user_of(ctx)
        t, book, roles = ctx.tournament(tid)
        allowed = bool(roles.names) if action is None else roles.can(action)
        if not allowed:
            what = {None: "have no role in", "rule": "may not give rulings in",
                    "decide": "may not decide pending rulings or correct rulings in",
                    "hear-appeals": "may not decide appeals in",
                    "results": "may not record results in",
                    "manage": "may not change the people of"}.get(action, "may not do this in")
            raise ApiError(f"you {what} this tournament", status=403)
        if write:
            ctx.check_csrf(None)
        return Access(ctx=ctx, user=user, tournament=t, book=book, roles=roles)

    return dependency


R = TypeVar("R")


class Gate:
    """A write route's access check, made on the route's own trip to a thread: a trip costs
    55-140 µs of CPU here (quiet or loaded machine, `run_in_threadpool` on uvloop), and a
    `def` dependency before a `def` route is two. The route is `async` and runs its work
    through `run`, which checks first (the work cannot be reached without the check, nor the
    check skipped). The trip is to the series' own thread (web.writers), where the writes of
    the series wait their turn as coroutines; a tournament this process has not written to
    yet (or none at all) goes to the thread pool, which learns its series."""

    def __init__(self, check: Callable[[], Access], tid: int, ctx: Ctx) -> None:
        self._check = check
        self._tid = tid
        self._ctx = ctx

    async def run(self, work: Callable[[Access], R]) -> R:
        """`work` with the caller's access, in the series' thread, once the check passed."""
        check = self._check
        state = self._ctx.request.app.state
        series = state.ledger.known_series(self._tid)
        if series is None:
            return await run_in_threadpool(lambda: work(check()))
        writers: SeriesWriters = state.writers
        return await writers.run(series, lambda: work(check()))


def _gate(action: Action, *, write: bool = False) -> Callable[..., Awaitable[Gate]]:
    """A dependency: `_may`'s check, made by `Gate.run` in the route's thread (the same
    parameters, so the same OpenAPI description and the same refusals)."""
    check = _may(action, write=write)

    async def dependency(tid: TournamentId, ctx: C,
                         _b: Annotated[Any, Security(_bearer)] = None,
                         _c: Annotated[Any, Security(_cookie)] = None) -> Gate:
        return Gate(lambda: check(tid, ctx), tid, ctx)

    return dependency


V = TypeVar("V", bound=BaseModel)


class Answer(Response, Generic[V]):
    """A typed view as the answer's JSON, made once: a route that returns its view as such
    has FastAPI validate it against the route's model again (for a `def` route, on yet another
    trip to the thread pool) and only then serialise it. The view was validated when it was
    made, so the route declares `response_model` (the view's class, for its schema) and
    returns `Answer(view)`; unset keys are left out, as `response_model_exclude_unset`."""

    media_type = "application/json"

    def __init__(self, view: V, status_code: int = 200) -> None:
        super().__init__(view.model_dump_json(by_alias=True, exclude_unset=True),
                         status_code=status_code)


def _rulings(a: Access, rulings: list[Ruling]) -> list[RulingView]:
    return rulings_view(a.book, rulings)


def _execute(a: Access, cmd: commands.Command, key: str | None) -> Recorded:
    """One command through the ledger, as the signed-in user."""
    return a.ctx.ledger.execute(a.tournament.id, cmd, idempotency_key=key, actor=a.actor())


def _check_dates(book: Rulebook, body: InfractionIn) -> None:
    """Dates the rule reads lie in the years a validity window can count in."""
    inf = book.infraction(body.infraction)
    if inf is None:
        return  # the ledger names the unknown infraction
    for name, detail in {**book.common_details, **inf.details}.items():
        value = body.details.get(name)
        if detail.type != "date" or not isinstance(value, str):
            continue
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            continue  # the engine says what a date looks like
        if not FIRST_DAY <= day <= LAST_DAY:
            raise ApiError(f"details.{name}: a date from {FIRST_DAY} to {LAST_DAY}",
                           status=422, field=f"details.{name}")


# ---------------------------------------------------------------------- session
@router.post("/login", summary="Sign in; use the token as `Authorization: Bearer …`",
             responses=_errors(400, 401, 422, 429))
def api_login(body: LoginIn, request: Request, ctx: C) -> TokenOut:
    address = request.client.host if request.client else "?"
    user, token = sign_in(ctx.ledger, username=body.username, password=body.password,
                          throttle=request.app.state.throttle, address=address)
    return TokenOut(token=token, username=user.username, display_name=user.display_name)


@router.post("/logout", status_code=204, summary="End this session (the token stops working)",
             responses=_errors(401, 403))
def api_logout(ctx: Signed) -> Response:
    ctx.check_csrf(None)
    sign_out(ctx.ledger, token=ctx.token)
    return Response(status_code=204)


@router.get("/me", summary="Who is signed in, and the CSRF token for cookie sessions",
            responses=_errors(401))
def me(ctx: Signed) -> MeOut:
    user = ctx.user
    assert user is not None
    return MeOut(username=user.username, display_name=user.display_name,
                 person=user.person_handle, csrf_token=ctx.csrf)


# ---------------------------------------------------------------------- rulebooks, replay
@router.get("/rulebooks", summary="Bundled rulebooks (public)")
def rulebooks() -> list[RulebookBrief]:
    out = []
    for rid in loader.bundled_ids():
        book = loader.load(rid)
        out.append(RulebookBrief(id=rid, title=LangText(ru=book.title.ru, en=book.title.en),
                                 edition=book.edition,
                                 editions=sorted(loader.edition_files(rid), key=int),
                                 levels=book.level_ids()))
    return out


@router.get("/rulebooks/{rulebook_id}", summary="A rulebook, as data (public)",
            responses=_errors(404, 422))
def rulebook(rulebook_id: Annotated[str, Path(max_length=100)],
             edition: Annotated[str | None, Query(max_length=20)] = None) -> Rulebook:
    if rulebook_id not in loader.bundled_ids():
        raise ApiError(f"unknown rulebook {rulebook_id!r}", status=404, field="rulebook_id")
    editions = loader.edition_files(rulebook_id)
    if edition is not None and edition not in editions:
        raise ApiError(f"{rulebook_id} has no edition {edition!r} (editions: "
                       f"{', '.join(sorted(editions, key=int))})", status=422, field="edition")
    return loader.load(rulebook_id, edition)


SCENARIO_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "A scenario: a small tournament written as data (the conformance "
                   "contract, shared/spec/scenarios.md). Only bundled rulebooks: the API "
                   "reads no files.",
    "required": ["rulebook", "date"],
    "properties": {
        "rulebook": {"type": "string", "description": "A bundled rulebook id."},
        "edition": {"type": ["string", "integer"]},
        "level": {"type": "string"},
        "date": {"type": "string", "format": "date"},
        "settings": {"type": "object"},
        "players": {"type": "array", "items": {"type": "string"}},
        "teams": {"type": "object",
                  "additionalProperties": {"type": "array", "items": {"type": "string"}}},
        "judges": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["role"], "properties": {"role": {"type": "string"}}}},
        "events": {"type": "array", "items": {"type": "object"}},
    },
}


@router.post("/replay", response_model=None, summary="Replay a scenario (public)",
             description="200 with the replay result; a wrong scenario gets 422 with the "
                         "one-line message `sudya replay` prints. Without signing in a "
                         "scenario holds at most SUDYA_REPLAY_EVENTS_ANONYMOUS events (2,000), "
                         "signed in SUDYA_REPLAY_EVENTS_SIGNED_IN (100,000); more is 413.",
             responses={200: {"model": ReplayResult, "description": "The replay result."},
                        413: {"model": ErrorOut, "description": "The body is too large, or "
                              "the scenario has more `events` than the caller may replay."},
                        422: {"model": ErrorOut, "description": "A wrong scenario: `detail` "
                              "is the message naming the event and the field."}},
             openapi_extra={"requestBody": {"required": True, "content": {
                 "application/json": {"schema": SCENARIO_SCHEMA}}}})
async def replay_scenario(request: Request, ctx: C) -> JSONResponse:
    # the body is read here, not by a pydantic model, so every wrong scenario (a list, a
    # number, broken JSON) gets the contract's one-line message
    try:
        scenario = orjson.loads(await request.body())
    except orjson.JSONDecodeError as exc:
        return JSONResponse({"detail": f"the body must be a scenario in JSON: line "
                                       f"{exc.lineno}: {json_error(exc)}"}, status_code=422)
    await _replay_limit(ctx, scenario)
    try:
        scenario = plain(scenario)  # as a scenario file: no NaN, lone surrogates, deep nesting
        ref = scenario.get("rulebook") if isinstance(scenario, dict) else None
        if isinstance(ref, str) and ref not in loader.bundled_ids():
            raise ScenarioError(f"rulebook: unknown rulebook {ref!r} (bundled: "
                                f"{', '.join(loader.bundled_ids())})")
        result = await run_in_threadpool(replay, scenario)
    except ScenarioError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)
    return JSONResponse(result)


async def _replay_limit(ctx: Ctx, scenario: Any) -> None:
    """Anyone may replay: a stranger's scenario holds a few thousand events at most (413).
    Who is asking is read (in the thread pool, not on the event loop) only for a scenario
    longer than a stranger's."""
    raw = scenario.get("events") if isinstance(scenario, dict) else None
    settings = ctx.request.app.state.settings
    if not isinstance(raw, list) or len(raw) <= settings.replay_events_anonymous:
        return  # the replay names what is wrong, if anything
    if await run_in_threadpool(_signed_out, ctx):
        raise SudyaError("replay.too-many-events-anonymous", field="events", count=len(raw),
                         limit=settings.replay_events_anonymous,
                         signed_in=settings.replay_events_signed_in)
    if len(raw) > settings.replay_events_signed_in:
        raise SudyaError("replay.too-many-events", field="events", count=len(raw),
                         limit=settings.replay_events_signed_in)


def _signed_out(ctx: Ctx) -> bool:
    return ctx.user is None


# ---------------------------------------------------------------------- tournaments
@router.get("/tournaments", summary="Tournaments (public)")
def tournaments(ctx: C) -> list[TournamentBrief]:
    return [TournamentBrief(id=t.id, name=t.name, series=t.series.name,
                            rulebook=t.series.rulebook, edition=t.edition, level=t.level,
                            date=t.date) for t in all_tournaments(ctx.session)]


def _visible(a: Access, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if a.roles.can("view-all"):
        return rulings
    return [r for r in rulings if r["subject"] == a.roles.person]


@router.get("/tournaments/{tid}", summary="A tournament: people, judges, rulings",
            responses=_errors(401, 403, 404), response_model_exclude_unset=True)
def tournament(a: Annotated[Access, Depends(_may(None))]) -> TournamentOut:
    s = a.ctx.session
    summary = tournament_summary(s, a.tournament.id)
    return TournamentOut.model_validate({**summary.model_dump(),
                                         "rulings": _visible(a, rulings_json(s, a.tournament.id)),
                                         "roles": sorted(a.roles.names),
                                         "may": sorted(a.roles.may)})


@router.get("/tournaments/{tid}/pending", summary="Rulings waiting for a decision",
            responses=_errors(401, 403, 404), response_model_exclude_unset=True)
def pending(a: Annotated[Access, Depends(_may(None))]) -> list[RulingView]:
    rulings = rulings_json(a.ctx.session, a.tournament.id)
    return [RulingView.model_validate(r) for r in _visible(a, rulings) if r["pending"]]


RoundQuery = Annotated[int | None, Query(ge=1, le=1000, description="A round; by default the "
                                        "current one (the latest round with pairings or the "
                                        "round the clock last started, the later).")]


@router.get("/tournaments/{tid}/people",
            summary="Find players by part of a name or handle, or by table number",
            description="Case does not matter and «ё» is read as «е». A number also finds "
                        "the players at that table in the round (from the round's pairings, "
                        "or the seats they were registered with). Those at the table come "
                        "first, then names that begin with `q`, then the rest; no `q`: "
                        "everyone, in the order they entered.",
            responses=_errors(401, 403, 404, 422))
def people(a: Annotated[Access, Depends(_may(None))],
           q: Annotated[str, Query(max_length=100, description="Part of a name or handle, "
                                                               "or a table number.")] = "",
           round: RoundQuery = None) -> list[PersonView]:
    return search_people(a.ctx.session, tournament=a.tournament.id, q=q, round=round)


@router.get("/tournaments/{tid}/pairings", summary="A round's tables: who plays whom where",
            description="As the round's last import stored them (`sudya pairings import`, "
                        "or the pairings page); a round without pairings has no tables.",
            responses=_errors(401, 403, 404, 422))
def pairings(a: Annotated[Access, Depends(_may(None))], round: RoundQuery = None
             ) -> PairingsView:
    return round_pairings(a.ctx.session, tournament=a.tournament.id, round=round)


@router.get("/tournaments/{tid}/standings", summary="Standings (public)",
            description="The players' lines a page at a time, in table order, each with "
                        "its place in the whole table (`total` lines in `pages` pages of "
                        "`limit`); every team. With `q`, only the players whose name or "
                        "handle holds it (case and «ё» folded).",
            responses=_errors(404, 422), response_model_exclude_unset=True)
def standings(tid: TournamentId, ctx: C,
              page: Annotated[int, Query(ge=1, le=100_000, description="The page, from 1.")
                              ] = 1,
              limit: Annotated[int, Query(ge=1, le=1000, description="Players per page.")
                               ] = STANDINGS_PAGE,
              q: Annotated[str, Query(max_length=100, description="Part of a name or "
                                                                  "handle.")] = ""
              ) -> StandingsPageView:
    ctx.tournament(tid)
    return standings_page(ctx.session, tid, page=page, limit=limit, q=q)


@router.get("/tournaments/{tid}/people/{handle}",
            summary="A person's record (staff: in the series they hold a role in; players: their "
                    "own only)",
            responses=_errors(401, 403, 404))
def person(tid: TournamentId, handle: Annotated[str, Path(min_length=1, max_length=100)],
           ctx: Signed) -> list[RecordEntryView]:
    t, _book, _roles = ctx.tournament(tid)
    assert ctx.user is not None
    # staff: a person of this series, and of the record the series they hold a role in
    scope = readable_record(ctx.session, ctx.user, t, handle)
    if not person_exists(ctx.session, handle):
        raise ApiError(f"handle: unknown person {handle!r}", status=404, field="handle")
    return person_history(ctx.session, handle, dt.date.today(), series=scope)


# ---------------------------------------------------------------------- recording
@router.post("/tournaments/{tid}/infractions", summary="Record (or preview) an infraction",
             responses=_errors(*WRITES), response_model=RecordOut)
async def record(body: InfractionIn, gate: Annotated[Gate, Depends(_gate("rule", write=True))]
                 ) -> Answer[RecordOut]:
    return await gate.run(lambda a: _record(body, a))


def _record(body: InfractionIn, a: Access) -> Answer[RecordOut]:
    args: dict[str, Any] = dict(tournament=a.tournament.id, infraction=body.infraction,
                                player=body.player, team=body.team,
                                judge=a.roles.judge_handle, round=body.round,
                                details=body.details, choice=body.choice)
    _check_dates(a.book, body)
    cmd = commands.RecordInfraction(date=body.date, note=body.note,
                                    **{k: v for k, v in args.items() if k != "tournament"})
    secret = a.ctx.request.app.state.secret
    if body.preview:
        token = preview_token.token(secret, a.tournament.id, a.user.username, cmd)
        return Answer(RecordOut(preview=True, event=None, preview_token=token,
                                rulings=_rulings(a, a.ctx.ledger.preview(**args))))
    if body.preview_token is not None and not preview_token.same(
            secret, a.tournament.id, a.user.username, cmd, body.preview_token):
        raise SudyaError("preview.changed", field="preview_token")
    done = _execute(a, cmd, body.idempotency_key)
    return Answer(RecordOut(preview=False, rulings=_rulings(a, done.rulings), event=done.event))


@router.post("/tournaments/{tid}/end-of-match",
             summary="The end of a match or round: stacking checks for a table's players "
                     "or for every player",
             responses=_errors(*WRITES), response_model=EventOut)
async def end_of_match(body: EndOfMatchIn, gate: Annotated[Gate, Depends(_gate("rule", write=True))]
                       ) -> Answer[EventOut]:
    return await gate.run(lambda a: _end_of_match(body, a))


def _end_of_match(body: EndOfMatchIn, a: Access) -> Answer[EventOut]:
    done = _execute(a, commands.EndMatch(round=body.round, players=body.players),
                    body.idempotency_key)
    return Answer(EventOut(event=done.event, rulings=_rulings(a, done.rulings)))


@router.post("/tournaments/{tid}/appeals", summary="Decide an appeal (head judge)",
             responses=_errors(*WRITES), response_model=EventOut)
async def appeal(body: AppealIn, gate: Annotated[Gate, Depends(_gate("hear-appeals", write=True))]
                 ) -> Answer[EventOut]:
    return await gate.run(lambda a: _appeal(body, a))


def _appeal(body: AppealIn, a: Access) -> Answer[EventOut]:
    done = _execute(a, commands.Appeal(of=body.of, outcome=body.outcome,
                                       judge=a.roles.judge_handle, choice=body.choice),
                    body.idempotency_key)
    return Answer(EventOut(event=done.event, rulings=_rulings(a, done.rulings)))


@router.post("/tournaments/{tid}/decisions", summary="Decide a pending ruling",
             responses=_errors(*WRITES), response_model=EventOut)
async def decision(body: DecisionIn, gate: Annotated[Gate, Depends(_gate("decide", write=True))]
                   ) -> Answer[EventOut]:
    return await gate.run(lambda a: _decision(body, a))


def _decision(body: DecisionIn, a: Access) -> Answer[EventOut]:
    sanctions = (None if body.sanctions is None else
                 [s.model_dump(mode="json", exclude_none=True) for s in body.sanctions])
    cmd = commands.decode("decision", {"of": body.of, "judge": a.roles.judge_handle,
                                       "sanctions": sanctions, "choice": body.choice,
                                       "date": body.date, "result": body.result,
                                       "until": body.until, "lift": body.lift})
    done = _execute(a, cmd, body.idempotency_key)
    return Answer(EventOut(event=done.event, rulings=_rulings(a, done.rulings)))


@router.post("/tournaments/{tid}/corrections",
             summary="Correct a mistaken record: its rulings are revoked by a new one",
             responses=_errors(*WRITES), response_model=EventOut)
async def correction(body: CorrectionIn, gate: Annotated[Gate, Depends(_gate("decide", write=True))]
                     ) -> Answer[EventOut]:
    return await gate.run(lambda a: _correction(body, a))


def _correction(body: CorrectionIn, a: Access) -> Answer[EventOut]:
    done = _execute(a, commands.Correct(of=body.of, judge=a.roles.judge_handle,
                                        reason=body.reason), body.idempotency_key)
    return Answer(EventOut(event=done.event, rulings=_rulings(a, done.rulings)))


@router.post("/tournaments/{tid}/results",
             summary="A game or match result (scorekeeper, organiser, judges who rule)",
             responses=_errors(*WRITES))
async def result(body: ResultIn, gate: Annotated[Gate, Depends(_gate("results", write=True))]
                 ) -> ResultOut:
    return await gate.run(lambda a: _result(body, a))


def _result(body: ResultIn, a: Access) -> ResultOut:
    if body.players[0] == body.players[1]:
        raise ApiError("players: two different players", status=422, field="players")
    cmd = commands.decode("result", {"players": body.players, "score": body.score,
                                     "round": body.round})
    done = _execute(a, cmd, body.idempotency_key)
    return ResultOut(event=done.event, round=body.round, players=body.players,
                     score=body.score)


@router.post("/tournaments/{tid}/replacements",
             summary="Replace a removed player (regulations.md §4 E9; the organiser)",
             responses=_errors(*WRITES), response_model=EventOut)
async def replacement(body: ReplacementIn,
                      gate: Annotated[Gate, Depends(_gate("manage", write=True))]
                      ) -> Answer[EventOut]:
    return await gate.run(lambda a: _replacement(body, a))


def _replacement(body: ReplacementIn, a: Access) -> Answer[EventOut]:
    cmd = commands.decode("roster", {"replace": body.replace, "by": body.by,
                                     "army": body.army, "coach": body.coach})
    assert isinstance(cmd, commands.ChangeRoster) and cmd.replace and cmd.by
    done = a.ctx.ledger.replace_player(tournament=a.tournament.id, removed=cmd.replace,
                                       by=cmd.by, army=cmd.army, coach=cmd.coach,
                                       name=body.name, idempotency_key=body.idempotency_key,
                                       actor=a.actor())
    return Answer(EventOut(event=done.event, rulings=_rulings(a, done.rulings)))


# ---------------------------------------------------------------------- deck checks
DeckText = Annotated[str, Field(max_length=20_000), AfterValidator(commands.plain_text)]
CardName = Annotated[str, Field(min_length=1, max_length=200),
                     AfterValidator(commands.plain_id)]
CardsChoice = Annotated[
    Literal["imported", "sample"],
    Field(default="imported", description="`imported`: the organiser's card list (`sudya "
                                          "cards import`); `sample`: the SAMPLE list shipped "
                                          "for the demo (real names, made-up costs).")]
DeckRulebook = Annotated[
    Handle | None,
    Field(default=None, description="A bundled rulebook with `formats`/`squad`; not needed "
                                    "with `tournament` (its rulebook is used).")]
TournamentRef = Annotated[
    int | None,
    Field(default=None, ge=1, le=BIGGEST_ID, description="A tournament: its rulebook is "
                                                         "used; needs a role that may give "
                                                         "rulings there.")]


class DeckCheckIn(Strict):
    """A deck list as the player wrote it, checked against a format (002 §1.1–1.4)."""

    text: DeckText = Field(description="`3 Гном`, `Гном x3`, `Игрок: …`, a line such as "
                                       "`Дополнительная колода:` for the additional deck.")
    format: Handle = Field(description="A format id from the rulebook's `formats`.")
    rulebook: DeckRulebook
    tournament: TournamentRef
    player: Handle | None = Field(default=None, description="With `tournament`: register "
                                  "the list (and its check) for this player.")
    cards: CardsChoice
    idempotency_key: IdempotencyKey

    @model_validator(mode="after")
    def _player_with_tournament(self) -> DeckCheckIn:
        if self.player is not None and self.tournament is None:
            raise ValueError("player: registering a list needs the tournament too")
        return self


class FindingOut(BaseModel):
    infraction: str = Field(description="The infraction to record, e.g. "
                                        "`deck.invalid-decklist`.")
    item: str = Field(description="Its sub-item (а, б, в …): record it as details.item.")
    rule: str = Field(description="The rule broken, e.g. `002 §1.1 б`.")
    code: str = Field(description="What is wrong, as a message code (`decklist.*`, "
                                  "`mismatch.*`): its text is in the catalogues.")
    params: dict[str, Any] = Field(description="The parameters of the code's text.")
    message: str = Field(description="The code's text in English.")
    line: int | None = Field(default=None, description="The list's line, when one is to "
                                                       "blame.")
    suggestion: str | None = Field(default=None, description="A close card name for a typo "
                                   "(careless-decklist б): ask, never applied.")


class DeckCheckOut(BaseModel):
    rulebook: str
    format: str
    sample: bool = Field(description="True: checked against the SAMPLE card list.")
    findings: list[FindingOut]
    player: str | None
    decklist_id: int | None = Field(description="The registered list (null: not registered).")


class DeckCompareIn(Strict):
    """A deck against its (valid) list: 002 §1.2 а–в."""

    decklist: DeckText
    deck: DeckText = Field(description="The deck as found, written like a list.")


class DeckCompareOut(BaseModel):
    findings: list[FindingOut]


class SquadRemedyIn(Strict):
    """The overspend remedy (000 §7.4): random draws by group until the squad is legal."""

    squad: list[CardName] = Field(min_length=1, max_length=100,
                                  description="The recruited cards, in order.")
    seat: Handle = Field(description="A seat of the rulebook's `squad.budgets` (berserk: "
                                     "`first`, `second`).")
    seed: int | None = Field(default=None, ge=0, le=2**53, description="The random seed "
                             "(a new one is drawn and returned when absent).")
    drawn: list[CardName] | None = Field(default=None, max_length=100, description="The "
                                         "cards actually drawn at the table, in order.")
    rulebook: DeckRulebook
    tournament: TournamentRef
    cards: CardsChoice


class DrawOut(BaseModel):
    step: int
    group: str = Field(description="А gold, Б silver, В flyers, Г uniqueness, Д terrain, "
                                   "Е «cannot be taken with».")
    code: str = Field(description="The group's reason as a message code (`squad.*`).")
    params: dict[str, Any] = Field(description="The parameters of the code's text.")
    reason: str = Field(description="The code's text in English.")
    card: str = Field(description="The card shuffled back into the deck.")
    position: int = Field(description="Its index in the squad as it stood before the draw.")
    chosen_by: Literal["random", "judge"]


class SquadRemedyOut(BaseModel):
    seat: str
    seed: int
    squad: list[str]
    draws: list[DrawOut]
    kept: list[str]
    returned: list[str]
    warning: bool = Field(description="True: the player gets a warning (gameplay.overspend).")
    sample: bool = Field(description="True: the SAMPLE card list was used.")


class DeckStatusOut(BaseModel):
    player: str
    format: str | None
    status: Literal["missing", "unchecked", "problems", "ok"]
    findings: int
    checked_at: dt.datetime | None
    decklist_id: int | None


def _deck_rulebook(ctx: Ctx, rulebook: str | None, tournament: int | None,
                   part: Literal["formats", "squad"]) -> tuple[Rulebook, Access | None]:
    """The rulebook a deck request uses, and the caller's access when it names a tournament;
    every deck POST is checked for CSRF like the others."""
    access = None
    if tournament is not None:
        access = _may("rule", write=True)(tournament, ctx)
        book = access.book
        if rulebook is not None and rulebook != book.id:
            raise ApiError(f"rulebook: tournament {tournament} uses {book.id}, not "
                           f"{rulebook!r}", status=422, field="rulebook")
    else:
        ctx.check_csrf(None)
        if rulebook is None:
            raise ApiError("rulebook: name the rulebook (or the tournament)", status=422,
                           field="rulebook")
        if rulebook not in loader.bundled_ids():
            raise ApiError(f"rulebook: unknown rulebook {rulebook!r} (bundled: "
                           f"{', '.join(loader.bundled_ids())})", status=422,
                           field="rulebook")
        book = loader.load(rulebook)
    if (part == "formats" and not book.formats) or (part == "squad" and book.squad is None):
        what = "deck formats" if part == "formats" else "squad rules"
        raise ApiError(f"rulebook: {book.id} has no {what}", status=422,
                       field="tournament" if tournament is not None else "rulebook")
    return book, access


def _finding(f: Finding) -> FindingOut:
    return FindingOut(**asdict(f), message=f.message)


def _deck_cards(ctx: Ctx, choice: str) -> tuple[CardList, bool]:
    cards, sample = card_list(ctx.session, choice)
    if cards is None:
        raise ApiError("cards: no card list is imported (sudya cards import FILE); send "
                       "cards: sample to use the SAMPLE list", status=422, field="cards")
    return cards, sample


@router.post("/decks/check", summary="Check a deck list (and register it for a player)",
             responses=_errors(*WRITES))
def deck_check(body: DeckCheckIn, ctx: Signed) -> DeckCheckOut:
    book, access = _deck_rulebook(ctx, body.rulebook, body.tournament, "formats")
    if body.format not in book.formats:
        raise ApiError(f"format: unknown format {body.format!r} (formats: "
                       f"{', '.join(book.formats)})", status=422, field="format")
    cards, sample = _deck_cards(ctx, body.cards)
    findings = check(parse(body.text), cards, book.formats[body.format], body.format)
    decklist_id = None
    if access is not None and body.player is not None:
        decklist_id = register_decklist_once(
            ctx.ledger, user=access.user.username, key=body.idempotency_key,
            tournament=access.tournament.id, player=body.player, text=body.text,
            fmt=body.format, findings=findings)
    return DeckCheckOut(rulebook=book.id, format=body.format, sample=sample,
                        findings=[_finding(f) for f in findings],
                        player=body.player, decklist_id=decklist_id)


@router.post("/decks/compare", summary="Compare a deck with its list (002 §1.2 а–в)",
             responses=_errors(400, 401, 403, 422))
def deck_compare(body: DeckCompareIn, ctx: Signed) -> DeckCompareOut:
    ctx.check_csrf(None)
    findings = compare(parse(body.decklist), parse(body.deck))
    return DeckCompareOut(findings=[_finding(f) for f in findings])


@router.post("/squad/remedy", summary="The overspend remedy: the seed and every draw",
             responses=_errors(*WRITES))
def squad_remedy(body: SquadRemedyIn, ctx: Signed) -> SquadRemedyOut:
    book, _access = _deck_rulebook(ctx, body.rulebook, body.tournament, "squad")
    assert book.squad is not None
    cards, sample = _deck_cards(ctx, body.cards)
    seed = body.seed if body.seed is not None else secrets.randbelow(2**31)
    try:
        done = remedy(body.squad, cards, book.squad, body.seat, seed, body.drawn)
    except SquadError as exc:  # its code is the error's type, its field the body's path
        field = exc.field.replace("[", ".").replace("]", "")
        raise SquadError(exc.code, field=field, **exc.params) from None
    return SquadRemedyOut(seat=done.seat, seed=done.seed, squad=done.squad,
                          draws=[DrawOut(**asdict(x), reason=x.reason) for x in done.draws],
                          kept=done.kept, returned=done.returned, warning=done.warning,
                          sample=sample)


@router.get("/tournaments/{tid}/decks", summary="Every player's deck list and its state",
            responses=_errors(401, 403, 404))
def deck_status(a: Annotated[Access, Depends(_may("rule"))]) -> list[DeckStatusOut]:
    if not a.book.formats:
        raise ApiError("this tournament's rulebook has no deck formats", status=404)
    rows = decklist_status(a.ctx.session, a.tournament.id)
    for row in rows:  # SQLite keeps no time zone: the ledger writes UTC
        at = row["checked_at"]
        if at is not None and at.tzinfo is None:
            row["checked_at"] = at.replace(tzinfo=dt.UTC)
    return [DeckStatusOut.model_validate(r) for r in rows]
