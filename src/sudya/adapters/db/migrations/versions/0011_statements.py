"""statements about a disqualification or suspension: append-only, chained per series

Revision ID: 0011
Revises: 0010

The player's, the opponent's, witnesses' and the head judge's statements for a DQ report
(services.statements). The table is append-only like the ledger's (its own triggers) and each
row is a link of its series' hash chain (db.chain); a new table has no rows to chain.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from sudya.adapters.db.append_only import STATEMENTS, create_triggers, drop_triggers

revision = '0011'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'statement',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('series_id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('after_seq', sa.Integer(), nullable=False),
        sa.Column('role', sa.String(length=20), nullable=False),
        sa.Column('author', sa.String(length=200), nullable=False),
        sa.Column('text', sa.String(length=4000), nullable=False),
        sa.Column('rule_cited', sa.String(length=200), nullable=True),
        sa.Column('decision', sa.String(length=2000), nullable=True),
        sa.Column('idempotency_key', sa.String(length=100), nullable=True),
        sa.Column('chain', sa.String(length=64), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['event_id'], ['event.id'],
                                name=op.f('fk_statement_event_id_event')),
        sa.ForeignKeyConstraint(['series_id'], ['series.id'],
                                name=op.f('fk_statement_series_id_series')),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'],
                                name=op.f('fk_statement_tournament_id_tournament')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_statement')),
        sa.UniqueConstraint('idempotency_key', name=op.f('uq_statement_idempotency_key')),
    )
    with op.batch_alter_table('statement', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_statement_event_id'), ['event_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_statement_series_id'), ['series_id'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_statement_tournament_id'), ['tournament_id'],
                              unique=False)
    create_triggers(op.get_bind(), STATEMENTS)  # append-only, as the ledger


def downgrade() -> None:
    drop_triggers(op.get_bind(), STATEMENTS)
    with op.batch_alter_table('statement', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_statement_tournament_id'))
        batch_op.drop_index(batch_op.f('ix_statement_series_id'))
        batch_op.drop_index(batch_op.f('ix_statement_event_id'))
    op.drop_table('statement')
