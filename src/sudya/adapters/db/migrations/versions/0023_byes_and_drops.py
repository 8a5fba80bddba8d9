"""Swiss rounds paired by Sudya: the bye of each round, and a player's drop (the round after
which they play no more; re-entered: none). Configuration of the rounds, like the pairings:
not events of the ledger.

Revision ID: 0023
Revises: 0022
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0023'
down_revision = '0022'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'round_bye',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('player', sa.String(length=100), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'],
                                name=op.f('fk_round_bye_tournament_id_tournament')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_round_bye')),
        sa.UniqueConstraint('tournament_id', 'round',
                            name=op.f('uq_round_bye_tournament_id_round')),
    )
    op.add_column('entry', sa.Column('dropped_after', sa.Integer(), nullable=True))


def downgrade() -> None:
    # (in place, no copy of the table others refer to; SQLite 3.35+ drops a column too)
    op.execute('ALTER TABLE entry DROP COLUMN dropped_after')
    op.drop_table('round_bye')
