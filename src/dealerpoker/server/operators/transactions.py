"""The seamless wallet's rows (``wallet_transactions``: a bet, a win owed) and its hot path's
statements, constant so that ``Connection.rows``/``run`` compile them once: built per call,
SQLAlchemy's construction and execution of them was about a fifth of a seamless round's server CPU
(benchmarks/RESULTS.md, "Seamless wallet")."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.server.db import Connection
from dealerpoker.server.ledger import SETTLE, Transfer
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.schema import accounts, operator_players, wallet_transactions
from dealerpoker.server.wallet import Movement

PLAYER_ROW = select(
    operator_players.c.operator_id,
    operator_players.c.external_id,
    operator_players.c.token,
    operator_players.c.currency,
).where(operator_players.c.player_id == bindparam("w_player"))
EARLIER_BETS = (
    select(func.count().label("earlier"))
    .select_from(wallet_transactions)
    .where(wallet_transactions.c.txid == bindparam("w_txid"))
    .where(wallet_transactions.c.kind == bindparam("w_kind"))
)
NEW_BET = insert(wallet_transactions)
CONFIRM = update(wallet_transactions).where(
    wallet_transactions.c.transaction_id == bindparam("w_id"),
    wallet_transactions.c.status == bindparam("w_from"),
)
ACCOUNT = select(accounts.c.balance).where(accounts.c.id == bindparam("w_player"))
SET_BALANCE = update(accounts).where(accounts.c.id == bindparam("w_player"))


async def player_row(
    connection: Connection, player_id: str, operators: Mapping[str, Operator]
) -> tuple[Operator, str, str | None, str] | None:
    """An operator's player: (operator, its id for them, the newest session token, currency)."""
    rows = await connection.rows(PLAYER_ROW, {"w_player": player_id})
    found = rows[0] if rows else None
    if found is None or found["operator_id"] not in operators:
        return None
    return operators[found["operator_id"]], str(found["external_id"]), found["token"], str(found["currency"])


def transaction_row(
    movement: Movement, transfer: Transfer, operator: Operator, currency: str, *,
    kind: str, amount: int, status: str, due: str | None, attempts: int = 0,
) -> dict[str, Any]:
    """A ``wallet_transactions`` row for ``transfer``: a bet (written before it is sent) or a win
    owed (the outbox's, first sent at ``due``)."""
    return {
        "transaction_id": transfer.txid,
        "operator_id": operator.id,
        "player_id": transfer.player,
        "currency": currency,
        "kind": kind,
        "amount": amount,
        "round_id": movement.round_id,
        "game": movement.game,
        "round_closed": int(movement.closes_round and kind == "win"),
        "reference_transaction_id": None,
        "txid": transfer.txid,
        "status": status,
        "attempts": attempts,
        "next_attempt_at": due,
        "last_answer": None,
        "balance": None,
        "created_at": movement.at,
        "updated_at": movement.at,
        # A free round's promotional flag rides on its settlement's win only (a side bet's award,
        # the jackpot's, is the player's own bet's win).
        "promo": (json.dumps(movement.promo_of(transfer.player), separators=(",", ":"))
                  if movement.promo_of(transfer.player) and kind == "win" and transfer.memo == SETTLE
                  else None),
    }


_PLAYER_NOW = select(operator_players.c.external_id, operator_players.c.token).where(
    operator_players.c.player_id == bindparam("w_player_id")
)
_BET_WRITTEN = (
    postgresql.insert(wallet_transactions)
    .values({column.name: bindparam(column.name, type_=column.type) for column in wallet_transactions.c})
    .on_conflict_do_nothing(index_elements=["transaction_id"])
    .returning(wallet_transactions.c.transaction_id)
    .cte("written")
)
_PLACE_POSTGRES = select(
    select(func.count()).select_from(_BET_WRITTEN).scalar_subquery().label("written"),
    operator_players.c.external_id,
    operator_players.c.token,
).where(operator_players.c.player_id == bindparam("w_player_id"))


async def placed(connection: Connection, row: dict[str, Any]) -> tuple[bool, tuple[str, str | None] | None]:
    """Write a bet's row unless its transaction id is there: whether it was written, and the
    player's id at their operator and newest session token (None: no such player). On PostgreSQL
    one statement: one round trip fewer before each bet."""
    values = {**row, "w_player_id": row["player_id"]}
    if connection.dialect.name == "postgresql":
        found = await connection.one(_PLACE_POSTGRES, values)
        written = bool(found and found["written"])
    else:
        found = await connection.one(_PLAYER_NOW, values)
        written = found is not None and bool(await connection.run(insert_ignoring(connection), row))
    return written, None if found is None else (str(found["external_id"]), found["token"])


_INSERT_IGNORING = {
    name: dialect.insert(wallet_transactions).on_conflict_do_nothing(index_elements=["transaction_id"])
    for name, dialect in (("postgresql", postgresql), ("sqlite", sqlite))
}


def insert_ignoring(connection: Connection) -> Any:
    """INSERT of a ``wallet_transactions`` row unless its ``transaction_id`` is there (one constant
    statement per dialect)."""
    return _INSERT_IGNORING["postgresql" if connection.dialect.name == "postgresql" else "sqlite"]
