"""Tables of the live rounds (created by migration ``0003``, audit columns by ``0004``, the
lease epochs and pending bets/decisions by ``0005``)."""

from __future__ import annotations

from sqlalchemy import BigInteger, Column, Index, MetaData, PrimaryKeyConstraint, String, Table, Text

# Their own metadata: the migrations create the tables; these objects only build queries.
metadata = MetaData()

live_rounds = Table(
    "live_rounds", metadata,
    Column("table_id", String(40), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("phase", String(16), nullable=False),
    # JSON: point, deadline, deck and the fairness seeds (the server seed is only published
    # once the round is over; it is stored so a restarted process can finish the round).
    Column("record", Text, nullable=False),
    Column("created_at", String(32), nullable=False),
    Column("updated_at", String(32), nullable=False),
    Column("settled_at", String(32), nullable=True),  # set by the settlement commit (0004)
    PrimaryKeyConstraint("table_id", "number", name="pk_live_rounds"),
    Index("ix_live_rounds_settled", "settled_at"),
)

live_seats = Table(
    "live_seats", metadata,
    Column("table_id", String(40), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("player_id", String(40), nullable=False),
    Column("bets", Text, nullable=False),   # JSON {field: amount}
    Column("steps", Text, nullable=False),  # JSON [{point, action, source, stake}]
    Column("total_stake", BigInteger, nullable=False),
    Column("total_returned", BigInteger, nullable=True),  # set by the settlement
    Column("updated_at", String(32), nullable=False),
    # JSON Settlement.to_dict() as computed when the round was settled (0004)
    Column("settlement", Text, nullable=True),
    PrimaryKeyConstraint("table_id", "number", "player_id", name="pk_live_seats"),
    Index("ix_live_seats_player", "player_id"),
    Index("ix_live_seats_player_updated", "player_id", "updated_at"),
)

# The newest lease token (fencing token) that claimed each table; every commit checks it.
live_leases = Table(
    "live_leases", metadata,
    Column("table_id", String(40), nullable=False),
    Column("epoch", BigInteger, nullable=False),
    Column("updated_at", String(32), nullable=False),
    PrimaryKeyConstraint("table_id", name="pk_live_leases"),
)

# Bets and decisions accepted before their step is committed (see ``live.pending``).
live_pending = Table(
    "live_pending", metadata,
    Column("table_id", String(40), nullable=False),
    Column("number", BigInteger, nullable=False),
    Column("player_id", String(40), nullable=False),
    Column("step", String(16), nullable=False),  # "bets" or the decision point
    Column("value", Text, nullable=False),       # the bets' JSON, or the action
    Column("updated_at", String(32), nullable=False),
    PrimaryKeyConstraint("table_id", "number", "player_id", "step", name="pk_live_pending"),
)
