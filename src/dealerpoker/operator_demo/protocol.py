"""The seamless-wallet protocol as the operator reads it: signatures, statuses and request bodies.

Every request is JSON, signed as :mod:`dealerpoker.operator_signature` says (method, path,
timestamp, nonce and body, under the secret the operator shares with dealerpoker; the body alone
where both sides are set to the old ``body-only`` scheme). A request body that is not what the
protocol says is a :class:`BadRequest` naming the problem.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

OK = "OK"
INSUFFICIENT_FUNDS = "INSUFFICIENT_FUNDS"
INVALID_TOKEN = "INVALID_TOKEN"
UNKNOWN_TRANSACTION = "UNKNOWN_TRANSACTION"
ERROR = "ERROR"

Kind = Literal["balance", "bet", "win", "rollback"]
KINDS: tuple[Kind, ...] = ("balance", "bet", "win", "rollback")

_CURRENCY = re.compile(r"^[A-Za-z]{1,8}$")
_TEXT_MAX = 200


class BadRequest(ValueError):
    """A request body the protocol does not allow; the message names the problem."""


@dataclass(frozen=True)
class Promo:
    """What makes a win promotional: the free-bet campaign (dealerpoker's id) and the player's
    reward of it (docs/operators.md#free-bets)."""

    campaign_id: str
    reward_id: str


def _promo(kind: Kind, body: dict[str, Any]) -> Promo | None:
    found = body.get("promo")
    if found is None:
        return None
    if kind != "win":
        raise BadRequest("promo: only a win carries it")
    if not isinstance(found, dict):
        raise BadRequest("promo must be an object {campaign_id, reward_id, ...}")
    return Promo(_text(found, "campaign_id"), _text(found, "reward_id"))


@dataclass(frozen=True)
class WalletRequest:
    """One wallet call. ``amount`` is in integer minor units; ``balance`` calls carry no transaction."""

    kind: Kind
    player: str
    token: str
    currency: str
    amount: int = 0
    transaction_id: str = ""
    round_id: str = ""
    game: str = ""
    round_closed: bool = False
    reference_transaction_id: str = ""
    promo: Promo | None = None
    """A win of a free round: the operator books it as promotional."""

    def same_request(self, kind: str, player: str, currency: str, amount: int, reference: str) -> bool:
        """Whether a stored transaction is this request again (a repeat), not another using its id."""
        if self.kind != kind or self.player != player:
            return False
        if kind == "rollback":  # a rollback's amount and currency are the bet's, whatever it says
            return self.reference_transaction_id == reference
        return self.currency == currency and self.amount == amount


def _text(body: dict[str, Any], name: str, *, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise BadRequest(f"{name} must be a non-empty string")
    if len(value) > _TEXT_MAX:
        raise BadRequest(f"{name} is longer than {_TEXT_MAX} characters")
    return value


def parse(kind: Kind, raw: bytes) -> WalletRequest:
    """The wallet request of a ``kind`` endpoint from its raw body; :class:`BadRequest` if malformed."""
    try:
        body = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadRequest("the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest("the body must be a JSON object")
    player, token = _text(body, "player"), _text(body, "token")
    currency = _text(body, "currency", required=kind != "rollback")
    if currency and not _CURRENCY.match(currency):
        raise BadRequest(f"currency {currency!r} is not a currency code")
    if kind == "balance":
        return WalletRequest(kind, player, token, currency)
    amount = body.get("amount", 0 if kind == "rollback" else None)
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise BadRequest("amount must be an integer (minor units)")
    if amount < 0:
        raise BadRequest("amount must not be negative")
    round_closed = body.get("round_closed", False)
    if not isinstance(round_closed, bool):
        raise BadRequest("round_closed must be true or false")
    return WalletRequest(
        kind, player, token, currency, amount,
        transaction_id=_text(body, "transaction_id"),
        round_id=_text(body, "round_id", required=False),
        game=_text(body, "game", required=False),
        round_closed=round_closed,
        reference_transaction_id=_text(body, "reference_transaction_id", required=kind == "rollback"),
        promo=_promo(kind, body),
    )
