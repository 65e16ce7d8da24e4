"""Reconciliation: an operator's wallet transactions over a period, each with its round, amount,
status and attempts, and a summary per currency (``GET /operator/v1/transactions``, ``dealerpoker
reconcile``). Compare it with the operator's own ledger: every ``bet`` ``confirmed`` and every
``win`` ``done`` moved money there once; a ``bet`` ``rolled_back`` moved nothing in the end.

>>> window("2026-12-01")
('2026-12-01T00:00:00.000000Z', '2026-12-02T00:00:00.000000Z')
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import select

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.currency import house_account
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.schema import operator_players, wallet_transactions

_COLUMNS = (
    "transaction_id",
    "kind",
    "currency",
    "amount",
    "round_id",
    "game",
    "round_closed",
    "reference_transaction_id",
    "status",
    "attempts",
    "last_answer",
    "created_at",
    "updated_at",
    "promo",
)


class InvalidPeriodError(DealerPokerError, ValueError):
    """A reconciliation period that is not one (the message names the bad bound)."""


def moment(value: str, name: str) -> str:
    """A period bound: ``YYYY-MM-DD`` (midnight UTC) or an ISO-8601 time, as stored timestamps are."""
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidPeriodError(f"{name}: expected YYYY-MM-DD or an ISO-8601 time, got {value!r}") from None
    parsed = parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    try:
        return timestamp(parsed)
    except OverflowError:  # within hours of year 1 or 9999 in UTC: the bound is the first or last moment
        return timestamp((datetime.min if parsed.year == 1 else datetime.max).replace(tzinfo=UTC))


def window(day: str) -> tuple[str, str]:
    """One UTC day's bounds."""
    try:
        start = date.fromisoformat(day)
    except ValueError:
        raise InvalidPeriodError(f"--date: expected YYYY-MM-DD, got {day!r}") from None
    first = datetime(start.year, start.month, start.day, tzinfo=UTC)
    return timestamp(first), timestamp(first + timedelta(days=1))


async def transactions(database: Database, operator_id: str, since: str, until: str) -> dict[str, Any]:
    """The operator's wallet transactions created in [since, until), and their summary. A period
    that ends where or before it starts holds none (an answer, not an error: the OpenAPI schema
    cannot say that ``until`` must follow ``since``, so a request it allows is answered)."""
    query = (
        select(wallet_transactions, operator_players.c.external_id)
        .join(operator_players, operator_players.c.player_id == wallet_transactions.c.player_id)
        .where(
            wallet_transactions.c.operator_id == operator_id,
            wallet_transactions.c.created_at >= since,
            wallet_transactions.c.created_at < until,
        )
        .order_by(wallet_transactions.c.created_at, wallet_transactions.c.transaction_id)
    )
    async with database.reading() as connection:
        rows = [dict(row) for row in (await connection.execute(query)).mappings()]
    found = [{"player": row["external_id"], **{name: row[name] for name in _COLUMNS}} for row in rows]
    for row in found:
        row["round_closed"] = bool(row["round_closed"])
        row["promo"] = json.loads(row["promo"]) if row["promo"] else None
    found = in_round_order(found)
    return {
        "operator": operator_id,
        "since": since,
        "until": until,
        "transactions": found,
        "summary": summary(found),
    }


_KIND_ORDER = {"bet": 0, "rollback": 1, "win": 2}


def in_round_order(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each round's transactions together, the rounds in the order they began, and in a round its
    bets (and their rollbacks) before its win: a win written at the settlement is never listed
    before the round's last bet, whatever their times (a retried bet is written later).

    >>> [r["transaction_id"] for r in in_round_order([
    ...     {"round_id": "r1", "kind": "win", "created_at": "2", "transaction_id": "w"},
    ...     {"round_id": "r2", "kind": "bet", "created_at": "3", "transaction_id": "b2"},
    ...     {"round_id": "r1", "kind": "bet", "created_at": "4", "transaction_id": "b1~2"},
    ...     {"round_id": "r1", "kind": "bet", "created_at": "1", "transaction_id": "b1"}])]
    ['b1', 'b1~2', 'w', 'b2']
    """
    began: dict[str, str] = {}
    for row in rows:
        began[row["round_id"]] = min(began.get(row["round_id"], row["created_at"]), row["created_at"])
    return sorted(rows, key=lambda row: (began[row["round_id"]], row["round_id"],
                                         _KIND_ORDER.get(row["kind"], 3), row["created_at"],
                                         row["transaction_id"]))


def summary(found: list[dict[str, Any]]) -> dict[str, dict[str, dict[str, int]]]:
    """Per currency: ``bets`` placed (confirmed), ``wins`` delivered, ``rollbacks`` answered, and
    ``pending`` (owed wins and rollbacks not yet answered, bets not yet resolved), each a count
    and an amount; ``net`` is what moved to the player (wins less bets). ``promo_wins``: the
    delivered wins of free rounds (among ``wins``), which the operator books as promotional."""
    totals: dict[str, dict[str, dict[str, int]]] = {}
    for row in found:
        currency = totals.setdefault(
            row["currency"],
            {key: {"count": 0, "amount": 0}
             for key in ("bets", "wins", "promo_wins", "rollbacks", "pending")},
        )
        if row["kind"] == "win" and row["status"] == "done" and row.get("promo"):
            currency["promo_wins"]["count"] += 1
            currency["promo_wins"]["amount"] += int(row["amount"])
        kind, status = row["kind"], row["status"]
        if status in ("pending", "sending"):
            key = "pending"
        elif kind == "bet" and status == "confirmed":
            key = "bets"
        elif kind == "win" and status == "done":
            key = "wins"
        elif kind == "rollback" and status == "done":
            key = "rollbacks"
        else:
            continue  # refused bets, and bets whose rollback is counted
        currency[key]["count"] += 1
        currency[key]["amount"] += int(row["amount"])
    for currency in totals.values():
        currency["net"] = {"amount": currency["wins"]["amount"] - currency["bets"]["amount"]}
    return totals


async def wallet_ledger(
    connection: Connection, round_id: str, currency: str, player_id: str | None = None
) -> list[dict[str, Any]]:
    """The money operators' real-money players moved in a round (a solo round, or a live round
    ``{table}/{number}``), as the ledger here would hold it for a round record: both entries of
    each transfer (the house of ``currency`` on the other side), from the bets the operator took
    (``confirmed``) and the wins owed (delivered or not); ``player_id``: only theirs."""
    query = select(wallet_transactions).where(wallet_transactions.c.round_id == round_id)
    if player_id is not None:
        query = query.where(wallet_transactions.c.player_id == player_id)
    found = await connection.execute(
        query.order_by(wallet_transactions.c.created_at, wallet_transactions.c.transaction_id)
    )
    house = house_account(currency)
    entries: list[dict[str, Any]] = []
    for moved in found.mappings():
        if moved["kind"] == "bet" and moved["status"] == "confirmed":
            amount = -int(moved["amount"])
        elif moved["kind"] == "win" and int(moved["amount"]):
            amount = int(moved["amount"])
        else:
            continue
        memo = str(moved["txid"]).rsplit(":", 1)[-1]
        entries += [
            {
                "txid": moved["txid"],
                "account": moved["player_id"],
                "amount": amount,
                "memo": memo,
                "at": moved["created_at"],
            },
            {
                "txid": moved["txid"],
                "account": house,
                "amount": -amount,
                "memo": memo,
                "at": moved["created_at"],
            },
        ]
    return entries
