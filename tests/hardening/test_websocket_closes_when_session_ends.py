"""Defect 6 (the WebSockets): a player's table socket whose session was logged out, revoked or
expired went on receiving the table's messages until the client next sent one. Now the socket's
session is also checked every few seconds while it is open (``live.session_watch``), and the
socket is closed with 4401 after an ``unauthorized`` error although the client sends nothing;
these checks are not a use of the session (its idle time goes on)."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import httpx
import pytest
from tests.hardening.edge_support import live_edge_server
from tests.hardening.test_sessions_expire_and_end import Clock
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from dealerpoker.server import Settings, create_app
from dealerpoker.server.accounts import AuthenticationError
from dealerpoker.server.live.session_watch import CHECK_SECONDS


@pytest.mark.slow
@pytest.mark.parametrize("end", ["logout", "revoke-all"])
def test_websocket_closed_when_its_session_ends_without_a_message(database_url: str,
                                                                           end: str) -> None:
    with live_edge_server(database_url) as (base, _app):
        token = httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        table = f"ws{base[4:]}/ws/tables/texas-fast"
        with connect(table, additional_headers=auth, open_timeout=60) as socket:
            assert json.loads(socket.recv(timeout=60))["type"] == "welcome"
            assert httpx.post(f"{base}/api/session/{end}", headers=auth, timeout=60).status_code == 200
            ended = time.monotonic()
            message: dict[str, Any] = {}
            with pytest.raises(ConnectionClosed) as closed:  # the client sends nothing
                while True:
                    message = json.loads(socket.recv(timeout=CHECK_SECONDS + 5))
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
            assert time.monotonic() - ended < CHECK_SECONDS + 3
            assert message["type"] == "error" and message["error"] == "unauthorized", message
            assert "logout" in message["message"] or "revoked" in message["message"], message


def test_an_open_sockets_checks_are_not_a_use_of_its_session(database_url: str) -> None:
    async def run() -> None:
        clock = Clock()
        app = create_app(Settings(database_url=database_url, session_idle_seconds=600), clock=clock)
        async with app.router.lifespan_context(app), httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://testserver") as http:
            token = (await http.post("/api/session", json={})).json()["token"]
            services = app.state.services
            player = await services.authenticate(token)
            for _check in range(2):  # an open socket's checks, every 200 s
                clock.advance(200)
                assert await services.session_alive(token) == player
            clock.advance(400)  # 800 s since the last use: over the idle limit (600 s)
            with pytest.raises(AuthenticationError, match="idle"):
                await services.session_alive(token)

    asyncio.run(run())
