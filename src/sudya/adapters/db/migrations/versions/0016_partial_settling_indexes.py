"""the indexes of the records that settle or revoke a ruling hold only those records

A ruling names the event it revokes (an appeal, a correction, a cancellation) or the pending
ruling it resolves (a decision) in `revokes` and `resolves`; for every other ruling, nearly
all of them, both are null. The two indexes that find those records by the event (0013) held
an entry for every ruling, nulls included: two index pages more written by every ruling
(every lookup names an event, so never a null). They now hold the rulings that name one
(WHERE … IS NOT NULL), as ix_sanction_series_scope holds only series-scoped sanctions (0015).
Indexes only: no row changes.

Revision ID: 0016
Revises: 0015
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0016'
down_revision = '0015'
branch_labels = None
depends_on = None

SETTLING = (
    ('ix_ruling_series_id_resolves', 'resolves'),
    ('ix_ruling_series_id_revokes', 'revokes'),
)


def upgrade() -> None:
    for name, column in SETTLING:
        named = sa.text(f"{column} IS NOT NULL")
        op.drop_index(name, table_name='ruling')
        op.create_index(name, 'ruling', ['series_id', column], unique=False,
                        sqlite_where=named, postgresql_where=named)


def downgrade() -> None:
    for name, column in SETTLING:
        op.drop_index(name, table_name='ruling')
        op.create_index(name, 'ruling', ['series_id', column], unique=False)
