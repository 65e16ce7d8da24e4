"""kill -9 the real server at random points while a player plays; after a restart the ledger
balances, no money was lost or paid twice, and every round is settled or can be finished."""

from __future__ import annotations

import asyncio
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from dealerpoker.server import ledger
from dealerpoker.server.db import Database

DEALERPOKER = str(Path(sys.executable).parent / "dealerpoker")
KILLS = 3


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def start(database_url: str, port: int) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [DEALERPOKER, "serve", "--port", str(port), "--database", database_url, "--log-level", "warning",
         "--no-rtp"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited on start"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.1)
    process.send_signal(signal.SIGKILL)
    raise AssertionError("the server did not start")


def play_until_stopped(base: str, headers: dict[str, str], stop: threading.Event, seed: int) -> None:
    """Open and play rounds as fast as possible; connection errors (the kill) end the loop."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, headers=headers, timeout=5) as client:
        while not stop.is_set():
            try:
                game = rng.choice(["texas-bonus", "casino-holdem"])
                view = client.post("/api/rounds", json={"game": game, "bets": {"ante": 100}}).json()
                while view.get("status") == "open" and not stop.is_set():
                    view = client.post(f"/api/rounds/{view['id']}/actions",
                                       json={"action": rng.choice(view["legal_actions"])}).json()
            except httpx.HTTPError:
                return


def audit(database_url: str) -> Any:
    async def run() -> Any:
        database = Database(database_url)
        try:
            async with database.transaction() as connection:
                return await ledger.audit(connection)
        finally:
            await database.dispose()

    return asyncio.run(run())


@pytest.mark.slow
def test_kill_9_at_random_points_loses_nothing(tmp_path: Path) -> None:
    database_url = f"sqlite:///{tmp_path}/casino.db"
    rng = random.Random(2026)
    port = free_port()
    server = start(database_url, port)
    base = f"http://127.0.0.1:{port}"
    token = httpx.post(f"{base}/api/session").json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    try:
        for kill in range(KILLS):
            stop = threading.Event()
            players = [threading.Thread(target=play_until_stopped, args=(base, headers, stop, kill * 10 + n))
                       for n in range(3)]
            for thread in players:
                thread.start()
            time.sleep(rng.uniform(0.3, 1.5))
            server.send_signal(signal.SIGKILL)  # kill -9: no shutdown, no flush
            server.wait()
            stop.set()
            for thread in players:
                thread.join()
            report = audit(database_url)
            assert report.ok, report
            server = start(database_url, port)

        with httpx.Client(base_url=base, headers=headers, timeout=10) as client:
            unfinished = client.get("/api/rounds", params={"status": "open", "limit": 100}).json()["rounds"]
            for view in unfinished:  # every open round can be finished after the restarts
                while view["status"] == "open":
                    response = client.post(f"/api/rounds/{view['id']}/actions",
                                           json={"action": view["legal_actions"][0]})
                    assert response.status_code == 200, response.text
                    view = response.json()
            rounds: list[dict[str, Any]] = []
            while True:  # every round, page by page
                params: dict[str, Any] = {"limit": 100, **({"before": rounds[-1]["id"]} if rounds else {})}
                page = client.get("/api/rounds", params=params).json()["rounds"]
                if not page:
                    break
                rounds.extend(page)
            balance = client.get("/api/balance").json()["balance"]
        assert rounds, "no round was played before the kills"
        assert all(r["status"] == "settled" for r in rounds)
        staked = sum(r["total_stake"] for r in rounds)
        assert balance == 100_000 - staked + sum(r["total_returned"] for r in rounds)
        for view in rounds:
            settlement = view["settlement"]
            assert (view["total_stake"], view["total_returned"]) == (
                settlement["total_stake"], settlement["total_returned"]), view["id"]
        assert audit(database_url).ok
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGKILL)
            server.wait()
