"""Browser-test support: the real server (uvicorn in a thread, a temporary SQLite database, a
seeded RNG) on a free loopback port, and Debian's Chromium driven by Playwright.

No browser is ever downloaded: without ``/usr/bin/chromium`` (``make test`` installs it with
apt-get when run as root) or the ``playwright`` package, these tests skip and say why.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from tests.support.browser import ARTIFACTS
from tests.support.dealing import Dealer
from tests.support.servers import ThreadServer

__all__ = ["ARTIFACTS", "LiveServer", "start_server"]


@dataclass
class LiveServer:
    """A running dealerpoker server, a way to read its ledger directly, and its generator (deal
    chosen cards with ``server.dealer.solo(server.url, token, player="A? A?")``)."""

    url: str
    server: ThreadServer
    dealer: Dealer

    def api(self, method: str, path: str, token: str, **kwargs: Any) -> Any:
        response = httpx.request(method, self.url + path, headers={"Authorization": f"Bearer {token}"},
                                 timeout=60, **kwargs)
        response.raise_for_status()
        return response.json()

    def balance(self, token: str) -> int:
        balance: int = self.api("GET", "/api/balance", token)["balance"]
        return balance

    def stop(self) -> None:
        self.server.stop()


def start_server(tmp_path: Path, *, seed: int = 2026, clock: Any = None, **settings: Any) -> LiveServer:
    from dealerpoker.server import Settings, create_app

    database = tmp_path / f"web-{seed}-{time.monotonic_ns()}.db"
    timing = {} if clock is None else {"clock": clock}
    dealer = Dealer(seed)
    app = create_app(Settings(database_url=f"sqlite:///{database}", **settings), rng=dealer, **timing)
    server = ThreadServer(app).start()
    return LiveServer(server.url, server, dealer)
