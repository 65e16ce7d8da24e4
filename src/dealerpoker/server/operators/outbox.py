"""The outbox of what dealerpoker owes operators' wallets, delivered until answered.

``wallet_transactions`` rows with status ``pending`` are owed: a ``win`` (written with the
settlement that owes it) is sent until the operator answers ``OK``; a ``rollback`` (of a bet
whose outcome is unknown, or that its step did not keep) until ``OK`` or ``UNKNOWN_TRANSACTION``.
Each attempt moves ``next_attempt_at`` on first (a claim: another process skips the row until
then), then by the backoff (``BACKOFF_SECONDS`` doubling up to ``MAX_BACKOFF_SECONDS``) when the
answer is anything else. The rows are in the database, so a restart (after kill -9 too) picks
up where the last process stopped. Bets written but never confirmed nor rolled back (their
process died between the call and its step) are swept into rollbacks after
``ORPHAN_BET_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta

from sqlalchemy import select, update

from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.operators.client import WalletClient, keep_calls
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.sql import run
from dealerpoker.server.operators.wallet import SeamlessWallet
from dealerpoker.server.schema import operator_players, wallet_transactions

log = logging.getLogger("dealerpoker.operators")

BACKOFF_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 30.0
ORPHAN_BET_SECONDS = 10.0
"""A bet still ``sending`` this long after its call's timeout belongs to no running step (its
process died). Taking one too early is safe: the step that would confirm it then refuses."""
BATCH = 200
CONCURRENT = 16


def backoff(attempts: int) -> float:
    """Seconds before the next attempt after ``attempts`` failed ones.

    >>> [backoff(n) for n in (1, 2, 3)], backoff(30)
    ([0.2, 0.4, 0.8], 30.0)
    """
    return float(min(MAX_BACKOFF_SECONDS, BACKOFF_SECONDS * 2 ** min(attempts - 1, 20)))


class Outbox:
    def __init__(
        self,
        database: Database,
        operators: Mapping[str, Operator],
        client: WalletClient,
        clock: Callable[[], datetime],
        roll_back_orphans: Callable[[str], Awaitable[bool]],
    ) -> None:
        self.database = database
        self.operators = operators
        self.client = client
        self.clock = clock
        self.roll_back_orphans = roll_back_orphans
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def wake(self) -> None:
        self._wake.set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        await self.client.close()

    async def _run(self) -> None:
        swept = 0.0
        loop = asyncio.get_running_loop()
        while True:
            self._wake.clear()
            try:
                if loop.time() - swept > 5:
                    swept = loop.time()
                    await self.sweep()
                delivered = await self.deliver_due()
            except Exception:  # keep delivering; one bad row must not stop the others
                log.exception("delivering the wallet outbox failed")
                delivered = 0
            if delivered:
                continue
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 0.25)

    async def sweep(self) -> int:
        """Turn bets orphaned by a dead process into rollbacks owed."""
        longest = max((operator.wallet_timeout_seconds for operator in self.operators.values()), default=0.0)
        cutoff = timestamp(self.clock() - timedelta(seconds=longest + ORPHAN_BET_SECONDS))
        async with self.database.reading() as connection:
            found = await connection.execute(
                select(wallet_transactions.c.transaction_id)
                .where(
                    wallet_transactions.c.kind == "bet",
                    wallet_transactions.c.status == "sending",
                    wallet_transactions.c.created_at < cutoff,
                )
                .limit(BATCH)
            )
            orphans = [str(transaction_id) for (transaction_id,) in found]
        for transaction_id in orphans:
            await self.roll_back_orphans(transaction_id)
        return len(orphans)

    async def deliver_due(self) -> int:
        """Send every owed transaction that is due; how many were attempted."""
        now = self.clock()
        async with self.database.reading() as connection:
            found = await connection.execute(
                select(wallet_transactions, operator_players.c.external_id, operator_players.c.token)
                .join(operator_players, operator_players.c.player_id == wallet_transactions.c.player_id)
                .where(
                    wallet_transactions.c.status == "pending",
                    wallet_transactions.c.next_attempt_at <= timestamp(now),
                )
                .order_by(wallet_transactions.c.next_attempt_at)
                .limit(BATCH)
            )
            due = [dict(row) for row in found.mappings()]
        limit = asyncio.Semaphore(CONCURRENT)

        async def one(row: dict[str, object]) -> None:
            async with limit:
                await self._deliver(row)

        await asyncio.gather(*(one(row) for row in due))
        return len(due)

    async def _deliver(self, row: dict[str, object]) -> None:
        operator = self.operators.get(str(row["operator_id"]))
        if operator is None:
            return  # an operator no longer configured: kept owed until it is again
        transaction_id = str(row["transaction_id"])
        lease = timestamp(self.clock() + timedelta(seconds=operator.wallet_timeout_seconds + 5))
        async with self.database.transaction() as connection:
            claimed = await run(
                connection,
                update(wallet_transactions)
                .where(
                    wallet_transactions.c.transaction_id == transaction_id,
                    wallet_transactions.c.status == "pending",
                    wallet_transactions.c.next_attempt_at == row["next_attempt_at"],
                )
                .values(next_attempt_at=lease),
            )
        if claimed != 1:
            return  # another process took it
        kind = str(row["kind"])
        body: dict[str, object] = {
            "player": row["external_id"],
            "token": row["token"],
            "currency": row["currency"],
            "amount": row["amount"],
            "transaction_id": transaction_id,
            "round_id": row["round_id"],
            "game": row["game"],
            "round_closed": bool(row["round_closed"]),
        }
        if kind == "rollback":
            body["reference_transaction_id"] = row["reference_transaction_id"]
            body["round_closed"] = False
        answer = await self.client.call(
            operator, kind, body, timeout=operator.wallet_timeout_seconds, keep=False
        )
        attempts = int(str(row["attempts"])) + 1
        done = answer.status == "OK" or (kind == "rollback" and answer.status == "UNKNOWN_TRANSACTION")
        at = self.clock()
        async with self.database.transaction() as connection:
            await keep_calls(connection, [answer.record])
            await run(
                connection,
                update(wallet_transactions)
                .where(wallet_transactions.c.transaction_id == transaction_id)
                .values(
                    status="done" if done else "pending",
                    attempts=attempts,
                    next_attempt_at=None if done else timestamp(at + timedelta(seconds=backoff(attempts))),
                    last_answer=answer.status or answer.detail,
                    balance=answer.balance,
                    updated_at=timestamp(at),
                ),
            )
            if done and kind == "rollback":
                await run(
                    connection,
                    update(wallet_transactions)
                    .where(wallet_transactions.c.transaction_id == row["reference_transaction_id"])
                    .values(status="rolled_back", updated_at=timestamp(at)),
                )
        if not done:
            log.warning(
                "wallet %s %s of operator %s: %s (attempt %d; retried)",
                kind,
                transaction_id,
                operator.id,
                answer.status or answer.detail,
                attempts,
            )


def seamless_wallet(
    database: Database, operators: Sequence[Operator], clock: Callable[[], datetime]
) -> tuple[SeamlessWallet, Outbox]:
    """The wallet of a server with operators, and the outbox that delivers what it owes (start and
    stop it with the server)."""
    by_id = {operator.id: operator for operator in operators}

    def now() -> str:
        return timestamp(clock())

    client = WalletClient(database, now)
    wallet = SeamlessWallet(database, by_id, client, now)
    outbox = Outbox(database, by_id, client, clock, wallet.roll_back_orphan)
    wallet.wake = outbox.wake
    return wallet, outbox
