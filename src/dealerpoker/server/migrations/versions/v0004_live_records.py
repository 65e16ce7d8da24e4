"""Live round audit records: each seat's itemised settlement, each round's settlement time.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The settlement lines as the engine computed them when the round was settled: the audit
    # record shows what was stored, so a verifier re-settling the round can catch a difference.
    with op.batch_alter_table("live_seats") as batch:
        batch.add_column(sa.Column("settlement", sa.Text, nullable=True))
    # Set by the settlement commit: exports and reports select settled rounds by this time.
    with op.batch_alter_table("live_rounds") as batch:
        batch.add_column(sa.Column("settled_at", sa.String(32), nullable=True))
    op.create_index("ix_live_rounds_settled", "live_rounds", ["settled_at"])
    op.create_index("ix_live_seats_player_updated", "live_seats", ["player_id", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_live_seats_player_updated", "live_seats")
    op.drop_index("ix_live_rounds_settled", "live_rounds")
    with op.batch_alter_table("live_rounds") as batch:
        batch.drop_column("settled_at")
    with op.batch_alter_table("live_seats") as batch:
        batch.drop_column("settlement")
