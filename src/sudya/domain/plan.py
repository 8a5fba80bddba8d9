"""How a tournament is run, as its organiser sets it: how many rounds, how they are paired,
the match points and the tie-breakers, a top cut.

The rulebook says how results score (`Scoring`: win 3, draw 1, loss 0 and its tie-breakers
unless it says otherwise); a tournament may set its own match points and the order of its
tie-breakers (issue 36: «match points … set per tournament», «tie-breakers in the order the
tournament sets»), which the standings then use. The plan changes no ruling: it is not an
event of the ledger, and the engine never reads it.
"""

from __future__ import annotations

import typing
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from sudya.domain.rulebook.schema import Rulebook, Tiebreaker

Pairing = Literal["swiss", "teams", "imported"]


def _known(ids: list[str]) -> list[str]:
    """Tie-breakers the standings know (rulebook.schema.Tiebreaker), each once."""
    known = typing.get_args(Tiebreaker.model_fields["id"].annotation)
    for i in ids:
        if i not in known:
            raise ValueError(f"{i!r} is not one of {', '.join(known)}")
    if len(set(ids)) != len(ids):
        raise ValueError("a tie-breaker is named twice")
    return ids


MatchPoints = Annotated[int, Field(ge=0, le=100)]
# the tie-breakers a tournament of match points takes when it names none (issue 36: Opponents'
# Match-Win % with a 33 % floor, Game-Win %, Opponents' Game-Win %), as far as they are known
DEFAULT_ORDER = ("omw", "gw", "ogw")


class Plan(BaseModel):
    """A tournament's plan; every field may be left to the rulebook (None)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    rounds: Annotated[int, Field(ge=1, le=30)] | None = None
    pairing: Pairing = "imported"  # swiss: Sudya pairs; teams: the judges enter matchups
    win: MatchPoints | None = None
    draw: MatchPoints | None = None
    loss: MatchPoints | None = None
    tiebreakers: Annotated[list[str], Field(max_length=6), AfterValidator(_known)] | None = None
    top_cut: Literal[0, 2, 4, 8] = 0
    # players enter their own match's result, the opponent confirms it (a judge or the
    # scorekeeper still may enter any result)
    self_report: bool = False

    def scored(self, book: Rulebook) -> Rulebook:
        """The rulebook as this tournament scores: its match points and the order of its
        tie-breakers in place of the rulebook's (a rulebook scored in points, not matches,
        is left as it is)."""
        scoring = book.scoring
        if scoring is None or scoring.kind != "match-points":
            return book
        changed: dict[str, object] = {k: v for k in ("win", "draw", "loss")
                                      if (v := getattr(self, k)) is not None}
        if self.tiebreakers is not None:
            given: dict[str, Tiebreaker] = {tb.id: tb for tb in scoring.tiebreakers}
            changed["tiebreakers"] = [
                given.get(i) or Tiebreaker.model_validate({"id": i, **_floor(i)})
                for i in self.tiebreakers]
        if not changed:
            return book
        return book.model_copy(update={"scoring": scoring.model_copy(update=changed)})


def _floor(tiebreaker: str) -> dict[str, str]:
    """A tournament's match-win tie-breaker counts each opponent's rate at no less than a
    third (issue 36: «with a 33 % floor»; `ogw` has it by default); the others have none."""
    return {"floor": "1/3"} if tiebreaker == "omw" else {}
