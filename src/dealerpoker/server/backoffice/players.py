"""Players in the back office: an account's balance, history and responsible-gaming state, and an
admin's manual adjustment of the balance (a ledger transfer of its own kind, with a mandatory
reason written to the admin audit log in the same unit of work)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.currency import AmountRangeError, check_amount, is_house_account
from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.server import ledger
from dealerpoker.server.accounts import REMOTE_KIND, ensure_house
from dealerpoker.server.backoffice import audit
from dealerpoker.server.db import Connection
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.schema import accounts, ledger_entries, operator_players

EMBEDDED = "embedded"
"""The operator shown for an embedded demo player (one of no operator), and the filter for them."""
REASON_LENGTH = (3, 200)
BLANK = " \t\r\n"
"""What a reason may not be made of only (the OpenAPI document states it: ``REASON_PATTERN``)."""
REASON_PATTERN = "^[^\\u0000]*[^\\u0000 \\t\\r\\n][^\\u0000]*$"
KEY = re.compile(r"^[A-Za-z0-9_-]{1,32}$")


class AdjustmentError(DealerPokerError, ValueError):
    """An adjustment that cannot be made (the message names the field); nothing moved."""

    code = "invalid_request"
    status = 422


async def account(connection: Connection, player_id: str) -> dict[str, Any]:
    """A player's account: balance, currency, opened when, and where the money is (``wallet``:
    "embedded" here, or "operator" for an operator's real-money player, whose ``balance`` is the
    last one its operator's wallet answered); 404 for no such player."""
    row = (await connection.execute(select(accounts).where(accounts.c.id == player_id))).mappings().first()
    if row is None or row["kind"] not in ("player", REMOTE_KIND):
        raise NotFoundError(f"no player {player_id!r}")
    return {"player_id": player_id, "balance": int(row["balance"]), "currency": row["currency"],
            "created_at": row["created_at"],
            "wallet": "operator" if row["kind"] == REMOTE_KIND else "embedded"}


async def operators_of(connection: Connection, player_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Account id -> the operator whose player it is (an embedded demo player's is absent)."""
    wanted = sorted(set(player_ids))
    if not wanted:
        return {}
    rows = (await connection.execute(
        select(operator_players.c.player_id, operator_players.c.operator_id, operator_players.c.external_id,
               operator_players.c.mode).where(operator_players.c.player_id.in_(wanted)))).mappings().all()
    return {row["player_id"]: {"operator": row["operator_id"], "operator_player": row["external_id"],
                               "mode": row["mode"]} for row in rows}


async def operator_of(connection: Connection, player_id: str) -> dict[str, Any] | None:
    """The operator whose player this account is (None: an embedded demo player)."""
    return (await operators_of(connection, [player_id])).get(player_id)


async def of_operator(connection: Connection, operator_id: str, external_id: str) -> list[dict[str, Any]]:
    """Every account here of the operator's player ``external_id`` (one per currency and mode)."""
    rows = (await connection.execute(
        select(operator_players.c.player_id, operator_players.c.currency, operator_players.c.mode)
        .where(operator_players.c.operator_id == operator_id, operator_players.c.external_id == external_id)
        .order_by(operator_players.c.currency, operator_players.c.mode))).mappings().all()
    return [dict(row) for row in rows]


async def matching(connection: Connection, text: str) -> list[dict[str, Any]]:
    """The players a support agent may mean by ``text``: the account of that id here, and every
    account of any operator's player with that id of theirs (the one search box)."""
    rows = (await connection.execute(
        select(operator_players.c.player_id, operator_players.c.operator_id, operator_players.c.external_id,
               operator_players.c.currency, operator_players.c.mode)
        .where((operator_players.c.external_id == text) | (operator_players.c.player_id == text))
        .order_by(operator_players.c.operator_id, operator_players.c.currency).limit(50))).mappings().all()
    found = [{"player_id": row["player_id"], "operator": row["operator_id"],
              "operator_player": row["external_id"],
              "currency": row["currency"], "mode": row["mode"]} for row in rows]
    if not found:
        row = (await connection.execute(select(accounts.c.id, accounts.c.currency, accounts.c.kind)
                                        .where(accounts.c.id == text))).mappings().first()
        if row is not None and row["kind"] in ("player", REMOTE_KIND):
            found.append({"player_id": text, "operator": EMBEDDED, "operator_player": None,
                          "currency": row["currency"], "mode": "demo"})
    return found


async def adjustments(connection: Connection, player_id: str) -> list[dict[str, Any]]:
    """The player's manual adjustments, newest first."""
    rows = (await connection.execute(
        select(ledger_entries).where(ledger_entries.c.account_id == player_id,
                                     ledger_entries.c.memo == ledger.ADJUSTMENT)
        .order_by(ledger_entries.c.id.desc()))).mappings().all()
    return [{"txid": r["txid"], "amount": int(r["amount"]), "at": r["created_at"]} for r in rows]


async def adjust(connection: Connection, player_id: str, amount: object, reason: object, *, key: str,
                 actor: str, at: str) -> dict[str, Any]:
    """Move ``amount`` minor units (positive: to the player) between the player and the house of
    their currency, as txid ``adjustment:{player}:{key}``; the reason, who and the balance before
    and after go to the audit log. The same ``key`` again moves nothing (a retried click)."""
    if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0:
        raise AdjustmentError(f"amount: expected a non-zero whole number of minor units, got {amount!r}")
    check_amount(amount, "amount", negative=True)
    if not isinstance(reason, str) or not REASON_LENGTH[0] <= len(reason) <= REASON_LENGTH[1] \
            or not reason.strip(BLANK):
        raise AdjustmentError(f"reason: required, {REASON_LENGTH[0]}-{REASON_LENGTH[1]} characters, "
                              "not only blanks")
    if not KEY.match(key):
        raise AdjustmentError(f"key: expected 1-32 letters, digits, '-' or '_', got {key!r}")
    if is_house_account(player_id):
        raise AdjustmentError("a house account is not adjusted by hand")
    before = await account(connection, player_id)
    if before["wallet"] == "operator":
        raise AdjustmentError("this player's money is in their operator's wallet: "
                              "the operator adjusts it there")
    if int(before["balance"]) + amount > MAX_AMOUNT:
        raise AmountRangeError(f"amount: the balance after it, {int(before['balance']) + amount}, would be "
                               f"more than the maximum amount, {MAX_AMOUNT} minor units")
    txid = f"{ledger.ADJUSTMENT}:{player_id}:{key}"
    house = await ensure_house(connection, before["currency"], at=at)
    source, target = (house, player_id) if amount > 0 else (player_id, house)
    moved = await ledger.post_transfer(connection, txid, source, target, abs(amount), at=at,
                                       memo=ledger.ADJUSTMENT)
    after = await account(connection, player_id)
    if moved:
        await audit.record(connection, at=at, actor=actor, action="player.adjust", target=player_id,
                           before={"balance": before["balance"]},
                           after={"balance": after["balance"], "amount": amount,
                                  "currency": after["currency"], "reason": reason.strip(), "txid": txid})
    return {"txid": txid, "moved": moved, "balance": after["balance"], "currency": after["currency"]}
