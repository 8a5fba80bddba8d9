"""A published rulebook edition belongs to the series it was published for: a bundled rulebook
is never changed for everyone, and an organiser's edition is in force only in their series.
Editions published before (no series) stay shared, as they were.

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0020'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    # plain ADD COLUMN (no batch copy of the table): the append-only triggers stay in place;
    # SQLite takes the column's REFERENCES clause in place too, not a constraint added apart
    if op.get_bind().dialect.name == 'sqlite':
        op.execute('ALTER TABLE rulebook_edition ADD COLUMN series_id INTEGER '
                   'CONSTRAINT fk_rulebook_edition_series_id_series REFERENCES series (id)')
    else:
        op.add_column('rulebook_edition', sa.Column(
            'series_id', sa.Integer(),
            sa.ForeignKey('series.id', name=op.f('fk_rulebook_edition_series_id_series')),
            nullable=True))
    op.create_index(op.f('ix_rulebook_edition_series_id'), 'rulebook_edition', ['series_id'])


def downgrade() -> None:
    op.drop_index(op.f('ix_rulebook_edition_series_id'), table_name='rulebook_edition')
    with op.batch_alter_table('rulebook_edition', schema=None) as batch_op:
        batch_op.drop_column('series_id')
