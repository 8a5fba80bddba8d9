"""The JSON API, /api/v1: the same actions as the pages, through the same application core.

Every write is a command of sudya.domain.commands sent to `Sudya.handle`, which checks the
caller's one permission for it with the tournament in scope: 401 without a session, 403 when
the caller's role in the tournament may not (`access.*`), 422 naming the field when the
command names a player, a judge or an event of another tournament (`scope.*`). A cookie
session also needs the `X-CSRF-Token` header (GET /api/v1/me tells it) on every POST; a
bearer token (POST /api/v1/login) doesn't. Bad input is a 422 whose `detail[].loc` names the
field; a refused request stores nothing. An `idempotency_key` makes a retry return the first
answer without recording twice.
"""

from __future__ import annotations

import datetime as dt
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Annotated, Any, Generic, Literal, TypeVar

import orjson
from fastapi import APIRouter, Depends, Path, Query, Request, Security
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import JSONResponse, Response
from fastapi.security import APIKeyCookie, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model, model_validator

from sudya.adapters.scenario_file import json_error, plain
from sudya.app import access
from sudya.app.access import Permission, Standing
from sudya.app.accounts import AuthError, readable_record
from sudya.app.common import Actor, LedgerError
from sudya.app.decks import card_list, decklist_status
from sudya.app.ledger import Recorded
from sudya.app.people import round_pairings, search_people
from sudya.app.queries import (
    STANDINGS_PAGE,
    all_tournaments,
    find_tournament,
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
    msg: str = Field(description="The message in the request's language (`?lang=en`, the "
                                 "`lang` cookie; Russian by default).")
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
            403: "Signed in, but your role may not do this here (`access.*`), or the CSRF "
                 "header is missing.",
            404: "No such tournament, rulebook or person.",
            409: "The idempotency key was used for another request, or the result of this "
                 "pair in this round is already entered (`result.entered`: correct it "
                 "instead); nothing recorded.",
            422: "Bad input: `detail` names the field (a player, a judge or an event of "
                 "another tournament too: `scope.*`).",
            429: "Too many failed logins from this address or for this username: wait the "
                 "seconds `Retry-After` says (`login.throttled`).",
            503: "The series' writes were queued longer than the write timeout "
                 "(`ledger.busy`): nothing recorded; send it again after `Retry-After`."}
    return {code: {"model": ErrorOut, "description": text[code]} for code in codes}


# ---------------------------------------------------------------------- input shapes
# A write's body is its domain command (sudya.domain.commands: its fields, their limits and
# descriptions, written once there) with what only the API adds: the idempotency key, and
# for an infraction the preview. `judge` left out is the caller's own staff handle.
Handle = commands.Id
IdempotencyKey = Annotated[
    commands.Id | None,
    Field(default=None, description="Any unique string per action: a retry with the same key "
                                    "and the same request returns the first answer and "
                                    "records nothing new; the same key for another request "
                                    "is refused.")]
TournamentId = Annotated[int, Path(ge=1, le=BIGGEST_ID, description="The tournament's id.")]
CMD = TypeVar("CMD", bound=BaseModel)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def command_of(cls: type[CMD], body: BaseModel, **values: Any) -> CMD:
    """The domain command a request body holds: `cls`'s own fields of it (not the API's
    `idempotency_key`, `preview`…), with `values` put in (`judge`)."""
    return cls.model_validate({**{name: getattr(body, name) for name in cls.model_fields},
                               **values})


def body_of(cls: type[BaseModel], name: str, doc: str, *, without: tuple[str, ...]
            ) -> type[BaseModel]:
    """A request body of `cls`'s own fields (their types, limits, descriptions), less those
    the URL gives (`without`)."""
    fields: dict[str, Any] = {n: (f.annotation, f) for n, f in cls.model_fields.items()
                              if n not in without}
    if "idempotency_key" in fields:
        fields["idempotency_key"] = (IdempotencyKey, None)
    return create_model(name, __base__=Strict, __doc__=doc, **fields)


class LoginIn(Strict):
    username: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=200)


class InfractionIn(commands.RecordInfraction):
    """A judge reports an infraction by a player (or a team); `judge`: by default the caller
    (another judge is refused: a ruling is recorded in its sender's name)."""

    preview: bool = Field(default=False, description="Only show the rulings; store nothing.")
    preview_token: str | None = Field(
        default=None, max_length=200,
        description="The `preview_token` a preview of this request answered. Optional; when "
                    "sent, the record is refused (422, `preview.changed`, nothing recorded) "
                    "unless it is exactly the command previewed (the note aside: the "
                    "judge's account is no fact the rule reads).")
    idempotency_key: IdempotencyKey


class EndOfMatchIn(commands.EndMatch):
    """The end of a match or round: stacking checks for a table's players, or every player."""

    idempotency_key: IdempotencyKey


class AppealIn(commands.Appeal):
    """The head judge's decision on an appeal; `judge`: by default the caller."""

    idempotency_key: IdempotencyKey


class DecisionIn(commands.Decide):
    """The college's (or a judge's) decision on a pending ruling; `judge`: by default the
    caller."""

    idempotency_key: IdempotencyKey


class CorrectionIn(commands.Correct):
    """A mistaken record corrected: its rulings are revoked; `judge`: by default the caller."""

    idempotency_key: IdempotencyKey


class ReplacementIn(commands.ReplacePlayer):
    """A removed player's place taken (regulations.md §4 E9): `replace` the removed player,
    `by` who takes the place — a player of the same army (`army`, the army both play) or the
    team's coach (`coach`), as the removal allows. One not yet registered for the tournament
    is registered with it (created on first sight, named `name`)."""

    idempotency_key: IdempotencyKey


class ResultIn(commands.RecordResult):
    """A game or match result: `score` the first player's first, `[12, 8]` or `"12-8"`."""

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


# ---------------------------------------------------------------------- who is asking
def _signed_in(ctx: C, _b: Annotated[Any, Security(_bearer)] = None,
               _c: Annotated[Any, Security(_cookie)] = None) -> Ctx:
    _user_of(ctx)
    return ctx


async def _caller(ctx: C, _b: Annotated[Any, Security(_bearer)] = None,
                  _c: Annotated[Any, Security(_cookie)] = None) -> Ctx:
    """The request's context, the user not read yet: a route reads it in its own thread
    (`_author`, `_member`), so that a write takes one trip to the thread pool, not two."""
    return ctx


def _user_of(ctx: Ctx) -> UserView:
    """The signed-in user (their session read now, in the caller's thread), or 401."""
    if ctx.user is None:
        raise ApiError("auth.sign-in-first", status=401)
    return ctx.user


Signed = Annotated[Ctx, Depends(_signed_in)]
Caller = Annotated[Ctx, Depends(_caller)]


def _author(ctx: Ctx) -> Actor:
    """Who sends a write: the signed-in user (401 without a session), whose cookie session
    sent its CSRF header (403 without it; a bearer token needs none). What they may send is
    the core's to decide (`Sudya.handle`)."""
    _user_of(ctx)
    ctx.check_csrf(None)
    return ctx.actor()


@contextmanager
def _known() -> Iterator[None]:
    """No such tournament is 404 in the API (the core refuses it as bad input)."""
    try:
        yield
    except LedgerError as exc:
        if exc.code != "tournament.unknown":
            raise
        raise ApiError(exc.code, status=404, field=exc.field, **exc.params) from None


def _standing(ctx: Ctx, actor: Actor, tid: int) -> Standing:
    """The actor in tournament `tid`: its rulebook and the actor's roles (404: no such)."""
    with _known():
        return ctx.app.standing(actor, tid)


def _member(ctx: Ctx, tid: int, permission: Permission = "member") -> Standing:
    """A read's access: the signed-in user (401) with a role in tournament `tid` (403), or
    with `permission` there."""
    _user_of(ctx)
    actor = ctx.actor()
    st = _standing(ctx, actor, tid)
    if not st.can(permission):
        raise access.refuse(actor, permission, st.tournament.name)
    return st


def _send(ctx: Ctx, cmd: Any, actor: Actor, tid: int | None, key: str | None) -> Any:
    """One command through the application's core, as the signed-in user (`tid` None: a
    command that names its series itself, such as a new tournament)."""
    with _known():
        return ctx.app.handle(cmd, actor, tid, key=key)


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


def _check_dates(book: Rulebook, cmd: commands.RecordInfraction) -> None:
    """Dates the rule reads lie in the years a validity window can count in."""
    inf = book.infraction(cmd.infraction)
    if inf is None:
        return  # the ledger names the unknown infraction
    for name, detail in {**book.common_details, **inf.details}.items():
        value = cmd.details.get(name)
        if detail.type != "date" or not isinstance(value, str):
            continue
        try:
            day = dt.date.fromisoformat(value)
        except ValueError:
            continue  # the engine says what a date looks like
        if not FIRST_DAY <= day <= LAST_DAY:
            raise ApiError("date.out-of-range", status=422, field=f"details.{name}",
                           first=str(FIRST_DAY), last=str(LAST_DAY))


# ---------------------------------------------------------------------- session
@router.post("/login", summary="Sign in; use the token as `Authorization: Bearer …`",
             responses=_errors(400, 401, 422, 429))
def api_login(body: LoginIn, request: Request, ctx: C) -> TokenOut:
    address = request.client.host if request.client else "?"
    user, token = ctx.app.sign_in(username=body.username, password=body.password,
                                  throttle=request.app.state.throttle, address=address)
    return TokenOut(token=token, username=user.username, display_name=user.display_name)


@router.post("/logout", status_code=204, summary="End this session (the token stops working)",
             responses=_errors(401, 403))
def api_logout(ctx: Signed) -> Response:
    ctx.check_csrf(None)
    ctx.app.sign_out(ctx.token)
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
        raise ApiError("rulebook.unknown", status=404, field="rulebook_id",
                       rulebook=rulebook_id)
    editions = loader.edition_files(rulebook_id)
    if edition is not None and edition not in editions:
        raise ApiError("rulebook.no-edition-of", status=422, field="edition",
                       rulebook=rulebook_id, edition=edition,
                       editions=", ".join(sorted(editions, key=int)))
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
            raise ScenarioError("rulebook.unknown-bundled", field="rulebook", rulebook=ref,
                                bundled=", ".join(loader.bundled_ids()))
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
                            date=t.date) for t in ctx.read(all_tournaments)]


def _visible(st: Standing, rulings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What the caller sees of a tournament's rulings: staff all, a player their own."""
    if st.roles.can("view-all"):
        return rulings
    return [r for r in rulings if r["subject"] == st.roles.person]


@router.get("/tournaments/{tid}", summary="A tournament: people, judges, rulings",
            responses=_errors(401, 403, 404), response_model_exclude_unset=True)
def tournament(tid: TournamentId, ctx: Caller) -> TournamentOut:
    st = _member(ctx, tid)
    summary = ctx.read(tournament_summary, tid)
    return TournamentOut.model_validate({**summary.model_dump(),
                                         "rulings": _visible(st, ctx.read(rulings_json, tid)),
                                         "roles": sorted(st.roles.names),
                                         "may": sorted(st.roles.may)})


@router.get("/tournaments/{tid}/pending", summary="Rulings waiting for a decision",
            responses=_errors(401, 403, 404), response_model_exclude_unset=True)
def pending(tid: TournamentId, ctx: Caller) -> list[RulingView]:
    st = _member(ctx, tid)
    rulings = ctx.read(rulings_json, tid)
    return [RulingView.model_validate(r) for r in _visible(st, rulings) if r["pending"]]


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
def people(tid: TournamentId, ctx: Caller,
           q: Annotated[str, Query(max_length=100, description="Part of a name or handle, "
                                                               "or a table number.")] = "",
           round: RoundQuery = None) -> list[PersonView]:
    _member(ctx, tid)
    return ctx.read(search_people, tournament=tid, q=q, round=round)


@router.get("/tournaments/{tid}/pairings", summary="A round's tables: who plays whom where",
            description="As the round's last import stored them (`sudya pairings import`, "
                        "or the pairings page); a round without pairings has no tables.",
            responses=_errors(401, 403, 404, 422))
def pairings(tid: TournamentId, ctx: Caller, round: RoundQuery = None) -> PairingsView:
    _member(ctx, tid)
    return ctx.read(round_pairings, tournament=tid, round=round)


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
    with _known():
        return ctx.read(standings_page, tid, page=page, limit=limit, q=q)


@router.get("/tournaments/{tid}/people/{handle}",
            summary="A person's record (staff: in the series they hold a role in; players: their "
                    "own only)",
            responses=_errors(401, 403, 404))
def person(tid: TournamentId, handle: Annotated[str, Path(min_length=1, max_length=100)],
           ctx: Caller) -> list[RecordEntryView]:
    user = _user_of(ctx)
    t = ctx.read(find_tournament, tournament=tid)
    if t is None:
        raise ApiError("tournament.unknown", status=404, field="tournament", tournament=tid)
    # staff: a person of this series, and of the record the series they hold a role in
    scope = ctx.read(readable_record, user, t, handle)
    if not ctx.read(person_exists, handle):
        raise ApiError("person.unknown", status=404, field="handle", person=handle)
    return ctx.read(person_history, handle, dt.date.today(), series=scope)


# ---------------------------------------------------------------------- recording
# Each write: its command, with the caller as its author and (unless the body names one) its
# judge, through `Sudya.handle` in one trip to the thread pool (a `def` route): the core
# checks the caller's permission and that everything the command names is of the tournament.
def _judge(body: Any, st: Standing) -> str | None:
    """The judge a command is sent in the name of: the one the body names, else the caller's
    own staff handle (the core refuses anyone else's)."""
    named: str | None = body.judge
    return named if named is not None else st.roles.judge_handle


def _event(st: Standing, done: Recorded) -> Answer[EventOut]:
    return Answer(EventOut(event=done.event, rulings=_rulings(st.book, done.rulings)))


def _rulings(book: Rulebook, rulings: list[Ruling]) -> list[RulingView]:
    return rulings_view(book, rulings)


@router.post("/tournaments/{tid}/infractions", summary="Record (or preview) an infraction",
             responses=_errors(*WRITES), response_model=RecordOut)
def record(tid: TournamentId, body: InfractionIn, ctx: Caller) -> Answer[RecordOut]:
    actor = _author(ctx)
    st = _standing(ctx, actor, tid)
    cmd = command_of(commands.RecordInfraction, body, judge=_judge(body, st))
    _check_dates(st.book, cmd)
    secret = ctx.request.app.state.secret
    if body.preview:
        token = preview_token.token(secret, tid, actor.name, cmd)
        with _known():
            rulings = ctx.app.preview(cmd, actor, tid)
        return Answer(RecordOut(preview=True, event=None, preview_token=token,
                                rulings=_rulings(st.book, rulings)))
    if body.preview_token is not None and not preview_token.same(
            secret, tid, actor.name, cmd, body.preview_token):
        raise SudyaError("preview.changed", field="preview_token")
    done: Recorded = _send(ctx, cmd, actor, tid, body.idempotency_key)
    return Answer(RecordOut(preview=False, rulings=_rulings(st.book, done.rulings),
                            event=done.event))


@router.post("/tournaments/{tid}/end-of-match",
             summary="The end of a match or round: stacking checks for a table's players "
                     "or for every player",
             responses=_errors(*WRITES), response_model=EventOut)
def end_of_match(tid: TournamentId, body: EndOfMatchIn, ctx: Caller) -> Answer[EventOut]:
    actor = _author(ctx)
    st = _standing(ctx, actor, tid)
    return _event(st, _send(ctx, command_of(commands.EndMatch, body), actor, tid,
                            body.idempotency_key))


@router.post("/tournaments/{tid}/appeals", summary="Decide an appeal (head judge)",
             responses=_errors(*WRITES), response_model=EventOut)
def appeal(tid: TournamentId, body: AppealIn, ctx: Caller) -> Answer[EventOut]:
    actor = _author(ctx)
    st = _standing(ctx, actor, tid)
    cmd = command_of(commands.Appeal, body, judge=_judge(body, st))
    return _event(st, _send(ctx, cmd, actor, tid, body.idempotency_key))


@router.post("/tournaments/{tid}/decisions", summary="Decide a pending ruling",
             responses=_errors(*WRITES), response_model=EventOut)
def decision(tid: TournamentId, body: DecisionIn, ctx: Caller) -> Answer[EventOut]:
    actor = _author(ctx)
    st = _standing(ctx, actor, tid)
    cmd = command_of(commands.Decide, body, judge=_judge(body, st))
    return _event(st, _send(ctx, cmd, actor, tid, body.idempotency_key))


@router.post("/tournaments/{tid}/corrections",
             summary="Correct a mistaken record: its rulings are revoked by a new one",
             responses=_errors(*WRITES), response_model=EventOut)
def correction(tid: TournamentId, body: CorrectionIn, ctx: Caller) -> Answer[EventOut]:
    actor = _author(ctx)
    st = _standing(ctx, actor, tid)
    cmd = command_of(commands.Correct, body, judge=_judge(body, st))
    return _event(st, _send(ctx, cmd, actor, tid, body.idempotency_key))


@router.post("/tournaments/{tid}/results",
             summary="A game or match result (scorekeeper, organiser, judges who rule)",
             responses=_errors(*WRITES), response_model=ResultOut)
def result(tid: TournamentId, body: ResultIn, ctx: Caller) -> Answer[ResultOut]:
    actor = _author(ctx)
    cmd = command_of(commands.RecordResult, body)
    done: Recorded = _send(ctx, cmd, actor, tid, body.idempotency_key)
    return Answer(ResultOut(event=done.event, round=cmd.round, players=cmd.players,
                            score=f"{cmd.score[0]}-{cmd.score[1]}"))


@router.post("/tournaments/{tid}/replacements",
             summary="Replace a removed player (regulations.md §4 E9; the organiser)",
             responses=_errors(*WRITES), response_model=EventOut)
def replacement(tid: TournamentId, body: ReplacementIn, ctx: Caller) -> Answer[EventOut]:
    actor = _author(ctx)
    st = _standing(ctx, actor, tid)
    return _event(st, _send(ctx, command_of(commands.ReplacePlayer, body), actor, tid,
                            body.idempotency_key))


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
                   part: Literal["formats", "squad"]) -> tuple[Rulebook, Standing | None]:
    """The rulebook a deck request uses, and the caller's standing when it names a tournament
    (its rulebook is for those who may give rulings there); every deck POST is checked for
    CSRF like the others."""
    ctx.check_csrf(None)
    st = None
    if tournament is not None:
        st = _member(ctx, tournament, "rule")
        book = st.book
        if rulebook is not None and rulebook != book.id:
            raise ApiError("rulebook.not-the-tournaments", status=422, field="rulebook",
                           tournament=tournament, uses=book.id, rulebook=rulebook)
    else:
        if rulebook is None:
            raise ApiError("rulebook.name-it", status=422, field="rulebook")
        if rulebook not in loader.bundled_ids():
            raise ApiError("rulebook.unknown-bundled", status=422, field="rulebook",
                           rulebook=rulebook, bundled=", ".join(loader.bundled_ids()))
        book = loader.load(rulebook)
    if (part == "formats" and not book.formats) or (part == "squad" and book.squad is None):
        code = "rulebook.no-formats" if part == "formats" else "rulebook.no-squad"
        raise ApiError(code, status=422, rulebook=book.id,
                       field="tournament" if tournament is not None else "rulebook")
    return book, st


def _finding(f: Finding) -> FindingOut:
    return FindingOut(**asdict(f), message=f.message)


def _deck_cards(ctx: Ctx, choice: str) -> tuple[CardList, bool]:
    cards, sample = ctx.read(card_list, choice)
    if cards is None:
        raise ApiError("cards.none-imported", status=422, field="cards")
    return cards, sample


@router.post("/decks/check", summary="Check a deck list (and register it for a player)",
             responses=_errors(*WRITES))
def deck_check(body: DeckCheckIn, ctx: Signed) -> DeckCheckOut:
    book, st = _deck_rulebook(ctx, body.rulebook, body.tournament, "formats")
    if body.format not in book.formats:
        raise ApiError("decks.unknown-format", status=422, field="format",
                       format=body.format, formats=", ".join(book.formats))
    cards, sample = _deck_cards(ctx, body.cards)
    findings = check(parse(body.text), cards, book.formats[body.format], body.format)
    decklist_id = None
    if st is not None and body.player is not None:
        cmd = commands.RegisterDecklist(player=body.player, text=body.text, fmt=body.format,
                                        findings=findings)
        decklist_id = _send(ctx, cmd, ctx.actor(), st.tournament.id, body.idempotency_key)
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
    book, _st = _deck_rulebook(ctx, body.rulebook, body.tournament, "squad")
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
def deck_status(tid: TournamentId, ctx: Caller) -> list[DeckStatusOut]:
    st = _member(ctx, tid, "rule")
    if not st.book.formats:
        raise ApiError("rulebook.no-formats", status=404, field="tournament",
                       rulebook=st.book.id)
    rows = ctx.read(decklist_status, tid)
    for row in rows:  # SQLite keeps no time zone: the ledger writes UTC
        at = row["checked_at"]
        if at is not None and at.tzinfo is None:
            row["checked_at"] = at.replace(tzinfo=dt.UTC)
    return [DeckStatusOut.model_validate(r) for r in rows]
