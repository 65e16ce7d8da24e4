"""The jurisdiction profile each live seat was played under (``live_seats.jurisdiction``: the
profile's enforced settings as JSON, with its id and version, as ``rounds.jurisdiction`` keeps
a solo round's; null for seats before this revision).

Revision ID: 0021
Revises: 0020
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("live_seats") as batch:
        batch.add_column(sa.Column("jurisdiction", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("live_seats") as batch:
        batch.drop_column("jurisdiction")
