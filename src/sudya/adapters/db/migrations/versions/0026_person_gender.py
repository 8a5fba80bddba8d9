"""A person's gender, where it is known (`m` or `f`; null: not known): the pages' Russian
agrees with it («дисквалифицирован», «дисквалифицирована»), and says it neutrally when it is
not known. Not a fact the engine reads, so not in the ledger's events.

Revision ID: 0026
Revises: 0025
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0026'
down_revision = '0025'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('person', sa.Column('gender', sa.String(length=1), nullable=True))


def downgrade() -> None:
    # (in place, no copy of the table others refer to; SQLite 3.35+ drops a column too)
    op.execute('ALTER TABLE person DROP COLUMN gender')
