"""The live tables' routes: the list (``GET /api/tables``), the players' WebSocket
``/ws/tables/{id}`` and a studio dealer's ``/ws/dealer/{id}``: authentication, rate limits, the
frames read (size, JSON depth, text), and each connection's messages handed to ``LiveTables``
(``live/service.py``) with the replies queued behind the fan-out.

The WebSocket protocols (messages, error codes, close codes) are described in docs/api.md, the
only description of them: change both together.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING, Any, NoReturn

from fastapi import APIRouter, Depends, Request, WebSocket, WebSocketDisconnect

from dealerpoker.jurisdictions import JurisdictionRefusedError
from dealerpoker.server import jsonin
from dealerpoker.server.accounts import AuthenticationError, bearer_token
from dealerpoker.server.api.deps import PlayerDep, error_responses, reject_unknown_query
from dealerpoker.server.db import DatabaseBusyError
from dealerpoker.server.edge.ratelimit import RateLimitedError
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.frames import FRAMES, FrameWriter
from dealerpoker.server.live import session_watch
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.hub import Connection, serialise
from dealerpoker.server.live.intents import error_message, error_reply
from dealerpoker.server.services import Services
from dealerpoker.server.text import InvalidTextError, check_json

if TYPE_CHECKING:
    from dealerpoker.server.live.service import LiveTables

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
        reply = error_message(error.code, str(error), **error.details())
        await websocket.send_text(serialise(reply, live.now()))
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
        reply = error_message("not_found", f"no live table {table_id!r}")
        await websocket.send_text(serialise(reply, live.now()))
        await websocket.close(code=4404)
        return
    try:
        token = await _bearer(websocket)
        player_id = await services.authenticate(token)
    except (AuthenticationError, TimeoutError, WebSocketDisconnect) as error:
        with contextlib.suppress(Exception):
            reply = error_message("unauthorized", str(error) or "no token")
            await websocket.send_text(serialise(reply, live.now()))
            await websocket.close(code=4401)
        return
    except RateLimitedError as error:  # the account's requests, or its WebSocket connections below
        await _rate_limited(websocket, live, error)
        return
    except DatabaseBusyError as error:  # a crowd signing in at once: come back in a moment
        with contextlib.suppress(Exception):
            await websocket.send_text(serialise(error_reply(error), live.now()))
            await websocket.close(code=1013)  # "try again later": the page reconnects
        return
    try:  # a table seats only the players whose jurisdiction allows it
        await live.check_jurisdiction(runner, player_id)
    except JurisdictionRefusedError as error:
        await websocket.send_text(serialise(error_reply(error), live.now()))
        await websocket.close(code=4403)
        return
    limiter = services.limiter  # the account's connections per minute, then its sockets open
    refusal = limiter and (await limiter.hit("websocket_account", player_id)
                           or limiter.opened("websockets_open_account", player_id))
    if refusal:
        await _rate_limited(websocket, live, refusal)
        return
    connection = Connection(player_id, table_id, _frames(websocket))
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
    sent after what the fan-out sent it before (``hub.Connection``: written at once, or queued
    for a sender task that writes the queue out and closes a socket too slow).

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
                connection.push(serialise(error_reply(error), live.now()))
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
        refusal = (4404, error_message("not_found", f"no live table {table_id!r}"))
    elif runner.table.studio is None:
        refusal = (4404, error_message("not_studio",
                                       f"table {table_id} deals from the RNG: it has no dealer"))
    else:
        try:
            key = await _bearer(websocket)
        except (AuthenticationError, TimeoutError, WebSocketDisconnect) as error:
            key, refusal = None, (4401, error_message("unauthorized", str(error) or "no dealer key"))
        if key is not None and not runner.table.studio.accepts(key):
            refusal = (4401, error_message("unauthorized", f"not the dealer key of table {table_id}"))
    if refusal is not None:
        with contextlib.suppress(Exception):
            await websocket.send_text(serialise(refusal[1], live.now()))
            await websocket.close(code=refusal[0])
        return
    connection = Connection(DEALER, table_id, _frames(websocket), counted=False)
    for text in await live.dealer_welcome(table_id):
        connection.push(text)
    live.hub.join(connection)
    await _converse(websocket, live, connection)


def _frames(websocket: WebSocket) -> FrameWriter | None:
    """The socket's direct frame writer (``server.frames``: under ``dealerpoker serve``), else None."""
    writer: FrameWriter | None = websocket.scope.get("extensions", {}).get(FRAMES)
    return writer


async def _send(websocket: WebSocket, connection: Connection) -> None:
    while True:
        text = await connection.queue.get()
        if text is None:
            await websocket.close(code=4408, reason="too slow: reconnect for the current state")
            return
        await websocket.send_text(text)
