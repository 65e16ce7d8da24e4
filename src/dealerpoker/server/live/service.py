"""Live tables in the server: the extension ``create_app`` installs and ``LiveTables``, every
table's runner in this process, the clocks it owns and the fan-out.

``live_extension(LiveSettings(...))`` gives an extension (see ``dealerpoker.server.app``): on
startup every configured table's runner resumes its last round and its clock starts; players
connect to ``/ws/tables/{id}`` (``live/routes.py``), whose messages ``live/intents.py`` answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI

from dealerpoker.games import AnyGame, get_game
from dealerpoker.games.payments import most_at_stake
from dealerpoker.games.rules import Rules
from dealerpoker.server.api.games import describe_game
from dealerpoker.server.errors import WrongCurrencyError
from dealerpoker.server.live import controls, intents
from dealerpoker.server.live.advice import router as advice_router
from dealerpoker.server.live.cluster import Cluster, LocalCluster, RedisCluster
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.hub import LocalHub, serialise
from dealerpoker.server.live.player_limits import PlayerLimits, table_for
from dealerpoker.server.live.ports import StaleLeaseError
from dealerpoker.server.live.records_api import install_live_records
from dealerpoker.server.live.routes import router
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.server.services import Services
from dealerpoker.tables.config import TableConfig, load_tables

log = logging.getLogger("dealerpoker.live")
PRESENCE_INTERVAL = 1.0


@dataclass(frozen=True, slots=True)
class LiveSettings:
    tables: tuple[TableConfig, ...]
    redis_url: str | None = None
    redis_prefix: str = "dealerpoker:"


class LiveTables:
    """Every table's runner in this process, the clocks it owns, and the fan-out hub."""

    def __init__(self, settings: LiveSettings, services: Services) -> None:
        self.settings = settings
        self.services = services
        self.hub = LocalHub(self.now)
        self.cluster: Cluster = (RedisCluster(settings.redis_url, self.hub, prefix=settings.redis_prefix)
                                 if settings.redis_url else LocalCluster(self.hub))
        self.store = SqlStore(services.database, services.now, wallet=services.wallet)
        self.engines: dict[str, AnyGame] = {}
        self.runners = {table.id: self._runner(table) for table in settings.tables}
        self.limits = PlayerLimits(((r.table, r.currency) for r in self.runners.values()), services.offer,
                                   services.rounds.operator_of)
        self._clocks: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def _runner(self, table: TableConfig) -> TableRunner:
        def watchers() -> int:
            return self.cluster.watchers(table.id)

        currency = table.currency or self.services.offer.default_currency
        engine = get_game(table.game, table.rules)
        self.engines[table.id] = engine
        return TableRunner(table, engine, self.store, self.cluster, clock=self.now, watchers=watchers,
                           currency=currency, controls=controls.reader(self.services.database))

    def now(self) -> float:
        return self.services.clock().timestamp()

    async def start(self) -> None:
        self._stop.clear()
        await self.cluster.start(tuple(self.runners), self._acquire, self._release, self._handle_local)
        self._tasks.append(asyncio.create_task(self._presence(), name="presence"))

    async def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        await self.cluster.stop()

    async def _acquire(self, table_id: str, lease: int | None) -> None:
        """This process now owns the table's clock (lease token ``lease``): resume its round, run it."""
        await self._release(table_id)
        stop = asyncio.Event()
        task = asyncio.create_task(self._guard(self.runners[table_id], stop, lease), name=f"table {table_id}")
        self._clocks[table_id] = (task, stop)

    async def _release(self, table_id: str) -> None:
        clock = self._clocks.pop(table_id, None)
        if clock is not None:
            task, stop = clock
            stop.set()
            await self.runners[table_id].writer.drain()  # acknowledged bets are written first
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _guard(self, runner: TableRunner, stop: asyncio.Event, lease: int | None) -> None:
        """Run a table's loop; after an unexpected error, resume it from its last commit; once a
        newer lease token claimed the table, stop driving it."""
        while not stop.is_set():
            try:
                await runner.run(stop, lease=lease)
            except asyncio.CancelledError:
                raise
            except StaleLeaseError as error:
                await self.cluster.stale(runner.table.id, error.epoch)
                return
            except Exception:
                log.exception("table %s: the loop failed; resuming from the last commit", runner.table.id)
                await asyncio.sleep(1.0)

    async def _presence(self) -> None:
        last: dict[str, int] = {}
        while not self._stop.is_set():
            for table_id in self.runners:
                count = self.cluster.watchers(table_id)
                if self.cluster.owns(table_id) and last.get(table_id) != count:
                    last[table_id] = count
                    message = {"type": "presence", "table": table_id, "players": count}
                    await self.cluster.to_table(table_id, message)
            await asyncio.sleep(PRESENCE_INTERVAL)

    async def player_summary(self, table_id: str, player_id: str) -> dict[str, Any]:
        """The table's summary with the limits and chips ``player_id`` bets under there."""
        table = self.runners[table_id].table
        return {**self.summary(table_id), **table_for(table, await self.limits.rules_for(table, player_id))}

    def summary(self, table_id: str) -> dict[str, Any]:
        runner = self.runners[table_id]
        state: dict[str, Any] = {"phase": "unknown", "round": None, "deadline": None}
        if self.cluster.owns(table_id):
            state = runner.table_message("state")
        elif table_id in self.hub.last_table_text:
            state = json.loads(self.hub.last_table_text[table_id])
        return {**runner.table.to_dict(), "currency_format": self.currency_format(runner),
                "players": self.cluster.watchers(table_id),
                "phase": state.get("phase", "unknown"), "round": state.get("round"),
                "deadline": state.get("deadline")}

    def game_document(self, table: TableConfig, rules: Rules | None = None) -> dict[str, Any]:
        """The table's game as ``GET /api/games`` describes one, under its rules (``rules``: a player's
        limits and chips there), for the page's rules panel and Min/Max signs; RTPs as the server's."""
        document = describe_game(get_game(table.game, table.rules if rules is None else rules))
        shipped = next((g for g in self.services.games_document["games"] if g["id"] == table.game), None)
        if shipped is not None and _payouts(shipped["rules"]) == _payouts(document["rules"]):
            document["rtp"] = shipped["rtp"]  # limits, chips and timers change no bet's return
        return document

    def currency_format(self, runner: TableRunner) -> dict[str, object]:
        """The table's currency as ``GET /api/games`` gives it ({code, exponent, symbol}): pages write
        amounts with its exponent (a configured mBTC has 5 decimals, which no browser knows)."""
        return self.services.offer.currency(runner.currency).to_dict()

    async def welcome(self, table_id: str, player_id: str) -> list[str]:
        """What a newcomer is sent first: who they are, the table's state and their own part."""
        runner = self.runners[table_id]
        balance = await self.store.balance(player_id)
        rules = await self.limits.rules_for(runner.table, player_id)
        greeting: dict[str, Any] = {"type": "welcome", "player_id": player_id,
                                    "table": table_for(runner.table, rules), "balance": balance,
                                    "game": self.game_document(runner.table, rules),
                                    "currency": runner.currency,
                                    "currency_format": self.currency_format(runner),
                                    "process": self.cluster.process_id}
        if self.cluster.owns(table_id):
            return [serialise(m, self.now()) for m in
                    (greeting, runner.table_message("state"), runner.seat_message(player_id))]
        texts = [serialise(greeting, self.now())]
        if table_id in self.hub.last_table_text:
            texts.append(self.hub.last_table_text[table_id])
        texts.append(serialise(await self.intent(table_id, player_id, {"type": "hello"}), self.now()))
        return texts

    async def intent(self, table_id: str, player_id: str, message: Any) -> dict[str, Any]:
        """A client message, handled here if this process owns the table, else by its owner."""
        if self.cluster.owns(table_id):
            return await self._handle_local(table_id, player_id, message)
        return await self.cluster.forward(table_id, player_id, message)

    async def dealer_welcome(self, table_id: str) -> list[str]:
        """What a studio's dealer is sent first: the table, then its view and what is expected."""
        runner = self.runners[table_id]
        greeting = {"type": "welcome", "role": "dealer", "table": runner.table.to_dict(),
                    "currency": runner.currency, "currency_format": self.currency_format(runner),
                    "process": self.cluster.process_id}
        texts = [serialise(greeting, self.now())]
        if self.cluster.owns(table_id):
            expect = runner.expect_message()
            return texts + [serialise(m, self.now()) for m in (runner.dealer_message("state"), expect) if m]
        texts.append(serialise(await self.intent(table_id, DEALER, {"type": "hello"}), self.now()))
        return texts

    async def _handle_local(self, table_id: str, client_id: str, message: Any) -> dict[str, Any]:
        """One client message -> the reply for that client (a studio's dealer: ``DEALER``)."""
        runner = self.runners[table_id]

        async def check_bet(player_id: str, bets: Mapping[str, Any]) -> None:
            await self._check_currency(runner, player_id)
            engine = await self.limits.engine_for(runner.table, self.engines[table_id], player_id)
            at_stake = most_at_stake(engine, engine.validate_bets(bets))
            await self.services.responsible.check_live_bet(player_id, at_stake)

        return await intents.handle(runner, client_id, message, check_bet)

    async def _check_currency(self, runner: TableRunner, player_id: str) -> None:
        currency = await self.services.rounds.currency_of(player_id)
        if currency != runner.currency:
            raise WrongCurrencyError(key="error.wrong_currency", table_currency=runner.currency,
                                     currency=currency)


def _payouts(rules: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in rules.items()
            if key not in {"limits", "chips", "timeout_actions", "title", "rules_version"}}


def live_extension(settings: LiveSettings) -> Any:
    """The extension for ``create_app(..., extensions=[...])`` serving ``settings.tables``."""

    def install(app: FastAPI, services: Services) -> None:
        live = LiveTables(settings, services)
        app.state.live = live
        app.include_router(router)
        app.include_router(advice_router)
        install_live_records(app, services, settings.tables)
        services.startup.append(live.start)
        services.shutdown.append(live.stop)

    return install


def live_extension_from(tables_file: str | None, redis_url: str | None) -> Any:
    """The extension for ``dealerpoker serve --tables FILE --redis URL`` (env: DEALERPOKER_REDIS_URL)."""
    redis_url = redis_url or os.environ.get("DEALERPOKER_REDIS_URL") or None
    prefix = os.environ.get("DEALERPOKER_REDIS_PREFIX") or "dealerpoker:"

    def install(app: FastAPI, services: Services) -> None:
        # Each table plays in its currency: that currency's limits and chips under the table's own.
        tables = load_tables(tables_file, environ=os.environ,
                             currency_overrides=services.offer.table_overrides,
                             rules_files=services.settings.rules_files)
        live_extension(LiveSettings(tables, redis_url=redis_url, redis_prefix=prefix))(app, services)

    return install
