"""kill -9 the real server at random points while a player plays; after a restart the ledger
balances, no money was lost or paid twice, and every round is settled or can be finished.

On SQLite (a file) and, when ``DEALERPOKER_TEST_POSTGRES_URL`` is set, on a PostgreSQL database
of this test's own (skipped with the reason otherwise)."""

from __future__ import annotations

import itertools
import random
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.databases import audit
from tests.support.servers import ServeProcess
from tests.support.waiting import until

KILLS = 3
ANSWERS_BEFORE_A_KILL = 4  # the kill comes at a random moment after the play is under way


class Answers:
    """How many requests the players got an answer to (thread-safe)."""

    def __init__(self) -> None:
        self._count = itertools.count()
        self.value = 0

    def add(self) -> None:
        self.value = next(self._count) + 1


def play_until_stopped(base: str, headers: dict[str, str], stop: threading.Event, seed: int,
                       answers: Answers) -> None:
    """Open and play rounds as fast as possible; connection errors (the kill) end the loop."""
    rng = random.Random(seed)
    with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
        while not stop.is_set():
            try:
                game = rng.choice(["texas-bonus", "casino-holdem"])
                view = client.post("/api/rounds", json={"game": game, "bets": {"ante": 100}}).json()
                answers.add()
                while view.get("status") == "open" and not stop.is_set():
                    view = client.post(f"/api/rounds/{view['id']}/actions",
                                       json={"action": rng.choice(view["legal_actions"]),
                                             "step": len(view["steps"])}).json()
                    answers.add()
            except httpx.HTTPError:
                return


@pytest.mark.slow
def test_kill_9_at_random_points_loses_nothing(tmp_path: Path, served_database: str) -> None:
    database_url = served_database
    rng = random.Random(2026)
    log = tmp_path / "server.log"
    server = ServeProcess(database_url, log=log, extra=["--no-rtp"])
    base = server.url
    token = httpx.post(f"{base}/api/session", timeout=60).json()["token"]
    headers = {"Authorization": f"Bearer {token}"}
    try:
        for kill in range(KILLS):
            stop, answers = threading.Event(), Answers()
            players = [threading.Thread(target=play_until_stopped,
                                        args=(base, headers, stop, kill * 10 + n, answers))
                       for n in range(3)]
            for thread in players:
                thread.start()
            try:  # a condition, whatever the machine's load
                until(lambda: answers.value >= ANSWERS_BEFORE_A_KILL, "play before the kill",  # noqa: B023
                      timeout=120, interval=0.01)
            except AssertionError as error:
                raise AssertionError(f"{error}\n{server.output()}") from None
            time.sleep(rng.uniform(0.0, 0.8))
            server.kill()  # kill -9: no shutdown, no flush
            stop.set()
            for thread in players:
                thread.join()
            report = audit(database_url)
            assert report.ok, report
            server = ServeProcess(database_url, log=log, extra=["--no-rtp"], port=server.port)

        with httpx.Client(base_url=base, headers=headers, timeout=60) as client:
            unfinished = client.get("/api/rounds", params={"status": "open", "limit": 100}).json()["rounds"]
            for view in unfinished:  # every open round can be finished after the restarts
                while view["status"] == "open":
                    response = client.post(f"/api/rounds/{view['id']}/actions",
                                           json={"action": view["legal_actions"][0],
                                                 "step": len(view["steps"])})
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
        server.kill()
