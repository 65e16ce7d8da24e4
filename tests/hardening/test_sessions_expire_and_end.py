"""Defect 6: sessions never expired and could not be revoked, while the 401 text said "expired";
WebSocket upgrades took any Origin. Now a session expires when idle and after an absolute
lifetime (settings), ``POST /api/session/logout`` ends it, ``POST /api/session/revoke-all`` (and
``dealerpoker admin revoke-sessions``) end all of a player's, the 401 says which (``reason``:
``unknown``, ``expired``, ``ended``), also across server processes sharing the database, and a
WebSocket upgrade from a page of another origin is refused."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import FAST_TABLES
from tests.support.servers import DEALERPOKER, serving
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from dealerpoker.server import Settings, create_app
from dealerpoker.server.live.extension import live_extension
from dealerpoker.server.live.service import LiveSettings
from dealerpoker.server.sessions import REFRESH_SECONDS
from dealerpoker.tables.config import parse_tables

IDLE, MAXIMUM = 600.0, 3600.0


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


def _url(database_url: str, tmp_path: Path) -> str:
    """A database two apps can share (a SQLite file, not memory)."""
    return f"sqlite:///{tmp_path}/casino.db" if database_url == "sqlite://" else database_url


@asynccontextmanager
async def _clients(url: str, clock: Clock, count: int) -> AsyncIterator[list[httpx.AsyncClient]]:
    """``count`` server processes (apps) on one database, each with a client."""
    settings = Settings(database_url=url, session_idle_seconds=IDLE, session_max_seconds=MAXIMUM)
    async with AsyncExitStack() as stack:
        clients = []
        for _ in range(count):
            app = create_app(settings, clock=clock)
            await stack.enter_async_context(app.router.lifespan_context(app))
            clients.append(await stack.enter_async_context(httpx.AsyncClient(
                transport=httpx.ASGITransport(app=app), base_url="http://testserver")))
        yield clients


async def _session(http: httpx.AsyncClient) -> dict[str, str]:
    token = (await http.post("/api/session", json={})).json()["token"]
    return {"Authorization": f"Bearer {token}"}


async def _refused(http: httpx.AsyncClient, auth: dict[str, str], reason: str, words: str) -> None:
    response = await http.get("/api/balance", headers=auth)
    assert response.status_code == 401, response.text
    body = response.json()
    assert (body["error"], body["reason"]) == ("unauthorized", reason), body
    assert words in body["message"], body


def test_sessions_expire_end_and_say_why(database_url: str, tmp_path: Path) -> None:
    clock = Clock()

    async def scenario() -> None:
        async with _clients(_url(database_url, tmp_path), clock, 2) as (http, other):
            await _refused(http, {"Authorization": "Bearer not-a-token"}, "unknown", "unknown token")

            # Idle expiry: used within the idle limit it lives on; unused longer, it is over.
            idle = await _session(http)
            for _check in range(3):
                clock.advance(IDLE - 1)
                assert (await http.get("/api/balance", headers=idle)).status_code == 200
            clock.advance(IDLE + 1)
            await _refused(http, idle, "expired", "idle limit")
            await _refused(other, idle, "expired", "idle limit")

            # Absolute expiry: however busy, a session ends after its lifetime.
            busy = await _session(http)
            for _ in range(int(MAXIMUM // (IDLE / 2))):
                clock.advance(IDLE / 2)
                assert (await http.get("/api/balance", headers=busy)).status_code == 200
            clock.advance(IDLE / 2)
            await _refused(http, busy, "expired", "session limit")

            # Logout: at once in this process; in another, once it reads the session again.
            mine = await _session(http)
            assert (await other.get("/api/balance", headers=mine)).status_code == 200
            logout = await http.post("/api/session/logout", headers=mine)
            assert logout.status_code == 200 and logout.json() == {"ended": 1}, logout.text
            await _refused(http, mine, "ended", "logout")
            clock.advance(REFRESH_SECONDS + 1)
            await _refused(other, mine, "ended", "logout")

            # Revoke all: every session of the player, whichever process asks.
            revoked = await _session(http)
            answer = await other.post("/api/session/revoke-all", headers=revoked)
            assert answer.status_code == 200 and answer.json() == {"ended": 1}, answer.text
            await _refused(other, revoked, "ended", "revoked")
            clock.advance(REFRESH_SECONDS + 1)
            await _refused(http, revoked, "ended", "revoked")

    asyncio.run(scenario())


def test_admin_revokes_a_players_sessions_from_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/casino.db"
    clock = Clock()

    async def open_session() -> tuple[str, dict[str, str]]:
        async with _clients(url, clock, 1) as (http,):
            session = (await http.post("/api/session", json={})).json()
            return session["player_id"], {"Authorization": f"Bearer {session['token']}"}

    player, auth = asyncio.run(open_session())  # never used: revoked before its first request
    done = subprocess.run([DEALERPOKER, "admin", "revoke-sessions", player,
                           "--database", url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and f"ended 1 session(s) of {player}" in done.stdout, done

    async def check() -> None:
        async with _clients(url, clock, 1) as (http,):
            await _refused(http, auth, "ended", "revoked")

    asyncio.run(check())


def test_websocket_upgrades_check_origin_and_the_session(database_url: str) -> None:
    tables = parse_tables(FAST_TABLES.format(betting=15, decision=10, pause=5))
    settings = Settings(database_url=database_url, allowed_origins=("https://lobby.example",))
    app = create_app(settings, extensions=[live_extension(LiveSettings(tables))])
    with serving(app) as server:
        token = httpx.post(f"{server.url}/api/session", json={}).json()["token"]
        auth = {"Authorization": f"Bearer {token}"}
        socket_url = server.url.replace("http", "ws") + "/ws/tables/texas-fast"
        for origin in ("https://evil.example", "null", "http://127.0.0.1:1"):
            with pytest.raises(InvalidStatus) as refused:
                connect(socket_url, additional_headers={**auth, "Origin": origin}).close()
            assert refused.value.response.status_code == 403, origin
        for origin in (server.url, "https://lobby.example", None):  # ours, configured, no browser
            headers = {**auth, **({"Origin": origin} if origin else {})}
            with connect(socket_url, additional_headers=headers) as socket:
                assert json.loads(socket.recv(timeout=60))["type"] == "welcome"
        with connect(socket_url, additional_headers={**auth, "Origin": server.url}) as socket:
            assert json.loads(socket.recv(timeout=60))["type"] == "welcome"
            assert httpx.post(f"{server.url}/api/session/logout", headers=auth).status_code == 200
            socket.send('{"type": "ping"}')
            message: dict[str, Any] = {}
            while message.get("type") != "error":
                message = json.loads(socket.recv(timeout=60))
            assert message["error"] == "unauthorized" and "logout" in message["message"], message
            with pytest.raises(Exception):  # noqa: B017 - closed by the server (4401)
                while True:
                    socket.recv(timeout=60)
            assert socket.close_code == 4401
