"""Provably fair solo play: the committed seed of each player's next round; stored rules documents.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # The server seed of the player's NEXT round: drawn (and its SHA-256 shown) before they bet,
    # used by their next round, then replaced. Never shown before that round is settled.
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("next_server_seed", sa.String(64), nullable=True))
    # Every rules document a round was played under, by fingerprint, so a round's audit record
    # holds the exact paytables and limits even after the operator changes the rules.
    op.create_table(
        "rules_documents",
        sa.Column("fingerprint", sa.String(64), primary_key=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("rules_version", sa.String(64), nullable=False),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("rules_documents")
    with op.batch_alter_table("players") as batch:
        batch.drop_column("next_server_seed")
