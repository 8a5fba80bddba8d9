"""tamper evidence: every append-only row is chained per series by SHA-256 (db.chain)

Revision ID: 0008
Revises: 0007

Rows stored before this revision are chained here, once, in the order the writer chains new
ones; to write their hashes the append-only triggers are dropped for the length of this
migration's transaction and created again before it ends. Verification runs are kept in
`audit_check`.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from sudya.adapters.db import chain
from sudya.adapters.db.append_only import LEDGER, create_triggers, drop_triggers

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None


def upgrade() -> None:
    for table in LEDGER:  # plain ADD COLUMN: the triggers stay until the backfill
        op.add_column(table, sa.Column('chain', sa.String(length=64), nullable=True))
    op.add_column('series', sa.Column('chain_head', sa.String(length=64), nullable=True))
    op.create_table(
        'audit_check',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('series_id', sa.Integer(), nullable=False),
        sa.Column('records', sa.Integer(), nullable=False),
        sa.Column('ok', sa.Boolean(), nullable=False),
        sa.Column('head', sa.String(length=64), nullable=True),
        sa.Column('code', sa.String(length=50), nullable=False),
        sa.Column('params', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.ForeignKeyConstraint(['series_id'], ['series.id'],
                                name=op.f('fk_audit_check_series_id_series')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_check')))
    with op.batch_alter_table('audit_check', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_check_series_id'), ['series_id'],
                              unique=False)
    _chain_stored_rows()


def _chain_stored_rows() -> None:
    bind = op.get_bind()
    series = bind.execute(sa.text("SELECT id FROM series ORDER BY id")).scalars().all()
    if not bind.execute(sa.text("SELECT 1 FROM event LIMIT 1")).first():
        return  # nothing stored yet: the writer chains from the first row
    drop_triggers(bind, LEDGER)
    for series_id in series:
        running = chain.Chain(None)
        for row in list(chain.walk(bind, series_id, statements=False)):
            running.add(row.table, dict(row.row), **row.keys)
            bind.execute(sa.text(f"UPDATE {row.table} SET chain = :h WHERE id = :id"),
                         {"h": running.head, "id": row.id})
        bind.execute(sa.text("UPDATE series SET chain_head = :h WHERE id = :id"),
                     {"h": running.head or None, "id": series_id})
    create_triggers(bind, LEDGER)


def downgrade() -> None:
    with op.batch_alter_table('audit_check', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_check_series_id'))
    op.drop_table('audit_check')
    op.drop_column('series', 'chain_head')
    for table in LEDGER:  # in place (SQLite ≥ 3.35 too): the triggers stay
        op.drop_column(table, 'chain')
