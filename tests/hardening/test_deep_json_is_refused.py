"""Defect 4: a deeply nested WebSocket frame (``"[" * 100000 + "]" * 100000``, also before
authentication) raised RecursionError in the handler and dropped the socket without a close frame.
Now it is closed with a close code and a reason, and JSON depth is bounded wherever the server
parses input (``dealerpoker.server.jsonin``)."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from tests.hardening.edge_support import client, edge_app, live_edge_server, session
from tests.live.studio_support import KEY
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from dealerpoker.server import jsonin

DEEP = "[" * 30_000 + "]" * 30_000  # under the 64 KiB frame limit: refused for its depth
ISSUE = "[" * 100_000 + "]" * 100_000  # the issue's frame: over the frame limit as well


def _closed(socket: ClientConnection) -> tuple[int, str]:
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            socket.recv(timeout=60)
    assert closed.value.rcvd is not None, "closed without a close frame"
    return closed.value.rcvd.code, closed.value.rcvd.reason


def test_deep_websocket_frame_closes_with_a_code_and_reason(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with live_edge_server(f"sqlite:///{tmp_path}/live.db") as (base, _app):
        ws = f"ws{base[4:]}"
        with connect(f"{ws}/ws/tables/texas-fast", open_timeout=60) as socket:  # before authentication
            socket.send(DEEP)
            assert _closed(socket) == (1007, "JSON nested deeper than 32 levels")
        with connect(f"{ws}/ws/tables/texas-fast", open_timeout=60) as socket:
            socket.send(ISSUE)
            code, reason = _closed(socket)
            assert code == 1009 and "65536" in reason
        token = httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
        with connect(f"{ws}/ws/tables/texas-fast", open_timeout=60,
                     additional_headers={"Authorization": f"Bearer {token}"}) as socket:
            assert json.loads(socket.recv(timeout=60))["type"] == "welcome"
            socket.send(DEEP)  # after authentication
            assert _closed(socket)[0] == 1007
        for headers in ({}, {"Authorization": f"Bearer {KEY}"}):  # the dealer's, before and after its key
            dealer = f"{ws}/ws/dealer/studio-texas"
            with connect(dealer, open_timeout=60, additional_headers=headers) as socket:
                if headers:
                    assert json.loads(socket.recv(timeout=60))["type"] == "welcome"
                socket.send(DEEP)
                assert _closed(socket)[0] == 1007


def test_deep_json_body_is_refused_before_authentication() -> None:
    async def run() -> None:
        async with client(edge_app()) as http:
            headers = {"content-type": "application/json", "authorization": "Bearer nobody"}
            for path in ("/api/session", "/api/rounds", "/api/rounds/r_1/actions"):
                refused = await http.post(path, content=DEEP.encode(), headers=headers)
                assert refused.status_code == 422 and refused.json()["error"] == "too_deep", refused.text
            token = (await session(http))["token"]
            nested = {"game": "texas-bonus", "bets": {"ante": 100}, "idempotency_key": "k", "x": json.loads(
                "[" * 40 + "]" * 40)}
            auth = {"authorization": f"Bearer {token}"}
            refused = await http.post("/api/rounds", json=nested, headers=auth)
            assert refused.status_code == 422 and refused.json()["error"] == "too_deep"

    asyncio.run(run())


def test_json_depth_is_bounded_by_one_helper() -> None:
    assert jsonin.loads('{"bets": {"ante": 100}, "s": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}')["bets"]
    assert jsonin.loads("[" * 32 + "]" * 32) is not None
    for text in ("[" * 33 + "]" * 33, ISSUE, '{"a":' * 50 + "1" + "}" * 50):
        with pytest.raises(jsonin.TooDeepError):
            jsonin.loads(text)
        with pytest.raises(jsonin.TooDeepError):
            jsonin.loads(text.encode())
