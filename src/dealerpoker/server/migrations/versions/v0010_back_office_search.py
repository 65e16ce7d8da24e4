"""The back office's round search and reports (rounds by opening time, and per game, and by
settlement time; live rounds by opening time), and its hold and timers of each live table.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rounds_created", "rounds", ["created_at"])
    op.create_index("ix_rounds_game_created", "rounds", ["game", "created_at"])
    op.create_index("ix_rounds_settled", "rounds", ["settled_at"])
    op.create_index("ix_live_rounds_created", "live_rounds", ["created_at"])
    op.create_table(
        "live_table_controls",
        sa.Column("table_id", sa.String(40), primary_key=True),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("timers", sa.Text, nullable=True),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("live_table_controls")
    op.drop_index("ix_live_rounds_created", "live_rounds")
    op.drop_index("ix_rounds_settled", "rounds")
    op.drop_index("ix_rounds_game_created", "rounds")
    op.drop_index("ix_rounds_created", "rounds")
