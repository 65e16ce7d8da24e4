"""What the table runner needs from the outside: a store (ledger + round records) and a publisher.

``MemoryStore`` is the in-process implementation used by the pure-logic tests; the server wires
``dealerpoker.server.live.sqlstore.SqlStore`` (the shared ledger and the database).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class LiveStore(Protocol):
    async def last_round(self, table_id: str) -> dict[str, Any] | None:
        """The newest stored record of the table (``to_record`` form), or None."""

    async def commit(self, record: dict[str, Any], *, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int],
                     extra_credits: Mapping[str, Mapping[str, int]] | None = None) -> frozenset[str]:
        """One transaction: the record, each player's stake (player -> house) and return
        (house -> player) with txid ``{round}:{player}:{step}``, and each of ``extra_credits``
        (``{other_step: {player: amount}}``, e.g. the Bonus paid at the deal) with txid
        ``{round}:{player}:{other_step}``. A txid already posted is not posted again. If some
        players cannot cover their debit, nothing is committed and those players are returned
        (the caller drops them and commits again)."""

    async def balance(self, player_id: str, *, fresh: bool = False) -> int | None:
        """A player's balance (None for an unknown player); may be cached unless ``fresh``."""


class Publisher(Protocol):
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        """Send one message to everyone watching the table (serialised once)."""

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]]) -> None:
        """Send each player at the table their own message."""


class MemoryStore:
    """Balances, postings and records in memory, with the same all-or-nothing commit."""

    def __init__(self, balances: Mapping[str, int] | None = None) -> None:
        self.balances: dict[str, int] = dict(balances or {})
        self.house = 0
        self.posted: dict[str, int] = {}  # txid -> signed amount for the player
        self.records: dict[tuple[str, int], dict[str, Any]] = {}
        self.commits = 0

    async def last_round(self, table_id: str) -> dict[str, Any] | None:
        numbers = [n for (t, n) in self.records if t == table_id]
        return self.records[(table_id, max(numbers))] if numbers else None

    async def commit(self, record: dict[str, Any], *, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int],
                     extra_credits: Mapping[str, Mapping[str, int]] | None = None) -> frozenset[str]:
        round_id = f"{record['table']}/{record['number']}"
        refused = frozenset(
            player for player, amount in debits.items()
            if f"{round_id}:{player}:{step}" not in self.posted and self.balances.get(player, 0) < amount)
        if refused:
            return refused
        moves = [(step, -1, debits), (step, 1, credits)]
        moves += [(other, 1, amounts) for other, amounts in (extra_credits or {}).items()]
        posted_now: dict[str, int] = {}
        for name, sign, amounts in moves:
            for player, amount in amounts.items():
                txid = f"{round_id}:{player}:{name}"
                if (txid in self.posted and txid not in posted_now) or amount == 0:
                    continue
                posted_now[txid] = posted_now.get(txid, 0) + sign * amount
                self.balances[player] += sign * amount
                self.house -= sign * amount
        self.posted.update(posted_now)
        self.records[(record["table"], record["number"])] = record
        self.commits += 1
        return frozenset()

    async def balance(self, player_id: str, *, fresh: bool = False) -> int | None:
        return self.balances.get(player_id)
