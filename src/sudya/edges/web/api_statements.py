"""The API's twins of the statements pages (web.pages_statements): a disqualification's
statements, and a new one, over the same services (services.statements)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path
from fastapi.responses import Response
from pydantic import Field

from sudya.app.ledger import LedgerError
from sudya.app.statements import (
    Permission,
    add_statement,
    dq_event,
    dq_events,
    permission,
    statements_of,
    visible,
)
from sudya.app.views import DisqualificationView, StatementView
from sudya.domain import commands
from sudya.edges.web.api import WRITES, Access, ApiError, IdempotencyKey, Strict, _errors, _may

router = APIRouter(prefix="/api/v1", tags=["api"])
EventId = Annotated[str, Path(min_length=1, max_length=100,
                              description="The event whose ruling disqualified or suspended "
                                          "(as rulings name it: `e7`).")]


class StatementIn(Strict):
    """A statement about a disqualification or suspension. A player's own account writes in
    their own name (`author` is theirs whatever is sent)."""

    role: commands.StatementRole = Field(description="`player`: the disqualified player's "
                                         "own; `opponent`; `witness`; `head-judge`: the head "
                                         "judge's statement of facts (the head judge only).")
    author: str = Field(default="", max_length=commands.MAX_AUTHOR,
                        description="Whose statement (a name or handle); by default the "
                                    "player's for `player`, the head judge's for theirs.")
    text: str = Field(max_length=commands.MAX_STATEMENT, description="The statement; the head "
                      "judge's: the facts.")
    rule_cited: str | None = Field(default=None, max_length=commands.MAX_RULE,
                                   description="The head judge's only, and required there.")
    decision: str | None = Field(default=None, max_length=commands.MAX_DECISION,
                                 description="The head judge's only, and required there.")
    idempotency_key: IdempotencyKey


def _dq(a: Access, event: str) -> tuple[DisqualificationView, Permission]:
    try:
        dq = dq_event(a.ctx.session, tournament=a.tournament.id, event=event)
    except LedgerError as exc:
        raise ApiError(exc.code, status=404, field=exc.field, **exc.params) from None
    may = permission(a.ctx.session, a.roles, tournament=a.tournament.id, subjects=dq.subjects)
    if not may.roles and not may.reads_all:
        raise ApiError("you may neither read nor write statements in this tournament",
                       status=403)
    return dq, may


@router.get("/tournaments/{tid}/disqualifications",
            summary="Disqualifications and suspensions, each with its statements' count",
            responses=_errors(401, 403, 404, 422))
def disqualifications(a: Annotated[Access, Depends(_may(None))]
                      ) -> list[DisqualificationView]:
    return dq_events(a.ctx.session, tournament=a.tournament.id)


@router.get("/tournaments/{tid}/events/{event}/statements",
            summary="A disqualification's statements, in the order written (a player sees "
                    "their own, and all about their own disqualification)",
            responses=_errors(401, 403, 404, 422))
def statements(event: EventId, a: Annotated[Access, Depends(_may(None))]
               ) -> list[StatementView]:
    dq, may = _dq(a, event)
    return visible(may, statements_of(a.ctx.session, tournament=a.tournament.id,
                                      event=dq.event), a.user.username)


@router.post("/tournaments/{tid}/events/{event}/statements",
             summary="Write a statement about a disqualification or suspension (append-only: "
                     "a correction is a new statement)",
             description="A judge of the tournament writes the player's, the opponent's or a "
                         "witness's; whoever may hear appeals also the head judge's; a player's "
                         "own account their own (`player` about their own disqualification, "
                         "otherwise `opponent` or `witness`).",
             responses=_errors(*WRITES))
def statement(body: StatementIn, event: EventId,
              a: Annotated[Access, Depends(_may(None, write=True))]) -> StatementView:
    dq, may = _dq(a, event)
    if not may.allows(body.role):
        raise ApiError(f"your role may not write the {body.role} statement here", status=403,
                       field="role")
    raw = {"tournament": a.tournament.id, "event": dq.event,
           **body.model_dump(exclude_none=True)}
    if may.author is not None:
        raw["author"] = may.author
    try:
        cmd = commands.decode_statement(raw)
    except commands.CommandError as exc:
        raise ApiError(exc.code, status=422, field=exc.field, **exc.params) from None
    return add_statement(a.ctx.ledger, cmd, a.actor())


@router.api_route("/tournaments/{tid}/events/{event}/statements", include_in_schema=False,
                  methods=["OPTIONS", "PUT", "PATCH", "DELETE", "TRACE"])
def statements_other_methods() -> Response:
    """405 naming both methods of the path (Starlette's own names only the first route's)."""
    return Response(status_code=405, headers={"Allow": "GET, POST"})


__all__ = ["router"]
