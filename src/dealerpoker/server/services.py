"""The services one server process shares: what ``create_app`` wires and extensions reuse."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dealerpoker.games import AnyGame
from dealerpoker.server import accounts
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.offer import Offer
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.responsible.service import ResponsibleGaming
from dealerpoker.server.rounds import RoundService
from dealerpoker.server.sessions import Sessions
from dealerpoker.server.settings import Settings
from dealerpoker.server.signing import RecordSigner
from dealerpoker.server.wallet import Wallet

Hook = Callable[[], Awaitable[None]]


@dataclass
class Services:
    """Settings, database, games and the round service, plus hooks extensions may add.

    ``startup`` hooks run after the migrations, ``shutdown`` hooks before the database closes
    (live tables start and stop their clocks there).
    """

    settings: Settings
    database: Database
    games: Mapping[str, AnyGame]
    """Every game in the default currency (``offer`` has them in each currency)."""
    wallet: Wallet
    """Where the players' money is (the embedded ledger wallet, or an operator's)."""
    rounds: RoundService
    rng: random.Random
    clock: Clock
    offer: Offer
    responsible: ResponsibleGaming
    games_documents: dict[str, dict[str, Any]]
    """Currency -> the ``GET /api/games`` body, built once (RTPs are precomputed, never
    computed per request)."""
    analysis_cache: Any = None
    """Where exact analyses and card counts are kept (``analyze``'s disk cache under ``serve``; in
    memory otherwise): the back office's reports and paytable drafts read it."""
    signer: RecordSigner = field(default_factory=RecordSigner.ephemeral)
    """Signs every record handed out with the deployment's key (``Settings.signing_key_file``)."""
    rules_versions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Game -> the changes of the paytable version an admin saved in the back office, in force."""
    operators: Mapping[str, Operator] = field(default_factory=dict)
    """Operator id -> the operator (``settings.operators``)."""
    sessions: Sessions | None = None
    """The players' sessions: authentication, expiry, logout, revocation (``create_app`` makes it)."""
    limiter: Any = None
    """The rate limits (``edge.ratelimit.RateLimits``; None: none): ``authenticate`` counts
    each authenticated request of an account."""
    startup: list[Hook] = field(default_factory=list)
    shutdown: list[Hook] = field(default_factory=list)

    def now(self) -> str:
        return timestamp(self.clock())

    @property
    def games_document(self) -> dict[str, Any]:
        """The ``GET /api/games`` body in the default currency."""
        return self.games_documents[self.offer.default_currency]

    def starting_balance(self, currency: str) -> int:
        """A new demo player's balance in ``currency``."""
        table = self.offer.currencies[currency]
        return self.settings.starting_balance if table.starting_balance is None else table.starting_balance

    async def create_player(self, currency: str | None = None) -> accounts.NewPlayer:
        """A demo player in ``currency`` (default: the default currency) with its starting balance."""
        code = self.offer.default_currency if currency is None else currency
        balance = self.starting_balance(code)
        async with self.database.transaction() as connection:
            return await accounts.create_player(connection, starting_balance=balance, currency=code,
                                                at=self.now())

    async def authenticate(self, token: str) -> str:
        """The player id of a live session's bearer token (``server.sessions``), counted by the
        per-account rate limit when there is one (``edge.ratelimit``: 429 when over)."""
        assert self.sessions is not None, "create_app makes the sessions"
        player_id = await self.sessions.authenticate(token)
        if self.limiter is not None:
            await self.limiter.check_account(player_id)
        return player_id

    async def session_alive(self, token: str) -> str:
        """The player of a token whose session is still live (``AuthenticationError`` once it is
        over), without using it: neither its idle time nor the account's rate limit counts this."""
        assert self.sessions is not None, "create_app makes the sessions"
        return await self.sessions.authenticate(token, use=False)
