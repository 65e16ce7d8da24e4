"""Defect 3: request bodies and WebSocket messages are limited before they are read: a 100 MB
body was read whole, before authentication, and a 10 MB WebSocket frame was accepted."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from tests.hardening.edge_support import client, edge_app, live_edge_server, session
from tests.support.servers import ServeProcess
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

LIMIT = 65_536


def _scope(path: str, headers: list[tuple[bytes, bytes]]) -> dict[str, Any]:
    return {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST",
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
            "root_path": "", "headers": [(b"host", b"testserver"), *headers], "client": ("10.0.0.1", 5),
            "server": ("testserver", 80)}


async def _call(app: Any, scope: dict[str, Any], chunks: list[bytes]) -> tuple[int, dict[str, Any], int]:
    """Status and JSON body of ``app``'s answer, and how many body chunks it read."""
    read = 0
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal read
        if read < len(chunks):
            read += 1
            return {"type": "http.request", "body": chunks[read - 1], "more_body": read < len(chunks)}
        await asyncio.Event().wait()  # a client that stalls: the rest of its body never comes
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async with app.router.lifespan_context(app):
        await asyncio.wait_for(app(scope, receive, send), 30)
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return sent[0]["status"], json.loads(body), read


@pytest.mark.parametrize("path", ["/api/session", "/api/rounds", "/api/rounds/r_1/actions", "/nowhere"])
def test_body_size_is_limited_by_content_length_before_reading_or_authentication(path: str) -> None:
    app = edge_app()
    headers = [(b"content-type", b"application/json"), (b"content-length", b"100000000"),
               (b"authorization", b"Bearer not-a-token")]
    status, body, read = asyncio.run(_call(app, _scope(path, headers), [b"x" * 1000] * 1000))
    assert (status, body["error"], read) == (413, "too_large", 0)
    assert str(LIMIT) in body["message"]


def test_body_size_is_limited_when_the_body_comes_in_chunks_without_a_length() -> None:
    app = edge_app()
    chunks = [b"[" + b" " * 8190 + b"]"] * 100  # 800 KiB, no content-length
    scope = _scope("/api/session", [(b"content-type", b"application/json")])
    status, body, read = asyncio.run(_call(app, scope, chunks))
    assert (status, body["error"]) == (413, "too_large")
    assert read == LIMIT // 8192 + 1  # stopped at the first chunk past the limit


def test_body_size_is_limited_on_the_fast_path_of_a_known_player() -> None:
    async def run() -> None:
        app = edge_app()
        async with client(app) as http:
            token = (await session(http))["token"]
            auth = {"Authorization": f"Bearer {token}"}
            big = {"game": "texas-bonus", "bets": {"ante": 100}, "idempotency_key": "k" * (LIMIT + 10)}
            refused = await http.post("/api/rounds", json=big, headers=auth)
            assert refused.status_code == 413 and refused.json()["error"] == "too_large"
            fine = await http.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 100}},
                                   headers=auth)
            assert fine.status_code == 200, fine.text

    asyncio.run(run())


def test_body_size_is_a_setting() -> None:
    async def run() -> None:
        async with client(edge_app(max_body_bytes=2048)) as http:
            assert (await http.post("/api/session", json={"currency": "EUR"})).status_code == 200
            refused = await http.post("/api/session", content=b"{" + b" " * 3000 + b"}",
                                      headers={"content-type": "application/json"})
            assert refused.status_code == 413 and "2048" in refused.json()["message"]

    asyncio.run(run())


def test_websocket_message_size_is_limited_in_the_handler(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with live_edge_server(f"sqlite:///{tmp_path}/live.db", max_frame_bytes=4096) as (base, _app):
        with connect(f"ws{base[4:]}/ws/tables/texas-fast", open_timeout=60) as socket:
            socket.send(json.dumps({"type": "auth", "token": "x" * 10_000}))
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    socket.recv(timeout=60)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        assert "4096" in closed.value.rcvd.reason


@pytest.mark.slow
def test_websocket_message_size_is_limited_by_serve(tmp_path) -> None:  # type: ignore[no-untyped-def]
    server = ServeProcess(f"sqlite:///{tmp_path}/serve.db", log=tmp_path / "serve.log",
                          extra=["--no-rtp", "--max-frame-bytes", "8192"])
    try:
        with connect(f"ws{server.url[4:]}/ws/tables/texas-1", open_timeout=60, max_size=None) as socket:
            socket.send("x" * 100_000)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    socket.recv(timeout=60)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    finally:
        server.stop()
