"""The one pool of real ``dealerpoker serve`` processes: two of them (PostgreSQL, Redis) taking
jackpot bets at once, and one killed with -9 at random moments while players bet. Afterwards the
pool is, to the cent, its seeds plus every contribution less every award, counted both from the
pool's events and from the rounds the players were answered; no contribution is lost and no
award paid twice; the ledger balances.

The jackpot file makes three of a kind win the pool (about one first five in 48) and pays a
pair its stake back, so pool awards, their retries when another process moved the pool, and fixed
awards all happen while the processes race; the assertions hold however many there are."""

from __future__ import annotations

import os
import random
import secrets
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.jackpot.support import jackpot_file, pool_audit, pool_events
from tests.support.databases import REDIS_URL, fresh_database_beside_redis
from tests.support.databases import audit as audit_ledger
from tests.support.servers import ServeProcess
from tests.support.waiting import until

SEED, CONTRIBUTION = 10_000, 20
RACING = f"""
[jackpot]
stake = 100
currency = "EUR"
pool_category = "three-of-a-kind"
contribution = "1/5"
seed = {SEED}
sharing = "equal"
[jackpot.awards]
one-pair = 100
"""
PLAYERS, ROUNDS = 6, 25
PLAYS = {"casino-holdem": ["raise"], "texas-bonus": ["bet", "check", "check"]}


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database_beside_redis("jackpot") as url:
        yield url


def play(bases: list[str], token: str, rounds: int, seed: int, views: list[dict[str, Any]],
         errors: list[str]) -> None:
    """Jackpot rounds, each request to the next server in turn; every final view kept."""
    rng = random.Random(seed)
    headers = {"Authorization": f"Bearer {token}"}
    turn = seed
    with httpx.Client(headers=headers, timeout=120) as client:
        for _ in range(rounds):
            game = rng.choice(list(PLAYS))
            turn += 1
            response = client.post(f"{bases[turn % len(bases)]}/api/rounds",
                                   json={"game": game, "bets": {"ante": 100}, "jackpot": True})
            if response.status_code != 200:
                errors.append(response.text)
                return
            view = response.json()
            for action in PLAYS[game]:
                turn += 1
                response = client.post(f"{bases[turn % len(bases)]}/api/rounds/{view['id']}/actions",
                                       json={"action": action, "step": len(view["steps"])})
                if response.status_code != 200:
                    errors.append(response.text)
                    return
                view = response.json()
            views.append(view)


def expected_pool(views: list[dict[str, Any]]) -> tuple[int, int]:
    """The pool the rounds' own answers say it must be, and how many of them won it."""
    bets = [view["jackpot"] for view in views]
    hits = [bet for bet in bets if bet["pool_award"]]
    return SEED * (1 + len(hits)) + CONTRIBUTION * len(bets) - sum(bet["award"] for bet in hits), len(hits)


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.slow
def test_two_serve_processes_share_one_pool_to_the_cent(tmp_path: Path, database: str) -> None:
    path = jackpot_file(tmp_path, RACING)
    env = {**os.environ, "DEALERPOKER_REDIS_PREFIX": f"dptest:{secrets.token_hex(6)}:"}
    servers = [ServeProcess(database, log=tmp_path / f"serve-{n}.log", env=env,
                            extra=["--redis", str(REDIS_URL), "--no-rtp", "--jackpot", path])
               for n in range(2)]
    try:
        bases = [server.url for server in servers]
        tokens = [httpx.post(f"{bases[0]}/api/session", timeout=60).json()["token"] for _ in range(PLAYERS)]
        views: list[dict[str, Any]] = []
        errors: list[str] = []
        threads = [threading.Thread(target=play, args=(bases, token, ROUNDS, n, views, errors))
                   for n, token in enumerate(tokens)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
        assert len(views) == PLAYERS * ROUNDS and all(view["status"] == "settled" for view in views)
        pool, hits = expected_pool(views)
        print(f"{len(views)} jackpot rounds on two processes: {hits} pool award(s), pool {pool}")
        for base in bases:  # the same figure from either process
            assert httpx.get(f"{base}/api/jackpot", timeout=60).json()["pool"] == pool
    finally:
        for server in servers:
            server.stop()
    audit = pool_audit(database)
    assert audit.ok and audit.amount == pool
    assert audit.contributions == CONTRIBUTION * PLAYERS * ROUNDS
    assert audit_ledger(database).ok


def play_until_stopped(base: str, token: str, stop: threading.Event, seed: int, answered: list[int]) -> None:
    rng = random.Random(seed)
    with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {token}"}, timeout=60) as client:
        while not stop.is_set():
            try:
                game = rng.choice(list(PLAYS))
                view = client.post("/api/rounds", json={"game": game, "bets": {"ante": 100},
                                                        "jackpot": True}).json()
                answered.append(1)
                while view.get("status") == "open" and not stop.is_set():
                    view = client.post(f"/api/rounds/{view['id']}/actions",
                                       json={"action": rng.choice(view["legal_actions"]),
                                             "step": len(view["steps"])}).json()
                    answered.append(1)
            except httpx.HTTPError:
                return


@pytest.mark.slow
def test_kill_9_loses_no_contribution_and_pays_no_award_twice(tmp_path: Path, served_database: str) -> None:
    database, path, log = served_database, jackpot_file(tmp_path, RACING), tmp_path / "serve.log"
    rng = random.Random(30)
    server = ServeProcess(database, log=log, extra=["--no-rtp", "--jackpot", path])
    tokens = [httpx.post(f"{server.url}/api/session", timeout=60).json()["token"] for _ in range(3)]
    try:
        for kill in range(3):
            stop, answered = threading.Event(), []
            threads = [threading.Thread(target=play_until_stopped,
                                        args=(server.url, token, stop, kill * 10 + n, answered))
                       for n, token in enumerate(tokens)]
            for thread in threads:
                thread.start()
            until(lambda answered=answered: len(answered) >= 4, "four answers before the kill", timeout=120)
            time.sleep(rng.uniform(0.0, 0.8))  # the kill lands at a random point of the play
            server.kill()
            stop.set()
            for thread in threads:
                thread.join()
            assert pool_audit(database).ok and audit_ledger(database).ok
            server = ServeProcess(database, log=log, extra=["--no-rtp", "--jackpot", path], port=server.port)
        views = []
        with httpx.Client(base_url=server.url, timeout=60) as client:
            for token in tokens:
                headers = {"Authorization": f"Bearer {token}"}
                for view in client.get("/api/rounds", params={"status": "open", "limit": 100},
                                       headers=headers).json()["rounds"]:
                    while view["status"] == "open":  # every round left open can be finished
                        response = client.post(f"/api/rounds/{view['id']}/actions", headers=headers,
                                               json={"action": view["legal_actions"][0],
                                                     "step": len(view["steps"])})
                        assert response.status_code == 200, response.text
                        view = response.json()
                page = client.get("/api/rounds", params={"limit": 100}, headers=headers).json()["rounds"]
                while page:
                    views += page
                    page = client.get("/api/rounds", params={"limit": 100, "before": page[-1]["id"]},
                                      headers=headers).json()["rounds"]
            pool_now = client.get("/api/jackpot").json()["pool"]
    finally:
        server.kill()
    assert views and all(view["status"] == "settled" and view["jackpot"]["status"] != "open"
                         for view in views)
    pool, _hits = expected_pool(views)
    audit = pool_audit(database)
    assert audit.ok and audit.amount == pool == pool_now
    assert audit.contributions == CONTRIBUTION * len(views)  # one per round, none lost, none twice
    awards = [event for event in pool_events(database) if event["kind"] == "award"]
    assert len(awards) == len({event["round_id"] for event in awards})
    assert sorted(event["round_id"] for event in awards) == sorted(
        view["id"] for view in views if view["jackpot"]["status"] == "won")
    assert audit_ledger(database).ok
