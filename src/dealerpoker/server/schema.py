"""Tables (SQLAlchemy Core). The Alembic migrations in ``migrations/`` create exactly these.

Timestamps are ISO-8601 UTC strings (``2026-11-29T12:00:00.000000Z``): they sort as text and
behave the same on SQLite and PostgreSQL. JSON documents are stored as text for the same reason.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

metadata = MetaData()

# SQLite only auto-increments an INTEGER PRIMARY KEY.
_SERIAL = BigInteger().with_variant(Integer(), "sqlite")

accounts = Table(
    "accounts", metadata,
    Column("id", String(40), primary_key=True),
    # "player" | "house": one house account per currency, ``games.currency.house_account``
    Column("kind", String(10), nullable=False),
    # Materialised for players (checked against their entries); the house's balance is the
    # sum of its entries, so no single row is written by every player's transaction.
    Column("balance", BigInteger, nullable=False, default=0),
    Column("created_at", String(32), nullable=False),
    # Every entry of the account is in this currency (migration 0006); a player keeps theirs.
    Column("currency", String(8), nullable=False),
)

players = Table(
    "players", metadata,
    Column("id", String(40), ForeignKey("accounts.id"), primary_key=True),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("client_seed", String(128), nullable=False),
    Column("nonce", BigInteger, nullable=False, default=0),
    Column("created_at", String(32), nullable=False),
    # The seed of this player's next round, committed (its SHA-256 shown) before they bet.
    Column("next_server_seed", String(64), nullable=True),
    # JSON: limits, restriction and session state (``responsible``); null: none ever set (0007).
    Column("responsible_gaming", Text, nullable=True),
)

ledger_entries = Table(
    "ledger_entries", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("txid", String(80), nullable=False),
    Column("account_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("amount", BigInteger, nullable=False),  # signed: debit < 0 < credit
    Column("round_id", String(40), nullable=True),
    Column("memo", String(40), nullable=False),
    Column("created_at", String(32), nullable=False),
    UniqueConstraint("txid", "account_id", name="uq_ledger_entries_txid_account"),
    Index("ix_ledger_entries_account", "account_id"),
    Index("ix_ledger_entries_round", "round_id"),
)

rounds = Table(
    "rounds", metadata,
    Column("seq", _SERIAL, primary_key=True, autoincrement=True),
    Column("id", String(40), nullable=False, unique=True),
    Column("player_id", String(40), ForeignKey("accounts.id"), nullable=False),
    Column("game", String(32), nullable=False),
    Column("rules_version", String(64), nullable=False),
    Column("rules_fingerprint", String(64), nullable=False),
    Column("status", String(10), nullable=False),  # "open" | "settled"
    Column("phase", String(16), nullable=False),
    Column("idempotency_key", String(128), nullable=True),
    Column("bets", Text, nullable=False),  # JSON {field: amount}
    Column("deck", Text, nullable=False),  # JSON [52 card indices] in dealing order
    Column("server_seed", String(64), nullable=True),
    Column("commitment", String(64), nullable=True),
    Column("client_seed", String(128), nullable=True),
    Column("nonce", BigInteger, nullable=True),
    Column("algorithm", String(40), nullable=False),
    Column("steps", Text, nullable=False),  # JSON [{step, action, source, at, stake, txid}]
    Column("view", Text, nullable=False),  # JSON: the player's view after the last step
    Column("total_stake", BigInteger, nullable=False),
    Column("total_returned", BigInteger, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    Column("settled_at", String(32), nullable=True),
    Column("currency", String(8), nullable=False),  # fixed when the round opens (migration 0006)
    UniqueConstraint("player_id", "idempotency_key", name="uq_rounds_player_idempotency"),
    Index("ix_rounds_player_seq", "player_id", "seq"),
    Index("ix_rounds_status_updated", "status", "updated_at"),
)

rules_documents = Table(
    "rules_documents", metadata,
    Column("fingerprint", String(64), primary_key=True),
    Column("game", String(32), nullable=False),
    Column("rules_version", String(64), nullable=False),
    Column("document", Text, nullable=False),  # JSON: the rules as played (paytables, limits)
    Column("created_at", String(32), nullable=False),
)

# Every change of a player's responsible-gaming settings, as it was made (migration 0007).
rg_events = Table(
    "rg_events", metadata,
    Column("id", _SERIAL, primary_key=True, autoincrement=True),
    Column("player_id", String(40), nullable=False),
    Column("at", String(32), nullable=False),
    Column("by", String(60), nullable=False),  # "player" | "operator:{id}" | "server"
    Column("kind", String(32), nullable=False),  # "limit" | "restriction" | "reality_check" | "session"
    Column("detail", Text, nullable=False),  # JSON
    Index("ix_rg_events_player", "player_id", "id"),
)
