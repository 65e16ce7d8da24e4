"""The software verification log (``server.integrity``): every check of the installed files
against the manifest (at start, at intervals, on demand), hash-chained and append-only
(``server.chained_log``; ``dealerpoker audit-log verify`` checks it).

Revision ID: 0020
Revises: 0019
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from dealerpoker.server.migrations.append_only import drop_chained_log, make_chained_log

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "software_checks",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True,
                  autoincrement=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("seed", sa.String(256), nullable=True),
        sa.Column("result", sa.String(16), nullable=False),
        sa.Column("build_id", sa.String(64), nullable=True),
        sa.Column("files", sa.Text(), nullable=False),
    )
    op.create_index("ix_software_checks_at", "software_checks", ["at"])
    make_chained_log("software_checks")


def downgrade() -> None:
    drop_chained_log("software_checks")
    op.drop_index("ix_software_checks_at", "software_checks")
    op.drop_table("software_checks")
