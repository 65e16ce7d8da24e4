"""Accounts, players, the ledger and rounds.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("balance", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "players",
        sa.Column("id", sa.String(40), sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("client_seed", sa.String(128), nullable=False),
        sa.Column("nonce", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "ledger_entries",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("txid", sa.String(80), nullable=False),
        sa.Column("account_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("round_id", sa.String(40), nullable=True),
        sa.Column("memo", sa.String(40), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.UniqueConstraint("txid", "account_id", name="uq_ledger_entries_txid_account"),
    )
    op.create_index("ix_ledger_entries_account", "ledger_entries", ["account_id"])
    op.create_index("ix_ledger_entries_round", "ledger_entries", ["round_id"])
    op.create_table(
        "rounds",
        sa.Column("seq", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("id", sa.String(40), nullable=False, unique=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("rules_version", sa.String(64), nullable=False),
        sa.Column("rules_fingerprint", sa.String(64), nullable=False),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("phase", sa.String(16), nullable=False),
        sa.Column("idempotency_key", sa.String(128), nullable=True),
        sa.Column("bets", sa.Text, nullable=False),
        sa.Column("deck", sa.Text, nullable=False),
        sa.Column("server_seed", sa.String(64), nullable=True),
        sa.Column("commitment", sa.String(64), nullable=True),
        sa.Column("client_seed", sa.String(128), nullable=True),
        sa.Column("nonce", sa.BigInteger, nullable=True),
        sa.Column("algorithm", sa.String(40), nullable=False),
        sa.Column("steps", sa.Text, nullable=False),
        sa.Column("view", sa.Text, nullable=False),
        sa.Column("total_stake", sa.BigInteger, nullable=False),
        sa.Column("total_returned", sa.BigInteger, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.Column("settled_at", sa.String(32), nullable=True),
        sa.UniqueConstraint("player_id", "idempotency_key", name="uq_rounds_player_idempotency"),
    )
    op.create_index("ix_rounds_player_seq", "rounds", ["player_id", "seq"])
    op.create_index("ix_rounds_status_updated", "rounds", ["status", "updated_at"])
    op.execute("INSERT INTO accounts (id, kind, balance, created_at) "
               "VALUES ('house', 'house', 0, '1970-01-01T00:00:00.000000Z')")


def downgrade() -> None:
    op.drop_table("rounds")
    op.drop_table("ledger_entries")
    op.drop_table("players")
    op.drop_table("accounts")
