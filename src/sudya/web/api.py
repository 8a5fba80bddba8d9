"""The JSON API, /api/v1: the same actions as the pages, over the same services."""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from sudya.errors import ScenarioError
from sudya.rulebooks import loader
from sudya.scenario import replay, ruling_json
from sudya.services.ledger import Actor
from sudya.services.queries import person_history, tournament_standings, tournament_summary
from sudya.web.auth import AuthError, login
from sudya.web.context import Ctx, get_ctx

router = APIRouter(prefix="/api/v1", tags=["api"])
C = Annotated[Ctx, Depends(get_ctx)]


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class LoginIn(Strict):
    username: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=200)


class TokenOut(BaseModel):
    token: str
    username: str


class InfractionIn(Strict):
    infraction: str = Field(min_length=1, max_length=100)
    player: str | None = Field(default=None, max_length=100)
    team: str | None = Field(default=None, max_length=100)
    round: int | None = Field(default=None, ge=0, le=1000)
    date: dt.date | None = None
    details: dict[str, Any] = {}
    choice: str | dict[str, int] | None = None
    preview: bool = False
    idempotency_key: str | None = Field(default=None, max_length=100)


class EndOfMatchIn(Strict):
    round: int | None = Field(default=None, ge=0, le=1000)
    idempotency_key: str | None = Field(default=None, max_length=100)


class AppealIn(Strict):
    of: str = Field(min_length=1, max_length=100)
    outcome: Literal["upheld", "overturned", "frivolous"]
    choice: str | dict[str, int] | None = None
    idempotency_key: str | None = Field(default=None, max_length=100)


class DecisionIn(Strict):
    of: str = Field(min_length=1, max_length=100)
    sanctions: list[dict[str, Any]] | None = None
    choice: str | dict[str, int] | None = None
    idempotency_key: str | None = Field(default=None, max_length=100)


class ResultIn(Strict):
    round: int | None = Field(default=None, ge=0, le=1000)
    players: tuple[str, str]
    score: str = Field(pattern=r"^\d{1,3}-\d{1,3}$")
    idempotency_key: str | None = Field(default=None, max_length=100)


def _actor(ctx: Ctx, request: Request) -> Actor:
    user = ctx.user
    if user is None:
        raise AuthError("sign in first (POST /api/v1/login)", status=401)
    return Actor(name=user.username,
                 request_id=request.headers.get("x-request-id") or uuid.uuid4().hex)


def _rulings(book_validity: bool, rulings: list[Any]) -> list[dict[str, Any]]:
    return [ruling_json(r, book_validity) for r in rulings]


@router.get("/rulebooks", summary="Bundled rulebooks")
def rulebooks() -> list[dict[str, Any]]:
    out = []
    for rid in loader.bundled_ids():
        book = loader.load(rid)
        out.append({"id": rid, "title": book.title.model_dump(), "edition": book.edition,
                    "editions": sorted(loader.edition_files(rid)),
                    "levels": book.level_ids()})
    return out


@router.get("/rulebooks/{rulebook_id}", summary="A rulebook, as data")
def rulebook(rulebook_id: str, edition: str | None = None) -> dict[str, Any]:
    if rulebook_id not in loader.bundled_ids():
        raise AuthError(f"unknown rulebook {rulebook_id!r}", status=404)
    data: dict[str, Any] = loader.load(rulebook_id, edition).model_dump(mode="json")
    return data


@router.post("/replay", summary="Replay a scenario (the conformance contract)")
def replay_scenario(scenario: dict[str, Any]) -> Any:
    try:
        return replay(scenario)
    except ScenarioError as exc:
        return JSONResponse({"detail": str(exc)}, status_code=422)


@router.post("/login", response_model=TokenOut, summary="Open a session; use the token as "
             "`Authorization: Bearer …`")
def api_login(body: LoginIn, request: Request, ctx: C) -> TokenOut:
    address = request.client.host if request.client else "?"
    with ctx.ledger.uow().begin() as s:
        user, token = login(s, username=body.username, password=body.password,
                            throttle=request.app.state.throttle, address=address)
    return TokenOut(token=token, username=user.username)


@router.get("/tournaments", summary="Tournaments")
def tournaments(ctx: C) -> list[dict[str, Any]]:
    from sqlalchemy import select

    from sudya.db import models as m

    return [{"id": t.id, "name": t.name, "series": t.series.name,
             "rulebook": t.series.rulebook, "edition": t.edition, "level": t.level,
             "date": t.date.isoformat()}
            for t in ctx.session.scalars(select(m.Tournament).order_by(m.Tournament.id))]


@router.get("/tournaments/{tid}", summary="A tournament: people, judges, rulings")
def tournament(tid: int, ctx: C) -> dict[str, Any]:
    t, _book, roles = ctx.tournament(tid)
    summary = tournament_summary(ctx.session, tid)
    if not roles.can("view-all"):
        summary["rulings"] = [r for r in summary["rulings"] if r["subject"] == roles.person]
    return summary


@router.get("/tournaments/{tid}/standings", summary="Standings (public)")
def standings(tid: int, ctx: C) -> dict[str, Any]:
    ctx.tournament(tid)
    return tournament_standings(ctx.session, tid)


@router.post("/tournaments/{tid}/infractions", summary="Record (or preview) an infraction")
def record(tid: int, body: InfractionIn, request: Request, ctx: C) -> dict[str, Any]:
    t, book, roles = ctx.tournament(tid)
    actor = _actor(ctx, request)
    if not roles.can("rule"):
        raise AuthError("your role may not give rulings in this tournament", status=403)
    args: dict[str, Any] = dict(tournament=tid, infraction=body.infraction, player=body.player,
                team=body.team, judge=roles.judge_handle, round=body.round,
                details=body.details, choice=body.choice)
    if body.preview:
        rulings = ctx.ledger.preview(**args)
    else:
        ctx.check_csrf(None)
        rulings = ctx.ledger.record(date=body.date, idempotency_key=body.idempotency_key,
                                    actor=actor, **args)
    return {"preview": body.preview, "rulings": _rulings(book.validity is not None, rulings)}


@router.get("/tournaments/{tid}/people/{handle}", summary="A person's record")
def person(tid: int, handle: str, ctx: C) -> list[dict[str, Any]]:
    _t, _book, roles = ctx.tournament(tid)
    if ctx.user is None:
        raise AuthError("sign in first", status=401)
    if not roles.can("view-all") and roles.person != handle:
        raise AuthError("players see only their own record", status=403)
    return person_history(ctx.session, handle, dt.date.today())
