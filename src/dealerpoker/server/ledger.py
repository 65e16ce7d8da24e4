"""The double-entry ledger: append-only entries, one pair per transfer, idempotent txids.

Every movement of money is a transfer between a player's account and the house, written as two
entries (the debit negative, the credit positive) under one transaction id. A txid is unique:
posting it again does nothing, so a retried request never moves money twice. A player's
balance can never go negative. Callers run :func:`post` inside a unit of work together with
the state change the money belongs to, so both commit or neither does.

Every account holds one currency (``accounts.currency``), and a transfer is between accounts
of one currency: a player and the house account of their currency. So in each currency the sum
of every account's balance (players plus house) never changes: it starts at zero and every
transfer adds ``-amount + amount``.

**Transaction ids** (one scheme for solo and live rounds): ``{round}:{player}:{moment}``, one
transfer per player per money moment of a round. ``round`` is a solo round's id (``r_...``) or a
live round's ``{table}/{number}``; ``moment`` is ``bets`` (the opening bets), ``bonus`` (a Texas
Bonus paid on the hole cards, at the deal), a decision point (``preflop``, ``flop``, ``turn``:
the stake of the decision taken there) or ``settle`` (what the settlement returns, net of what
the deal already paid). A new player's float is ``session:{player}``; an admin's manual
adjustment in the back office is ``adjustment:{player}:{key}`` (memo ``adjustment``, its reason in
the admin audit log). Solo rounds played before
migration 0008 had ``{round}:{step}`` and ``{round}:{step}:return``; 0008 rewrote them.

>>> txid("r_1f2e", "p_7a", "bets"), txid("texas-1/42", "p_7a", "flop")
('r_1f2e:p_7a:bets', 'texas-1/42:p_7a:flop')
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import String, any_, bindparam, func, select, text
from sqlalchemy.dialects import postgresql

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.games.currency import is_house_account
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.observability.metrics import count_postings
from dealerpoker.server.schema import accounts, ledger_entries

BETS, BONUS, SETTLE = "bets", "bonus", "settle"
ADJUSTMENT = "adjustment"
"""The memo (and txid prefix) of an admin's manual adjustment of a player's balance."""
"""The money moments besides the decision points (named by the game's phases)."""


def txid(round_id: str, player_id: str, moment: str) -> str:
    """The transaction id of a player's transfer at a money moment of a round."""
    return f"{round_id}:{player_id}:{moment}"


@dataclass(frozen=True, slots=True)
class Transfer:
    """Money between a player and the house, seen from the player's side."""

    txid: str
    player: str
    amount: int
    """Minor units: negative = the player pays the house (a stake), positive = the house pays."""
    memo: str


class UncoveredStakesError(InsufficientFundsError):
    """Some players' balances do not cover their stakes: nothing was posted.

    ``players`` names them all; ``balance`` and ``needed`` are the first one's.
    """

    def __init__(self, message: str | None = None, *, players: frozenset[str] = frozenset(),
                 **params: Any) -> None:
        super().__init__(message, **params)
        self.players = players

    @classmethod
    def of(cls, refused: Mapping[str, tuple[int, int]]) -> UncoveredStakesError:
        """The error for these players' (balance, stake)."""
        balance, needed = refused[min(refused)]
        return cls(key="error.funds", balance=balance, needed=needed, players=frozenset(refused))


Entry = tuple[str, str, int, str]
"""A ledger entry: txid, account, signed amount, memo."""


def entries(transfers: Iterable[Transfer], house: str) -> list[Entry]:
    """Both entries of each transfer with ``house`` (the house account of the players' currency;
    none for a zero amount), in order."""
    found: list[Entry] = []
    for transfer in transfers:
        amount = transfer.amount
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise ValueError(f"transfer {transfer.txid}: amount must be an integer, got {amount!r}")
        if amount:
            found += [(transfer.txid, transfer.player, amount, transfer.memo),
                      (transfer.txid, house, -amount, transfer.memo)]
    return found


def stakes(transfers: Iterable[Transfer]) -> dict[str, int]:
    """What the transfers take from each player (each player's stakes, positive)."""
    taken: dict[str, int] = {}
    for transfer in transfers:
        if transfer.amount < 0:
            taken[transfer.player] = taken.get(transfer.player, 0) - transfer.amount
    return taken


def net(transfers: Iterable[Transfer]) -> dict[str, int]:
    """Each player's balance change."""
    moved: dict[str, int] = {}
    for transfer in transfers:
        moved[transfer.player] = moved.get(transfer.player, 0) + transfer.amount
    return moved


T = TypeVar("T")
_CHUNK = 1000  # keys per IN (...) list


def chunks(items: Sequence[T]) -> Iterator[Sequence[T]]:
    """``items`` in slices short enough for one statement's ``IN (...)`` list or batch."""
    for start in range(0, len(items), _CHUNK):
        yield items[start:start + _CHUNK]


_BALANCE = select(accounts.c.balance).where(accounts.c.id == bindparam("p_id")).with_for_update()
_LOCK_BALANCES = (select(accounts.c.id, accounts.c.balance)
                  .where(accounts.c.id == any_(bindparam("p_ids", type_=postgresql.ARRAY(String))))
                  .order_by(accounts.c.id).with_for_update())


async def post(
    connection: Connection, transfers: Sequence[Transfer], *, house: str, at: str,
    round_id: str | None = None, new: bool = False,
) -> dict[str, int]:
    """Post a batch of transfers (one step of a round, for one player or a whole table) with
    ``house``, the house account of the players' currency; the new balance of each player whose
    money moved.

    A txid already posted is skipped (a retried or resumed step never moves money twice);
    ``new`` skips that look-up when the caller derived the txids from rows it checked in this
    unit of work (the unique constraint on ``(txid, account)`` still refuses a duplicate). The
    players' balances are read, and on PostgreSQL locked in id order; a stake a balance does not
    cover raises :class:`UncoveredStakesError` naming every such player, before anything is
    written. Four statements whatever the batch's size (up to a thousand players).
    """
    rows = entries(transfers, house)
    if not rows:
        return {}
    if not new:
        posted: set[str] = set()
        for chunk in chunks(sorted({row[0] for row in rows})):
            found = await connection.execute(
                select(ledger_entries.c.txid).where(ledger_entries.c.txid.in_(chunk)).distinct())
            posted.update(str(txid) for (txid,) in found)
        if posted:
            transfers = [t for t in transfers if t.txid not in posted]
            rows = [row for row in rows if row[0] not in posted]
            if not rows:
                return {}
    # A zero transfer (a live seat's settlement that returned nothing) moves no balance: its
    # player's row is neither read nor locked.
    moves, taken = net(t for t in transfers if t.amount), stakes(transfers)
    balances = await _balances(connection, sorted(moves))
    refused = {player: (balances.get(player, 0), needed) for player, needed in taken.items()
               if balances.get(player, 0) < needed}
    if refused:
        raise UncoveredStakesError.of(refused)
    unknown = sorted(set(moves) - set(balances))
    if unknown:
        raise ValueError(f"transfer {transfers[0].txid}: unknown account {unknown[0]!r}")
    await connection.update_many(accounts, ("id",), [{"id": p, "balance": delta} for p, delta in moves.items()
                                                     if delta], adding=("balance",))
    await connection.insert_many(ledger_entries, [
        {"txid": txid, "account_id": account, "amount": amount, "round_id": round_id, "memo": memo,
         "created_at": at} for txid, account, amount, memo in rows])
    count_postings(transfers)
    return {player: balances[player] + delta for player, delta in moves.items()}


async def _balances(connection: Connection, players: Sequence[str]) -> dict[str, int]:
    """The players' balances, their rows locked on PostgreSQL (in id order)."""
    if len(players) == 1:  # one player's step, the common case: the statement compiled once
        found = await connection.rows(_BALANCE, {"p_id": players[0]})
        return {players[0]: int(found[0]["balance"])} if found else {}
    if connection.dialect.name == "postgresql":  # one statement, one array, however many players
        found = await connection.rows(_LOCK_BALANCES, {"p_ids": list(players)})
        return {str(row["id"]): int(row["balance"]) for row in found}
    balances: dict[str, int] = {}
    for chunk in chunks(players):
        rows = await connection.execute(
            select(accounts.c.id, accounts.c.balance).where(accounts.c.id.in_(chunk))
            .order_by(accounts.c.id).with_for_update())
        balances.update((str(player), int(balance)) for player, balance in rows)
    return balances


async def post_transfer(
    connection: Connection, txid: str, from_account: str, to_account: str, amount: int, *, at: str,
    round_id: str | None = None, memo: str = "", known_new: bool = False,
) -> bool:
    """Move ``amount`` minor units between a player and the house; False (and nothing changed)
    when ``txid`` is already posted.

    Raises ``InsufficientFundsError`` (with the balance) when the player cannot cover it; the
    house may go below zero (it is the casino's side of every bet).
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError(f"transfer {txid}: amount must be an integer >= 0, got {amount!r}")
    if from_account == to_account:
        raise ValueError(f"transfer {txid}: from and to are the same account {from_account!r}")
    if is_house_account(from_account) == is_house_account(to_account):
        raise ValueError(f"transfer {txid}: every transfer is between a player and a house account")
    if not known_new and await is_posted(connection, txid):
        return False
    (player, house), signed = ((from_account, to_account), -amount) if is_house_account(to_account) \
        else ((to_account, from_account), amount)
    await post(connection, [Transfer(txid, player, signed, memo)], house=house, at=at, round_id=round_id,
               new=True)
    return True


async def is_posted(connection: Connection, txid: str) -> bool:
    found = await connection.execute(
        select(ledger_entries.c.id).where(ledger_entries.c.txid == txid).limit(1))
    return found.first() is not None


async def balances_of(connection: Connection, players: Collection[str]) -> dict[str, int]:
    """Players' balances in one statement (an unknown player is left out)."""
    read = select(accounts.c.id, accounts.c.balance).where(accounts.c.id.in_(list(players)))
    found = await connection.execute(read)
    return {str(row.id): int(row.balance) for row in found}


async def balance_of(connection: Connection, account: str) -> int | None:
    """An account's balance (None if there is no such account)."""
    if is_house_account(account):
        total = await connection.scalar(
            select(func.coalesce(func.sum(ledger_entries.c.amount), 0))
        .where(ledger_entries.c.account_id == account)
        )
        return int(total or 0)
    value = await connection.scalar(select(accounts.c.balance).where(accounts.c.id == account))
    return None if value is None else int(value)


def postgres_post(*, locked: str, round_id: str, delta: str, at: str, arrays: str) -> str:
    """:func:`post` for one player as two CTEs of a single PostgreSQL statement (the PostgreSQL
    round store's, see ``rounds.postgres``): the balance moves by ``delta`` and the entries come
    as four arrays (txids, accounts, amounts, memos, in :func:`entries` order), written only for
    the player row the statement's ``locked`` CTE selected. The arguments are SQL expressions."""
    return f"""
moved AS (
    UPDATE accounts SET balance = accounts.balance + {delta} FROM {locked}
    WHERE accounts.id = {locked}.player_id AND {delta} <> 0
),
entered AS (
    INSERT INTO ledger_entries (txid, account_id, amount, round_id, memo, created_at)
    SELECT e.txid, e.account_id, e.amount, {round_id}, e.memo, {at}
    FROM {locked}, unnest({arrays}) WITH ORDINALITY AS e(txid, account_id, amount, memo, n)
    ORDER BY e.n
)"""


def entry_arrays(rows: Sequence[Entry]) -> list[list[Any]]:
    """The entries as the four arrays of :func:`postgres_post`."""
    return [[row[0] for row in rows], [row[1] for row in rows], [row[2] for row in rows],
            [row[3] for row in rows]]


@dataclass(frozen=True, slots=True)
class LedgerAudit:
    """The ledger's invariants, as measured (all must hold)."""

    total_of_balances: int
    """Players' balances plus the houses': always 0."""
    totals_by_currency: dict[str, int]
    """Players' balances plus their house's, per currency: always 0 in each."""
    mixed_currency_txids: tuple[str, ...]
    """Transactions between accounts of different currencies: always empty."""
    unbalanced_txids: tuple[str, ...]
    """Transactions whose entries do not sum to zero: always empty."""
    mismatched_accounts: tuple[str, ...]
    """Players whose stored balance differs from the sum of their entries: always empty."""
    negative_accounts: tuple[str, ...]
    """Players whose balance is below zero: always empty."""

    @property
    def ok(self) -> bool:
        return not self.findings()

    def findings(self) -> list[str]:
        """Each broken invariant, one line each (empty when the ledger is sound).

        >>> LedgerAudit(0, {"EUR": 0}, (), ("t:1",), (), ()).findings()
        ['transaction t:1: its entries do not sum to zero']
        """
        found = [f"currency {currency}: players' balances plus the house's sum to {total}, not 0"
                 for currency, total in sorted(self.totals_by_currency.items()) if total]
        if self.total_of_balances and not found:
            found.append(f"players' balances plus the houses' sum to {self.total_of_balances}, not 0")
        found += [f"transaction {t}: entries in accounts of different currencies"
                  for t in self.mixed_currency_txids]
        found += [f"transaction {t}: its entries do not sum to zero" for t in self.unbalanced_txids]
        found += [f"account {a}: stored balance differs from the sum of its entries"
                  for a in self.mismatched_accounts]
        found += [f"account {a}: balance below zero" for a in self.negative_accounts]
        return found


async def audit_database(database: Database) -> LedgerAudit:
    """:func:`audit` in one consistent snapshot: on PostgreSQL a read-only REPEATABLE READ
    transaction (its statements see one moment, so transfers committing meanwhile cannot show
    as a false finding), on SQLite a unit of work (which holds the writers off while it runs)."""
    async with database.transaction() as connection:
        if not database.is_sqlite:
            await connection.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"))
        return await audit(connection)


async def audit(connection: Connection) -> LedgerAudit:
    """Check the whole ledger (``dealerpoker audit-ledger``, the server's periodic audit, tests)."""
    # Players' materialised balances plus every house account's sum of entries, per currency.
    house_sums = select(ledger_entries.c.account_id, func.sum(ledger_entries.c.amount).label("total")) \
        .group_by(ledger_entries.c.account_id).subquery()
    player_totals = await connection.execute(
        select(accounts.c.currency, func.coalesce(func.sum(accounts.c.balance), 0))
        .where(accounts.c.kind == "player").group_by(accounts.c.currency))
    house_totals = await connection.execute(
        select(accounts.c.currency, func.coalesce(func.sum(house_sums.c.total), 0))
        .select_from(accounts.join(house_sums, house_sums.c.account_id == accounts.c.id))
        .where(accounts.c.kind == "house").group_by(accounts.c.currency))
    totals: dict[str, int] = {}
    for currency, total in [*player_totals, *house_totals]:
        totals[str(currency)] = totals.get(str(currency), 0) + int(total or 0)
    mixed = await connection.execute(
        select(ledger_entries.c.txid)
        .select_from(ledger_entries.join(accounts, accounts.c.id == ledger_entries.c.account_id))
        .group_by(ledger_entries.c.txid).having(func.count(func.distinct(accounts.c.currency)) > 1))
    unbalanced = await connection.execute(
        select(ledger_entries.c.txid).group_by(ledger_entries.c.txid)
        .having(func.sum(ledger_entries.c.amount) != 0))
    sums = select(ledger_entries.c.account_id, func.sum(ledger_entries.c.amount).label("total")) \
        .group_by(ledger_entries.c.account_id).subquery()
    mismatched = await connection.execute(
        select(accounts.c.id).select_from(accounts.outerjoin(sums, sums.c.account_id == accounts.c.id))
        .where(accounts.c.kind == "player")
        .where(func.coalesce(sums.c.total, 0) != accounts.c.balance))
    negative = await connection.execute(
        select(accounts.c.id).where(accounts.c.kind == "player").where(accounts.c.balance < 0))
    return LedgerAudit(
        total_of_balances=sum(totals.values()),
        totals_by_currency=totals,
        mixed_currency_txids=tuple(str(row[0]) for row in mixed),
        unbalanced_txids=tuple(str(row[0]) for row in unbalanced),
        mismatched_accounts=tuple(str(row[0]) for row in mismatched),
        negative_accounts=tuple(str(row[0]) for row in negative),
    )
