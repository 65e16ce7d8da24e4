"""The issue's must-show (issue 14): solo rounds against the reference operator with 10% of wallet
calls failed, 5% timed out and 5% committed but lost, a real ``dealerpoker serve --operators``
killed with SIGKILL in the middle and started again on the same database. Once the outbox has
drained, each player's balance at the operator is its start plus the net of the rounds dealerpoker
reports as settled, no transaction was applied twice, and every bet the operator applied is either
a stake of a settled round or rolled back."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database
from tests.support.operator import FAULT_MIX, OperatorDemo, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.servers import ServeProcess, free_port
from tests.support.waiting import until

SECRET = "fault-test-operator-secret-0123"
START = 1_000_000
PLAYERS = 8
LONG = os.environ.get("DEALERPOKER_LONG_TESTS") == "1"
ROUNDS = {"sqlite": int(os.environ.get("DEALERPOKER_FAULT_ROUNDS", "1000" if LONG else "120")),
          "postgres": int(os.environ.get("DEALERPOKER_FAULT_ROUNDS_POSTGRES", "300" if LONG else "80"))}
"""Solo rounds in all, per database. ``make test`` plays 120 on SQLite and 80 on PostgreSQL: every
fault kind comes up many times (each call meets one at random); ``DEALERPOKER_LONG_TESTS=1`` plays
the issue's 1,000 on SQLite (18 min on the shared 2-core machine under load average 13-16) and 300
on PostgreSQL; ``DEALERPOKER_FAULT_ROUNDS`` / ``_POSTGRES`` set any other count."""


class Casino:
    """The reference operator with faults, and dealerpoker serving its players."""

    def __init__(self, directory: Path, database: str, kind: str) -> None:
        self.directory, self.database, self.kind = directory, database, kind
        port = free_port()
        self.operator = OperatorDemo(
            directory,
            secret=SECRET,
            operator_id="demo",
            game_url=f"http://127.0.0.1:{port}",
            extra=(*FAULT_MIX, "--timeout-seconds", "1", "--seed", "14"),
        )
        (directory / "operators.toml").write_text(demo_entry(self.operator, wallet_timeout_seconds=0.5))
        self.game = self.serve(port)

    def serve(self, port: int) -> ServeProcess:
        return ServeProcess(
            self.database,
            log=self.directory / "serve.log",
            port=port,
            extra=["--operators", str(self.directory / "operators.toml"), "--no-rtp"],
        )

    def restart_after_kill(self) -> None:
        Player.serving.clear()  # the players wait while it starts (a loaded machine starts it slowly)
        self.game.kill()
        try:
            self.game = self.serve(self.game.port)
        finally:
            Player.serving.set()

    def stop(self) -> None:
        self.game.stop()
        self.operator.stop()

    def launch(self, player: str) -> str:
        token = self.operator.create_player(player, "EUR", START)
        raw = json.dumps(
            {"player": player, "currency": "EUR", "game": "texas-bonus", "token": token, "mode": "real"}
        ).encode()
        headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw)
        launched = httpx.post(self.game.url + "/operator/v1/launch", content=raw, headers=headers, timeout=30)
        assert launched.status_code == 200, launched.text

        def session() -> str | None:  # the launch itself may meet a fault of the operator's balance call
            answer = httpx.post(
                self.game.url + "/api/session", json={"launch": launched.json()["launch_token"]}, timeout=30
            )
            return str(answer.json()["token"]) if answer.status_code == 200 else None

        return until(session, f"{player}'s launch opens a session past the wallet's faults")

    def report(self) -> dict[str, Any]:
        query = "since=2000-01-01&until=2100-01-01"
        answer = httpx.get(
            f"{self.game.url}/operator/v1/transactions?{query}",
            timeout=60,
            headers=operator_headers(SECRET, "GET", f"/operator/v1/transactions?{query}"),
        )
        assert answer.status_code == 200, answer.text
        found: dict[str, Any] = answer.json()
        return found


class Player(threading.Thread):
    """Plays solo rounds over HTTP until the casino has ``ROUNDS`` settled, riding out refusals
    (503: the wallet did not take a bet) and the server's restart (connection errors)."""

    settled = 0
    target = 0
    lock = threading.Lock()
    serving = threading.Event()

    def __init__(self, casino: Casino, name: str) -> None:
        super().__init__(daemon=True)
        self.casino, self.name_ = casino, name
        self.token = casino.launch(name)
        self.random = random.Random(name)
        self.error: BaseException | None = None

    def send(self, method: str, path: str, body: Any = None) -> httpx.Response:
        def answered() -> httpx.Response | None:
            Player.serving.wait()
            try:
                response = httpx.request(
                    method,
                    self.casino.game.url + path,
                    json=body,
                    timeout=30,
                    headers={"Authorization": f"Bearer {self.token}"},
                )
            except httpx.HTTPError:  # the server is down (killed) or restarting
                return None
            if response.status_code == 503 or (response.status_code == 409 and "changed" in response.text):
                return None  # the wallet did not take the bet: nothing placed, try again
            return response

        return until(answered, f"{method} {path} answered past faults and the restart", timeout=300)

    def run(self) -> None:
        try:
            number = 0
            while True:
                with Player.lock:
                    if Player.settled >= Player.target:
                        return
                number += 1
                game = "texas-bonus" if number % 2 else "casino-holdem"
                opened = self.send(
                    "POST",
                    "/api/rounds",
                    {"game": game, "bets": {"ante": 100}, "idempotency_key": f"{self.name_}-{number}"},
                )
                assert opened.status_code == 200, opened.text
                view = opened.json()
                while view["status"] == "open":
                    action = self.random.choice(view["legal_actions"])
                    acted = self.send(
                        "POST",
                        f"/api/rounds/{view['id']}/actions",
                        {"action": action, "step": len(view["steps"])},
                    )
                    assert acted.status_code == 200, acted.text
                    view = acted.json()
                with Player.lock:
                    Player.settled += 1
        except BaseException as error:
            self.error = error

    def settled_net(self) -> int:
        net, before = 0, None
        while True:
            query = "/api/rounds?limit=100" + (f"&before={before}" if before else "")
            views = self.send("GET", query).json()["rounds"]
            for view in views:
                assert view["status"] == "settled", view["id"]
                net += view["total_returned"] - view["total_stake"]
            if len(views) < 100:
                return net
            before = views[-1]["id"]


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def casino(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Casino]:
    with ExitStack() as stack:
        if request.param == "sqlite":
            database = f"sqlite:///{tmp_path}/dealerpoker.db"
        else:
            if not POSTGRES_URL:
                pytest.skip(NO_POSTGRES)
            # A database of its own: the session's shared one may hold another test's bet left
            # `sending` (same operator id), which this server would sweep and roll back at an
            # operator that never issued its token: pending forever, and the totals off (CI saw it).
            database = stack.enter_context(fresh_database("faults"))
        casino = Casino(tmp_path, database, request.param)
        try:
            yield casino
        finally:
            casino.stop()


@pytest.mark.slow
def test_solo_rounds_survive_wallet_faults_and_a_killed_server(casino: Casino) -> None:
    Player.settled, Player.target = 0, ROUNDS[casino.kind]
    Player.serving.set()
    players = [Player(casino, f"p{number}-{time.monotonic_ns()}") for number in range(PLAYERS)]
    for player in players:
        player.start()
    until(lambda: Player.settled >= Player.target // 2 or not any(p.is_alive() for p in players),
          "half the rounds settled", timeout=600, interval=0.1)
    casino.restart_after_kill()  # kill -9 in the middle of play
    for player in players:
        player.join(600)
        assert player.error is None, repr(player.error)
    assert Player.settled >= Player.target
    faults = casino.operator.admin("GET", "/admin/faults")[1]
    report = until(lambda: (found := casino.report())["summary"]["EUR"]["pending"]["count"] == 0 and found,
                   "the outbox drains: every win delivered, every unknown bet rolled back",
                   timeout=120, interval=1)
    ours = {t["transaction_id"]: t for t in report["transactions"]}
    for player in players:
        applied = [t for t in casino.operator.transactions(player.name_) if t["applied"]]
        ids = [t["transaction_id"] for t in applied]
        assert len(ids) == len(set(ids)), "a transaction applied twice"
        for bet in (t for t in applied if t["kind"] == "bet"):
            known = ours[bet["transaction_id"]]
            assert known["status"] == "confirmed" or bet["rolled_back_by"], (bet, known)
        assert casino.operator.balance(player.name_) == START + player.settled_net(), player.name_
    unknown = [
        t for t in report["transactions"] if t["kind"] == "bet" and t["status"] in ("unknown", "sending")
    ]
    assert not unknown, unknown[:3]
    assert sum(faults["counts"].values()) > 0, faults
