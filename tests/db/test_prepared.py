"""db.prepared: a hot write statement run on the DBAPI cursor stores what Connection.execute
would store, and fails as it would (a real SQLite file and a real PostgreSQL)."""

from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from sudya.adapters.db import models as m
from sudya.adapters.db.prepared import Prepared
from sudya.app.ledger import Ledger

SANCTION = m.SanctionRow.__table__
INSERT = Prepared(sa.insert(SANCTION).returning(SANCTION.c.id))


def _sanction(ruling_id: int, position: int, **changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "ruling_id": ruling_id, "position": position, "kind": "warning", "subject": "alice",
        "amount": 2.5, "score": None, "attached": True, "valid_until": dt.date(2026, 5, 1),
        "never_expires": False, "status": "active", "scope": None, "chain": "x",
        "created_by": "anna", "request_id": None,
        "created_at": dt.datetime(2026, 3, 1, 12, 30, 15, 123456, tzinfo=dt.UTC)}
    row.update(changes)
    return row


def _a_ruling(ledger: Ledger, tournament: int) -> int:
    ledger.record(tournament=tournament, infraction="procedure.minor", player="alice")
    with ledger.factory() as s:
        found = s.scalar(sa.select(sa.func.max(m.Ruling.id)))
    assert found is not None
    return found


def test_a_prepared_insert_stores_what_execute_stores(
        ledger: Ledger, berserk: tuple[int, int]) -> None:
    ruling = _a_ruling(ledger, berserk[1])
    with ledger.db.begin() as conn:
        (mine,) = INSERT.run(conn, _sanction(ruling, 7)) or (None,)
        theirs = conn.execute(sa.insert(SANCTION).returning(SANCTION.c.id),
                              _sanction(ruling, 8)).scalar_one()
    with ledger.db.connect() as conn:
        rows = {r.position: r._asdict() for r in conn.execute(
            sa.select(SANCTION).where(SANCTION.c.id.in_([mine, theirs])))}
    assert set(rows) == {7, 8}
    for row in rows.values():
        row.pop("id"), row.pop("position")
    assert rows[7] == rows[8]
    assert rows[7]["valid_until"] == dt.date(2026, 5, 1) and rows[7]["attached"] is True


def test_a_refused_row_raises_sqlalchemys_error_and_a_default_left_out_is_refused(
        ledger: Ledger, berserk: tuple[int, int]) -> None:
    ruling = _a_ruling(ledger, berserk[1])
    with pytest.raises(sa.exc.IntegrityError), ledger.db.begin() as conn:
        INSERT.run(conn, _sanction(ruling + 1000, 0))  # no such ruling: the foreign key
    without_default = _sanction(ruling, 0)
    del without_default["created_by"]  # a column the model fills in Python
    with pytest.raises(ValueError, match="created_by"), ledger.db.begin() as conn:
        INSERT.run(conn, without_default)
