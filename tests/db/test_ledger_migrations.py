"""Migrations on SQLite and PostgreSQL: an empty database to the newest schema, the refusal
to work on an unmigrated database (Python and CLI), and down to base and up again."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from ledger_testkit import SLOW, run_cli, setup_berserk

from sudya.adapters.db import migrate
from sudya.adapters.db.migrate import current, head, require_current, upgrade
from sudya.adapters.db.models import APPEND_ONLY_TABLES, Base
from sudya.adapters.db.session import DatabaseError, make_engine
from sudya.app.ledger import Ledger
from sudya.app.statements import add_statement
from sudya.domain.commands import decode_statement


def tables(engine: sa.Engine) -> set[str]:
    return set(sa.inspect(engine).get_table_names())


def refusal(engine: sa.Engine) -> str:
    with pytest.raises(DatabaseError) as err:
        require_current(engine)
    message = str(err.value)
    assert "sudya db upgrade" in message
    assert "\n" not in message
    return message


def test_upgrade_from_an_empty_database(db_url: str) -> None:
    engine = make_engine(db_url)
    try:
        assert tables(engine) == set()
        assert current(engine) is None
        assert "empty" in refusal(engine)

        # one revision at a time: every revision short of the head is refused by name
        revisions = [r.revision for r in
                     ScriptDirectory.from_config(migrate._config()).walk_revisions()]
        assert revisions[0] == head()
        for rev in reversed(revisions[1:]):
            upgrade(engine, rev)
            assert current(engine) == rev
            assert f"schema is {rev}" in refusal(engine)

        upgrade(engine)
        assert current(engine) == head()
        assert tables(engine) == set(Base.metadata.tables) | {"alembic_version"}
        require_current(engine)  # no complaint
        with engine.connect() as conn:  # the migrations build exactly what the models say
            ctx = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(ctx, Base.metadata) == []

        upgrade(engine)  # again: nothing to do
        assert current(engine) == head()

        ledger = Ledger(engine)
        _sid, tid = setup_berserk(ledger)
        assert ledger.record(tournament=tid, infraction=SLOW, player="bob")[0].cause == "table"
    finally:
        engine.dispose()


def test_downgrade_to_base_and_upgrade_again(db_engine: sa.Engine) -> None:
    ledger = Ledger(db_engine)
    _sid, tid = setup_berserk(ledger)
    ledger.record(tournament=tid, infraction=SLOW, player="bob")

    cfg = migrate._config()  # the same configuration `sudya db upgrade` uses
    with db_engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "base")
    assert tables(db_engine) == {"alembic_version"}
    assert current(db_engine) is None
    assert "empty" in refusal(db_engine)
    if db_engine.dialect.name == "postgresql":
        with db_engine.connect() as conn:
            assert conn.scalar(sa.text(
                "SELECT count(*) FROM pg_proc WHERE proname = 'sudya_append_only'")) == 0

    upgrade(db_engine)
    assert current(db_engine) == head()
    assert tables(db_engine) == set(Base.metadata.tables) | {"alembic_version"}
    ledger = Ledger(db_engine)
    _sid, tid = setup_berserk(ledger)
    assert ledger.record(tournament=tid, infraction=SLOW, player="bob", event_id="s1",
                         judge="oleg")[0].cause == "table"
    ledger.appeal(tournament=tid, of="s1", outcome="overturned", judge="anna")
    ledger.record_result(tournament=tid, players=("alice", "bob"), score=(2, 1))
    ledger.record(tournament=tid, infraction="cheating.fraud", player="carol", event_id="dq")
    add_statement(ledger, decode_statement({"tournament": tid, "event": "dq",
                                            "role": "player", "text": "I did not."}))
    # the append-only triggers came back with the tables (every table has a row to protect)
    for table in APPEND_ONLY_TABLES:
        with pytest.raises(sa.exc.DBAPIError, match="append-only"), db_engine.begin() as conn:
            conn.execute(sa.text(f"DELETE FROM {table}"))
    with db_engine.connect() as conn:
        assert conn.scalar(sa.text("SELECT count(*) FROM event WHERE kind = 'infraction'")) == 2


def test_cli_refuses_an_unmigrated_database_until_upgraded(db_url: str, tmp_path) -> None:
    run = run_cli("record", SLOW, "-t", "1", "--player", "bob", "--db", db_url, cwd=tmp_path)
    assert run.returncode == 2, run
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert lines[0].startswith("sudya: ") and "`sudya db upgrade`" in lines[0]
    engine = make_engine(db_url)
    try:
        assert tables(engine) == set()  # the refusal created nothing

        up = run_cli("db", "upgrade", "--db", db_url, cwd=tmp_path)
        assert up.returncode == 0, up
        assert head() in up.stdout
        assert current(engine) == head()

        require_current(engine)
    finally:
        engine.dispose()
