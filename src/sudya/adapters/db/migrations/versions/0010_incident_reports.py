"""incident reports: a judge's account filed for a judge who may rule, waiting until settled

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'incident_report',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('tournament_id', sa.Integer(), nullable=False),
        sa.Column('subject', sa.String(length=100), nullable=False),
        sa.Column('table_no', sa.Integer(), nullable=True),
        sa.Column('round', sa.Integer(), nullable=True),
        sa.Column('text', sa.String(length=2000), nullable=False),
        sa.Column('idempotency_key', sa.String(length=100), nullable=True),
        sa.Column('settled_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('settled_by', sa.String(length=100), nullable=True),
        sa.Column('event_ext_id', sa.String(length=100), nullable=True),
        sa.Column('settled_note', sa.String(length=1000), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['tournament_id'], ['tournament.id'],
                                name=op.f('fk_incident_report_tournament_id_tournament')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_incident_report')),
        sa.UniqueConstraint('idempotency_key',
                            name=op.f('uq_incident_report_idempotency_key')),
    )
    with op.batch_alter_table('incident_report', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_incident_report_tournament_id'),
                              ['tournament_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('incident_report', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_incident_report_tournament_id'))
    op.drop_table('incident_report')
