"""The seamless-wallet protocol as the operator reads it: signatures, statuses and request bodies.

Every request is JSON signed with ``X-Signature``: the hex HMAC-SHA256 of the raw body under the
secret the operator shares with dealerpoker. A request body that is not what the protocol says
is a :class:`BadRequest` naming the problem.
"""

from __future__ import annotations

import hashlib
import hmac
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


def sign(secret: str, body: bytes) -> str:
    """The ``X-Signature`` of ``body``: hex HMAC-SHA256 under ``secret``."""
    return hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def signed(secret: str, signature: str | None, body: bytes) -> bool:
    """Whether ``signature`` is the signature of ``body`` (compared in constant time)."""
    return signature is not None and hmac.compare_digest(sign(secret, body), signature.strip().lower())


class BadRequest(ValueError):
    """A request body the protocol does not allow; the message names the problem."""


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
    )
