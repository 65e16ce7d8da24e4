"""Defect 1: no rate limits. 2,000 ``POST /api/session`` in 19 s each created a funded account,
2,000 bad tokens all got 401 and never 429, one client opened 2,000 WebSockets. Now sessions,
failed authentications, requests and WebSocket connections are limited per client address and
per account (``limits``: Redis when configured, shared by every process; else in memory), refused
with 429 and ``Retry-After``, and configurable."""

from __future__ import annotations

import asyncio
import os
import secrets

import httpx
import pytest
from tests.hardening.edge_support import client, clients, edge_app, live_edge_server, session
from tests.support.databases import POSTGRES_URL, REDIS_URL, fresh_database
from tests.support.servers import ServeProcess
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from dealerpoker.server.edge.ratelimit import parse_limits
from dealerpoker.server.settings import Settings, SettingsError


def _refused(response: httpx.Response, limit: str) -> None:
    assert response.status_code == 429, response.text
    assert response.json()["error"] == "rate_limited" and response.json()["limit"] == limit
    assert 1 <= int(response.headers["retry-after"]) <= 60
    assert response.json()["retry_after"] == int(response.headers["retry-after"])


def test_rate_limits_session_creation_per_address() -> None:
    async def run() -> None:
        app = edge_app(rate_limits={"session": "5/minute"})
        async with client(app, "10.0.0.1") as http:
            for _request in range(5):
                await session(http)
            _refused(await http.post("/api/session", json={}), "session")
            assert (await http.get("/api/games")).status_code == 200  # other requests go on
        async with client(app, "10.0.0.2") as other:  # another address has its own count
            await session(other)

    asyncio.run(run())


def test_rate_limits_failed_authentication_per_address() -> None:
    async def run() -> None:
        app = edge_app(rate_limits={"auth_failure": "3/minute"})
        async with clients(app, "10.0.0.3", "10.0.0.4") as (http, other):
            good = {"authorization": f"Bearer {(await session(http))['token']}"}
            guess = {"authorization": "Bearer guess"}
            for _request in range(3):
                assert (await http.get("/api/balance", headers=guess)).status_code == 401
            _refused(await http.get("/api/balance", headers=guess), "auth_failure")
            # while blocked, even a good token from that address waits
            _refused(await http.get("/api/balance", headers=good), "auth_failure")
            assert (await other.get("/api/balance", headers=good)).status_code == 200

    asyncio.run(run())


def test_rate_limits_requests_per_address_and_per_account() -> None:
    async def run() -> None:
        app = edge_app(rate_limits={"request": "12/minute", "account": "4/minute"})
        async with client(app, "10.0.0.5") as http:
            alice = {"authorization": f"Bearer {(await session(http))['token']}"}
            bob = {"authorization": f"Bearer {(await session(http))['token']}"}
            for _request in range(4):
                assert (await http.get("/api/balance", headers=alice)).status_code == 200
            _refused(await http.get("/api/balance", headers=alice), "account")
            bet = {"game": "texas-bonus", "bets": {"ante": 100}}
            _refused(await http.post("/api/rounds", json=bet, headers=alice), "account")  # the fast path
            assert (await http.post("/api/rounds", json=bet, headers=bob)).status_code == 200
            for _ in range(12 - 9):
                await http.get("/api/games")
            _refused(await http.get("/api/games"), "request")

    asyncio.run(run())


def test_rate_limits_websocket_connections(tmp_path) -> None:  # type: ignore[no-untyped-def]
    limits = {"websocket": "3/minute", "websocket_account": "1/minute"}
    with live_edge_server(f"sqlite:///{tmp_path}/ws.db", rate_limits=limits) as (base, _app):
        token = httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
        table = f"ws{base[4:]}/ws/tables/texas-fast"
        auth = {"Authorization": f"Bearer {token}"}
        with connect(table, additional_headers=auth, open_timeout=60) as first:
            assert '"welcome"' in first.recv(timeout=60)
        with connect(table, additional_headers=auth, open_timeout=60) as second:  # the account's second
            assert '"rate_limited"' in second.recv(timeout=60)
            with pytest.raises(ConnectionClosed) as closed:
                second.recv(timeout=60)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        with connect(table, open_timeout=60):  # the address's third
            pass
        with pytest.raises(InvalidStatus) as refused:  # the address's fourth
            connect(table, open_timeout=60)
        assert refused.value.response.status_code in (403, 429)


def test_rate_limits_are_settings() -> None:
    assert parse_limits({})["session"][0].amount == 100  # generous defaults
    assert "request" not in parse_limits({"request": "off"})
    for bad in ({"sessions": "5/minute"}, {"session": "five a minute"}):
        with pytest.raises(SettingsError):
            parse_limits(bad)
    env = {"DEALERPOKER_RATE_LIMITS": "session=5/minute, request=off"}
    assert Settings.from_env(env).rate_limits == {"session": "5/minute", "request": "off"}
    with pytest.raises(SettingsError):
        edge_app(rate_limits={"session": "nonsense"})


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
def test_rate_limits_hold_across_processes_with_redis(tmp_path) -> None:  # type: ignore[no-untyped-def]
    if not (POSTGRES_URL and REDIS_URL):
        pytest.skip("needs DEALERPOKER_TEST_POSTGRES_URL and DEALERPOKER_TEST_REDIS_URL")
    env = {**os.environ, "DEALERPOKER_REDIS_PREFIX": f"dp_limits_{secrets.token_hex(4)}:"}
    extra = ["--no-rtp", "--redis", REDIS_URL, "--rate-limit", "session=5/minute"]
    with fresh_database("limits") as database:
        one = ServeProcess(database, log=tmp_path / "one.log", extra=extra, env=env)
        two = ServeProcess(database, log=tmp_path / "two.log", extra=extra, env=env)
        try:
            answers = [httpx.post(f"{server.url}/api/session", json={}, timeout=60)
                       for server in (one, two, one, two, one, two, one)]
            assert [a.status_code for a in answers] == [200] * 5 + [429] * 2
            _refused(answers[5], "session")
        finally:
            one.stop()
            two.stop()
