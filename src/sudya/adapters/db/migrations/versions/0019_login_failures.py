"""Failed logins per username and per address, in the database: every worker counts the
same attempts, and an attempt is counted before its password is hashed.

Revision ID: 0019
Revises: 0018
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0019'
down_revision = '0018'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'login_failure',
        sa.Column('key', sa.String(length=200), nullable=False),
        sa.Column('failures', sa.Integer(), nullable=False),
        sa.Column('last_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('key', name=op.f('pk_login_failure')),
    )
    op.create_index('ix_login_failure_last_at', 'login_failure', ['last_at'])


def downgrade() -> None:
    op.drop_index('ix_login_failure_last_at', table_name='login_failure')
    op.drop_table('login_failure')
