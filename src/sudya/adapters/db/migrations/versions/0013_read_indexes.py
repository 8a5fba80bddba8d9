"""read indexes: the read side reads one tournament's rulings, not its series'

A tournament's rulings in engine order (ruling: tournament_id, position); the records that
settle or revoke a ruling, found by its event within the series (ruling: series_id, resolves
and series_id, revokes); a series' events of one kind — its corrections, appeals —
(event: series_id, kind); the few sanctions that keep their bearer out of the series
(sanction: scope). Indexes only: no row changes.

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

from alembic import op

revision = '0013'
down_revision = '0012'
branch_labels = None
depends_on = None

INDEXES = (
    ('ix_ruling_tournament_id_position', 'ruling', ['tournament_id', 'position']),
    ('ix_ruling_series_id_resolves', 'ruling', ['series_id', 'resolves']),
    ('ix_ruling_series_id_revokes', 'ruling', ['series_id', 'revokes']),
    ('ix_event_series_id_kind', 'event', ['series_id', 'kind']),
    ('ix_sanction_scope', 'sanction', ['scope']),
)


def upgrade() -> None:
    # CREATE INDEX needs no batch table copy on SQLite (the append-only triggers stay)
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns, unique=False)


def downgrade() -> None:
    for name, table, _columns in reversed(INDEXES):
        op.drop_index(name, table_name=table)
