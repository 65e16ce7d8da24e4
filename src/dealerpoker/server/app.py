"""The composition root: ``create_app(settings, *, rng, clock)`` wires settings, database, games,
services and routers into one ASGI app.

Other parts of the server (live tables, fairness endpoints) plug in as *extensions*: callables
``(app, services) -> None`` that include their routers and may add startup/shutdown hooks to
``services``. They are installed before the static web page, which is mounted last at ``/`` so it
never shadows ``/api``, ``/docs``, ``/openapi.json``, ``/healthz`` or ``/ws``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

import dealerpoker
from dealerpoker.games import GAMES, AnyGame, get_game, load_rules
from dealerpoker.server.api import games as games_api
from dealerpoker.server.api import rounds as rounds_api
from dealerpoker.server.api import session as session_api
from dealerpoker.server.api.errors import install_error_handlers
from dealerpoker.server.api.fairness import install_fairness_api
from dealerpoker.server.clock import Clock, system_clock
from dealerpoker.server.db import Database
from dealerpoker.server.rounds import RoundService
from dealerpoker.server.services import Services
from dealerpoker.server.settings import Settings, SettingsError

log = logging.getLogger("dealerpoker.server")

Extension = Callable[[FastAPI, Services], None]
WEB_DIRECTORY = Path(dealerpoker.__file__).parent / "web"


def install_rest_api(app: FastAPI, _services: Services) -> None:
    for module in (session_api, games_api, rounds_api):
        app.include_router(module.router)


#: Installed by every app, in order; other modules append theirs (or pass ``extensions``).
EXTENSIONS: list[Extension] = [install_rest_api, install_fairness_api]


def load_games(settings: Settings) -> dict[str, AnyGame]:
    unknown = sorted(set(settings.rules_files) - set(GAMES))
    if unknown:
        raise SettingsError(f"rules file for unknown game {unknown[0]!r} (games: {', '.join(GAMES)})")
    return {name: get_game(name, load_rules(name, settings.rules_files.get(name))) for name in GAMES}


def games_document(games: Mapping[str, AnyGame]) -> dict[str, Any]:
    """The ``GET /api/games`` body; the operator report compares actual returns with its RTPs."""
    return {"games": [games_api.describe_game(game) for game in games.values()]}


def create_app(
    settings: Settings | None = None,
    *,
    rng: random.Random | None = None,
    clock: Clock = system_clock,
    extensions: Sequence[Extension] = (),
) -> FastAPI:
    """The game server. ``rng`` shuffles (default ``secrets.SystemRandom()``), ``clock`` tells time."""
    settings = settings or Settings()
    rng = rng or secrets.SystemRandom()
    database = Database(settings.database_url)
    games = load_games(settings)
    services = Services(
        settings=settings, database=database, games=games,
        rounds=RoundService(database, games, rng=rng, clock=clock,
                            abandon_after_seconds=settings.abandon_after_seconds),
        rng=rng, clock=clock,
        games_document=games_document(games),
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if settings.run_migrations:
            await database.migrate()
        for hook in services.startup:
            await hook()
        reaper = asyncio.create_task(_reap_abandoned(services))
        try:
            yield
        finally:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper
            for hook in services.shutdown:
                await hook()
            await database.dispose()

    app = FastAPI(
        title="dealerpoker",
        version=dealerpoker.__version__,
        description="Casino poker against the dealer: accounts, a double-entry ledger, solo rounds.",
        lifespan=lifespan,
    )
    app.state.services = services
    install_error_handlers(app)
    for extension in (*EXTENSIONS, *extensions):
        extension(app, services)
    app.mount("/", StaticFiles(directory=WEB_DIRECTORY, html=True), name="web")
    return app


async def _reap_abandoned(services: Services) -> None:
    """Complete abandoned rounds now (recovery after a restart) and then periodically."""
    while True:
        try:
            completed = await services.rounds.complete_abandoned()
            if completed:
                log.info("completed %d abandoned round(s) with the timer's defaults", completed)
        except Exception:  # keep reaping; one bad round must not stop the others
            log.exception("completing abandoned rounds failed")
        await asyncio.sleep(services.settings.reaper_interval_seconds)
