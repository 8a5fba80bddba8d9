"""Results players report for their own matches, waiting for the opponent's confirmation
(a tournament's plan lets players report): not results of the ledger until confirmed.

Revision ID: 0025
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0025'
down_revision = '0024'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'result_report',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('table_no', sa.Integer(), nullable=False),
        sa.Column('reporter', sa.String(length=100), nullable=False),
        sa.Column('score_a', sa.Integer(), nullable=False),
        sa.Column('score_b', sa.Integer(), nullable=False),
        sa.Column('disputed', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'],
                                name=op.f('fk_result_report_tournament_id_tournament')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_result_report')),
        sa.UniqueConstraint('tournament_id', 'round', 'table_no',
                            name=op.f('uq_result_report_tournament_id_round_table_no')),
    )


def downgrade() -> None:
    op.drop_table('result_report')
