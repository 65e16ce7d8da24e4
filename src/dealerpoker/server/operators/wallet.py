"""``SeamlessWallet``: the Wallet port (``server.wallet``) for a server with operators. An operator's
real-money player (id ``o_...``) keeps their money in the operator's wallet; every other player
(demo players, operators' demo launches) in the embedded ledger, through ``LedgerWallet``.

The money rules (docs/operators.md):

* a stake is placed only after the operator answered ``OK`` to its ``bet``. The bet is written
  (``wallet_transactions``, status ``sending``) before it is sent, so a bet whose process dies
  is rolled back after a restart. ``INSUFFICIENT_FUNDS`` refuses the stake with the operator's
  balance; a timeout, a dropped connection or any other failure leaves the bet *unknown*: the
  action is refused and a ``rollback`` of it goes into the outbox;
* the step's unit of work marks its bets ``confirmed`` (only if still ``sending``: a bet the
  sweeper already rolled back refuses the step) and writes the wins it owes (a settlement's
  return, a Bonus paid at the deal, and a zero win closing a round that returned nothing) into
  the outbox, in the same transaction as the round's new state;
* ``rollback`` (the step did not commit) turns its bets into rollbacks owed;
* the outbox (``operators.outbox``) delivers wins until ``OK`` and rollbacks until ``OK`` or
  ``UNKNOWN_TRANSACTION``, with backoff, across restarts.

A retried bet of the same money moment (the step refused, the player acts again) gets a new
transaction id, ``{txid}~{n}``: the operator may have applied the first and rolled it back.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select, update

from dealerpoker.errors import DealerPokerError, InsufficientFundsError
from dealerpoker.server.accounts import REMOTE_PREFIX
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.ledger import Transfer
from dealerpoker.server.operators.client import WalletClient, keep_calls
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.sql import one, run
from dealerpoker.server.operators.transactions import (
    ACCOUNT,
    CONFIRM,
    EARLIER_BETS,
    NEW_BET,
    SET_BALANCE,
    insert_ignoring,
    placed,
    player_row,
    transaction_row,
)
from dealerpoker.server.schema import accounts, wallet_transactions
from dealerpoker.server.wallet import Debit, LedgerWallet, Movement

CONCURRENT_BETS = 16
"""Bets of one step (a live table's) sent at once."""
HANDED_KEPT = 1000
"""Steps whose wins wait for their commit to be handed over, at most (a step that did not commit
leaves its entry behind: the oldest go; a win dropped so is still delivered, after its lease)."""


class WalletUnavailableError(DealerPokerError, ValueError):
    """The operator's wallet did not answer the bet (or answered something unusable): the action is
    refused and the bet, if the operator applied it, is rolled back."""

    code = "wallet_unavailable"
    status = 503


class WalletRefusedError(DealerPokerError, ValueError):
    """The operator refused the bet (its session token, or an error it reported)."""

    code = "wallet_refused"
    status = 409


def is_remote(player_id: str) -> bool:
    return player_id.startswith(REMOTE_PREFIX)


@dataclass(frozen=True, slots=True)
class Bet:
    transaction_id: str
    txid: str
    player: str
    balance: int | None
    call: dict[str, Any] = field(default_factory=dict, compare=False)
    """Its call's ``wallet_calls`` row, recorded with the step (or its rollback)."""


@dataclass(frozen=True, slots=True)
class Receipt:
    embedded: Debit
    bets: tuple[Bet, ...] = ()
    skipped: frozenset[str] = field(default_factory=frozenset)
    """Ledger txids of bets confirmed by an earlier commit of the same step (a live table resuming)."""


@dataclass(frozen=True, slots=True)
class Writes:
    """What a step's unit of work writes for one remote player (``SeamlessWallet.writes``)."""

    player: str
    calls: list[dict[str, Any]]
    """The ``wallet_calls`` rows of its bets' calls."""
    bets: list[str]
    """Its bets' transaction ids: each confirmed (``confirmation``) only if all are still ``sending``."""
    confirmation: dict[str, Any]
    wins: list[dict[str, Any]]
    """The wins it is owed (the outbox's rows), each written unless already there."""
    known: int | None
    """The operator's balance its bets' answers gave (None: none did)."""
    owed: int

    def balance(self, cached: int | None) -> int:
        """Its balance shown after the step: the operator's latest (``known``, else the last one
        kept, ``cached``) and the wins owed."""
        return (self.known if self.known is not None else cached or 0) + self.owed


class SeamlessWallet:
    def __init__(
        self,
        database: Database,
        operators: Mapping[str, Operator],
        client: WalletClient,
        now: Callable[[], str],
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self.database = database
        self.operators = operators
        self.client = client
        self.now = now
        self.wake = wake
        """Called when the outbox has something new to deliver."""
        self.embedded = LedgerWallet(database)
        self.hand_over: Callable[[list[dict[str, Any]]], None] | None = None
        """The outbox's delivery of wins this process claimed (``Outbox.deliver_claimed``): each
        win is written claimed (``lease``) and handed over once its step committed, so the
        outbox need not find and claim it first (benchmarks/RESULTS.md, "Seamless wallet")."""
        self.lease: Callable[[Operator], str] = lambda operator: self.now()
        """The end of a claim on a row sent to ``operator`` (set with ``hand_over``)."""
        self._who: dict[str, tuple[Operator, str]] = {}
        self._handed: dict[int, tuple[Movement, list[dict[str, Any]]]] = {}
        """Wins written by a step not yet committed, by its movement (the object: the same one is
        passed to ``committed``, and is kept here, so its id is not reused meanwhile)."""

    # ---- the port -------------------------------------------------------------------------
    async def balance(self, player_id: str) -> int | None:
        if not is_remote(player_id):
            return await self.embedded.balance(player_id)
        who = await self._player(player_id)
        if who is None:
            return None
        operator, external, token, currency = who
        answer = await self.client.call(
            operator,
            "balance",
            {"player": external, "token": token, "currency": currency},
            timeout=operator.wallet_timeout_seconds,
        )
        if answer.status == "OK" and answer.balance is not None:
            async with self.database.transaction() as connection:
                await run(
                    connection,
                    update(accounts).where(accounts.c.id == player_id).values(balance=answer.balance),
                )
            return answer.balance
        async with self.database.reading() as connection:  # the last balance the operator gave
            value = await connection.scalar(select(accounts.c.balance).where(accounts.c.id == player_id))
        return None if value is None else int(value)

    async def balances(self, player_ids: Collection[str]) -> dict[str, int]:
        """Ours read together; each operator's player asked of their operator (one call each)."""
        remote = [player for player in player_ids if is_remote(player)]
        found = await self.embedded.balances([player for player in player_ids if not is_remote(player)])
        for player, balance in zip(remote, await asyncio.gather(*map(self.balance, remote)), strict=True):
            if balance is not None:
                found[player] = balance
        return found

    async def debit(
        self, movement: Movement, balances: Mapping[str, int], *, deadline: float | None = None
    ) -> Debit:
        local = _only(movement, remote=False)
        embedded = await self.embedded.debit(local, {p: b for p, b in balances.items() if not is_remote(p)})
        stakes = [t for t in movement.stakes if is_remote(t.player)]
        if not stakes:
            return Debit(embedded.refused, Receipt(embedded))
        skipped: set[str] = set()
        if movement.may_repeat:
            skipped = await self._confirmed({t.txid for t in stakes})
            stakes = [t for t in stakes if t.txid not in skipped]
        limit = asyncio.Semaphore(CONCURRENT_BETS)

        async def bet(transfer: Transfer) -> Bet | DealerPokerError:
            async with limit:
                return await self._bet(movement, transfer, deadline)

        results = await asyncio.gather(*(bet(t) for t in stakes))
        refused = dict(embedded.refused)
        taken: list[Bet] = []
        for transfer, result in zip(stakes, results, strict=True):
            if isinstance(result, Bet):
                taken.append(result)
            else:
                refused[transfer.player] = result
        return Debit(refused, Receipt(embedded, tuple(taken), frozenset(skipped)))

    async def record(self, connection: Connection, movement: Movement, debit: Debit) -> dict[str, int]:
        receipt = _receipt(debit)
        balances = await self.embedded.record(connection, _only(movement, remote=False), receipt.embedded)
        handed: list[dict[str, Any]] = []
        for player in sorted({t.player for t in movement.transfers if is_remote(t.player)}):
            found = None
            if credits(movement, player):
                found = await player_row(connection, player, self.operators)
            writes = self.writes(movement, debit, player, None if found is None else (found[0], found[3]))
            await keep_calls(connection, writes.calls)
            confirmed = 0
            for transaction_id in writes.bets:
                confirmed += await connection.run(CONFIRM, {"w_id": transaction_id, **writes.confirmation})
            if confirmed != len(writes.bets):  # the sweeper took them for rollback meanwhile
                raise too_late()
            for win in writes.wins:  # handed over only if written now (a step resumed may owe it already)
                if await connection.run(insert_ignoring(connection), win) and found is not None:
                    handed.append({**win, "external_id": found[1], "token": found[2]})
            cached = None
            if writes.known is None:  # no bet answered with the operator's balance: the last one kept
                row = await connection.one(ACCOUNT, {"w_player": player})
                cached = None if row is None else int(row["balance"])
            balances[player] = writes.balance(cached)
            if balances[player] != cached:
                await connection.run(SET_BALANCE, {"w_player": player, "balance": balances[player]})
        self.wrote(movement, handed)
        return balances

    def writes(
        self, movement: Movement, debit: Debit, player: str, who: tuple[Operator, str] | None
    ) -> Writes:
        """What ``record`` writes for one remote player of ``movement`` (``who``: their operator and
        currency; None: no operator, then no win is written), as rows: ``record`` writes them with
        a statement each, the PostgreSQL round store in one (``operators.postgres``)."""
        bets = [bet for bet in _receipt(debit).bets if bet.player == player]
        wins = []
        if who is not None:
            operator, currency = who
            due = movement.at if self.hand_over is None else self.lease(operator)
            wins = [
                transaction_row(movement, t, operator, currency, kind="win", amount=t.amount,
                                status="pending", due=due)
                for t in credits(movement, player)
            ]
        known = next((bet.balance for bet in reversed(bets) if bet.balance is not None), None)
        confirmation = {"w_from": "sending", "status": "confirmed", "last_answer": "OK",
                        "updated_at": movement.at}
        return Writes(player, [bet.call for bet in bets if bet.call], [bet.transaction_id for bet in bets],
                      confirmation, wins, known, sum(int(win["amount"]) for win in wins))

    def wrote(self, movement: Movement, handed: list[dict[str, Any]]) -> None:
        """The wins the unit of work recording ``movement`` wrote now (as ``writes`` made them,
        with the player's ``external_id`` and ``token``): handed to the outbox once it committed."""
        if handed and self.hand_over is not None:
            if len(self._handed) >= HANDED_KEPT:  # steps that never committed: their rows do not exist
                del self._handed[next(iter(self._handed))]
            self._handed[id(movement)] = (movement, handed)

    async def who(self, player_id: str) -> tuple[Operator, str] | None:
        """An operator's player's operator and currency (neither ever changes: kept per process)."""
        found = self._who.get(player_id)
        if found is None:
            row = await self._player(player_id)
            if row is None:
                return None
            found = self._who[player_id] = (row[0], row[3])
        return found

    async def rollback(self, debit: Debit) -> None:
        receipt = _receipt(debit)
        await self.embedded.rollback(receipt.embedded)
        if receipt.bets:
            async with self.database.transaction() as connection:
                await keep_calls(connection, [bet.call for bet in receipt.bets])
                for bet in receipt.bets:
                    await self._roll_back(connection, bet.transaction_id, self.now())
            self.wake()

    async def committed(self, movement: Movement) -> None:
        handed = self._handed.pop(id(movement), None)
        if handed is not None and handed[0] is movement and self.hand_over is not None:
            self.hand_over(handed[1])
        elif credits(movement):  # written by a step resumed, or not handed over: the outbox finds them
            self.wake()

    async def roll_back_orphan(self, transaction_id: str) -> bool:
        """A bet still ``sending`` that no running step will confirm: a rollback owed."""
        async with self.database.transaction() as connection:
            return await self._roll_back(connection, transaction_id, self.now(), "orphaned")

    # ---- the calls ------------------------------------------------------------------------
    async def _bet(
        self, movement: Movement, transfer: Transfer, deadline: float | None
    ) -> Bet | DealerPokerError:
        at = self.now()
        who = await self.who(transfer.player)
        if who is None:
            return WalletRefusedError(f"player {transfer.player!r} has no operator")
        operator, currency = who
        row = transaction_row(replace(movement, at=at), transfer, operator, currency, kind="bet",
                   amount=-transfer.amount, status="sending", due=None, attempts=1)
        async with self.database.autocommit() as connection:  # the bet's row committed before it is sent
            written, player = await placed(connection, row)
            if player is None:
                return WalletRefusedError(f"player {transfer.player!r} has no operator")
            external, token = player
            # The money moment's first bet carries its txid; a retried one (the step refused, the
            # player acts again) the next ``~n``: counted only then.
            if not written:
                counted = await connection.rows(EARLIER_BETS, {"w_txid": transfer.txid, "w_kind": "bet"})
                row["transaction_id"] = f"{transfer.txid}~{int(counted[0]['earlier']) + 1}"
                await connection.run(NEW_BET, row)
        transaction_id = str(row["transaction_id"])
        timeout = operator.wallet_timeout_seconds
        if deadline is not None:
            timeout = min(timeout, deadline - asyncio.get_running_loop().time())
        answer = await self.client.call(
            operator,
            "bet",
            {
                "player": external,
                "token": token,
                "currency": currency,
                "amount": -transfer.amount,
                "transaction_id": transaction_id,
                "round_id": movement.round_id,
                "game": movement.game,
                "round_closed": False,
            },
            timeout=timeout,
            keep=False,
        )
        if answer.status == "OK":
            return Bet(transaction_id, transfer.txid, transfer.player, answer.balance, answer.record)
        async with self.database.transaction() as connection:
            await keep_calls(connection, [answer.record])
            if answer.status in ("INSUFFICIENT_FUNDS", "INVALID_TOKEN"):
                await run(
                    connection,
                    update(wallet_transactions)
                    .where(
                        wallet_transactions.c.transaction_id == transaction_id,
                        wallet_transactions.c.status == "sending",
                    )
                    .values(
                        status="refused",
                        last_answer=answer.status,
                        balance=answer.balance,
                        updated_at=self.now(),
                    ),
                )
            else:
                await self._roll_back(connection, transaction_id, self.now(), answer.outcome)
        if answer.status is None or answer.status not in ("INSUFFICIENT_FUNDS", "INVALID_TOKEN"):
            self.wake()
            return WalletUnavailableError(
                f"the operator's wallet did not take the bet ({answer.outcome})"
                ": nothing was placed; try again"
            )
        if answer.status == "INVALID_TOKEN":
            return WalletRefusedError(
                "the operator refused the session (INVALID_TOKEN): launch the game again"
            )
        balance = answer.balance if answer.balance is not None else 0
        return InsufficientFundsError(key="error.funds", balance=balance, needed=-transfer.amount)

    async def _roll_back(
        self, connection: Connection, transaction_id: str, at: str, answer: str | None = None
    ) -> bool:
        """Turn a bet still ``sending`` into a rollback owed (False: it was confirmed or taken)."""
        claimed = await run(
            connection,
            update(wallet_transactions)
            .where(
                wallet_transactions.c.transaction_id == transaction_id,
                wallet_transactions.c.status == "sending",
            )
            .values(status="unknown", last_answer=answer, updated_at=at),
        )
        if claimed != 1:
            return False
        bet = await one(
            connection,
            select(wallet_transactions).where(wallet_transactions.c.transaction_id == transaction_id),
        )
        assert bet is not None
        await run(
            connection,
            insert_ignoring(connection).values(
                {
                    **bet,
                    "transaction_id": f"{transaction_id}:rollback",
                    "kind": "rollback",
                    "reference_transaction_id": transaction_id,
                    "status": "pending",
                    "attempts": 0,
                    "next_attempt_at": at,
                    "last_answer": None,
                    "balance": None,
                    "created_at": at,
                    "updated_at": at,
                }
            ),
        )
        return True

    async def _confirmed(self, txids: set[str]) -> set[str]:
        async with self.database.reading() as connection:
            found = await connection.execute(
                select(wallet_transactions.c.txid).where(
                    wallet_transactions.c.txid.in_(sorted(txids)),
                    wallet_transactions.c.kind == "bet",
                    wallet_transactions.c.status == "confirmed",
                )
            )
            return {str(txid) for (txid,) in found}

    async def _player(self, player_id: str) -> tuple[Operator, str, str | None, str] | None:
        async with self.database.reading() as connection:
            return await player_row(connection, player_id, self.operators)


def credits(movement: Movement, player: str | None = None) -> list[Transfer]:
    """What the movement owes remote players (or ``player``): the outbox's wins, each return and
    a zero win closing a round that returned nothing. A zero stake (a check) or a Bonus that paid
    nothing owes nothing."""
    closing = movement.closes_round
    return [
        t
        for t in movement.transfers
        if (t.player == player if player is not None else is_remote(t.player))
        and (t.amount > 0 or (closing and t.amount == 0 and t.memo == "settle"))
    ]


def too_late() -> WalletUnavailableError:
    """A step whose bet the sweeper took for rollback before the step could confirm it."""
    return WalletUnavailableError("the operator's answer came too late: the bet is being rolled back")


def _only(movement: Movement, *, remote: bool) -> Movement:
    return replace(movement, transfers=tuple(t for t in movement.transfers if is_remote(t.player) == remote))


def _receipt(debit: Debit) -> Receipt:
    receipt = debit.receipt
    return receipt if isinstance(receipt, Receipt) else Receipt(debit)
