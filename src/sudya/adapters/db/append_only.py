"""The database itself refuses UPDATE and DELETE on the ledger's append-only tables."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import Connection, text

# the tables append-only since the first revision (0001, chained by 0008), and those added
# later with their own revision: a migration names the tables it knows, never all of them
LEDGER = ("event", "ruling", "sanction", "revocation", "result")
STATEMENTS = ("statement",)  # 0011: statements about a disqualification or suspension
APPEND_ONLY = LEDGER + STATEMENTS
# 0014: published rulebook editions; append-only too, but no series' records (not chained)
RULEBOOKS = ("rulebook_edition",)


def create_triggers(conn: Connection, tables: Sequence[str] = APPEND_ONLY) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text(
            "CREATE OR REPLACE FUNCTION sudya_append_only() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'sudya: % is append-only', TG_TABLE_NAME; END $$"))
        for table in tables:
            conn.execute(text(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON "
                              f"{table} FOR EACH ROW EXECUTE FUNCTION sudya_append_only()"))
        return
    for table in tables:
        for action in ("UPDATE", "DELETE"):
            conn.execute(text(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'sudya: {table} is append-only'); END"))


def drop_triggers(conn: Connection, tables: Sequence[str] = APPEND_ONLY) -> None:
    """Only for a migration that must rewrite stored rows once (it recreates them)."""
    for table in tables:
        if conn.dialect.name == "postgresql":
            conn.execute(text(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}"))
            continue
        for action in ("update", "delete"):
            conn.execute(text(f"DROP TRIGGER IF EXISTS {table}_no_{action}"))
