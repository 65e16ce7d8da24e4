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
from fractions import Fraction
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles
from starlette.types import ASGIApp

import dealerpoker
from dealerpoker.games import GAMES, AnyGame
from dealerpoker.games.currency import Currency
from dealerpoker.games.rules import Rules
from dealerpoker.server.api import fastpath
from dealerpoker.server.api import games as games_api
from dealerpoker.server.api import hints as hints_api
from dealerpoker.server.api import responsible as responsible_api
from dealerpoker.server.api import rounds as rounds_api
from dealerpoker.server.api import session as session_api
from dealerpoker.server.api.docs import install_docs
from dealerpoker.server.api.errors import install_error_handlers
from dealerpoker.server.api.fairness import install_fairness_api
from dealerpoker.server.api.methods import MethodAnswers
from dealerpoker.server.api.openapi import exact_openapi
from dealerpoker.server.backoffice.api import install_backoffice
from dealerpoker.server.clock import Clock, system_clock
from dealerpoker.server.currencies import load_currencies
from dealerpoker.server.db import Database
from dealerpoker.server.edge import Edge, edge
from dealerpoker.server.edge.ratelimit import EDGE_RESPONSES, RateLimits
from dealerpoker.server.ledger import audit_database
from dealerpoker.server.offer import Offer
from dealerpoker.server.operators.api import install_operators_api
from dealerpoker.server.operators.limits import check_against_offer, operator_lookup
from dealerpoker.server.operators.outbox import seamless_wallet
from dealerpoker.server.origins import WebSocketOrigins
from dealerpoker.server.responsible.service import ResponsibleGaming
from dealerpoker.server.rounds import RoundService, round_store
from dealerpoker.server.services import Services
from dealerpoker.server.sessions import Policy, Sessions
from dealerpoker.server.settings import Settings, SettingsError
from dealerpoker.server.signing import RecordSigner
from dealerpoker.server.text import TextGuard
from dealerpoker.server.wallet import LedgerWallet, Wallet

log = logging.getLogger("dealerpoker.server")

Extension = Callable[[FastAPI, Services], None]
WEB_DIRECTORY = Path(dealerpoker.__file__).parent / "web"


class ServerApp(FastAPI):
    """FastAPI with the edge (``dealerpoker.server.edge``: body limit, rate limits, headers,
    request ids, metrics) outside all of it, FastAPI's own error middleware included, so that
    even a 500 passes it."""

    edge: Edge | None = None

    def build_middleware_stack(self) -> ASGIApp:
        stack = super().build_middleware_stack()
        return stack if self.edge is None else self.edge(stack, self)


def install_rest_api(app: FastAPI, _services: Services) -> None:
    for module in (session_api, games_api, rounds_api, hints_api, responsible_api):
        app.include_router(module.router)


#: Installed by every app, in order; other modules append theirs (or pass ``extensions``).
EXTENSIONS: list[Extension] = [install_rest_api, install_fairness_api, install_backoffice,
                               install_operators_api]


def load_offer(settings: Settings) -> Offer:
    """Every game in every currency of the settings (``--currencies``, ``--rules``), and for each
    operator's players (``--operators``: their limits and chips, checked against the currencies)."""
    unknown = sorted(set(settings.rules_files) - set(GAMES))
    if unknown:
        raise SettingsError(f"rules file for unknown game {unknown[0]!r} (games: {', '.join(GAMES)})")
    currencies = load_currencies(settings.currencies_file).with_rules_files(settings.rules_files)
    check_against_offer(settings.operators, currencies)
    return Offer.build(currencies, settings.operators)


def load_games(settings: Settings) -> dict[str, AnyGame]:
    """Every game in the default currency."""
    return dict(load_offer(settings).games())


def games_document(
    games: Mapping[str, AnyGame], rtps: Mapping[str, Mapping[str, float | None]] | None = None,
    currency: Currency | None = None,
) -> dict[str, Any]:
    """The ``GET /api/games`` body; the operator report compares actual returns with its RTPs.

    ``rtps`` (game -> field -> RTP) comes from the exact analysis once it is known; else null.
    A currency changes only limits and chips, never what a bet returns, so the RTPs of a game
    are the same in every currency.
    """
    known = rtps or {}

    def rtp_of(game: AnyGame) -> Mapping[str, float | None]:
        return known.get(game.name) or games_api.no_rtp(game)

    document: dict[str, Any] = {"games": [games_api.describe_game(game, rtp_of) for game in games.values()]}
    if currency is not None:
        document["currency"] = currency.to_dict()
    return document


def games_documents(offer: Offer, rtps: Mapping[str, Mapping[str, float | None]] | None = None
                    ) -> dict[str, dict[str, Any]]:
    """``Offer.menu_key`` (a currency, or an operator's in a currency) -> its ``GET /api/games`` body."""
    return {key: games_document(games, rtps, offer.currency(code)) for key, code, games in offer.menus()}


RtpSource = Callable[[Rules], Mapping[str, Fraction | float | None]]
"""Each betting field's RTP for a rules object (``dealerpoker.analysis.bet_rtps`` with a cache)."""


def create_app(
    settings: Settings | None = None,
    *,
    rng: random.Random | None = None,
    clock: Clock = system_clock,
    extensions: Sequence[Extension] = (),
    rtp_source: RtpSource | None = None,
    analysis_cache: Any = None,
) -> FastAPI:
    """The game server. ``rng`` shuffles (default ``secrets.SystemRandom()``), ``clock`` tells time.

    ``analysis_cache`` keeps exact analyses and card counts for the back office (an object with
    ``load``/``save``/``load_counts``/``save_counts``, such as ``analyze``'s disk cache; default:
    in memory). ``rtp_source`` gives each field's exact RTP: it runs once per game in a worker thread after
    start-up (a cache hit is instant, a fresh analysis takes a while); until it is done
    ``GET /api/games`` shows null RTPs. Requests never wait for it.
    """
    settings = settings or Settings()
    rng = rng or secrets.SystemRandom()
    database = Database(settings.database_url)
    offer = load_offer(settings)
    operator_of = operator_lookup(database, offer.operators)
    responsible = ResponsibleGaming(  # an operator's players play under its profile
        database, clock=clock, profile=settings.responsible_gaming, operator_of=operator_of,
        profiles={o.id: o.profile(settings.responsible_gaming) for o in settings.operators
                  if o.responsible_gaming})
    wallet: Wallet = LedgerWallet(database)
    outbox = None
    if settings.operators:  # operators' players' money is in their wallets (docs/operators.md)
        wallet, outbox = seamless_wallet(database, settings.operators, clock)
    store = round_store(database, wallet, without=settings.without)
    services = Services(
        settings=settings, database=database, games=offer.games(), wallet=wallet,
        rounds=RoundService(store, wallet, offer, rng=rng, clock=clock, responsible=responsible,
                            abandon_after_seconds=settings.abandon_after_seconds,
                            operator_of=operator_of),
        rng=rng, clock=clock, offer=offer, responsible=responsible, games_documents=games_documents(offer),
        analysis_cache=analysis_cache, operators={operator.id: operator for operator in settings.operators},
        sessions=Sessions(database, clock, operators=bool(settings.operators),
                          policy=Policy(settings.session_idle_seconds, settings.session_max_seconds)),
        signer=RecordSigner.from_file(settings.signing_key_file),
    )
    if outbox is not None:
        services.startup.append(outbox.start)
        services.shutdown.append(outbox.stop)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if settings.run_migrations:
            await database.migrate(default_currency=offer.default_currency)
        for hook in services.startup:
            await hook()
        tasks = [asyncio.create_task(_reap_abandoned(services))]
        if settings.ledger_audit_interval_seconds > 0:
            tasks.append(asyncio.create_task(_audit_ledger(services)))
        if rtp_source is not None:
            tasks.append(asyncio.create_task(_fill_rtps(services, rtp_source)))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            for hook in services.shutdown:
                await hook()
            await store.close()
            await database.dispose()

    app = ServerApp(
        title="dealerpoker",
        version=dealerpoker.__version__,
        description="Casino poker against the dealer: accounts, a double-entry ledger, solo rounds.",
        lifespan=lifespan,
        docs_url=None, redoc_url=None,  # /docs: install_docs, with local assets, when settings.docs
        responses=EDGE_RESPONSES,
    )
    services.limiter = RateLimits.from_settings(settings)
    app.state.services = services
    install_error_handlers(app)
    if "fast_path" not in settings.without:
        fastpath.install(app, services)
    app.add_middleware(TextGuard)  # outside the fast path: no text breaking the rule reaches it
    app.add_middleware(WebSocketOrigins, allowed=settings.websocket_origins)
    app.add_middleware(MethodAnswers, routes=lambda: app.routes)
    app.openapi = exact_openapi(app.openapi, services.games,  # type: ignore[method-assign]
                                sorted(offer.engines))
    for extension in (*EXTENSIONS, *extensions):
        extension(app, services)
    if settings.docs:
        install_docs(app)
    app.mount("/", StaticFiles(directory=WEB_DIRECTORY, html=True), name="web")
    app.edge = edge(settings)
    return app


async def _fill_rtps(services: Services, source: RtpSource) -> None:
    """Publish each game's exact RTPs as soon as the analysis (or its cache) has them."""
    rtps: dict[str, dict[str, float | None]] = {}
    for name, game in services.games.items():
        try:
            exact = await asyncio.to_thread(source, game.rules)
        except Exception:  # the game list stays usable with null RTPs
            log.exception("RTP analysis of %s failed", name)
            continue
        rtps[name] = {field: None if value is None else float(value) for field, value in exact.items()}
        services.games_documents = games_documents(services.offer, rtps)


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


async def _audit_ledger(services: Services) -> None:
    """Run the ledger audit at start and then periodically; every finding is logged at ERROR."""
    while True:
        try:
            findings = (await audit_database(services.database)).findings()
        except Exception:  # an audit that cannot run is itself worth an alarm; try again later
            log.exception("LEDGER AUDIT could not run")
        else:
            for finding in findings:
                log.error("LEDGER AUDIT FINDING: %s", finding)
            if findings:
                log.error("LEDGER AUDIT FAILED: %d finding(s); run `dealerpoker audit-ledger` "
                          "and see docs/operations.md", len(findings))
        await asyncio.sleep(services.settings.ledger_audit_interval_seconds)
