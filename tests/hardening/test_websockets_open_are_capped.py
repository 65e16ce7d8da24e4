"""Defect 1 (the WebSockets): one client opened 2,000 WebSockets; the connection rate alone does
not stop a client that opens them slowly and keeps them. Now the WebSockets open at once are
capped per client address (``websockets_open``) and per account (``websockets_open_account``),
in each process, configurable like the rate limits; over the cap the upgrade is refused (429 with
``Retry-After``, or 403) or the player's socket closed with 4429, and a socket that ends frees
its place."""

from __future__ import annotations

import json
from contextlib import ExitStack

import httpx
import pytest
from tests.hardening.edge_support import live_edge_server
from tests.support.waiting import until
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from dealerpoker.server.edge.ratelimit import parse_caps
from dealerpoker.server.settings import SettingsError


def _open(sockets: ExitStack, url: str, token: str) -> ClientConnection:
    socket = sockets.enter_context(connect(url, additional_headers={"Authorization": f"Bearer {token}"},
                                           open_timeout=60))
    assert json.loads(socket.recv(timeout=60))["type"] == "welcome"
    return socket


def test_websockets_open_at_once_are_capped(tmp_path) -> None:  # type: ignore[no-untyped-def]
    caps = {"websockets_open": "3", "websockets_open_account": "1"}
    with live_edge_server(f"sqlite:///{tmp_path}/ws.db", rate_limits=caps) as (base, _app), \
            ExitStack() as sockets:
        alice, bob, carol, dave = (httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
                                   for _ in range(4))
        table = f"ws{base[4:]}/ws/tables/texas-fast"
        first = _open(sockets, table, alice)
        with connect(table, additional_headers={"Authorization": f"Bearer {alice}"},
                     open_timeout=60) as second:  # the account's second, while its first is open
            message = json.loads(second.recv(timeout=60))
            assert (message["error"], message["limit"]) == ("rate_limited", "websockets_open_account")
            with pytest.raises(ConnectionClosed) as closed:
                second.recv(timeout=60)
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4429
        others = [_open(sockets, table, bob), _open(sockets, table, carol)]  # the address's second and third
        with pytest.raises(InvalidStatus) as refused:  # the address's fourth
            _open(sockets, table, dave)
        assert refused.value.response.status_code in (403, 429)
        if refused.value.response.status_code == 429:
            assert int(refused.value.response.headers["retry-after"]) >= 1
        first.close()  # a socket that ends frees its places (the account's and the address's)

        def reopened() -> bool:
            try:
                _open(sockets, table, alice)
            except (InvalidStatus, AssertionError):  # the server has not unwound the closed one yet
                return False
            return True

        until(reopened, "a closed socket frees its places", timeout=10, interval=0.2)
        assert others


def test_websockets_open_caps_are_settings() -> None:
    assert parse_caps({}) == {"websockets_open": 100, "websockets_open_account": 10}  # generous
    assert parse_caps({"websockets_open": "off", "session": "5/minute"}) == {"websockets_open_account": 10}
    for bad in ("many", "0", "5/minute"):
        with pytest.raises(SettingsError):
            parse_caps({"websockets_open": bad})
