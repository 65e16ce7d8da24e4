"""The services one server process shares: what ``create_app`` builds once and hands to the
routes and extensions. Frozen: nothing is swapped behind it at run time; what changes while the
server runs (the games offered, their documents) changes inside ``menu`` through its methods."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dealerpoker.games import AnyGame
from dealerpoker.server import accounts
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.draining import Drain
from dealerpoker.server.integrity import SoftwareIntegrity
from dealerpoker.server.jackpot import Jackpot
from dealerpoker.server.jurisdiction import Jurisdictions
from dealerpoker.server.menu import Menu
from dealerpoker.server.offer import Offer
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.promotions import Promotions
from dealerpoker.server.responsible.service import ResponsibleGaming
from dealerpoker.server.rounds import RoundService
from dealerpoker.server.sessions import Sessions
from dealerpoker.server.settings import Settings
from dealerpoker.server.signing import RecordSigner
from dealerpoker.server.wallet import Wallet

Hook = Callable[[], Awaitable[None]]


@dataclass(frozen=True)
class Services:
    """Settings, database, games and the round service, plus hooks extensions may add.

    ``startup`` hooks run after the migrations, ``shutdown`` hooks before the database closes
    (live tables start and stop their clocks there), ``drain`` hooks on SIGTERM before the
    shutdown; extensions add theirs while ``create_app`` installs them.
    """

    settings: Settings
    database: Database
    menu: Menu
    """The games offered now and their ``GET /api/games`` bodies (``server/menu.py``)."""
    wallet: Wallet
    """Where the players' money is (the embedded ledger wallet, or an operator's)."""
    rounds: RoundService
    rng: random.Random
    clock: Clock
    responsible: ResponsibleGaming
    sessions: Sessions
    """The players' sessions: authentication, expiry, logout, revocation."""
    analysis_cache: Any = None
    """Where exact analyses and card counts are kept (``analyze``'s disk cache under ``serve``; in
    memory otherwise): the back office's reports and paytable drafts read it."""
    signer: RecordSigner = field(default_factory=RecordSigner.ephemeral)
    """Signs every record handed out with the deployment's key (``Settings.signing_key_file``)."""
    operators: Mapping[str, Operator] = field(default_factory=dict)
    """Operator id -> the operator (``settings.operators``)."""
    limiter: Any = None
    """The rate limits (``edge.ratelimit.RateLimits``; None: none): ``authenticate`` counts
    each authenticated request of an account."""
    jurisdictions: Jurisdictions | None = None
    """The jurisdiction profiles and each player's (``server.jurisdiction``; ``create_app`` makes it)."""
    integrity: SoftwareIntegrity | None = None
    """The installed software against its manifest (``server.integrity``): a mismatch halts play."""
    promotions: Promotions | None = None
    """Operators' free-bet campaigns and their players' free rounds (``server.promotions``)."""
    jackpot: Jackpot | None = None
    """The progressive jackpot (``server.jackpot``; None: the deployment offers none)."""
    startup: list[Hook] = field(default_factory=list)
    shutdown: list[Hook] = field(default_factory=list)
    drain: Drain = field(default_factory=Drain)
    """What the process does when asked to stop, before it stops (``server.draining``; the live
    tables hand their clocks over between rounds there)."""

    @property
    def offer(self) -> Offer:
        return self.menu.offer

    @property
    def games(self) -> Mapping[str, AnyGame]:
        """Every game in the default currency (``offer`` has them in each currency)."""
        return self.menu.games

    @property
    def games_documents(self) -> Mapping[str, dict[str, Any]]:
        return self.menu.documents

    @property
    def games_document(self) -> dict[str, Any]:
        """The ``GET /api/games`` body in the default currency."""
        return self.menu.document

    @property
    def rules_versions(self) -> Mapping[str, Mapping[str, Any]]:
        return self.menu.rules_versions

    def now(self) -> str:
        return timestamp(self.clock())

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
                                                at=self.now(), client_seed=self.new_client_seed())

    def new_client_seed(self) -> str:
        """A new account's first client seed: 128 bits of the injected generator, like every seed
        (a test's seeded generator repeats them; the player may change theirs)."""
        return f"{self.rng.getrandbits(128):032x}"

    async def authenticate(self, token: str) -> str:
        """The player id of a live session's bearer token (``server.sessions``), counted by the
        per-account rate limit when there is one (``edge.ratelimit``: 429 when over)."""
        player_id = await self.sessions.authenticate(token)
        if self.limiter is not None:
            await self.limiter.check_account(player_id)
        return player_id

    async def session_alive(self, token: str) -> str:
        """The player of a token whose session is still live (``AuthenticationError`` once it is
        over), without using it: neither its idle time nor the account's rate limit counts this."""
        return await self.sessions.authenticate(token, use=False)
