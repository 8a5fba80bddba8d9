"""Accounts an organiser runs from the web app: an account that may start series of its own
(the first organiser of an install), and one-time codes that set a password (an invitation,
a reset) so a password never travels on a command line or through another person.

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0021'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column('app_user', sa.Column('may_start_series', sa.Boolean(), nullable=False,
                                        server_default=sa.false()))
    op.create_table(
        'password_code',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('code_hash', sa.String(length=64), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['app_user.id'],
                                name=op.f('fk_password_code_user_id_app_user')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_password_code')),
        sa.UniqueConstraint('code_hash', name=op.f('uq_password_code_code_hash')),
    )
    op.create_index(op.f('ix_password_code_user_id'), 'password_code', ['user_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_password_code_user_id'), table_name='password_code')
    op.drop_table('password_code')
    # (in place, no copy of the table others refer to; SQLite 3.35+ drops a column too)
    op.execute('ALTER TABLE app_user DROP COLUMN may_start_series')
