"""fewer index entries per ruling: three indexes a longer one already serves, one made partial

Every ruling wrote 17 index entries besides its rows. Three of those indexes only repeat the
first column of another: event (series_id) of (series_id, seq), ruling (series_id) of
(series_id, position), ruling (tournament_id) of (tournament_id, position); they are dropped.
The sanctions that keep their bearer out of the series are found by scope (0013): that index
now holds those few alone (WHERE scope = 'series') instead of an entry for every sanction.
Indexes only: no row changes.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None

REPEATED = (
    ('ix_event_series_id', 'event', ['series_id']),
    ('ix_ruling_series_id', 'ruling', ['series_id']),
    ('ix_ruling_tournament_id', 'ruling', ['tournament_id']),
)
SERIES_SCOPE = sa.text("scope = 'series'")


def upgrade() -> None:
    for name, table, _columns in REPEATED:
        op.drop_index(name, table_name=table)
    op.drop_index('ix_sanction_scope', table_name='sanction')
    op.create_index('ix_sanction_series_scope', 'sanction', ['scope'], unique=False,
                    sqlite_where=SERIES_SCOPE, postgresql_where=SERIES_SCOPE)


def downgrade() -> None:
    op.drop_index('ix_sanction_series_scope', table_name='sanction')
    op.create_index('ix_sanction_scope', 'sanction', ['scope'], unique=False)
    for name, table, columns in reversed(REPEATED):
        op.create_index(name, table, columns, unique=False)
