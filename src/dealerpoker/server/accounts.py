"""Demo players: a random bearer token (stored only as its SHA-256), an account in one currency,
a float from the house account of that currency."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.currency import DEFAULT_CURRENCY, house_account
from dealerpoker.server import ledger
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import accounts, players

REMOTE_KIND = "remote"
"""The account kind of an operator's real-money player: no balance kept here."""
REMOTE_PREFIX = "o_"
"""The id prefix of those players (the wallet routes on it without a look-up)."""


class AuthenticationError(DealerPokerError, ValueError):
    """A missing, malformed or unknown bearer token, or its session over; ``reason`` says which:
    ``missing``, ``unknown``, ``expired`` (idle or too old) or ``ended`` (logged out, revoked)."""

    code = "unauthorized"
    status = 401

    def __init__(self, message: str, *, reason: str = "missing") -> None:
        super().__init__(message)
        self.reason = reason

    def details(self) -> dict[str, Any]:
        return {"reason": self.reason}


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization`` header value ``Bearer <token>`` (the scheme in any case,
    spaces around the token ignored, as FastAPI reads it), else None. The server's one parser:
    REST routes, the fast path and the WebSocket upgrade all use it.

    >>> bearer_token("Bearer abc"), bearer_token("bearer  abc "), bearer_token("Basic abc")
    ('abc', 'abc', None)
    >>> bearer_token("Bearer "), bearer_token(None)
    (None, None)
    """
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    token = token.strip()
    return token if scheme.lower() == "bearer" and token else None


@dataclass(frozen=True, slots=True)
class NewPlayer:
    player_id: str
    token: str
    balance: int
    currency: str


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def create_player(
    connection: Connection,
    *,
    starting_balance: int,
    at: str,
    currency: str = DEFAULT_CURRENCY,
    token_factory: Callable[[], str] = lambda: secrets.token_urlsafe(32),
    id_factory: Callable[[], str] = lambda: "p_" + secrets.token_hex(8),
    client_seed: str | None = None,
) -> NewPlayer:
    """A player account in ``currency`` funded by that currency's house (txid ``session:{player}``).

    ``client_seed``: the player's first client seed (default: 128 random bits); they may change it."""
    player_id, token = id_factory(), token_factory()
    house = await ensure_house(connection, currency, at=at)
    await connection.execute(insert(accounts).values(id=player_id, kind="player", balance=0, created_at=at,
                                                     currency=currency))
    await connection.execute(insert(players).values(
        id=player_id, token_hash=token_hash(token), client_seed=client_seed or secrets.token_hex(16), nonce=0,
        created_at=at))
    await ledger.post_transfer(connection, f"session:{player_id}", house, player_id,
                               starting_balance, at=at, memo="starting balance")
    return NewPlayer(player_id, token, starting_balance, currency)


async def ensure_house(connection: Connection, currency: str, *, at: str) -> str:
    """The house account of ``currency``, created the first time a player holds that currency
    (two processes creating it at once both succeed: the second insert does nothing)."""
    house = house_account(currency)
    dialect: Any = postgresql if connection.dialect.name == "postgresql" else sqlite
    await connection.execute(dialect.insert(accounts).values(
        id=house, kind="house", balance=0, created_at=at, currency=currency).on_conflict_do_nothing(
        index_elements=["id"]))
    return house
