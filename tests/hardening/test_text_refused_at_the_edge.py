"""Defect 2: a NUL character gave 500 on PostgreSQL (``?before=a%00b`` on ``/api/rounds`` and
``/api/live-rounds``, ``%00`` in a round id, ``"\\u0000"`` in ``idempotency_key``) where SQLite
stored the same key, and a lone surrogate in a bet field name gave 500 on both. Every such text
is now refused at the edge with 422 ``invalid_text`` naming the field, identically on both
databases, on the FastAPI routes, the round-step fast path and the WebSocket, changing nothing."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest
from tests.live.conftest import FAST_TABLES
from tests.support.servers import serving
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from dealerpoker.server import Settings, create_app
from dealerpoker.server.live.extension import live_extension
from dealerpoker.server.live.service import LiveSettings
from dealerpoker.tables.config import parse_tables

TABLES = parse_tables(FAST_TABLES.format(betting=15, decision=10, pause=5))


def _app(database_url: str, *, fast_path: bool = True) -> Any:
    settings = Settings(database_url=database_url, without=frozenset() if fast_path else {"fast_path"})
    return create_app(settings, extensions=[live_extension(LiveSettings(TABLES))])


@asynccontextmanager
async def _client(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http


def _refused(response: httpx.Response, field: str, problem: str) -> None:
    assert response.status_code == 422, (response.status_code, response.text)
    body = response.json()
    assert body["error"] == "invalid_text", body
    assert body["field"] == field, body
    assert problem in body["message"] and body["message"].startswith(field), body


NUL, LONE = "NUL character (U+0000)", "lone surrogate (U+D800)"


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast-path", "fastapi"])
def test_nul_and_lone_surrogates_get_422_naming_the_field(database_url: str,
                                                                   fast_path: bool) -> None:
    async def scenario() -> None:
        async with _client(_app(database_url, fast_path=fast_path)) as http:
            session = (await http.post("/api/session", json={})).json()
            auth = {"Authorization": f"Bearer {session['token']}"}
            json_auth = {**auth, "content-type": "application/json"}
            start = session["balance"]

            async def post(path: str, text: str) -> httpx.Response:
                return await http.post(path, content=text.encode(), headers=json_auth)

            # Query parameters and paths.
            before = "query parameter 'before'"
            _refused(await http.get("/api/rounds?before=a%00b", headers=auth), before, NUL)
            _refused(await http.get("/api/live-rounds?before=a%00b", headers=auth), before, NUL)
            _refused(await http.get("/api/rounds/r_a%00b", headers=auth), "path", NUL)
            _refused(await http.get("/api/rounds/r_a%00b/record", headers=auth), "path", NUL)
            _refused(await post("/api/rounds/r_a%00b/actions", '{"action": "bet", "step": 2}'),
                     "path", NUL)
            _refused(await http.get("/api/games?currency=%00"), "query parameter 'currency'", NUL)
            # JSON bodies: the escapes as a client sends them (the body itself is valid JSON).
            _refused(await post("/api/rounds", '{"game": "texas-bonus", "bets": {"ante": 100}, '
                                               '"idempotency_key": "k\\u0000"}'), "idempotency_key", NUL)
            _refused(await post("/api/rounds", '{"game": "texas-bonus", "bets": {"ante\\ud800": 100}}'),
                     "bets", LONE)
            _refused(await post("/api/rounds", '{"game": "texas\\ud800", "bets": {"ante": 100}}'),
                     "game", LONE)
            _refused(await post("/api/session", '{"currency": "\\u0000"}'), "currency", NUL)
            _refused(await http.put("/api/fairness/client-seed", content=b'{"client_seed": "a\\ud800b"}',
                                    headers=json_auth), "client_seed", LONE)
            # Nothing happened: no round, no money moved; the same requests clean work.
            assert (await http.get("/api/rounds", headers=auth)).json() == {"rounds": []}
            assert (await http.get("/api/balance", headers=auth)).json()["balance"] == start
            opened = await post("/api/rounds", '{"game": "texas-bonus", "bets": {"ante": 100}, '
                                               '"idempotency_key": "k"}')
            assert opened.status_code == 200, opened.text
            # A valid surrogate pair (an emoji) is text like any other.
            seed = await http.put("/api/fairness/client-seed", content=b'{"client_seed": "\\ud83d\\ude00"}',
                                  headers=json_auth)
            assert seed.status_code == 422 and seed.json()["error"] != "invalid_text", seed.text

    asyncio.run(scenario())


def _until(socket: Any, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(socket.recv(timeout=60))
        if message["type"] == kind:
            return message


def test_websocket_messages_and_upgrades_refuse_such_text(database_url: str) -> None:
    app = _app(database_url)
    with serving(app) as server:
        token = httpx.post(f"{server.url}/api/session", json={}).json()["token"]
        ws_url = server.url.replace("http", "ws")
        with connect(f"{ws_url}/ws/tables/texas-fast",
                     additional_headers={"Authorization": f"Bearer {token}"}) as socket:
            _until(socket, "welcome")
            socket.send('{"type": "bet", "bets": {"ante\\ud800": 100}}')
            error = _until(socket, "error")
            assert (error["error"], error["field"]) == ("invalid_text", "bets"), error
            assert LONE in error["message"]
            socket.send('{"type": "decide", "action": "b\\u0000t"}')
            error = _until(socket, "error")
            assert (error["error"], error["field"]) == ("invalid_text", "action"), error
            socket.send('{"type": "ping"}')  # the connection goes on
            _until(socket, "pong")
        with connect(f"{ws_url}/ws/tables/texas-fast") as socket:  # the token in the first message
            socket.send('{"type": "auth", "token": "t\\ud800"}')
            error = _until(socket, "error")
            assert error["error"] == "unauthorized" and LONE in error["message"], error
        with pytest.raises(InvalidStatus) as refused:
            connect(f"{ws_url}/ws/tables/texas-fast%00").close()
        assert refused.value.response.status_code in (403, 422)
        balance = httpx.get(f"{server.url}/api/balance", headers={"Authorization": f"Bearer {token}"})
        assert balance.json()["balance"] == 100_000
