"""A real server (uvicorn on a free loopback port, in a thread) with live tables on short timers."""

from __future__ import annotations

import asyncio
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import uvicorn
from websockets.sync.client import ClientConnection, connect

from dealerpoker.server import Settings, create_app
from dealerpoker.server.live.config import parse_tables
from dealerpoker.server.live.service import LiveSettings, live_extension

FAST_TABLES = """
[[tables]]
id = "texas-fast"
game = "texas-bonus"
betting_seconds = {betting}
decision_seconds = {decision}
pause_seconds = {pause}

[[tables]]
id = "casino-fast"
game = "casino-holdem"
betting_seconds = {betting}
decision_seconds = {decision}
pause_seconds = {pause}
"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@contextmanager
def live_server(database_url: str, *, betting: float = 1.0, decision: float = 0.8,
                pause: float = 0.5) -> Iterator[tuple[str, Any]]:
    """``(base_url, app)`` of a running server; stopped (lifespan shutdown) on exit."""
    tables = parse_tables(FAST_TABLES.format(betting=betting, decision=decision, pause=pause))
    app = create_app(Settings(database_url=database_url), extensions=[live_extension(LiveSettings(tables))])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           ws="websockets-sansio", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(20)


class ServeProcess:
    """`dealerpoker serve` as a real process (killable with SIGKILL)."""

    def __init__(self, tmp: Path, database: str, tables: Path, name: str, *, redis: str | None = None,
                 prefix: str = "dealerpoker:") -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "DEALERPOKER_REDIS_PREFIX": prefix}
        env.pop("DEALERPOKER_REDIS_URL", None)
        self.log = (tmp / f"{name}.log").open("w")
        command = [str(Path(sys.executable).parent / "dealerpoker"), "serve", "--port", str(self.port),
                   "--database", database, "--tables", str(tables), "--log-level", "warning"]
        if redis:
            command += ["--redis", redis]
        self.process = subprocess.Popen(command, env=env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            assert self.process.poll() is None, (tmp / f"{name}.log").read_text()
            try:
                if httpx.get(f"{self.base}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.1)

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


class LivePlayer:
    """A demo player (REST session) with a WebSocket at one table."""

    def __init__(self, base: str, table: str, *, same_as: LivePlayer | None = None) -> None:
        if same_as is None:
            body = httpx.post(f"{base}/api/session", json={}).json()
            self.token, self.id = body["token"], body["player_id"]
        else:  # the same player connecting again (possibly to another process)
            self.token, self.id = same_as.token, same_as.id
        self.base = base
        self.headers = {"Authorization": f"Bearer {self.token}"}
        url = f"ws{base[4:]}/ws/tables/{table}"
        self.ws: ClientConnection = connect(url, additional_headers=self.headers, legacy=True)
        self.received: list[dict[str, Any]] = []
        self.taken: set[int] = set()

    def send(self, message: dict[str, Any]) -> None:
        self.ws.send(json.dumps(message))

    def next(self, timeout: float = 10.0) -> dict[str, Any]:
        message: dict[str, Any] = json.loads(self.ws.recv(timeout=timeout))
        self.received.append(message)
        return message

    def until(self, predicate: Any, timeout: float = 15.0) -> dict[str, Any]:
        """The first message not returned before that matches (waiting for it if need be)."""
        end = time.monotonic() + timeout
        index = 0
        while True:
            while index < len(self.received):
                if index not in self.taken and predicate(self.received[index]):
                    self.taken.add(index)
                    return self.received[index]
                index += 1
            self.next(max(0.01, end - time.monotonic()))

    def balance(self) -> int:
        value: int = httpx.get(f"{self.base}/api/balance", headers=self.headers).json()["balance"]
        return value

    def close(self) -> None:
        self.ws.close()


def is_table(event: str) -> Any:
    return lambda m: m["type"] == "table" and m.get("event") == event


class FakeClock:
    """The injected clock of a table runner: time moves only when a test sets ``now``."""

    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def _postgres_admin(admin_url: str, statement: str) -> None:
    import asyncpg
    from sqlalchemy.engine import make_url

    url = make_url(admin_url)
    connection = await asyncpg.connect(user=url.username, password=url.password, host=url.host,
                                       port=url.port, database=url.database)
    try:
        await connection.execute(statement)
    finally:
        await connection.close()


@contextmanager
def fresh_postgres_database(admin_url: str, prefix: str) -> Iterator[str]:
    """The URL of a new, empty PostgreSQL database (dropped on exit), so parallel runs never meet."""
    from sqlalchemy.engine import make_url

    name = f"{prefix}_{secrets.token_hex(6)}"
    asyncio.run(_postgres_admin(admin_url, f'CREATE DATABASE "{name}"'))
    try:
        yield make_url(admin_url).set(database=name).render_as_string(hide_password=False)
    finally:
        asyncio.run(_postgres_admin(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
