"""Sessions: each bearer token's beginning, last use and end (idle and absolute expiry, logout,
revocation; ``server.sessions``).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("last_seen_at", sa.String(32), nullable=False),
        sa.Column("ended_at", sa.String(32), nullable=True),
        sa.Column("end_reason", sa.String(16), nullable=True),
    )
    op.create_index("ix_sessions_player", "sessions", ["player_id"])


def downgrade() -> None:
    op.drop_index("ix_sessions_player", "sessions")
    op.drop_table("sessions")
