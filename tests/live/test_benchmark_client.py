"""The live benchmark's lean WebSocket client (``benchmarks/_lean_socket.py``) against a real
uvicorn server: the upgrade, messages of each length encoding, what it sends, a refused upgrade."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.support.servers import bare_lifespan, serving

sys.path.insert(0, str(Path(__file__).parents[2] / "benchmarks"))
from _lean_socket import open_socket

TEXTS = ["short", "m" * 300, "é" * 40_000]  # each of the three length encodings (80,000 bytes)


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    """Sends TEXTS, then echoes what it is sent; refuses any path but /ws and a wrong token."""
    if scope["type"] == "lifespan":
        await bare_lifespan(receive, send)
        return
    await receive()  # websocket.connect
    if scope["path"] != "/ws" or dict(scope["headers"]).get(b"authorization") != b"Bearer t0ken":
        await send({"type": "websocket.close", "code": 1008})  # before the accept: HTTP 403
        return
    await send({"type": "websocket.accept"})
    for text in TEXTS:
        await send({"type": "websocket.send", "text": text})
    while (message := await receive())["type"] == "websocket.receive":
        await send({"type": "websocket.send", "text": "echo " + message["text"]})


def test_the_lean_client_reads_every_length_sends_and_is_refused_cleanly() -> None:
    with serving(_echo) as server:
        url = f"ws://127.0.0.1:{server.port}/ws"

        async def scenario() -> tuple[list[str], list[float]]:
            got: list[str] = []
            arrivals: list[float] = []
            echoed = asyncio.Event()

            def on_text(text: str, arrived: float) -> None:
                got.append(text)
                arrivals.append(arrived)
                if text.startswith("echo "):
                    echoed.set()

            socket = await open_socket(url, "t0ken", on_text, timeout=30)
            assert socket.send_text('{"type": "ping"}')
            await asyncio.wait_for(echoed.wait(), 30)
            socket.close()
            await asyncio.wait_for(socket.closed, 30)
            assert not socket.send_text("after the close")
            with pytest.raises(ConnectionRefusedError, match="403"):
                await open_socket(url, "wrong", on_text, timeout=30)
            return got, arrivals

        got, arrivals = asyncio.run(scenario())
    assert got == [*TEXTS, 'echo {"type": "ping"}']
    assert arrivals == sorted(arrivals)
