"""``SqlRoundStore``: solo rounds on any database, through SQLAlchemy Core (see ``rounds.store``).

A write is one transaction: the player's row or the round's row is updated only where it is
still as read (else nothing is written: None), the transfers are recorded by the wallet (on the
embedded wallet: the ledger, which refuses a stake the balance no longer covers), and the round
is written with the view showing the balance after them.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError

from dealerpoker.server import jackpot
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.rounds.plan import Planned, ViewJSON
from dealerpoker.server.rounds.store import Check, PlayerRead, RoundRead
from dealerpoker.server.schema import accounts, players, rounds
from dealerpoker.server.wallet import Debit, Wallet

_ROUND = select(rounds, accounts.c.balance).join(accounts, accounts.c.id == rounds.c.player_id) \
    .where(rounds.c.id == bindparam("round"))
_PLAYER = select(accounts.c.balance, accounts.c.currency, players.c.client_seed, players.c.nonce,
                 players.c.next_server_seed, players.c.responsible_gaming) \
    .join(players, players.c.id == accounts.c.id).where(accounts.c.id == bindparam("player"))
_KEY_ROUND = select(rounds.c.id).where(rounds.c.player_id == bindparam("player")) \
    .where(rounds.c.idempotency_key == bindparam("key"))
_SEEDS_USED = update(players).where(
    players.c.id == bindparam("p_player"), players.c.nonce == bindparam("p_nonce"),
    players.c.client_seed == bindparam("p_client_seed"),
    players.c.next_server_seed.is_not_distinct_from(bindparam("p_committed_seed")),
    players.c.responsible_gaming.is_not_distinct_from(bindparam("p_responsible_gaming"))) \
    .values(nonce=bindparam("p_next_nonce"), next_server_seed=bindparam("p_next_seed"))
_BALANCE = select(accounts.c.balance).where(accounts.c.id == bindparam("player"))
_INSERT_ROUND = insert(rounds).inline()  # no RETURNING of the generated seq
_STEP = update(rounds).where(rounds.c.id == bindparam("round"), rounds.c.steps == bindparam("steps_read"))


class _Changed(Exception):
    """The rows changed since they were read: roll the transaction back, answer None."""


class SqlRoundStore:
    def __init__(self, database: Database, wallet: Wallet) -> None:
        self.database = database
        self.wallet = wallet

    async def player(self, player_id: str, idempotency_key: str | None = None) -> PlayerRead | None:
        async with self.database.reading() as connection:
            found = await connection.rows(_PLAYER, {"player": player_id})
            if not found:
                return None
            key_round = None
            if idempotency_key is not None:
                used = await connection.rows(_KEY_ROUND, {"player": player_id, "key": idempotency_key})
                key_round = str(used[0]["id"]) if used else None
        row = found[0]
        return PlayerRead(player_id, int(row["balance"]), str(row["currency"]), str(row["client_seed"]),
                          int(row["nonce"]), row["next_server_seed"], row["responsible_gaming"], key_round)

    async def round(self, round_id: str) -> RoundRead | None:
        async with self.database.reading() as connection:
            found = await connection.rows(_ROUND, {"round": round_id})
        if not found:
            return None
        row = found[0]
        return RoundRead(row, int(row.pop("balance")))

    round_to_step = round

    async def open(self, read: PlayerRead, opening: Planned, next_seed: str, debit: Debit,
                   check: Check | None = None) -> ViewJSON | None:
        try:
            async with self.database.transaction() as connection:
                used = await connection.run(_SEEDS_USED, {
                    "p_player": read.player_id, "p_nonce": read.nonce, "p_client_seed": read.client_seed,
                    "p_committed_seed": read.next_server_seed, "p_next_nonce": read.nonce + 1,
                    "p_next_seed": next_seed, "p_responsible_gaming": read.responsible_gaming})
                if used != 1:
                    raise _Changed
                view = await self._record(connection, read.player_id, opening, debit)
                if check is not None:
                    await check(connection)
                await connection.run(_INSERT_ROUND, {**opening.columns, "view": view})
        except (_Changed, jackpot.PoolChanged, IntegrityError, sqlite3.IntegrityError):
            return None  # a concurrent request took the key, or moved the pool a jackpot won
        return view

    async def step(self, read: RoundRead, step: Planned, debit: Debit) -> ViewJSON | None:
        try:
            async with self.database.transaction() as connection:
                view = await self._record(connection, str(read.row["player_id"]), step, debit)
                written = await connection.run(_STEP, {
                    "round": step.round_id, "steps_read": read.row["steps"], **step.columns, "view": view})
                if written != 1:
                    raise _Changed
        except (_Changed, jackpot.PoolChanged):
            return None
        return view

    async def _record(self, connection: Connection, player_id: str, planned: Planned,
                      debit: Debit) -> ViewJSON:
        """The step's money through the wallet, and the jackpot's pool moved; the view with the
        player's balance after it."""
        balances = await self.wallet.record(connection, planned.money, debit)
        if planned.pool is not None:  # after the player's row: every unit of work locks in that order
            await jackpot.apply(connection, planned.pool, planned.money.at)
        balance = balances.get(player_id)
        if balance is None:  # nothing moved (a step without a stake)
            found = await connection.rows(_BALANCE, {"player": player_id})
            balance = int(found[0]["balance"]) if found else 0
        return planned.render(balance)

    async def history(self, player_id: str, *, limit: int, before_seq: int | None = None,
                      status: str | None = None) -> list[ViewJSON]:
        query: Any = select(rounds.c.view).where(rounds.c.player_id == player_id)
        if before_seq is not None:
            query = query.where(rounds.c.seq < before_seq)
        if status is not None:
            query = query.where(rounds.c.status == status)
        async with self.database.transaction() as connection:
            result = await connection.execute(query.order_by(rounds.c.seq.desc()).limit(limit))
            return [str(view) for (view,) in result]

    async def stale(self, cutoff: str, limit: int) -> list[tuple[str, str]]:
        async with self.database.transaction() as connection:
            found = await connection.execute(
                select(rounds.c.id, rounds.c.player_id).where(rounds.c.status == "open")
                .where(rounds.c.updated_at < cutoff).order_by(rounds.c.seq).limit(limit))
            return [(str(round_id), str(player_id)) for round_id, player_id in found]

    async def close(self) -> None:
        return None
