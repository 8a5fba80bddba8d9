"""A tournament's plan, as its organiser sets it (domain.plan): rounds, pairing, match points,
tie-breakers, a top cut. Configuration, not an event: the engine never reads it.

Revision ID: 0022
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0022'
down_revision = '0021'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('tournament', sa.Column('plan', sa.JSON(), nullable=True))


def downgrade() -> None:
    # (in place, no copy of the table others refer to; SQLite 3.35+ drops a column too)
    op.execute('ALTER TABLE tournament DROP COLUMN plan')
