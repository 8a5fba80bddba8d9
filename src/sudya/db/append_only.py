"""The database itself refuses UPDATE and DELETE on the ledger's append-only tables."""

from __future__ import annotations

from sqlalchemy import Connection, text

APPEND_ONLY = ("event", "ruling", "sanction", "revocation", "result")


def create_triggers(conn: Connection) -> None:
    if conn.dialect.name == "postgresql":
        conn.execute(text(
            "CREATE OR REPLACE FUNCTION sudya_append_only() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RAISE EXCEPTION 'sudya: % is append-only', TG_TABLE_NAME; END $$"))
        for table in APPEND_ONLY:
            conn.execute(text(f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON "
                              f"{table} FOR EACH ROW EXECUTE FUNCTION sudya_append_only()"))
        return
    for table in APPEND_ONLY:
        for action in ("UPDATE", "DELETE"):
            conn.execute(text(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, 'sudya: {table} is append-only'); END"))


def drop_triggers(conn: Connection) -> None:
    """Only for a migration that must rewrite stored rows once (it recreates them)."""
    for table in APPEND_ONLY:
        if conn.dialect.name == "postgresql":
            conn.execute(text(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table}"))
            continue
        for action in ("update", "delete"):
            conn.execute(text(f"DROP TRIGGER IF EXISTS {table}_no_{action}"))
