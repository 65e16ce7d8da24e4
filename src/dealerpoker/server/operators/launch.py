"""Game launch: an operator asks for a one-time launch token for one of its players
(``POST /operator/v1/launch``); the table page trades it for a session (``POST /api/session
{"launch": ...}``) of that player's account here.

A launch token is random, stored only as its SHA-256 in the database (so any worker can redeem
it), valid for ``LAUNCH_SECONDS`` and usable once: redeeming marks it used in the same statement
that checks it. The player is keyed by (operator, the operator's player id, currency, mode): the
same player launched twice is the same account. A ``real`` account holds no money here (its
balance is the operator's, moved through the seamless wallet); a ``demo`` one is an embedded
play-money account with the starting balance, and calls no wallet.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from dealerpoker.errors import DealerPokerError
from dealerpoker.server import accounts
from dealerpoker.server.accounts import REMOTE_KIND, REMOTE_PREFIX
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.operators.sql import run
from dealerpoker.server.schema import accounts as accounts_table
from dealerpoker.server.schema import launch_tokens, operator_players, operator_sessions
from dealerpoker.server.schema import players as players_table

LAUNCH_SECONDS = 60


class LaunchTokenError(DealerPokerError, ValueError):
    """A launch token that is unknown, already used or expired."""

    code = "invalid_launch"
    status = 401


@dataclass(frozen=True, slots=True)
class Launch:
    """What an operator's launch request asked for (stored with its token)."""

    operator_id: str
    player: str
    currency: str
    mode: str
    token: str | None = None
    game: str | None = None
    table: str | None = None
    language: str | None = None
    lobby_url: str | None = None
    jurisdiction: str | None = None
    """The player's market (None: the deployment's default profile)."""
    cashier_url: str | None = None
    """Where the page's ``cashier`` sends the player (the casino's page asks for it: page events)."""


@dataclass(frozen=True, slots=True)
class LaunchSession:
    launch: Launch
    player_id: str
    token: str
    """The bearer token of the new session (shown once)."""


async def create_launch_token(database: Database, launch: Launch, *, now: datetime) -> tuple[str, datetime]:
    """A new one-time launch token for ``launch`` and when it expires."""
    token = secrets.token_urlsafe(32)
    expires = now + timedelta(seconds=LAUNCH_SECONDS)
    async with database.transaction() as connection:
        await run(
            connection,
            insert(launch_tokens),
            {
                "token_hash": accounts.token_hash(token),
                "operator_id": launch.operator_id,
                "launch": json.dumps(asdict(launch)),
                "created_at": timestamp(now),
                "expires_at": timestamp(expires),
                "used_at": None,
            },
        )
    return token, expires


async def redeem(
    database: Database, token: str, *, now: datetime, starting_balance: Callable[[str], int],
    new_client_seed: Callable[[], str],
) -> LaunchSession:
    """Use a launch token (once, before it expires): a new session of its player's account
    (``starting_balance``: a new demo account's, by currency; ``new_client_seed``: its first client
    seed, from the server's generator)."""
    for attempt in range(2):
        try:
            async with database.transaction() as connection:
                return await _redeem(connection, token, now=timestamp(now), starting_balance=starting_balance,
                                     new_client_seed=new_client_seed)
        except IntegrityError:  # a concurrent launch created the same player first: it exists now
            if attempt:
                raise
    raise AssertionError("unreachable")


async def _redeem(
    connection: Connection, token: str, *, now: str, starting_balance: Callable[[str], int],
    new_client_seed: Callable[[], str],
) -> LaunchSession:
    key = accounts.token_hash(token)
    used = await run(
        connection,
        update(launch_tokens)
        .where(
            launch_tokens.c.token_hash == key,
            launch_tokens.c.used_at.is_(None),
            launch_tokens.c.expires_at > now,
        )
        .values(used_at=now),
    )
    if used != 1:
        raise LaunchTokenError("unknown, used or expired launch token: ask the operator for a new launch")
    stored = await connection.scalar(select(launch_tokens.c.launch).where(launch_tokens.c.token_hash == key))
    launch = Launch(**json.loads(stored))
    player_id = await _account(connection, launch, now=now, starting_balance=starting_balance,
                               new_client_seed=new_client_seed)
    session = secrets.token_urlsafe(32)
    await run(
        connection,
        insert(operator_sessions),
        {"token_hash": accounts.token_hash(session), "player_id": player_id, "created_at": now},
    )
    return LaunchSession(launch, player_id, session)


async def _account(
    connection: Connection, launch: Launch, *, now: str, starting_balance: Callable[[str], int],
    new_client_seed: Callable[[], str],
) -> str:
    """The launched player's account here (created at its first launch); the operator's session
    token of this launch is kept for its wallet calls."""
    key = (
        operator_players.c.operator_id == launch.operator_id,
        operator_players.c.external_id == launch.player,
        operator_players.c.currency == launch.currency,
        operator_players.c.mode == launch.mode,
    )
    found = await connection.scalar(select(operator_players.c.player_id).where(*key))
    if found is not None:
        await run(connection, update(operator_players).where(*key).values(
            token=launch.token, updated_at=now, jurisdiction=launch.jurisdiction))
        return str(found)
    if launch.mode == "demo":
        player_id = (
            await accounts.create_player(
                connection,
                starting_balance=starting_balance(launch.currency),
                currency=launch.currency,
                at=now,
                client_seed=new_client_seed(),
            )
        ).player_id
    else:
        player_id = REMOTE_PREFIX + secrets.token_hex(8)
        await run(
            connection,
            insert(accounts_table),
            {
                "id": player_id,
                "kind": REMOTE_KIND,
                "balance": 0,
                "created_at": now,
                "currency": launch.currency,
            },
        )
        await run(
            connection,
            insert(players_table),
            {
                "id": player_id,
                "token_hash": accounts.token_hash(secrets.token_urlsafe(32)),
                "client_seed": new_client_seed(),
                "nonce": 0,
                "created_at": now,
            },
        )
    await run(
        connection,
        insert(operator_players),
        {
            "operator_id": launch.operator_id,
            "external_id": launch.player,
            "currency": launch.currency,
            "mode": launch.mode,
            "player_id": player_id,
            "token": launch.token,
            "created_at": now,
            "updated_at": now,
            "jurisdiction": launch.jurisdiction,
        },
    )
    return player_id


async def player_for_session(connection: Connection, token: str) -> str | None:
    """The player of an operator's session token (None: not one)."""
    found = await connection.scalar(
        select(operator_sessions.c.player_id).where(
            operator_sessions.c.token_hash == accounts.token_hash(token)
        )
    )
    return None if found is None else str(found)


def launch_url(base: str, launch: Launch, token: str) -> str:
    """The table page that redeems ``token``: the solo table of the game, or the live table."""
    query: dict[str, Any] = {"launch": token}
    if launch.language:
        query["lang"] = launch.language
    page = "live.html" if launch.table is not None else ""
    where = quote(launch.table, safe="") if launch.table is not None else f"play/{launch.game}"
    return f"{base.rstrip('/')}/{page}?{urlencode(query)}#/{where}"
