"""Operators: their players, one-time launch tokens, sessions, and the seamless wallet's
transactions (bets, the outbox of wins owed, rollbacks) and calls.

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

_SERIAL = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "operator_players",
        sa.Column("operator_id", sa.String(32), nullable=False),
        sa.Column("external_id", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False, unique=True),
        sa.Column("token", sa.String(512), nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
        sa.PrimaryKeyConstraint("operator_id", "external_id", "currency", "mode", name="pk_operator_players"),
    )
    op.create_table(
        "launch_tokens",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("operator_id", sa.String(32), nullable=False),
        sa.Column("launch", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("expires_at", sa.String(32), nullable=False),
        sa.Column("used_at", sa.String(32), nullable=True),
    )
    op.create_table(
        "operator_sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("player_id", sa.String(40), sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_table(
        "wallet_transactions",
        sa.Column("transaction_id", sa.String(100), primary_key=True),
        sa.Column("operator_id", sa.String(32), nullable=False),
        sa.Column("player_id", sa.String(40), nullable=False),
        sa.Column("currency", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("amount", sa.BigInteger, nullable=False),
        sa.Column("round_id", sa.String(40), nullable=False),
        sa.Column("game", sa.String(32), nullable=False),
        sa.Column("round_closed", sa.Integer, nullable=False),
        sa.Column("reference_transaction_id", sa.String(100), nullable=True),
        sa.Column("txid", sa.String(80), nullable=False),
        sa.Column("status", sa.String(12), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", sa.String(32), nullable=True),
        sa.Column("last_answer", sa.String(40), nullable=True),
        sa.Column("balance", sa.BigInteger, nullable=True),
        sa.Column("created_at", sa.String(32), nullable=False),
        sa.Column("updated_at", sa.String(32), nullable=False),
    )
    op.create_index("ix_wallet_transactions_pending", "wallet_transactions", ["status", "next_attempt_at"])
    op.create_index("ix_wallet_transactions_round", "wallet_transactions", ["round_id"])
    op.create_index(
        "ix_wallet_transactions_operator_created", "wallet_transactions", ["operator_id", "created_at"]
    )
    op.create_index("ix_wallet_transactions_txid", "wallet_transactions", ["txid"])
    op.create_table(
        "wallet_calls",
        sa.Column("id", _SERIAL, primary_key=True, autoincrement=True),
        sa.Column("transaction_id", sa.String(100), nullable=False),
        sa.Column("call", sa.String(10), nullable=False),
        sa.Column("request", sa.Text, nullable=False),
        sa.Column("http_status", sa.Integer, nullable=True),
        sa.Column("answer", sa.Text, nullable=True),
        sa.Column("at", sa.String(32), nullable=False),
        sa.Column("duration_ms", sa.Integer, nullable=False),
    )
    op.create_index("ix_wallet_calls_transaction", "wallet_calls", ["transaction_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_wallet_calls_transaction", "wallet_calls")
    op.drop_table("wallet_calls")
    for index in (
        "ix_wallet_transactions_txid",
        "ix_wallet_transactions_operator_created",
        "ix_wallet_transactions_round",
        "ix_wallet_transactions_pending",
    ):
        op.drop_index(index, "wallet_transactions")
    op.drop_table("wallet_transactions")
    op.drop_table("operator_sessions")
    op.drop_table("launch_tokens")
    op.drop_table("operator_players")
