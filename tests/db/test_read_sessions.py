"""A read session holds no transaction, on SQLite and on PostgreSQL (db.session): its reads
cost no BEGIN and no ROLLBACK, a page being read holds back no checkpoint (SQLite) and no
vacuum (PostgreSQL), and each statement reads the newest commit."""

from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from sudya.adapters.db import models as m
from sudya.app.ledger import Ledger


def test_a_read_session_holds_no_transaction(ledger: Ledger, db_engine: sa.Engine) -> None:
    ledger.create_series(name="Кубок", rulebook="berserk")
    with ledger.factory() as s:
        assert s.scalar(sa.select(m.Series.name)) == "Кубок"
        dbapi = s.connection().connection.dbapi_connection
        assert dbapi is not None
        if db_engine.dialect.name == "sqlite":
            assert not dbapi.in_transaction
        else:
            pid = s.scalar(sa.text("SELECT pg_backend_pid()"))
            with db_engine.connect() as other:
                state = other.scalar(sa.text("SELECT state FROM pg_stat_activity "
                                             "WHERE pid = :pid"), {"pid": pid})
            assert state == "idle", state  # not "idle in transaction"
        # each statement reads the newest commit, as READ COMMITTED does
        ledger.create_tournament(series="Кубок", name="Этап", date=dt.date(2026, 3, 1),
                                 level="professional")
        assert s.scalar(sa.select(sa.func.count(m.Tournament.id))) == 1


def test_a_writing_transaction_still_rolls_back_whole(ledger: Ledger) -> None:
    """The writers' sessions are transactions as before: a failure keeps nothing."""
    ledger.create_series(name="Кубок", rulebook="berserk")
    try:
        with ledger.uow().begin() as s:
            s.add(m.Series(name="Другой", rulebook="berserk", last_seq=0, created_by="t",
                           request_id="r"))
            s.flush()
            raise RuntimeError("half-way")
    except RuntimeError:
        pass
    with ledger.factory() as s:
        assert s.scalars(sa.select(m.Series.name)).all() == ["Кубок"]
