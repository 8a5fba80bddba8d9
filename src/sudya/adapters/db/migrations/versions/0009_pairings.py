"""pairings: who plays whom at which table in a round (imported per round, as a whole)

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'pairing',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('table_no', sa.Integer(), nullable=False),
        sa.Column('player_a', sa.String(length=100), nullable=False),
        sa.Column('player_b', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'],
                                name=op.f('fk_pairing_tournament_id_tournament')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_pairing')),
        sa.UniqueConstraint('tournament_id', 'round', 'table_no',
                            name=op.f('uq_pairing_tournament_id_round_table_no')),
    )
    with op.batch_alter_table('pairing', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pairing_tournament_id'), ['tournament_id'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('pairing', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pairing_tournament_id'))
    op.drop_table('pairing')
