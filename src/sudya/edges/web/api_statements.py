"""The API's twins of the statements pages (web.pages_statements): a disqualification's
statements, and a new one (`AddStatement` through the application's core)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import APIRouter, Path
from fastapi.responses import Response

from sudya.app.common import LedgerError
from sudya.app.statements import (
    Permission,
    dq_event,
    dq_events,
    permission,
    statements_of,
    visible,
)
from sudya.app.views import DisqualificationView, StatementView
from sudya.domain import commands
from sudya.edges.web.api import (
    WRITES,
    ApiError,
    Caller,
    TournamentId,
    _author,
    _errors,
    _member,
    _send,
    body_of,
)
from sudya.edges.web.context import Ctx

router = APIRouter(prefix="/api/v1", tags=["api"])
EventId = Annotated[str, Path(min_length=1, max_length=100,
                              description="The event whose ruling disqualified or suspended "
                                          "(as rulings name it: `e7`).")]
# a statement is found by the event it is about: refused as not found (404), not as bad input
NOT_FOUND = ("statement.unknown-event", "statement.not-a-dq")

# the body: the command's own fields, less the tournament and the event the URL names
if TYPE_CHECKING:
    StatementIn = commands.AddStatement
else:
    StatementIn = body_of(
        commands.AddStatement, "StatementIn",
        "A statement about the disqualification or suspension the URL names. A player's own "
        "account writes in their own name: `author` left empty is theirs, another's is "
        "refused (403, `access.statement-author`).", without=("tournament", "event"))


def _dq(ctx: Ctx, tid: int, event: str) -> tuple[DisqualificationView, Permission]:
    st = _member(ctx, tid)
    try:
        dq = ctx.read(dq_event, tournament=tid, event=event)
    except LedgerError as exc:
        raise ApiError(exc.code, status=404, field=exc.field, **exc.params) from None
    may = ctx.read(permission, st.roles, tournament=tid, subjects=dq.subjects)
    if not may.roles and not may.reads_all:
        raise ApiError("statement.no-access", status=403)
    return dq, may


@router.get("/tournaments/{tid}/disqualifications",
            summary="Disqualifications and suspensions, each with its statements' count",
            responses=_errors(401, 403, 404, 422))
def disqualifications(tid: TournamentId, ctx: Caller) -> list[DisqualificationView]:
    _member(ctx, tid)
    return ctx.read(dq_events, tournament=tid)


@router.get("/tournaments/{tid}/events/{event}/statements",
            summary="A disqualification's statements, in the order written (a player sees "
                    "their own, and all about their own disqualification)",
            responses=_errors(401, 403, 404, 422))
def statements(tid: TournamentId, event: EventId, ctx: Caller) -> list[StatementView]:
    dq, may = _dq(ctx, tid, event)
    user = ctx.user
    assert user is not None
    return visible(may, ctx.read(statements_of, tournament=tid, event=dq.event),
                   user.username)


@router.post("/tournaments/{tid}/events/{event}/statements",
             summary="Write a statement about a disqualification or suspension (append-only: "
                     "a correction is a new statement)",
             description="A judge of the tournament writes the player's, the opponent's or a "
                         "witness's; whoever may hear appeals also the head judge's; a player's "
                         "own account their own (`player` about their own disqualification, "
                         "otherwise `opponent` or `witness`), in their own name: `author` "
                         "left empty is theirs, another's is refused.",
             responses=_errors(*WRITES))
def statement(tid: TournamentId, event: EventId, body: StatementIn, ctx: Caller
              ) -> StatementView:
    actor = _author(ctx)
    cmd = commands.decode_statement({**body.model_dump(), "tournament": tid, "event": event})
    try:
        done: StatementView = _send(ctx, cmd, actor, tid, cmd.idempotency_key)
    except LedgerError as exc:
        if exc.code not in NOT_FOUND:
            raise
        raise ApiError(exc.code, status=404, field=exc.field, **exc.params) from None
    return done


@router.api_route("/tournaments/{tid}/events/{event}/statements", include_in_schema=False,
                  methods=["OPTIONS", "PUT", "PATCH", "DELETE", "TRACE"])
def statements_other_methods() -> Response:
    """405 naming both methods of the path (Starlette's own names only the first route's)."""
    return Response(status_code=405, headers={"Allow": "GET, POST"})


__all__ = ["router"]
