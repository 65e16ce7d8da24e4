"""Free bets (issue 30): operators' campaigns (``promo_campaigns``: the operator's idempotency id,
games, ante per currency, rounds, validity window, optional cap on winnings), the rewards granted
to their players (``promo_rewards``: rounds granted and used), and each free round's link to its
reward (``rounds.promo_reward``, ``rounds.promo``: the campaign, reward and free ante as JSON) and
the promotional flag of the win it owes (``wallet_transactions.promo``).

Revision ID: 0023
Revises: 0021
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "promo_campaigns",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("operator_id", sa.String(32), nullable=False),
        sa.Column("external_id", sa.String(100), nullable=False),
        sa.Column("body_sha256", sa.String(64), nullable=False),
        sa.Column("name", sa.String(200), nullable=True),
        sa.Column("games", sa.Text, nullable=False),
        sa.Column("ante", sa.Text, nullable=False),
        sa.Column("max_win", sa.Text, nullable=True),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("valid_from", sa.String(32), nullable=False),
        sa.Column("valid_until", sa.String(32), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("cancelled_at", sa.String(32), nullable=True),
        sa.UniqueConstraint("operator_id", "external_id", name="uq_promo_campaigns_operator_external"),
    )
    op.create_index("ix_promo_campaigns_operator_created", "promo_campaigns", ["operator_id", "created_at"])
    op.create_table(
        "promo_rewards",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("campaign_id", sa.String(40), sa.ForeignKey("promo_campaigns.id"), nullable=False),
        sa.Column("operator_id", sa.String(32), nullable=False),
        sa.Column("player", sa.String(64), nullable=False),
        sa.Column("rounds", sa.Integer, nullable=False),
        sa.Column("rounds_used", sa.Integer, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("campaign_id", "player", name="uq_promo_rewards_campaign_player"),
    )
    op.create_index("ix_promo_rewards_operator_player", "promo_rewards", ["operator_id", "player"])
    with op.batch_alter_table("rounds") as batch:
        batch.add_column(sa.Column("promo_reward", sa.String(40), nullable=True))
        batch.add_column(sa.Column("promo", sa.Text, nullable=True))
    op.create_index("ix_rounds_promo_reward", "rounds", ["promo_reward"])
    with op.batch_alter_table("wallet_transactions") as batch:
        batch.add_column(sa.Column("promo", sa.Text, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("wallet_transactions") as batch:
        batch.drop_column("promo")
    op.drop_index("ix_rounds_promo_reward", "rounds")
    with op.batch_alter_table("rounds") as batch:
        batch.drop_column("promo")
        batch.drop_column("promo_reward")
    op.drop_index("ix_promo_rewards_operator_player", "promo_rewards")
    op.drop_table("promo_rewards")
    op.drop_index("ix_promo_campaigns_operator_created", "promo_campaigns")
    op.drop_table("promo_campaigns")
