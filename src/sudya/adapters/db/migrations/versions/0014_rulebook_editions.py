"""rulebook editions in the ledger: an organiser's rulebooks, each edition published once

Revision ID: 0014
Revises: 0013

One row per published edition (services.rulebook_store): the rulebook id, the edition number
as text (as the files: "1", "2"…), the YAML text as published and its SHA-256, the day it is in
force from (NULL: «со следующего турнира», from the first tournament dated on or after the day
it was published), what changed, the cases it passed, and who published it when (Audited).
Append-only like the ledger (its own triggers): a published edition is never changed, only
followed by another. Not a series' record, so not chained (db.chain).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from sudya.adapters.db.append_only import RULEBOOKS, create_triggers, drop_triggers

revision = '0014'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'rulebook_edition',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('rulebook', sa.String(length=200), nullable=False),
        sa.Column('edition', sa.String(length=20), nullable=False),
        sa.Column('text', sa.Text(), nullable=False),
        sa.Column('sha256', sa.String(length=64), nullable=False),
        sa.Column('in_force_from', sa.Date(), nullable=True),
        sa.Column('summary', sa.String(length=2000), nullable=False),
        sa.Column('cases', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True),
                  server_default=sa.text('(CURRENT_TIMESTAMP)'), nullable=False),
        sa.Column('created_by', sa.String(length=100), nullable=False),
        sa.Column('request_id', sa.String(length=64), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_rulebook_edition')),
        sa.UniqueConstraint('rulebook', 'edition', name=op.f('uq_rulebook_edition_rulebook_edition')),
    )
    with op.batch_alter_table('rulebook_edition', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_rulebook_edition_rulebook'), ['rulebook'],
                              unique=False)
    create_triggers(op.get_bind(), RULEBOOKS)  # a published edition is never changed


def downgrade() -> None:
    drop_triggers(op.get_bind(), RULEBOOKS)
    with op.batch_alter_table('rulebook_edition', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_rulebook_edition_rulebook'))
    op.drop_table('rulebook_edition')
