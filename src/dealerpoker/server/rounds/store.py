"""The RoundStore port: what solo rounds read and write.

Reads take no lock. A write applies only if what the step was computed from is unchanged
(optimistic concurrency): an opening only if the player's nonce and seeds are still as read, a
step only if the round's steps and, where the store read it, the player's balance are. Otherwise
nothing is written and the write answers None: the use case reads again and recomputes. Each
write is one unit of work with its money (``Wallet.record``) and commits whole or not at all.

Implementations (chosen once, at start, by ``rounds.stores.round_store``):

* ``SqlRoundStore`` (``rounds.sql``): any database, SQLAlchemy Core in one transaction; the
  transfers go through the wallet. SQLite always uses it.
* ``PostgresRoundStore`` (``rounds.postgres``): PostgreSQL with the embedded ledger wallet, a
  step in one or two round trips; with operators' seamless wallets, ``SeamlessPostgresRoundStore``
  (the same, and an operator's real-money player's step in one statement too, the seamless
  wallet's writes in it). ``SqlRoundStore`` on PostgreSQL cost 2.8x its CPU per round
  (``benchmarks/RESULTS.md``, "Server"), and 2x for the seamless wallet ("Seamless wallet").
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dealerpoker.server.db import Connection
from dealerpoker.server.rounds.plan import Planned, ViewJSON
from dealerpoker.server.wallet import Debit

Check = Callable[[Connection], Awaitable[None]]
"""A check made in the unit of work that opens a round."""


@dataclass(frozen=True, slots=True)
class PlayerRead:
    """What opening a round reads of its player."""

    player_id: str
    balance: int
    currency: str
    client_seed: str
    nonce: int
    next_server_seed: str | None
    responsible_gaming: str | None
    """Their responsible-gaming state (JSON; None: nothing ever set)."""
    key_round: str | None = None
    """The round the idempotency key asked about already opened, if any."""


@dataclass(frozen=True, slots=True)
class RoundRead:
    """A round's row (column -> value) and its player's balance, as read."""

    row: Mapping[str, Any]
    balance: int
    cached: bool = False
    """Taken from what this process last wrote rather than read: possibly stale."""


class RoundStore(Protocol):
    async def player(self, player_id: str, idempotency_key: str | None = None) -> PlayerRead | None:
        """The player's seeds, nonce and balance (None: no such player)."""

    async def round(self, round_id: str) -> RoundRead | None:
        """A round as stored now (None: no such round)."""

    async def round_to_step(self, round_id: str) -> RoundRead | None:
        """A round to compute its next step from: may be what this process last wrote (the
        write checks it)."""

    async def open(self, read: PlayerRead, opening: Planned, next_seed: str, debit: Debit,
                   check: Check | None = None) -> ViewJSON | None:
        """Write a new round (``opening.columns``), advance the player's nonce and committed seed
        (``next_seed``) and record the opening's money (``Wallet.record`` with ``debit``), if
        the player is still as ``read``; the stored view, or None (nothing written). ``check``
        runs in the unit of work, with the player's rows locked, before the round is written
        (responsible gaming: it may refuse the round by raising)."""

    async def step(self, read: RoundRead, step: Planned, debit: Debit) -> ViewJSON | None:
        """Write a round's next step and record its money if the round (and the balance) are
        still as ``read``; the stored view, or None (nothing written)."""

    async def history(self, player_id: str, *, limit: int, before_seq: int | None = None,
                      status: str | None = None) -> list[ViewJSON]:
        """The player's rounds' stored views, newest first."""

    async def stale(self, cutoff: str, limit: int) -> list[tuple[str, str]]:
        """Open rounds (id, player) untouched since before ``cutoff``, oldest first."""

    async def close(self) -> None: ...
