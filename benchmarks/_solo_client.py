"""The benchmarks' solo player: a bare asyncio HTTP/1.1 keep-alive client that plays complete
rounds and checks every answer (``server.py`` and ``operator_wallet.py`` both drive servers with
it; it is kept apart so neither imports the other)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

PLAYS = {"casino-holdem": ("raise",), "texas-bonus": ("bet", "check", "check")}


class Connection:
    """One keep-alive HTTP/1.1 connection sending JSON requests."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        return cls(reader, writer)

    async def request(
        self, method: str, path: str, body: Any = None, token: str | None = None
    ) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        head = [f"{method} {path} HTTP/1.1", "Host: 127.0.0.1", f"Content-Length: {len(payload)}"]
        if body is not None:
            head.append("Content-Type: application/json")
        if token:
            head.append(f"Authorization: Bearer {token}")
        self.writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + payload)
        status_line = await self.reader.readline()
        status = int(status_line.split()[1])
        length = 0
        while True:
            line = await self.reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        data = await self.reader.readexactly(length)
        return status, json.loads(data) if data else None

    def close(self) -> None:
        self.writer.close()


@dataclass
class Tally:
    rounds: int = 0
    errors: int = 0
    latencies: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.errors += 1
        if len(self.problems) < 5:
            self.problems.append(problem)


class Balance:
    """What a player's balance must be after each response: the previous one, less the step's
    stake, plus what it returned (so every response is checked, not just its status)."""

    def __init__(self, amount: int, exact: bool = True) -> None:
        self.amount, self.exact = amount, exact

    def check(self, view: Any) -> str | None:
        if not self.exact:  # another wallet's balance (an operator's: its wins arrive after the round)
            self.amount = view["balance"]
            return None
        step = view["steps"][-1]
        self.amount += int(step.get("returned", 0)) - int(step["stake"])
        if view["balance"] != self.amount:
            problem = f"balance {view['balance']} after step {step}, expected {self.amount}"
            self.amount = view["balance"]
            return problem
        return None


def check_view(view: Any, game: str, steps: int, balance: Balance) -> str | None:
    """None when ``view`` is the round of ``game`` after ``steps`` steps with the right balance."""
    if not isinstance(view, dict) or view.get("game") != game or len(view.get("steps", ())) != steps:
        return f"unexpected body {str(view)[:200]}"
    return balance.check(view)


def check_settled(view: Any) -> str | None:
    settlement = view.get("settlement")
    if view["status"] != "settled" or not settlement or len(view["dealer_cards"]) != 2 \
            or len(view["board"]) != 5 or view["fairness"]["server_seed"] is None:
        return f"round {view['id']} did not settle: {str(view)[:200]}"
    if settlement["total_stake"] != sum(step["stake"] for step in view["steps"]):
        return f"round {view['id']}: settlement stake {settlement['total_stake']} != steps' stakes"
    return None


@dataclass
class Session:
    """A player's session and the balance it must show, kept from one run (or slice) of play to
    the next, as a deployment's players keep theirs."""

    token: str
    balance: Balance


async def open_sessions(port: int, bodies: list[dict[str, Any] | None]) -> list[Session]:
    """A session per body (``POST /api/session``): a demo player's for None, else the body's (an
    operator's ``{"launch": ...}``, its balance the operator's: not checked step by step, as a
    round's win reaches the operator after the round)."""
    async def one(body: dict[str, Any] | None) -> Session:
        connection = await Connection.open(port)
        try:
            status, opened = await connection.request("POST", "/api/session", body or {})
        finally:
            connection.close()
        if status != 200:
            raise RuntimeError(f"POST /api/session: status {status} {str(opened)[:200]}")
        return Session(opened["token"], Balance(opened["balance"], exact=body is None))

    return list(await asyncio.gather(*(one(body) for body in bodies)))


@dataclass
class Start:
    """The measured run starts once every player has its connection: opened inside it, 256
    connections (and, before sessions were opened ahead, 256 new sessions) counted their CPU
    against the rounds of the run."""

    players: int
    seconds: float
    on_start: Callable[[], None] = lambda: None
    arrived: int = 0
    began: float = 0.0
    stop_at: float = 0.0
    event: asyncio.Event = field(default_factory=asyncio.Event)

    async def wait(self) -> float:
        """Arrive; once all have, the moment to stop playing."""
        self.arrived += 1
        if self.arrived == self.players:
            self.on_start()
            self.began = time.perf_counter()
            self.stop_at = self.began + self.seconds
            self.event.set()
        await self.event.wait()
        return self.stop_at


async def player(port: int, stop_at: float, tally: Tally, number: int, session: Session,
                 start: Start | None = None) -> None:
    """One client playing rounds on ``session`` until ``stop_at`` (or ``start``'s end)."""
    try:
        connection = await Connection.open(port)
    finally:
        if start is not None:
            stop_at = await start.wait()
    try:
        token = session.token
        balance = session.balance
        games = list(PLAYS)
        turn = number
        while time.perf_counter() < stop_at:
            game = games[turn % 2]
            turn += 1
            began = time.perf_counter()
            status, view = await connection.request(
                "POST", "/api/rounds", {"game": game, "bets": {"ante": 100}}, token)
            tally.latencies.append(time.perf_counter() - began)
            problem = f"deal: status {status} {str(view)[:200]}" if status != 200 \
                else check_view(view, game, 1, balance)
            if problem:
                tally.fail(problem)
                continue
            for number_of_steps, action in enumerate(PLAYS[game], start=2):
                if view["status"] != "open":
                    break
                began = time.perf_counter()
                status, view = await connection.request(
                    "POST", f"/api/rounds/{view['id']}/actions",
                    {"action": action, "step": number_of_steps - 1}, token)
                tally.latencies.append(time.perf_counter() - began)
                problem = f"{action}: status {status} {str(view)[:200]}" if status != 200 \
                    else check_view(view, game, number_of_steps, balance)
                if problem:
                    tally.fail(problem)
                    break
            else:
                problem = check_settled(view)
                if problem:
                    tally.fail(problem)
                else:
                    tally.rounds += 1
    finally:
        connection.close()
