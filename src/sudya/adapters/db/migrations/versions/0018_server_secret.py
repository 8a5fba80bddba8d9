"""The server's shared secret (signs CSRF and preview tokens): one row per secret, made on the
first start, so every worker and every restart signs alike.

Revision ID: 0018
Revises: 0017
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0018'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'server_secret',
        sa.Column('name', sa.String(length=50), nullable=False),
        sa.Column('value', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('name', name=op.f('pk_server_secret')),
    )


def downgrade() -> None:
    op.drop_table('server_secret')
