"""Terms that run across the ledger: a player suspended in one series is refused in the
others under the same rulebook.

002 «Значение и сила пенальти»: «Игрок с приостановленным членством не может играть в
официальных турнирах» (regulations.md §4 E13): the engine refuses a suspended player in the
later tournaments of its own series; this looks at the other series of the ledger that use
the same rulebook, where the engine of each series cannot see: a sanction of a kind with a
`term`, given to the same handle, not revoked, whose term (its ruling's detail, or the last
decision that set it) runs on the tournament's date and was not lifted.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import bindparam, exists, select
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.domain import commands
from sudya.domain.engine.model import TERM_LIFTED
from sudya.domain.errors import RuleError
from sudya.domain.rulebook.schema import Rulebook

TERM_SET = "term.set"


def check_elsewhere(s: Session, series_id: int, book: Rulebook, cmd: commands.Command,
                    day: dt.date) -> None:
    """Refuse `cmd` if it records as playing someone whose term runs in another series."""
    kinds = {k.id: k.term.detail for k in book.sanctions if k.term is not None}
    if not kinds:
        return
    if isinstance(cmd, commands.RecordInfraction) and cmd.player is not None:
        named = [("player", cmd.player)]
    elif isinstance(cmd, commands.RecordResult):
        named = [(f"players.{i}", p) for i, p in enumerate(cmd.players)]
    else:
        return
    for field, handle in named:
        refusal = running(s, series_id, book.id, kinds, handle, day, field)
        if refusal is not None:
            raise refusal


# built once (a statement keeps its compiled form's cache key: each ruling only binds its
# values): a term-bearing sanction of the handle in another series of the rulebook
_GIVEN = (
    select(m.Ruling.series_id, m.Ruling.event_ext_id, m.Ruling.details, m.SanctionRow.kind,
           m.Tournament.date)
    .join(m.Ruling, m.Ruling.id == m.SanctionRow.ruling_id)
    .join(m.Series, m.Series.id == m.Ruling.series_id)
    .join(m.Tournament, m.Tournament.id == m.Ruling.tournament_id)
    .where(m.SanctionRow.subject == bindparam("handle"),
           m.SanctionRow.kind.in_(bindparam("kinds", expanding=True)),
           m.Ruling.series_id != bindparam("series"), m.Series.rulebook == bindparam("book"),
           ~exists().where(m.Revocation.sanction_id == m.SanctionRow.id)))
_DECIDED = (select(m.Ruling.notes)
            .where(m.Ruling.series_id == bindparam("series"),
                   m.Ruling.resolves == bindparam("event"), m.Ruling.cause == "decision")
            .order_by(m.Ruling.position))


def running(s: Session, series_id: int, rulebook: str, kinds: dict[str, str], handle: str,
            day: dt.date, field: str) -> RuleError | None:
    """The refusal for `handle` if a term given in another series still runs on `day`."""
    rows = s.execute(_GIVEN, {"handle": handle, "kinds": list(kinds), "series": series_id,
                              "book": rulebook}).all()
    for row in rows:
        if row.date > day:
            continue  # given after this tournament: it is no earlier tournament
        until: Any = (row.details or {}).get(kinds[row.kind])
        lifted = False
        for notes in s.scalars(_DECIDED, {"series": row.series_id,
                                          "event": row.event_ext_id}):
            for n in notes or []:
                if n.get("code") == TERM_LIFTED:
                    lifted = True
                elif n.get("code") == TERM_SET:
                    until = n.get("params", {}).get("until")
        if lifted:
            continue
        last = dt.date.fromisoformat(until) if isinstance(until, str) else until
        if last is None:
            return RuleError("player.suspended-until-lifted", field=field, player=handle,
                             kind=row.kind, event=row.event_ext_id)
        if last >= day:
            return RuleError("player.suspended-until", field=field, player=handle,
                             kind=row.kind, until=last.isoformat(), event=row.event_ext_id)
    return None
