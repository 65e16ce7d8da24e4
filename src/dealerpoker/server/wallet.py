"""The Wallet port: where players' money is, and how the transfers of a round reach it.

Solo rounds and live tables move money through the same calls, at the same moments of a step
(a solo action, or a live table's commit of a whole table's stakes or returns):

1. ``debit(stakes, balances)`` *before* the unit of work that writes the step: take the
   stakes, or refuse players (each with the error to answer). ``balances`` are the figures
   the store read (the embedded wallet's own; a remote wallet asks its owner instead).
2. ``record(connection, transfers, ...)`` *inside* that unit of work: write what the step moved
   in the same database transaction as the round's new state (the embedded wallet: the ledger
   entries and balances, refusing a stake the balance no longer covers; a remote wallet: the
   ledger's record of the confirmed stakes, and the returns it owes in a durable outbox).
3. ``rollback(stakes)`` when the unit of work did not commit after ``debit`` (the round changed
   meanwhile, or the process is going down): give the stakes back.
4. ``committed(transfers)`` once it committed (a remote wallet delivers what it owes).

Every transfer has its txid (``ledger.txid``: one scheme for solo and live), so each call is
idempotent. :class:`LedgerWallet` is the embedded wallet ``make run`` uses: balances in the
server's own double-entry ledger, so steps 1, 3 and 4 have nothing to do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from dealerpoker.errors import DealerPokerError
from dealerpoker.server import ledger
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.ledger import Transfer


class Wallet(Protocol):
    async def balance(self, player_id: str) -> int | None:
        """A player's balance (None: no such player)."""

    async def debit(self, stakes: Sequence[Transfer],
                    balances: Mapping[str, int]) -> Mapping[str, DealerPokerError]:
        """Take the stakes before the step is written; the players refused, each with its error
        (their stakes not taken). ``balances``: what the store read, where it is fresh."""

    async def record(self, connection: Connection, transfers: Sequence[Transfer], *, at: str,
                     round_id: str, new: bool) -> dict[str, int]:
        """Write the step's transfers in its unit of work (``ledger.post``'s contract: a txid
        already posted is skipped unless ``new``); the moved players' balances."""

    async def rollback(self, stakes: Sequence[Transfer]) -> None:
        """The unit of work after ``debit`` did not commit: give these stakes back."""

    async def committed(self, transfers: Sequence[Transfer]) -> None:
        """The unit of work that recorded ``transfers`` committed."""


class LedgerWallet:
    """The embedded wallet: each player's balance is their account in the server's ledger.

    A stake is checked against the balance the store read (an early answer) and again, with
    the account locked, when the step's unit of work posts it (``ledger.post``).
    """

    def __init__(self, database: Database) -> None:
        self.database = database

    async def balance(self, player_id: str) -> int | None:
        async with self.database.transaction() as connection:
            return await ledger.balance_of(connection, player_id)

    async def debit(self, stakes: Sequence[Transfer],
                    balances: Mapping[str, int]) -> Mapping[str, DealerPokerError]:
        refused = {player: (balances[player], needed) for player, needed in ledger.stakes(stakes).items()
                   if player in balances and balances[player] < needed}
        return {player: ledger.UncoveredStakesError({player: refused[player]}) for player in refused}

    async def record(self, connection: Connection, transfers: Sequence[Transfer], *, at: str,
                     round_id: str, new: bool) -> dict[str, int]:
        return await ledger.post(connection, transfers, at=at, round_id=round_id, new=new)

    async def rollback(self, stakes: Sequence[Transfer]) -> None:
        return None  # nothing was taken before the unit of work

    async def committed(self, transfers: Sequence[Transfer]) -> None:
        return None  # the ledger is the wallet: nothing to deliver
