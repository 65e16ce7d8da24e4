"""The Wallet port: where players' money is, and how the money of a round's steps reaches it.

Solo rounds and live tables move money through the same calls, around the unit of work that
writes a step (a solo action, or a live table's commit of a whole table's stakes or returns);
the step's money is a :class:`Movement` (its transfers, txids ``ledger.txid``: one scheme for
solo and live, so every call is idempotent):

1. ``debit(movement, balances)`` *before* the unit of work: take the stakes, or refuse players
   (each with the error to answer). ``balances``: the figures the store read, where it read them
   (the embedded wallet's own; a remote wallet asks its owner instead). Nothing slow happens
   inside a unit of work (SQLite's is the process's only writer).
2. ``record(connection, movement, debit)`` *inside* it: write what the step moved in the same
   database transaction as the round's new state (the embedded wallet: the ledger entries and
   balances, refusing a stake the balance no longer covers; a remote wallet: the stakes it took
   as confirmed, and the returns it owes in a durable outbox).
3. ``rollback(debit)`` if the unit of work did not commit (the round changed meanwhile, an
   error, a refusal): give back what ``debit`` took.
4. ``committed(movement)`` once it committed (a remote wallet delivers what it owes).

:class:`LedgerWallet` is the embedded wallet ``make run`` uses: balances in the server's own
double-entry ledger, so steps 1, 3 and 4 have nothing to move.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.currency import house_account
from dealerpoker.server import ledger
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.ledger import Transfer


@dataclass(frozen=True, slots=True)
class Movement:
    """The money of one step of a round: a solo step, or one commit of a live table."""

    round_id: str
    game: str
    currency: str
    """The round's (every account of its players holds it)."""
    transfers: tuple[Transfer, ...]
    at: str
    closes_round: bool = False
    """The round's last money (its settlement)."""
    may_repeat: bool = False
    """Some transfers may be posted already (a live table resuming a step): those are skipped."""
    promo: Mapping[str, Any] | None = None
    """A free round's settlement: its campaign and reward, sent with the win it owes so the
    operator books it as promotional (``server.promotions``)."""
    promos: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """A live table's settlement: each free round's ``promo`` by player (the others' wins are not
    promotional)."""

    def promo_of(self, player_id: str) -> Mapping[str, Any] | None:
        """The promotional flag of ``player_id``'s win in this movement (None: real money)."""
        return self.promos.get(player_id, self.promo)

    @property
    def stakes(self) -> tuple[Transfer, ...]:
        return tuple(transfer for transfer in self.transfers if transfer.amount < 0)


@dataclass(frozen=True, slots=True)
class Debit:
    """What ``Wallet.debit`` did: the players it refused, and its own receipt of what it took
    (for ``record`` and ``rollback``; the embedded wallet takes nothing beforehand)."""

    refused: Mapping[str, DealerPokerError] = field(default_factory=dict)
    receipt: Any = None


class Wallet(Protocol):
    async def balance(self, player_id: str) -> int | None:
        """A player's balance (None: no such player)."""

    async def balances(self, player_ids: Collection[str]) -> dict[str, int]:
        """Each player's balance, read together where the wallet can (an unknown player is left out)."""

    async def debit(self, movement: Movement, balances: Mapping[str, int], *,
                    deadline: float | None = None) -> Debit:
        """Take the movement's stakes before its unit of work (``deadline``, loop time: give up
        on what is still unanswered by then, as refused)."""

    async def record(self, connection: Connection, movement: Movement, debit: Debit) -> dict[str, int]:
        """Write the movement in its unit of work; the balances of the players it moved. Raises
        ``ledger.UncoveredStakesError`` (nothing written) for stakes it cannot cover."""

    async def rollback(self, debit: Debit) -> None:
        """The unit of work after ``debit`` did not commit: give back what it took."""

    async def committed(self, movement: Movement) -> None:
        """The unit of work that recorded ``movement`` committed."""


class LedgerWallet:
    """The embedded wallet: each player's balance is their account in the server's ledger.

    A stake is checked against the balance the store read (the early answer) and again, with
    the account locked, when the unit of work posts it (``ledger.post``).
    """

    def __init__(self, database: Database) -> None:
        self.database = database

    async def balance(self, player_id: str) -> int | None:
        async with self.database.transaction() as connection:
            return await ledger.balance_of(connection, player_id)

    async def balances(self, player_ids: Collection[str]) -> dict[str, int]:
        async with self.database.reading() as connection:
            return await ledger.balances_of(connection, player_ids)

    async def debit(self, movement: Movement, balances: Mapping[str, int], *,
                    deadline: float | None = None) -> Debit:
        return Debit({player: ledger.UncoveredStakesError.of({player: (balances[player], needed)})
                      for player, needed in ledger.stakes(movement.transfers).items()
                      if player in balances and balances[player] < needed})

    async def record(self, connection: Connection, movement: Movement, debit: Debit) -> dict[str, int]:
        return await ledger.post(connection, movement.transfers, house=house_account(movement.currency),
                                 at=movement.at, round_id=movement.round_id, new=not movement.may_repeat)

    async def rollback(self, debit: Debit) -> None:
        return None  # nothing was taken before the unit of work

    async def committed(self, movement: Movement) -> None:
        return None  # the ledger is the wallet: nothing to deliver
