"""Alembic environment: migrations run on the connection Sudya hands over."""

from __future__ import annotations

from alembic import context

import sudya.adapters.db.deck_models  # noqa: F401  (its tables are part of the schema)
from sudya.adapters.db.models import Base

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=Base.metadata,
                  render_as_batch=True, compare_type=True)
with context.begin_transaction():
    context.run_migrations()
