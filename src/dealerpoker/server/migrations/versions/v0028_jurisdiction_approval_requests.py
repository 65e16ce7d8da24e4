"""Requests to change the jurisdictions a paytable version is approved for, each waiting for a
second admin's decision (four eyes, as a version going live: ``backoffice.paytable_approvals``).

Revision ID: 0028
Revises: 0027
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "jurisdiction_requests",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("version_id", sa.BigInteger(), nullable=False),
        sa.Column("jurisdictions", sa.Text(), nullable=False),  # JSON: the codes, or null (not restricted)
        sa.Column("requested_by", sa.String(64), nullable=False),
        sa.Column("requested_at", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),  # pending | approved | rejected
        sa.Column("decided_by", sa.String(64), nullable=True),
        sa.Column("decided_at", sa.String(32), nullable=True),
    )
    op.create_index("ix_jurisdiction_requests_game", "jurisdiction_requests", ["game", "status"])


def downgrade() -> None:
    op.drop_index("ix_jurisdiction_requests_game", "jurisdiction_requests")
    op.drop_table("jurisdiction_requests")
