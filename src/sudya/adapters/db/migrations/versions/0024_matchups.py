"""The captains' matchups of a team round: each team table's games, who plays whom and who
defended. Configuration of the round, like the pairings: not events of the ledger.

Revision ID: 0024
Revises: 0023
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0024'
down_revision = '0023'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'matchup',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('table_no', sa.Integer(), nullable=False),
        sa.Column('game', sa.Integer(), nullable=False),
        sa.Column('player_a', sa.String(length=100), nullable=False),
        sa.Column('player_b', sa.String(length=100), nullable=False),
        sa.Column('defender', sa.String(length=1), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'],
                                name=op.f('fk_matchup_tournament_id_tournament')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_matchup')),
        sa.UniqueConstraint('tournament_id', 'round', 'table_no', 'game',
                            name=op.f('uq_matchup_tournament_id_round_table_no_game')),
    )


def downgrade() -> None:
    op.drop_table('matchup')
