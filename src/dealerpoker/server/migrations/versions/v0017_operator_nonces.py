"""The nonces of operators' signed requests (``operator_nonces``): a request signed with a nonce
already seen from that operator is a replay and refused (docs/operators.md#signatures).

Revision ID: 0017
Revises: 0016
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "operator_nonces",
        sa.Column("operator_id", sa.String(32), nullable=False),
        sa.Column("nonce", sa.String(128), nullable=False),
        sa.Column("expires_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("operator_id", "nonce", name="pk_operator_nonces"),
    )
    op.create_index("ix_operator_nonces_expires", "operator_nonces", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_operator_nonces_expires", "operator_nonces")
    op.drop_table("operator_nonces")
