"""The outbox of what dealerpoker owes operators' wallets, delivered until answered.

``wallet_transactions`` rows with status ``pending`` are owed: a ``win`` (written with the
settlement that owes it) is sent until the operator answers ``OK``; a ``rollback`` (of a bet
whose outcome is unknown, or that its step did not keep) until ``OK`` or ``UNKNOWN_TRANSACTION``.
Each attempt moves ``next_attempt_at`` on first (a claim: another process skips the row until
then; a win is written claimed by the process whose step owes it, which hands it over here once
the step committed, ``deliver_claimed``), then by the backoff (``BACKOFF_SECONDS`` doubling up
to ``MAX_BACKOFF_SECONDS``) when the answer is anything else. The rows are in the database, so
a restart (after kill -9 too) picks up where the last process stopped. Bets written but never
confirmed nor rolled back (their process died between the call and its step) are swept into
rollbacks after ``ORPHAN_BET_SECONDS``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import datetime, timedelta

from sqlalchemy import bindparam, select, update

from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.operators.client import Answer, WalletClient, keep_calls
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.wallet import SeamlessWallet
from dealerpoker.server.schema import operator_players, wallet_status_is, wallet_transactions

log = logging.getLogger("dealerpoker.operators")

BACKOFF_SECONDS = 0.2
MAX_BACKOFF_SECONDS = 30.0
ORPHAN_BET_SECONDS = 10.0
"""A bet still ``sending`` this long after its call's timeout belongs to no running step (its
process died). Taking one too early is safe: the step that would confirm it then refuses."""
BATCH = 200
CONCURRENT = 16
GROUP_SECONDS = 0.02
"""How long the first answer of a group waits for others to be recorded with it (one commit for
the wins of many rounds; the row stays claimed meanwhile)."""


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
        self._handed: set[asyncio.Task[None]] = set()
        self._answered: list[tuple[dict[str, object], Answer]] = []
        """Answers not written yet: the first of a group writes those that join it meanwhile."""

    def wake(self) -> None:
        self._wake.set()

    async def start(self) -> None:
        self._task = asyncio.create_task(self._run())

    def deliver_claimed(self, rows: list[dict[str, object]]) -> None:
        """Send wins already claimed by this process (written with a lease by the step that owes
        them, now committed), at once; a row whose answer is not recorded by the end of its lease
        (this process died) is found due again like any other."""
        task = asyncio.get_running_loop().create_task(self._deliver(rows))
        self._handed.add(task)
        task.add_done_callback(self._handed.discard)

    async def stop(self) -> None:
        for task in [*self._handed, *([self._task] if self._task is not None else [])]:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
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
                    wallet_status_is("sending"),
                    wallet_transactions.c.created_at < cutoff,
                )
                .limit(BATCH)
            )
            orphans = [str(transaction_id) for (transaction_id,) in found]
        for transaction_id in orphans:
            await self.roll_back_orphans(transaction_id)
        return len(orphans)

    async def deliver_due(self) -> int:
        """Send every owed transaction that is due; how many were attempted.

        The due rows are claimed in one unit of work, and the answers recorded in as few as they
        come in (each answer waits for no other call: those that arrived while the last unit of
        work was written are written in the next): per transaction a commit or two would cost
        more than its call (benchmarks/RESULTS.md, "Seamless wallet")."""
        async with self.database.reading() as connection:
            found = await connection.execute(DUE, {"due_by": timestamp(self.clock())})
            due = [dict(row) for row in found.mappings()]
        known = [row for row in due if str(row["operator_id"]) in self.operators]
        await self._deliver(await self._claim(known))
        return len(due)

    async def _deliver(self, claimed: list[dict[str, object]]) -> None:
        """Send claimed rows (``CONCURRENT`` at a time) and record their answers."""
        limit = asyncio.Semaphore(CONCURRENT)

        async def one(row: dict[str, object]) -> None:
            async with limit:
                answer = await self._send(row)
            self._answered.append((row, answer))
            if len(self._answered) == 1:  # the first of a group: it writes the group's answers
                await asyncio.sleep(GROUP_SECONDS)  # those answered meanwhile join it
                group = self._answered[:]
                self._answered.clear()
                await self._record(group)

        await asyncio.gather(*(one(row) for row in claimed))

    async def _claim(self, due: list[dict[str, object]]) -> list[dict[str, object]]:
        """Move each row's next attempt time on (a lease: another process skips the row until
        then), in one unit of work; the rows this process took (not those another took first)."""
        if not due:
            return []
        taken = []
        async with self.database.transaction() as connection:
            for row in due:
                claimed = await connection.run(_CLAIM, {
                    "o_id": row["transaction_id"], "o_status": "pending", "o_due": row["next_attempt_at"],
                    "next_attempt_at": self.lease(self.operators[str(row["operator_id"])])})
                if claimed == 1:
                    taken.append(row)
        return taken

    def lease(self, operator: Operator) -> str:
        """The end of a claim on a row sent to ``operator``: its call's timeout and 5 s from now."""
        return timestamp(self.clock() + timedelta(seconds=operator.wallet_timeout_seconds + 5))

    async def _send(self, row: dict[str, object]) -> Answer:
        operator = self.operators[str(row["operator_id"])]
        kind = str(row["kind"])
        body: dict[str, object] = {
            "player": row["external_id"],
            "token": row["token"],
            "currency": row["currency"],
            "amount": row["amount"],
            "transaction_id": str(row["transaction_id"]),
            "round_id": row["round_id"],
            "game": row["game"],
            "round_closed": bool(row["round_closed"]),
        }
        if kind == "win" and row.get("promo"):
            body["promo"] = json.loads(str(row["promo"]))
        if kind == "rollback":
            body["reference_transaction_id"] = row["reference_transaction_id"]
            body["round_closed"] = False
        timeout = operator.wallet_timeout_seconds
        return await self.client.call(operator, kind, body, timeout=timeout, keep=False)

    async def _record(self, answered: list[tuple[dict[str, object], Answer]]) -> None:
        """Keep the calls and their answers; mark what is done, and reschedule the rest."""
        at = self.clock()
        changes, rolled_back = [], []
        for row, answer in answered:
            attempts, done = int(str(row["attempts"])) + 1, _settles(row, answer)
            changes.append({
                "o_id": row["transaction_id"],
                "status": "done" if done else "pending",
                "attempts": attempts,
                "next_attempt_at": None if done else timestamp(at + timedelta(seconds=backoff(attempts))),
                "last_answer": answer.outcome,
                "balance": answer.balance,
                "updated_at": timestamp(at),
            })
            if done and row["kind"] == "rollback":
                rolled_back.append({"o_id": row["reference_transaction_id"], "status": "rolled_back",
                                    "updated_at": timestamp(at)})
        async with self.database.transaction() as connection:  # each statement once for the group
            await keep_calls(connection, [answer.record for _row, answer in answered])
            await connection.run(_ANSWERED, changes)
            await connection.run(_ROLLED_BACK, rolled_back)
        for row, answer in answered:
            if _settles(row, answer):
                continue
            log.warning(
                "wallet %s %s of operator %s: %s (attempt %d; retried)",
                row["kind"],
                row["transaction_id"],
                row["operator_id"],
                answer.status or answer.detail,
                int(str(row["attempts"])) + 1,
            )


def _settles(row: dict[str, object], answer: Answer) -> bool:
    """Whether the answer ends the row's delivery: a win's OK, a rollback's OK or UNKNOWN_TRANSACTION."""
    return answer.status == "OK" or (row["kind"] == "rollback" and answer.status == "UNKNOWN_TRANSACTION")


DUE = (
    select(wallet_transactions, operator_players.c.external_id, operator_players.c.token)
    .join(operator_players, operator_players.c.player_id == wallet_transactions.c.player_id)
    .where(wallet_status_is("pending"), wallet_transactions.c.next_attempt_at <= bindparam("due_by"))
    .order_by(wallet_transactions.c.next_attempt_at)
    .limit(BATCH)
)
"""The rows owed whose next attempt is due by ``due_by``, oldest first, with their player's id at
the operator and newest session token."""
_CLAIM = update(wallet_transactions).where(
    wallet_transactions.c.transaction_id == bindparam("o_id"),
    wallet_transactions.c.status == bindparam("o_status"),
    wallet_transactions.c.next_attempt_at == bindparam("o_due"),
)
_ANSWERED = update(wallet_transactions).where(wallet_transactions.c.transaction_id == bindparam("o_id"))
_ROLLED_BACK = _ANSWERED


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
    wallet.wake, wallet.hand_over, wallet.lease = outbox.wake, outbox.deliver_claimed, outbox.lease
    return wallet, outbox
