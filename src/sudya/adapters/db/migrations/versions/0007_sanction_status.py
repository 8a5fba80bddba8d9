"""a stored sanction keeps the status it gives and its scope (regulations.md §4 E7, E9)

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (no batch copy of the table): the append-only triggers stay in place
    op.add_column('sanction', sa.Column('status', sa.String(length=20), nullable=True))
    op.add_column('sanction', sa.Column('scope', sa.String(length=20), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('sanction', schema=None) as batch_op:
        batch_op.drop_column('scope')
        batch_op.drop_column('status')
