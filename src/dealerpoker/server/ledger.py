"""The double-entry ledger: append-only entries, one pair per transfer, idempotent txids.

Every movement of money is a transfer between two accounts, written as two entries (the debit
negative, the credit positive) under one transaction id. A txid is unique: posting it again
does nothing, so a retried request never moves money twice. A player's balance can never go
negative. Callers run these inside ``Database.transaction`` together with the state change the
money belongs to, so both commit or neither does.

Every account holds one currency (``accounts.currency``), and a transfer is between accounts
of one currency: a player and the house account of their currency. So in each currency the sum
of every account's balance (players plus house) never changes: it starts at zero and every
transfer adds ``-amount + amount``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.games.currency import is_house_account
from dealerpoker.server.direct import DirectConnection
from dealerpoker.server.schema import accounts, ledger_entries


async def post_transfer(
    connection: AsyncConnection,
    txid: str,
    from_account: str,
    to_account: str,
    amount: int,
    *,
    at: str,
    round_id: str | None = None,
    memo: str = "",
    known_new: bool = False,
) -> bool:
    """Move ``amount`` minor units; False (and nothing changed) when ``txid`` is already posted.

    Raises ``InsufficientFundsError`` (with the balance) when a player account cannot cover it;
    the house may go below zero (it is the casino's side of every bet). ``known_new`` skips the
    look-up when the caller derived the txid from state it holds locked (the unique constraint
    on ``(txid, account)`` still refuses a duplicate).
    """
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 0:
        raise ValueError(f"transfer {txid}: amount must be an integer >= 0, got {amount!r}")
    if from_account == to_account:
        raise ValueError(f"transfer {txid}: from and to are the same account {from_account!r}")
    if not known_new and await is_posted(connection, txid):
        return False
    if amount == 0:
        return True  # nothing to record; a zero stake is not a ledger movement
    await _move(connection, txid, from_account, -amount)
    await _move(connection, txid, to_account, amount)
    await connection.execute(insert(ledger_entries), [
        {"txid": txid, "account_id": from_account, "amount": -amount, "round_id": round_id,
         "memo": memo, "created_at": at},
        {"txid": txid, "account_id": to_account, "amount": amount, "round_id": round_id,
         "memo": memo, "created_at": at},
    ])
    return True


# The hot path's statements, built once and run through ``Database.direct()`` (see ``direct``).
_BALANCE_FOR_UPDATE = (select(accounts.c.balance).where(accounts.c.id == bindparam("player"))
                       .with_for_update())
# The guard is in the statement too, so it holds even if a caller forgot the lock.
_MOVE_PLAYER_BALANCE = (
    update(accounts).where(accounts.c.id == bindparam("player"))
    .where(accounts.c.balance >= bindparam("debits"))
    .values(balance=accounts.c.balance + bindparam("delta")).returning(accounts.c.balance))
_INSERT_ENTRIES = insert(ledger_entries).inline()  # no RETURNING of the generated ids


@dataclass(frozen=True, slots=True)
class Movement:
    """One transfer between a player and the house, seen from the player's side."""

    txid: str
    amount: int
    """Minor units: negative = the player pays the house (a stake), positive = the house pays."""
    memo: str


async def post_player_movements(
    connection: DirectConnection,
    player: str,
    movements: Sequence[Movement],
    *,
    house: str,
    at: str,
    round_id: str | None = None,
    balance: int,
) -> int:
    """Post several player <-> house transfers whose txids are new; the player's new balance.

    The hot path of a round step (a stake, and the settlement it may return): one guarded
    balance update for their sum and one insert of all their entries, instead of a statement
    per transfer. The caller holds the player's lock (``balance_for_update``), derived the txids
    from the state it holds locked (the unique constraint on ``(txid, account)`` still refuses
    a duplicate) and passes the ``balance`` it read under that lock; ``house`` is the house
    account of the player's currency. The debits must be covered
    by that balance before anything is credited (``InsufficientFundsError`` otherwise, nothing
    changed).
    """
    debits, delta, entries = player_entries(player, movements, house=house)
    if not entries:
        return balance
    if debits > balance:
        raise InsufficientFundsError(key="error.funds", balance=balance, needed=debits)
    moved = await connection.one(_MOVE_PLAYER_BALANCE, {"player": player, "debits": debits, "delta": delta})
    if moved is None:
        found = await connection.one(_BALANCE_FOR_UPDATE, {"player": player})
        current = None if found is None else int(found["balance"])
        raise InsufficientFundsError(
            f"insufficient funds: {debits} needed, balance is {current}" if current is not None
            else f"transfer {entries[0][0]}: unknown account {player!r}",
            balance=current or 0, needed=debits)
    await connection.run_many(_INSERT_ENTRIES, [
        {"txid": txid, "account_id": account, "amount": amount, "round_id": round_id, "memo": memo,
         "created_at": at}
        for txid, account, amount, memo in entries])
    return int(moved["balance"])


Entry = tuple[str, str, int, str]
"""A ledger entry: txid, account, signed amount, memo."""


def player_entries(player: str, movements: Sequence[Movement], *, house: str) -> tuple[int, int, list[Entry]]:
    """The entries of movements between ``player`` and ``house`` (the house account of their
    currency; two entries per non-zero movement), with what they debit the player (to be
    covered by the balance first) and their net effect on it."""
    entries: list[Entry] = []
    debits = delta = 0
    for movement in movements:
        if movement.amount == 0:
            continue
        if isinstance(movement.amount, bool) or not isinstance(movement.amount, int):
            raise ValueError(f"transfer {movement.txid}: amount must be an integer, got {movement.amount!r}")
        source, target = (player, house) if movement.amount < 0 else (house, player)
        amount = abs(movement.amount)
        entries += [(movement.txid, source, -amount, movement.memo),
                    (movement.txid, target, amount, movement.memo)]
        debits += amount if movement.amount < 0 else 0
        delta += movement.amount
    return debits, delta, entries


async def balance_for_update(connection: DirectConnection, player: str) -> int | None:
    """A player's balance, locking their account row until the transaction ends (PostgreSQL;
    SQLite has one writer at a time and ignores the lock clause). None: no such account."""
    found = await connection.one(_BALANCE_FOR_UPDATE, {"player": player})
    return None if found is None else int(found["balance"])


async def _move(connection: AsyncConnection, txid: str, account: str, delta: int) -> None:
    if is_house_account(account):
        return  # the house's balance is the sum of its entries (no hot row)
    statement = update(accounts).where(accounts.c.id == account).values(balance=accounts.c.balance + delta)
    if delta < 0:
        # The guard is in the statement itself, so it holds even without the caller's lock.
        statement = statement.where(accounts.c.balance >= -delta)
    result = await connection.execute(statement)
    if result.rowcount != 1:
        balance = await balance_of(connection, account)
        raise InsufficientFundsError(
            f"insufficient funds: {-delta} needed, balance is {balance}"
            if balance is not None else f"transfer {txid}: unknown account {account!r}",
            balance=balance or 0, needed=-delta,
        )


async def is_posted(connection: AsyncConnection, txid: str) -> bool:
    found = await connection.execute(
        select(ledger_entries.c.id).where(ledger_entries.c.txid == txid).limit(1))
    return found.first() is not None


async def balance_of(connection: AsyncConnection, account: str) -> int | None:
    """An account's balance (None if there is no such account)."""
    if is_house_account(account):
        total = await connection.scalar(
            select(func.coalesce(func.sum(ledger_entries.c.amount), 0))
        .where(ledger_entries.c.account_id == account)
        )
        return int(total or 0)
    value = await connection.scalar(select(accounts.c.balance).where(accounts.c.id == account))
    return None if value is None else int(value)


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

    @property
    def ok(self) -> bool:
        return (self.total_of_balances == 0 and not any(self.totals_by_currency.values())
                and not self.mixed_currency_txids and not self.unbalanced_txids
                and not self.mismatched_accounts and not self.negative_accounts)


async def audit(connection: AsyncConnection) -> LedgerAudit:
    """Check the whole ledger (for tests, the crash test and operators)."""
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
