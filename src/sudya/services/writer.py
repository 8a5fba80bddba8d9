"""The row writer: one event's rulings, sanctions and revocations in a few INSERTs."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from sudya.db import models as m
from sudya.engine.model import FOREVER, Ruling, Sanction
from sudya.services import faults
from sudya.services.projection import State
from sudya.views import offered_json


def store_rulings(s: Session, state: State, series_id: int, event_id: int,
                  tournament_id: int, rulings: list[Ruling], audit: dict[str, Any]) -> None:
    """Insert the rulings, their sanctions and what they revoked (a few statements)."""
    with_validity = state.engine.book.validity is not None
    ids = s.scalars(insert(m.Ruling).returning(m.Ruling.id, sort_by_parameter_order=True),
                    [{"event_id": event_id, "series_id": series_id,
                      "tournament_id": tournament_id, "position": r.seq,
                      "event_ext_id": r.event, "subject": r.subject,
                      "infraction": r.infraction, "cause": r.cause, "pending": r.pending,
                      "aggravated": r.aggravated,
                      "offered": offered_json(r, with_validity),
                      "revokes": r.revokes, "resolves": r.resolves,
                      "applies_to": r.applies_to, "notes": [n.as_json() for n in r.notes],
                      "edition": r.edition, "judge": r.judge, "round": r.round,
                      "details": jsonable(r.details), **audit} for r in rulings]).all()
    faults.point("after-rulings")
    sanctions = []
    for r, rid in zip(rulings, ids, strict=True):
        r.ref = rid
        sanctions += [(sn, rid, i) for i, sn in enumerate(r.sanctions)]
    if sanctions:
        sids = s.scalars(
            insert(m.SanctionRow).returning(m.SanctionRow.id, sort_by_parameter_order=True),
            [{"ruling_id": rid, "position": i, "kind": sn.kind, "subject": sn.subject,
              "amount": sn.amount, "score": sn.score, "attached": sn.attached,
              "valid_until": None if sn.valid_until in (None, FOREVER) else sn.valid_until,
              "never_expires": sn.valid_until == FOREVER, **audit}
             for sn, rid, i in sanctions]).all()
        for (sn, _rid, _i), sid in zip(sanctions, sids, strict=True):
            sn.ref = sid
    engine = state.engine
    revoked = engine.revocations[state.stored_revocations:]
    if revoked:
        rows = []
        for sanction in revoked:
            by = sanction.revoked_by
            assert by is not None and by.ref is not None
            rows.append({"sanction_id": sanction_id(s, series_id, sanction),
                         "ruling_id": by.ref, **audit})
        s.execute(insert(m.Revocation), rows)
    state.stored_revocations = len(engine.revocations)


def sanction_id(s: Session, series_id: int, sanction: Sanction) -> int:
    """The stored row of a sanction the engine rebuilt from the history."""
    if sanction.ref is not None:
        return int(sanction.ref)
    ruling = sanction.ruling
    assert ruling is not None
    sid = s.scalar(select(m.SanctionRow.id).join(m.Ruling).where(
        m.Ruling.series_id == series_id, m.Ruling.position == ruling.seq,
        m.SanctionRow.position == ruling.sanctions.index(sanction)))
    assert sid is not None, "the engine replayed a sanction the ledger never stored"
    sanction.ref = sid
    return int(sid)


def jsonable(details: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, dt.date) else v) for k, v in details.items()}
