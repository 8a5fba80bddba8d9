"""Handles' skeletons: what each person's and team's handle looks like (Unicode TR39
confusables, sudya.domain.handles), so a new handle that looks like one already there
(`ivаn` with a Cyrillic «а» beside `ivan`) is refused by one indexed lookup. Existing rows get
theirs here.

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from sudya.domain.handles import skeleton

revision = '0017'
down_revision = '0016'
branch_labels = None
depends_on = None

TABLES = ('person', 'team')


def upgrade() -> None:
    conn = op.get_bind()
    for table in TABLES:
        # a nullable column added in place (a batch would copy the table, which its foreign
        # keys refuse on SQLite)
        op.add_column(table, sa.Column('skeleton', sa.String(length=100), nullable=True))
        rows = conn.execute(sa.text(f"SELECT id, handle FROM {table}")).all()
        for row_id, handle in rows:
            conn.execute(sa.text(f"UPDATE {table} SET skeleton = :s WHERE id = :i"),
                         {"s": skeleton(handle), "i": row_id})
        op.create_index(f'ix_{table}_skeleton', table, ['skeleton'], unique=False)


def downgrade() -> None:
    for table in TABLES:
        op.drop_index(f'ix_{table}_skeleton', table_name=table)
        op.drop_column(table, 'skeleton')
