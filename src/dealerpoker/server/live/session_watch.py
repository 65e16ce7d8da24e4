"""A player's table WebSocket ends with its session: checked before each message the client sends
(a use of the session) and every ``CHECK_SECONDS`` while the socket is open (not a use: the idle
time goes on), so a logout, a revocation or an expiry closes the socket (4401) within seconds
even when the client sends nothing. A logout in this process is seen at the next check; one in
another process once this process has read the sessions ended lately (every
``sessions.REFRESH_SECONDS``: so within ``CHECK_SECONDS + REFRESH_SECONDS``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from fastapi import WebSocket

from dealerpoker.server.accounts import AuthenticationError
from dealerpoker.server.live.hub import serialise

log = logging.getLogger("dealerpoker.live")
CHECK_SECONDS = 2.0
"""How often an open socket's session is checked (from memory: ``sessions``)."""

Session = Callable[[bool], Awaitable[str]]
"""Checks the socket's session (``True``: a use of it); raises ``AuthenticationError`` once over."""


async def unauthorized(websocket: WebSocket, now: float, sender: asyncio.Task[None],
                       error: AuthenticationError) -> None:
    """The session is over: stop sending the table's messages, say why, close with 4401."""
    sender.cancel()
    with contextlib.suppress(asyncio.CancelledError, Exception):
        await sender
    with contextlib.suppress(Exception):
        await websocket.send_text(serialise({"type": "error", "error": "unauthorized", "message": str(error)},
                                            now))
        await websocket.close(code=4401)


async def watch(websocket: WebSocket, clock: Callable[[], float], sender: asyncio.Task[None],
                session: Session) -> None:
    """Every ``CHECK_SECONDS``, the session; once it is over, the socket closed (``unauthorized``)."""
    while True:
        await asyncio.sleep(CHECK_SECONDS)
        try:
            await session(False)
        except AuthenticationError as error:
            await unauthorized(websocket, clock(), sender, error)
            return
        except Exception as error:  # a database hiccup: check again at the next tick
            log.warning("session of a table socket not checked: %s", error)
