"""`sudya db upgrade` and the check that refuses to work on an unmigrated database."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine

from sudya.adapters.db.session import DatabaseError

MIGRATIONS = Path(__file__).parent / "migrations"


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head() -> str:
    head_rev = ScriptDirectory.from_config(_config()).get_current_head()
    assert head_rev is not None
    return head_rev


def current(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Migrate the database to the newest schema."""
    cfg = _config()
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def require_current(engine: Engine) -> None:
    """Refuse to work on a database that is not at the newest schema."""
    rev = current(engine)
    if rev != head():
        raise DatabaseError("db.not-migrated" if rev is None else "db.old-schema",
                            field="--db", revision=rev or "", head=head() or "")
