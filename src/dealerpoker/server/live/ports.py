"""What the table runner needs from the outside: a store (ledger + round records) and a publisher.

``MemoryStore`` is the in-process implementation used by the pure-logic tests; the server wires
``dealerpoker.server.live.sqlstore.SqlStore`` (the shared ledger and the database).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

#: The step name of a player's pending opening bets; pending decisions use their point's name.
BETS = "bets"
#: The "player" of a decision timer's start, written behind like a decision (at its point's
#: step, ``{"at", "deadline"}``) so that a restart keeps the timer the players were shown.
TIMER = "@timer"


class StaleLeaseError(RuntimeError):
    """A newer lease token claimed the table: this process must stop driving it.

    Raised by a store's fenced writes (``commit``, ``save_pending``) and ``claim``; ``epoch``
    is the token the database holds.
    """

    def __init__(self, table_id: str, token: int, epoch: int) -> None:
        super().__init__(f"table {table_id}: lease token {token} is stale (the table is at {epoch})")
        self.table_id, self.token, self.epoch = table_id, token, epoch


@dataclass(frozen=True, slots=True)
class FreeRoundClaim:
    """A seat's free round, claimed at the deal: its reward, and the reward's ``rounds_used`` when
    the bet was accepted (None: a seat restored from a record written before it was kept). The
    claim moves ``rounds_used`` on only from that value, as a solo round's does, so the cap left
    the seat was given is still the cap left when it plays."""

    reward: str
    rounds_used: int | None



@dataclass(frozen=True, slots=True)
class Pending:
    """A bet or decision accepted but not yet committed (or a decision timer's start: ``TIMER``):
    ``value`` is the bets' JSON, the decision's or the timer's."""

    number: int
    player_id: str
    step: str  # BETS or a decision point
    value: str

    @property
    def key(self) -> tuple[int, str, str]:
        return (self.number, self.player_id, self.step)


class LiveStore(Protocol):
    async def claim(self, table_id: str, token: int | None) -> int:
        """Fence the table with a lease token: every later write must carry it (``fence``).

        ``token`` from the lease (Redis ``INCR``) must be at least the stored epoch, else
        ``StaleLeaseError``; ``None`` (a single process, no Redis) takes the stored epoch + 1.
        Returns the token now in force. Claim before reading the round: from then on a
        previous owner's writes are refused."""

    async def last_round(self, table_id: str) -> dict[str, Any] | None:
        """The newest stored record of the table (``to_record`` form), or None."""

    async def recent_rounds(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The table's newest ``limit`` stored records, newest first, without their seats."""

    async def commit(self, record: dict[str, Any], *, fence: int, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int],
                     extra_credits: Mapping[str, Mapping[str, int]] | None = None,
                     game: str = "", claims: Mapping[str, FreeRoundClaim] | None = None,
                     promos: Mapping[str, Mapping[str, Any]] | None = None,
                     releases: Sequence[str] = (),
                     extra_debits: Mapping[str, Mapping[str, int]] | None = None,
                     in_transaction: Callable[[Any, str], Awaitable[None]] | None = None,
                     ) -> frozenset[str]:
        """One transaction, refused (``StaleLeaseError``) unless ``fence`` is the table's epoch:
        the record, each player's stake (player -> house) and return (house -> player) with txid
        ``{round}:{player}:{step}``, and each of ``extra_credits`` (``{other_step: {player:
        amount}}``, e.g. the Bonus paid at the deal) with txid ``{round}:{player}:{other_step}``.
        A txid already posted is not posted again. The money goes through the wallet (``game``:
        the table's, for it). If some players cannot cover their debit, or the wallet refused
        them, nothing is committed and those players are returned (the caller drops them and
        commits again). ``claims`` (player -> its claim, at the deal): each seat's free round, claimed
        in the same transaction (a claim that fails refuses its player the same way); ``promos``
        (player -> promo, at the settlement): the free rounds' wins, flagged promotional;
        ``releases`` (rewards, at a misdeal's settlement): free rounds given back in the same
        transaction.
        ``extra_debits`` (``{other_step: {player: amount}}``, the jackpot bets' stakes at the deal)
        are stakes with txids of their own; ``in_transaction(connection, at)`` runs in the same
        transaction (the jackpot's pool moved with the step; raising rolls everything back).
        Opening a round (phase ``betting``) drops the pending bets and decisions of the
        table's earlier rounds."""

    def moved_balances(self) -> Mapping[str, int]:
        """After a commit: the balance of each player whose money that commit moved, as it
        committed them (empty after a refused commit, and for txids found already posted)."""

    async def save_pending(self, table_id: str, items: Sequence[Pending], *, fence: int) -> None:
        """Write accepted bets and decisions (newer values replace older ones), fenced."""

    async def pending(self, table_id: str, number: int) -> list[Pending]:
        """The bets and decisions written for the round ``number`` of the table."""

    async def balance(self, player_id: str, *, fresh: bool = False) -> int | None:
        """A player's balance (None for an unknown player); may be cached unless ``fresh``."""


class Publisher(Protocol):
    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        """Send one message to everyone watching the table (serialised once)."""

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        """Send each player at the table their own message, with their balance (``balances``)
        added. Players who played alike may be given the same message object: it is read only."""


class MemoryStore:
    """Balances, postings and records in memory, with the same all-or-nothing commit."""

    def __init__(self, balances: Mapping[str, int] | None = None) -> None:
        self.balances: dict[str, int] = dict(balances or {})
        self.house = 0
        self.posted: dict[str, int] = {}  # txid -> signed amount for the player
        self.records: dict[tuple[str, int], dict[str, Any]] = {}
        self.commits = 0
        self.epochs: dict[str, int] = {}
        self.saved: dict[tuple[str, int, str, str], Pending] = {}
        self.moved: dict[str, int] = {}

    async def claim(self, table_id: str, token: int | None) -> int:
        epoch = self.epochs.get(table_id, 0)
        if token is None:
            token = epoch + 1
        elif token < epoch:
            raise StaleLeaseError(table_id, token, epoch)
        self.epochs[table_id] = token
        return token

    def _fence(self, table_id: str, fence: int) -> None:
        if self.epochs.get(table_id) != fence:
            raise StaleLeaseError(table_id, fence, self.epochs.get(table_id, 0))

    async def save_pending(self, table_id: str, items: Sequence[Pending], *, fence: int) -> None:
        self._fence(table_id, fence)
        self.saved.update(((table_id, *item.key), item) for item in items)

    async def pending(self, table_id: str, number: int) -> list[Pending]:
        return [item for (t, n, _p, _s), item in self.saved.items() if t == table_id and n == number]

    async def last_round(self, table_id: str) -> dict[str, Any] | None:
        numbers = [n for (t, n) in self.records if t == table_id]
        return self.records[(table_id, max(numbers))] if numbers else None

    async def recent_rounds(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        numbers = sorted((n for (t, n) in self.records if t == table_id), reverse=True)[:limit]
        return [{k: v for k, v in self.records[(table_id, n)].items() if k != "seats"} for n in numbers]

    async def commit(self, record: dict[str, Any], *, fence: int, step: str, debits: Mapping[str, int],
                     credits: Mapping[str, int],
                     extra_credits: Mapping[str, Mapping[str, int]] | None = None,
                     game: str = "", claims: Mapping[str, FreeRoundClaim] | None = None,
                     promos: Mapping[str, Mapping[str, Any]] | None = None,
                     releases: Sequence[str] = (),
                     extra_debits: Mapping[str, Mapping[str, int]] | None = None,
                     in_transaction: Callable[[Any, str], Awaitable[None]] | None = None,
                     ) -> frozenset[str]:
        self._fence(record["table"], fence)
        round_id = f"{record['table']}/{record['number']}"
        refused = frozenset(
            player for player, amount in debits.items()
            if f"{round_id}:{player}:{step}" not in self.posted and self.balances.get(player, 0) < amount)
        self.moved = {}
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
                self.moved[player] = self.balances[player]
        self.posted.update(posted_now)
        self.records[(record["table"], record["number"])] = record
        if record["phase"] == "betting":
            self.saved = {k: v for k, v in self.saved.items()
                          if k[0] != record["table"] or k[1] >= record["number"]}
        self.commits += 1
        return frozenset()

    def moved_balances(self) -> Mapping[str, int]:
        return self.moved

    async def balance(self, player_id: str, *, fresh: bool = False) -> int | None:
        return self.balances.get(player_id)
