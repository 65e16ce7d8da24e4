"""The responsible-gaming log (``rg_events``: every limit, self-exclusion and cool-off set, by
whom, when, before and after) made append-only: triggers refuse every UPDATE and DELETE of its
rows, as ``admin_audit``'s do (0009). The back office's restriction history reads it.

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

from dealerpoker.server.migrations.append_only import drop_append_only, make_append_only

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    make_append_only("rg_events")


def downgrade() -> None:
    drop_append_only("rg_events")
