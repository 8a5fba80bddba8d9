"""The row writer: one event's rulings, sanctions and revocations in a few INSERTs.

SQLAlchemy Core statements on the transaction's connection, not the ORM unit of work (nor its
bulk-insert path): the rows are plain dicts, the ids come back from RETURNING.
"""

from __future__ import annotations

import datetime as dt
from typing import Any, cast

from sqlalchemy import Table, bindparam, insert, select, update
from sqlalchemy.orm import Session

from sudya.adapters.db import models as m
from sudya.adapters.db.chain import Chain, revocation_keys, revocation_order
from sudya.adapters.db.prepared import Prepared
from sudya.app import faults
from sudya.app.projection import State
from sudya.app.views import offered_json
from sudya.domain.engine.model import FOREVER, Ruling, Sanction

SERIES = cast(Table, m.Series.__table__)
EVENT = cast(Table, m.Event.__table__)
RULING = cast(Table, m.Ruling.__table__)
SANCTION = cast(Table, m.SanctionRow.__table__)
REVOCATION = cast(Table, m.Revocation.__table__)
RESULT = cast(Table, m.Result.__table__)
STATEMENT = cast(Table, m.Statement.__table__)

# built once: a statement object keeps its cache key, so each call only binds its values
NEXT_SEQ = Prepared(update(SERIES).where(SERIES.c.id == bindparam("series"))
                    .values(last_seq=SERIES.c.last_seq + 1)
                    .returning(SERIES.c.last_seq, SERIES.c.chain_head))
SET_HEAD = Prepared(update(SERIES).where(SERIES.c.id == bindparam("series"))
                    .values(chain_head=bindparam("head")))
BY_KEY = (select(EVENT.c.id, EVENT.c.series_id, EVENT.c.tournament_id, EVENT.c.kind,
                 EVENT.c.created_by, EVENT.c.payload)
          .where(EVENT.c.idempotency_key == bindparam("key")))
INSERT_EVENT = Prepared(insert(EVENT).returning(EVENT.c.id))
INSERT_RESULT = Prepared(insert(RESULT))
_INSERT_RULINGS = Prepared(insert(RULING).returning(RULING.c.id))
_INSERT_SANCTIONS = Prepared(insert(SANCTION).returning(SANCTION.c.id))
_INSERT_REVOCATIONS = Prepared(insert(REVOCATION))
_INSERT_STATEMENT = insert(STATEMENT).returning(STATEMENT.c.id)
_HEAD = (select(SERIES.c.last_seq, SERIES.c.chain_head)
         .where(SERIES.c.id == bindparam("series")).with_for_update())


def ruling_row(r: Ruling, *, with_validity: bool) -> dict[str, Any]:
    """A ruling's stored columns (without its ids and audit), as `sudya audit` compares them."""
    return {"position": r.seq, "event_ext_id": r.event, "subject": r.subject,
            "infraction": r.infraction, "cause": r.cause, "pending": r.pending,
            "aggravated": r.aggravated, "offered": offered_json(r, with_validity),
            "revokes": r.revokes, "resolves": r.resolves, "applies_to": r.applies_to,
            "notes": [n.as_json() for n in r.notes], "edition": r.edition,
            "judge": r.judge, "round": r.round, "details": jsonable(r.details)}


def sanction_row(sn: Sanction, position: int) -> dict[str, Any]:
    """A sanction's stored columns (without its ids and audit)."""
    return {"position": position, "kind": sn.kind, "subject": sn.subject,
            "amount": sn.amount, "score": sn.score, "attached": sn.attached,
            "valid_until": None if sn.valid_until in (None, FOREVER) else sn.valid_until,
            "never_expires": sn.valid_until == FOREVER, "status": sn.status,
            "scope": sn.scope}


def store_rulings(s: Session, state: State, chain: Chain, series_id: int, event_id: int,
                  seq: int, tournament_id: int, rulings: list[Ruling],
                  audit: dict[str, Any]) -> None:
    """Insert the rulings, their sanctions and what they revoked (a few statements), each
    row linked into the series' chain in the order `db.chain.walk` reads them back."""
    with_validity = state.engine.book.validity is not None
    conn = s.connection()
    rows = []
    for r in rulings:
        row = {"event_id": event_id, "series_id": series_id, "tournament_id": tournament_id,
               **ruling_row(r, with_validity=with_validity), **audit}
        chain.add("ruling", row, event=seq)
        rows.append(row)
    ids = _INSERT_RULINGS.many(conn, rows)
    faults.point("after-rulings")
    sanctions = []
    for r, rid in zip(rulings, ids, strict=True):
        r.ref = rid
        for i, sn in enumerate(r.sanctions):
            row = {"ruling_id": rid, **sanction_row(sn, i), **audit}
            chain.add("sanction", row, ruling=r.seq)
            sanctions.append((sn, row))
    if sanctions:
        sids = _INSERT_SANCTIONS.many(conn, [row for _sn, row in sanctions])
        for (sn, _row), sid in zip(sanctions, sids, strict=True):
            sn.ref = sid
    engine = state.engine
    revoked = engine.revocations[state.stored_revocations:]
    if revoked:
        undone = []
        for sanction in revoked:
            by, ruling = sanction.revoked_by, sanction.ruling
            assert by is not None and by.ref is not None and ruling is not None
            keys = revocation_keys((ruling.seq, ruling.sanctions.index(sanction)), by.seq)
            undone.append((keys, {"sanction_id": sanction_id(s, series_id, sanction),
                                  "ruling_id": by.ref, **audit}))
        undone.sort(key=lambda kv: revocation_order(kv[0]))
        for keys, row in undone:
            chain.add("revocation", row, **keys)
        _INSERT_REVOCATIONS.many(conn, [row for _keys, row in undone])
    state.stored_revocations = len(engine.revocations)


def store_statement(s: Session, series_id: int, event_seq: int, row: dict[str, Any]) -> int:
    """Insert a statement (its columns but `series_id`, `after_seq` and `chain`) as the next
    link of the series' chain, holding the series lock; returns its id. It follows the
    series' last event in the chain (`db.chain.walk`): no event of the series can be written
    meanwhile, so its place is that event's."""
    conn = s.connection()
    last_seq, head = conn.execute(_HEAD, {"series": series_id}).one()
    chain = Chain(head)
    row = {**row, "series_id": series_id, "after_seq": last_seq}
    chain.add("statement", row, event=event_seq)
    sid = conn.execute(_INSERT_STATEMENT, row).scalar_one()
    SET_HEAD.run(conn, {"series": series_id, "head": chain.head})
    return int(sid)


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
