"""Live tables in the server: the extension ``create_app`` installs, the table list, the WebSocket.

``live_extension(LiveSettings(...))`` gives an extension (see ``dealerpoker.server.app``): on
startup every configured table's runner resumes its last round and its clock starts; players
connect to ``/ws/tables/{id}``.

The WebSocket protocols (players' ``/ws/tables/{id}``; a studio's dealer ``/ws/dealer/{id}``:
messages, error codes, close codes) are described in docs/api.md, the only description of
them: change both together.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from fastapi import APIRouter, Depends, FastAPI, Request, WebSocket, WebSocketDisconnect

from dealerpoker.errors import DealerPokerError
from dealerpoker.fairness.live_record import CARD_SOURCE
from dealerpoker.games import AnyGame, get_game
from dealerpoker.games.payments import most_at_stake
from dealerpoker.games.rules import Rules
from dealerpoker.server import jsonin
from dealerpoker.server.accounts import AuthenticationError, bearer_token
from dealerpoker.server.api.deps import PlayerDep, error_responses, reject_unknown_query
from dealerpoker.server.api.games import describe_game
from dealerpoker.server.edge.ratelimit import RateLimitedError
from dealerpoker.server.errors import NotFoundError, WrongCurrencyError, error_fields
from dealerpoker.server.live import controls, session_watch
from dealerpoker.server.live.advice import router as advice_router
from dealerpoker.server.live.cluster import Cluster, LocalCluster, RedisCluster
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.hub import Connection, LocalHub, serialise
from dealerpoker.server.live.player_limits import PlayerLimits, table_for
from dealerpoker.server.live.ports import StaleLeaseError
from dealerpoker.server.live.records_api import install_live_records
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.server.services import Services
from dealerpoker.server.text import InvalidTextError, check_json
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
        return {**runner.table.to_dict(), "players": self.cluster.watchers(table_id),
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

    async def _handle_local(self, table_id: str, player_id: str, message: Any) -> dict[str, Any]:
        """One client message -> the reply for that client (a studio's dealer: ``DEALER``)."""
        runner = self.runners[table_id]
        if not isinstance(message, Mapping) or not isinstance(message.get("type"), str):
            return _error("bad_request", 'expected a JSON object with a "type"')
        kind = message["type"]
        if player_id == DEALER:
            return await _dealer_intent(runner, message)
        try:
            if kind == "ping":
                return {"type": "pong"}
            if kind == "hello":
                return runner.seat_message(player_id)
            if kind == "decision":  # the player's own view of their open decision (the hint's input)
                return runner.decision_message(player_id)
            if kind == "bet":
                bets = message.get("bets")
                if not isinstance(bets, Mapping) or not all(isinstance(k, str) for k in bets):
                    return _error("bad_request", 'bet: expected "bets": {field: amount}')
                if bets:
                    await self._check_currency(runner, player_id)
                    engine = await self.limits.engine_for(runner.table, self.engines[table_id], player_id)
                    at_stake = most_at_stake(engine, engine.validate_bets(bets))
                    await self.services.responsible.check_live_bet(player_id, at_stake)
                return await runner.bet(player_id, bets)
            if kind == "decide":
                action = message.get("action")
                if not isinstance(action, str):
                    return _error("bad_request", 'decide: expected "action": "bet", "check", "fold"...')
                return await runner.decide(player_id, action)
        except DealerPokerError as error:  # the table's refusals and the rules' (bet limits, funds...)
            return {"type": "error", **error_fields(error)}
        return _error("bad_request", f"unknown message type {kind!r} (bet, decide, decision, hello, ping)")

    async def _check_currency(self, runner: TableRunner, player_id: str) -> None:
        currency = await self.services.rounds.currency_of(player_id)
        if currency != runner.currency:
            raise WrongCurrencyError(key="error.wrong_currency", table_currency=runner.currency,
                                     currency=currency)


def _payouts(rules: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in rules.items()
            if key not in {"limits", "chips", "timeout_actions", "title", "rules_version"}}


def _error(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"type": "error", "error": code, "message": message, **extra}


async def _dealer_intent(runner: TableRunner, message: Mapping[str, Any]) -> dict[str, Any]:
    """One message of a studio's dealer -> the reply (``accepted``, the dealer's view, or an error).

    A refused card, void or misdeal changes nothing; its error names the problem.
    """
    kind = message["type"]
    try:
        if kind == "ping":
            return {"type": "pong"}
        if kind == "hello":
            return runner.dealer_message("state")
        if kind == "card":
            source = message.get("source", "reader")
            if not isinstance(source, str) or not CARD_SOURCE.match(source):
                return _error("bad_request", 'card: "source" is 1-24 lowercase letters, digits or "-"')
            return await runner.report_card(message.get("card"), source)
        if kind == "void":
            return await runner.void_card()
        if kind == "misdeal":
            reason = message.get("reason", "called by the dealer")
            if not isinstance(reason, str) or not 0 < len(reason) <= 200:
                return _error("bad_request", 'misdeal: "reason" is a text of 1-200 characters')
            return await runner.misdeal(reason)
    except DealerPokerError as error:  # the table's refusals (not expected, a duplicate card...)
        return {"type": "error", **error_fields(error)}
    return _error("bad_request", f"unknown message type {kind!r} (card, void, misdeal, hello, ping)")


router = APIRouter()


def _live(app: Any) -> LiveTables:
    live: LiveTables = app.state.live
    return live


@router.get("/api/tables", tags=["live"], responses=error_responses(401),
            dependencies=[Depends(reject_unknown_query)])
async def list_tables(request: Request, player: PlayerDep) -> dict[str, Any]:
    """The live tables: game, limits (the player's there), timers, phase, connected players."""
    live = _live(request.app)
    return {"tables": [await live.player_summary(table_id, player) for table_id in live.runners]}


@router.get("/api/tables/{table_id}", tags=["live"], responses=error_responses(401, 404),
            dependencies=[Depends(reject_unknown_query)])
async def get_table(table_id: str, request: Request, player: PlayerDep) -> dict[str, Any]:
    """One live table (as in the list)."""
    live = _live(request.app)
    if table_id not in live.runners:
        raise NotFoundError(f"no live table {table_id!r}")
    return await live.player_summary(table_id, player)


async def _receive(websocket: WebSocket) -> Any:
    """The client's next message as JSON (None when it is not JSON text); a binary frame is read
    as UTF-8 text rather than ending the connection with a server error. A NUL character or a
    lone surrogate in any string or key raises ``InvalidTextError`` (``dealerpoker.server.text``)."""
    frame = await websocket.receive()
    if frame["type"] == "websocket.disconnect":
        raise WebSocketDisconnect(frame.get("code", 1000), frame.get("reason"))
    text = frame.get("text")
    limit: int = websocket.app.state.services.settings.max_frame_bytes
    if len(text if text is not None else frame.get("bytes") or b"") > limit:  # uvicorn: ws_max_size
        await _refuse(websocket, 1009, f"message larger than {limit} bytes")
    if text is None:
        try:
            text = bytes(frame.get("bytes") or b"").decode("utf-8")
        except UnicodeDecodeError:
            return None
    try:
        message = jsonin.loads(text)
    except jsonin.TooDeepError as error:
        await _refuse(websocket, 1007, str(error))
    except ValueError:
        return None
    check_json(message)  # InvalidTextError: the reply names the field, the message does nothing
    return message


async def _rate_limited(websocket: WebSocket, live: LiveTables, error: RateLimitedError) -> None:
    with contextlib.suppress(Exception):
        await websocket.send_text(serialise(_error(error.code, str(error), **error.details()), live.now()))
        await websocket.close(code=4429, reason=f"rate limited: retry in {error.retry_after} s")


async def _refuse(websocket: WebSocket, code: int, reason: str) -> NoReturn:
    """Close the socket with ``code`` and ``reason`` (an unusable message: 1007 or 1009)."""
    with contextlib.suppress(Exception):
        await websocket.close(code=code, reason=reason)
    raise WebSocketDisconnect(code, reason)


async def _bearer(websocket: WebSocket) -> str:
    """The token of the upgrade's ``Authorization: Bearer`` header, else of the first message."""
    token = bearer_token(websocket.headers.get("authorization"))
    if token is None:
        try:
            message = await asyncio.wait_for(_receive(websocket), timeout=10)
        except InvalidTextError as error:
            raise AuthenticationError(str(error)) from None
        if not isinstance(message, dict) or message.get("type") != "auth" \
                or not isinstance(message.get("token"), str):
            raise AuthenticationError('send {"type": "auth", "token": "<bearer token>"} first')
        token = message["token"]
    return token


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str) -> None:
    services: Services = websocket.app.state.services
    live = _live(websocket.app)
    await websocket.accept()
    runner = live.runners.get(table_id)
    if runner is None:
        await websocket.send_text(serialise(_error("not_found", f"no live table {table_id!r}"), live.now()))
        await websocket.close(code=4404)
        return
    try:
        token = await _bearer(websocket)
        player_id = await services.authenticate(token)
    except (AuthenticationError, TimeoutError, WebSocketDisconnect) as error:
        with contextlib.suppress(Exception):
            await websocket.send_text(serialise(_error("unauthorized", str(error) or "no token"), live.now()))
            await websocket.close(code=4401)
        return
    except RateLimitedError as error:  # the account's requests, or its WebSocket connections below
        await _rate_limited(websocket, live, error)
        return
    limiter = services.limiter  # the account's connections per minute, then its sockets open
    refusal = limiter and (await limiter.hit("websocket_account", player_id)
                           or limiter.opened("websockets_open_account", player_id))
    if refusal:
        await _rate_limited(websocket, live, refusal)
        return
    connection = Connection(player_id, table_id)
    try:  # No await between the snapshot and joining the fan-out: no table event falls in between.
        for text in await live.welcome(table_id, player_id):
            connection.push(text)
        live.hub.join(connection)
        runner.wakeup.set()  # an idle table it owns opens its betting window (others: within a second)
        await _converse(websocket, live, connection, session=lambda use: (
            services.authenticate(token) if use else services.session_alive(token)))
    finally:
        if limiter is not None:
            limiter.closed("websockets_open_account", player_id)


async def _converse(websocket: WebSocket, live: LiveTables, connection: Connection,
                    session: session_watch.Session | None = None) -> None:
    """Until the client leaves: each message it sends handled (by the table's owner), the reply
    queued behind what the fan-out queued for it, and the queue written out by a sender task.

    ``session`` checks the player's session before each message (a message is a use of it) and
    every few seconds (``session_watch``): once it expired or ended, an ``unauthorized`` error
    and the socket closed with 4401."""
    sender = asyncio.create_task(_send(websocket, connection))
    tasks = [sender]
    if session is not None:
        tasks.append(asyncio.create_task(session_watch.watch(websocket, live.now, sender, session)))
    try:
        while True:
            try:
                message = await _receive(websocket)
                if session is not None:
                    await session(True)
            except InvalidTextError as error:
                connection.push(serialise({"type": "error", **error_fields(error)}, live.now()))
                continue
            except AuthenticationError as error:
                await session_watch.unauthorized(websocket, live.now(), sender, error)
                return
            reply = await live.intent(connection.table_id, connection.player_id, message)
            connection.push(serialise(reply, live.now()))
    except WebSocketDisconnect:
        pass
    finally:
        live.hub.leave(connection)
        for task in tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


@router.websocket("/ws/dealer/{table_id}")
async def dealer_socket(websocket: WebSocket, table_id: str) -> None:
    """A studio table's dealer: the card reader, the dealer console or the simulated shoe."""
    live = _live(websocket.app)
    await websocket.accept()
    runner = live.runners.get(table_id)
    refusal = None
    if runner is None:
        refusal = (4404, _error("not_found", f"no live table {table_id!r}"))
    elif runner.table.studio is None:
        refusal = (4404, _error("not_studio", f"table {table_id} deals from the RNG: it has no dealer"))
    else:
        try:
            key = await _bearer(websocket)
        except (AuthenticationError, TimeoutError, WebSocketDisconnect) as error:
            key, refusal = None, (4401, _error("unauthorized", str(error) or "no dealer key"))
        if key is not None and not runner.table.studio.accepts(key):
            refusal = (4401, _error("unauthorized", f"not the dealer key of table {table_id}"))
    if refusal is not None:
        with contextlib.suppress(Exception):
            await websocket.send_text(serialise(refusal[1], live.now()))
            await websocket.close(code=refusal[0])
        return
    connection = Connection(DEALER, table_id, counted=False)
    for text in await live.dealer_welcome(table_id):
        connection.push(text)
    live.hub.join(connection)
    await _converse(websocket, live, connection)


async def _send(websocket: WebSocket, connection: Connection) -> None:
    while True:
        text = await connection.queue.get()
        if text is None:
            await websocket.close(code=4408, reason="too slow: reconnect for the current state")
            return
        await websocket.send_text(text)


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
