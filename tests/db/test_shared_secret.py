"""Issue 35: the secret tokens are signed with is one for every worker and every restart:
made on the first start and kept in the database; SUDYA_SECRET, when set, instead."""

from __future__ import annotations

import sqlalchemy as sa

from sudya.adapters.db.session import make_engine
from sudya.app.core import Sudya
from sudya.app.ledger import Ledger


def test_two_workers_and_a_restart_sign_alike(db_url: str, ledger: Ledger) -> None:
    first = Sudya(ledger).secret()
    other = Ledger(make_engine(db_url))  # another worker, or the server after a restart
    try:
        assert Sudya(other).secret() == first
        assert len(first) == 64
        assert Sudya(other).secret("from-the-environment") == "from-the-environment"
    finally:
        other.db.dispose()
    with ledger.factory() as s:
        assert s.scalar(sa.text("SELECT count(*) FROM server_secret")) == 1
