"""engine snapshots: a series' engine state as of an event, so a restart need not replay it all

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0012'
down_revision = '0011'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'engine_snapshot',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('series_id', sa.Integer(), nullable=False),
        sa.Column('seq', sa.Integer(), nullable=False),
        sa.Column('chain', sa.String(length=64), nullable=False),
        sa.Column('code', sa.String(length=64), nullable=False),
        sa.Column('digest', sa.String(length=64), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.ForeignKeyConstraint(['series_id'], ['series.id'],
                                name=op.f('fk_engine_snapshot_series_id_series')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_engine_snapshot')),
    )
    with op.batch_alter_table('engine_snapshot', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_engine_snapshot_series_id'), ['series_id'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('engine_snapshot', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_engine_snapshot_series_id'))
    op.drop_table('engine_snapshot')
