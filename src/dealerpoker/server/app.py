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
from dealerpoker.games.currency import iso_currency
from dealerpoker.games.jackpot import load_jackpot
from dealerpoker.games.rules import Rules
from dealerpoker.server.api import fastpath
from dealerpoker.server.api import games as games_api
from dealerpoker.server.api import hints as hints_api
from dealerpoker.server.api import jackpot as jackpot_api
from dealerpoker.server.api import responsible as responsible_api
from dealerpoker.server.api import rounds as rounds_api
from dealerpoker.server.api import session as session_api
from dealerpoker.server.api.docs import install_docs
from dealerpoker.server.api.errors import install_error_handlers
from dealerpoker.server.api.fairness import install_fairness_api
from dealerpoker.server.api.methods import MethodAnswers
from dealerpoker.server.api.openapi import exact_openapi
from dealerpoker.server.backoffice.api import install_backoffice
from dealerpoker.server.clock import Clock, system_clock, timestamp
from dealerpoker.server.currencies import load_currencies
from dealerpoker.server.db import Database
from dealerpoker.server.draining import Drain, on_sigterm
from dealerpoker.server.edge import Edge, edge
from dealerpoker.server.edge.ratelimit import EDGE_RESPONSES, RateLimits
from dealerpoker.server.integrity import (
    SoftwareHaltedError,
    SoftwareIntegrity,
    database_log,
    verify_periodically,
)
from dealerpoker.server.jackpot import Jackpot
from dealerpoker.server.jurisdiction import Jurisdictions
from dealerpoker.server.ledger import audit_database
from dealerpoker.server.menu import Menu
from dealerpoker.server.offer import Offer
from dealerpoker.server.operators import api as operators_api
from dealerpoker.server.operators import players as operator_players
from dealerpoker.server.operators import promotions_api
from dealerpoker.server.operators.limits import check_against_offer, operator_lookup
from dealerpoker.server.operators.outbox import seamless_wallet
from dealerpoker.server.origins import WebSocketOrigins
from dealerpoker.server.promotions import ANTE_FIELD, Promotions
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


def install_rest_api(app: FastAPI, services: Services) -> None:
    for module in (session_api, games_api, rounds_api, hints_api, responsible_api, jackpot_api):
        app.include_router(module.router)
    app.include_router(jackpot_api.sockets)
    if services.jackpot is not None:  # the pool's ticker (/ws/jackpot): one reader per process
        ticker = app.state.jackpot_ticker = jackpot_api.Ticker(services.jackpot)
        services.shutdown.append(ticker.stop)


def install_operators_api(app: FastAPI, services: Services) -> None:
    """The ``/operator/v1`` routes and a round's wallet record, when the server has operators; a
    player's free rounds always (none without operators: the table asks every server)."""
    app.include_router(promotions_api.player_router)
    if services.operators:
        for router in (operators_api.router, operator_players.router, operators_api.player_router,
                       promotions_api.router):
            app.include_router(router)


#: Installed by every app, in order; other parts pass theirs to ``create_app(extensions=...)``.
EXTENSIONS: tuple[Extension, ...] = (install_rest_api, install_fairness_api, install_backoffice,
                                     install_operators_api)


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


def load_jackpot_of(settings: Settings, database: Database, offer: Offer) -> Jackpot | None:
    """The deployment's jackpot (``--jackpot FILE`` or the shipped one), None with ``--no-jackpot``.
    A currency's decimals are the server's (``--currencies``), else ISO 4217's."""
    if not settings.jackpot:
        return None
    codes = set(offer.currencies.codes)

    def exponent_of(code: str) -> int:
        return offer.currencies.currency(code).exponent if code in codes else iso_currency(code).exponent

    return Jackpot(database, load_jackpot(settings.jackpot_file), exponent_of)


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
    database = Database(settings.database_url, pool_size=settings.database_pool_size,
                        pool_timeout=settings.database_pool_timeout_seconds)
    offer = load_offer(settings)
    operator_of = operator_lookup(database, offer.operators)
    jurisdictions = Jurisdictions(database, {o.id: o for o in settings.operators},
                                  default=settings.default_jurisdiction)
    responsible = ResponsibleGaming(  # an operator's players play under its profile
        database, clock=clock, profile=settings.responsible_gaming, operator_of=operator_of,
        profiles={o.id: o.profile(settings.responsible_gaming) for o in settings.operators
                  if o.responsible_gaming}, jurisdictions=jurisdictions)
    wallet: Wallet = LedgerWallet(database)
    outbox = None
    if settings.operators:  # operators' players' money is in their wallets (docs/operators.md)
        wallet, outbox = seamless_wallet(database, settings.operators, clock)
    store = round_store(database, wallet, without=settings.without)
    promotions = Promotions(database, clock, jurisdictions)
    menu = Menu(offer)
    jackpot = load_jackpot_of(settings, database, offer)
    integrity = SoftwareIntegrity.installed(database_log(database))
    services = Services(
        settings=settings, database=database, menu=menu, wallet=wallet,
        rounds=RoundService(store, wallet, menu, rng=rng, clock=clock, responsible=responsible,
                            abandon_after_seconds=settings.abandon_after_seconds,
                            operator_of=operator_of, jurisdictions=jurisdictions,
                            before_open=integrity.refuse_if_halted, promotions=promotions,
                            jackpot=jackpot),
        rng=rng, clock=clock, responsible=responsible, jurisdictions=jurisdictions,
        analysis_cache=analysis_cache, operators={operator.id: operator for operator in settings.operators},
        sessions=Sessions(database, clock, operators=bool(settings.operators),
                          policy=Policy(settings.session_idle_seconds, settings.session_max_seconds)),
        signer=RecordSigner.from_file(settings.signing_key_file),
        limiter=RateLimits.from_settings(settings),
        integrity=integrity,
        promotions=promotions,
        drain=Drain(settings.drain_seconds),
        jackpot=jackpot,
    )
    if jackpot is not None:
        services.startup.append(lambda: jackpot.ensure(timestamp(clock())))
    if outbox is not None:
        services.startup.append(outbox.start)
        services.shutdown.append(outbox.stop)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if settings.run_migrations:
            await database.migrate(default_currency=offer.default_currency)
        if await integrity.check("start"):  # serve refuses to start (`dealerpoker serve` says which)
            raise SoftwareHaltedError(f"not starting: {integrity.halt_reason()}")
        for hook in services.startup:
            await hook()
        undo_drain_on_sigterm = on_sigterm(services.drain, asyncio.get_running_loop())
        tasks = [asyncio.create_task(_reap_abandoned(services))]
        if integrity.manifest is not None and settings.verify_interval_seconds > 0:
            interval = settings.verify_interval_seconds
            tasks.append(asyncio.create_task(verify_periodically(integrity, interval)))
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
            undo_drain_on_sigterm()
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
    app.state.services = services
    install_error_handlers(app)
    if "fast_path" not in settings.without:
        fastpath.install(app, services)
    app.add_middleware(TextGuard)  # outside the fast path: no text breaking the rule reaches it
    app.add_middleware(WebSocketOrigins, allowed=settings.websocket_origins)
    app.add_middleware(MethodAnswers, routes=lambda: app.routes)
    app.openapi = exact_openapi(app.openapi, services.games,  # type: ignore[method-assign]
                                sorted(offer.engines), sorted({currency for operator in settings.operators
                                                               for currency in operator.currencies
                                                               if currency in offer.engines}),
                                offer.operators_limits(ANTE_FIELD))
    for extension in (*EXTENSIONS, *extensions):
        extension(app, services)
    if settings.docs:
        install_docs(app)
    app.mount("/", StaticFiles(directory=WEB_DIRECTORY, html=True), name="web")
    app.edge = edge(settings)
    return app


async def _fill_rtps(services: Services, source: RtpSource) -> None:
    """Publish each game's exact RTPs as soon as the analysis (or its cache) has them."""
    for name, game in services.games.items():
        try:
            exact = await asyncio.to_thread(source, game.rules)
        except Exception:  # the game list stays usable with null RTPs
            log.exception("RTP analysis of %s failed", name)
            continue
        services.menu.publish_rtps(
            {name: {field: None if value is None else float(value) for field, value in exact.items()}})


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
