"""Browser-test support: the real server (uvicorn in a thread, a temporary SQLite database, a
seeded RNG) on a free loopback port, and Debian's Chromium driven by Playwright.

No browser is ever downloaded: without ``/usr/bin/chromium`` (``make test`` installs it with
apt-get when run as root) or the ``playwright`` package, these tests skip and say why.
"""

from __future__ import annotations

import random
import socket
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class LiveServer:
    """A running dealerpoker server and a way to read its ledger directly."""

    url: str
    server: Any
    thread: threading.Thread

    def api(self, method: str, path: str, token: str, **kwargs: Any) -> Any:
        response = httpx.request(method, self.url + path, headers={"Authorization": f"Bearer {token}"},
                                 timeout=10, **kwargs)
        response.raise_for_status()
        return response.json()

    def balance(self, token: str) -> int:
        balance: int = self.api("GET", "/api/balance", token)["balance"]
        return balance

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_server(tmp_path: Path, *, seed: int = 2026, **settings: Any) -> LiveServer:
    import uvicorn

    from dealerpoker.server import Settings, create_app

    database = tmp_path / f"web-{seed}-{time.monotonic_ns()}.db"
    app = create_app(Settings(database_url=f"sqlite:///{database}", **settings), rng=random.Random(seed))
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                            lifespan="on", ws="none")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name=f"dealerpoker-web-test-{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the dealerpoker server did not start")
        time.sleep(0.05)
    return LiveServer(f"http://127.0.0.1:{port}", server, thread)


