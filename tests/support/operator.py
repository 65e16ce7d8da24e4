"""``dealerpoker operator-demo`` (the reference operator) as a real process on a free loopback
port, with a signed wallet client and its administration, for tests of either side of the
seamless-wallet protocol. Standard library only.

    with OperatorDemo(tmp_path, secret="s3cret") as operator:
        token = operator.create_player("alice", "EUR", 10_000)
        status, answer = operator.wallet("bet", {"player": "alice", "token": token, ...})
"""

from __future__ import annotations

import http.client
import json
import re
import select
import subprocess
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.servers import DEALERPOKER, START_TIMEOUT

from dealerpoker.operator_signature import sign_request


def operator_headers(secret: str, method: str, target: str, raw: bytes = b"", *, operator: str = "demo",
                     now: float | None = None) -> dict[str, str]:
    """The headers of an operator's signed request to dealerpoker (``target``: the path with its
    query), a fresh nonce each time; ``now`` the signing time (a test server's clock)."""
    return {"X-Operator-Id": operator, "Content-Type": "application/json",
            **sign_request(secret, method, target, raw, now=now)}


def client_now(client: Any) -> float:
    """The Unix time of an in-process test server's clock (what its signature window checks)."""
    return float(client.app.state.services.clock().timestamp())


FAULT_MIX: tuple[str, ...] = (
    "--fail-rate", "0.1", "--timeout-rate", "0.05", "--drop-after-commit-rate", "0.05")
"""The issue's fault mix (``operator-demo`` options): 10% of wallet calls failed, 5% timed out, 5%
committed but their answer lost. Add ``--timeout-seconds`` and ``--seed`` beside it."""
_LISTENING = re.compile(r"on http://127\.0\.0\.1:(\d+)")


class OperatorDemo:
    """The reference operator on port 0 (the port it chose is read from its first line of output).

    ``extra`` are more command-line options (``--fail-rate 0.1``, ``--seed 7``...); its log goes to
    ``directory/operator-demo.log``, its ledger to ``directory/operator.db`` unless ``db`` is given.
    """

    def __init__(self, directory: Path, *, secret: str = "operator-secret", operator_id: str = "demo",
                 game_url: str = "http://127.0.0.1:1", extra: tuple[str, ...] = (), db: Path | None = None,
                 timeout: float = 10.0) -> None:
        self.secret, self.operator_id, self.timeout = secret, operator_id, timeout
        self.db = db or directory / "operator.db"
        self.log_path = directory / "operator-demo.log"
        command = [DEALERPOKER, "operator-demo", "--port", "0", "--db", str(self.db), "--secret", secret,
                   "--operator-id", operator_id, "--game-url", game_url, "--log-level", "warning", *extra]
        with self.log_path.open("a") as log:
            self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)
        self.port = self._read_port()
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            try:
                if self.admin("GET", "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"operator-demo did not answer:\n{self.output()}")
            time.sleep(0.05)  # poll until the deadline

    def _read_port(self) -> int:
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], START_TIMEOUT)
        line = self.process.stdout.readline() if ready else ""
        found = _LISTENING.search(line)
        if not found:
            self.stop()
            raise RuntimeError(f"operator-demo did not start ({line!r}):\n{self.output()}")
        return int(found.group(1))

    def __enter__(self) -> OperatorDemo:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(30)
        if self.process.stdout is not None:
            self.process.stdout.close()

    # -- HTTP --------------------------------------------------------------------------------

    def request(self, method: str, path: str, raw: bytes = b"", headers: dict[str, str] | None = None,
                timeout: float | None = None) -> tuple[int, Any, dict[str, str]]:
        """One request on a fresh connection: status, JSON answer (None if not JSON), headers.
        A dropped connection raises ``http.client.HTTPException`` or ``OSError`` (a timeout too)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout or self.timeout)
        try:
            connection.request(method, path, body=raw or None, headers=headers or {})
            response = connection.getresponse()
            body = response.read()
            try:
                answer = json.loads(body) if body else None
            except ValueError:
                answer = None
            return response.status, answer, {name.lower(): value for name, value in response.getheaders()}
        finally:
            connection.close()

    def wallet(self, kind: str, body: dict[str, Any] | bytes, *, secret: str | None = None,
               signature: str | None = None, timeout: float | None = None,
               headers: dict[str, str] | None = None) -> tuple[int, Any]:
        """``POST /{kind}`` signed with ``secret`` (default the operator's), with an explicit
        ``signature`` in place of the right one ('' sends none), or with exactly ``headers``."""
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        if headers is None:
            headers = {"Content-Type": "application/json",
                       **sign_request(secret or self.secret, "POST", f"/{kind}", raw)}
            if signature:
                headers["X-Signature"] = signature
            elif signature == "":
                headers.pop("X-Signature")
        status, answer, _ = self.request("POST", f"/{kind}", raw, headers, timeout)
        return status, answer

    def admin(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        raw = b"" if body is None else json.dumps(body).encode()
        status, answer, _ = self.request(method, path, raw, {"Content-Type": "application/json"})
        return status, answer

    # -- the administration ------------------------------------------------------------------

    def page(self) -> str:
        """The casino page's HTML (``GET /``)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=self.timeout)
        try:
            connection.request("GET", "/")
            return connection.getresponse().read().decode()
        finally:
            connection.close()

    def create_player(self, player: str, currency: str = "EUR", balance: int = 100_000) -> str:
        """A player's account with ``balance``, and a session token for it."""
        status, answer = self.admin("POST", "/admin/players",
                                    {"player": player, "currency": currency, "balance": balance})
        assert status == 201, answer
        token: str = answer["token"]
        return token

    def balances(self) -> dict[str, dict[str, int]]:
        status, answer = self.admin("GET", "/admin/players")
        assert status == 200, answer
        found: dict[str, dict[str, int]] = answer["players"]
        return found

    def balance(self, player: str, currency: str = "EUR") -> int:
        return self.balances().get(player, {}).get(currency, 0)

    def transactions(self, player: str | None = None) -> list[dict[str, Any]]:
        status, answer = self.admin("GET", "/admin/transactions" + (f"?player={player}" if player else ""))
        assert status == 200, answer
        found: list[dict[str, Any]] = answer["transactions"]
        return found

    def set_faults(self, **rates: float) -> dict[str, Any]:
        """``PUT /admin/faults``: e.g. ``fail_rate=0.1, timeout_rate=0.05, drop_after_commit_rate=0.05``."""
        status, answer = self.admin("PUT", "/admin/faults", rates)
        assert status == 200, answer
        settings: dict[str, Any] = answer
        return settings


LEDGER_SIGNS = {"bet": -1, "win": 1, "rollback": 1}


def ledger_net(transactions: list[dict[str, Any]]) -> int:
    """A player's net in the operator's ledger from its transactions: bets out, wins and rollbacks
    in, as far as they moved money (``applied``; a repeat or a refusal moved none)."""
    return sum(LEDGER_SIGNS[t["kind"]] * t["amount"] for t in transactions if t["applied"])


def demo_launch(client: Any, operator: str, secret: str, *, player: str, currency: str = "EUR",
                game: str = "texas-bonus") -> dict[str, str]:
    """Launch ``operator``'s ``player`` in play money (no wallet call) through an in-process
    ``TestClient`` of the game server and open their session: their ``Authorization`` header."""
    raw = json.dumps({"player": player, "currency": currency, "game": game, "mode": "demo"}).encode()
    headers = operator_headers(secret, "POST", "/operator/v1/launch", raw, operator=operator,
                               now=client_now(client))
    answer = client.post("/operator/v1/launch", content=raw, headers=headers)
    assert answer.status_code == 200, answer.text
    session = client.post("/api/session", json={"launch": answer.json()["launch_token"]})
    assert session.status_code == 200, session.text
    return {"Authorization": f"Bearer {session.json()['token']}"}
