"""Free rounds at live tables (issue 30): each live seat played as a free round keeps its reward
(``live_seats.promo_reward``) and its promo as JSON (``live_seats.promo``: campaign, reward, the
free ante the operator paid, what was left of the cap, what the cap forfeited).

Revision ID: 0027
Revises: 0024
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("live_seats") as batch:
        batch.add_column(sa.Column("promo_reward", sa.String(40), nullable=True))
        batch.add_column(sa.Column("promo", sa.Text, nullable=True))
    op.create_index("ix_live_seats_promo_reward", "live_seats", ["promo_reward"])


def downgrade() -> None:
    op.drop_index("ix_live_seats_promo_reward", "live_seats")
    with op.batch_alter_table("live_seats") as batch:
        batch.drop_column("promo")
        batch.drop_column("promo_reward")
