"""The simulated shoe on a real dealer WebSocket (``dealerpoker shoe``; tests and demos).

Connects to ``/ws/dealer/{table}`` with the dealer key and answers each ``expect`` the table
sends with what :class:`dealerpoker.tables.shoe.Shoe` deals, waiting ``delay`` seconds before
each message (a dealer's hand is not instant). Stops after ``rounds`` rounds ended (settled,
misdealt, or without a bet: an empty table does not keep it waiting), or runs until interrupted.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import websockets

from dealerpoker.server import jsonin
from dealerpoker.tables.shoe import Shoe

#: Dealer-stream events that end a round.
ROUND_ENDS = ("settled", "misdeal", "no_bets")


class ShoeError(RuntimeError):
    """The server refused the shoe (wrong key, unknown or non-studio table)."""


@dataclass(slots=True)
class ShoeRun:
    """What a run of the shoe did: rounds ended, messages sent, the server's refusals."""

    rounds: list[str] = field(default_factory=list)
    empty: list[str] = field(default_factory=list)
    """Rounds that ended without a bet (nothing dealt): they count towards ``rounds`` too."""
    sent: list[dict[str, Any]] = field(default_factory=list)
    refusals: list[dict[str, Any]] = field(default_factory=list)


def dealer_url(url: str, table_id: str) -> str:
    """``ws://host:port`` (or the full ``.../ws/dealer/{table}``) -> the table's dealer WebSocket.

    >>> dealer_url("ws://127.0.0.1:8000", "studio-1")
    'ws://127.0.0.1:8000/ws/dealer/studio-1'
    >>> dealer_url("wss://casino.example/ws/dealer/studio-1", "studio-1")
    'wss://casino.example/ws/dealer/studio-1'
    """
    parts = urlsplit(url)
    if parts.scheme not in ("ws", "wss") or not parts.netloc:
        raise ValueError(f"--url: expected ws://HOST[:PORT] or wss://..., got {url!r}")
    path = parts.path.rstrip("/")
    if path.endswith(f"/ws/dealer/{table_id}"):
        return url
    return f"{parts.scheme}://{parts.netloc}{path}/ws/dealer/{quote(table_id)}"


async def run_shoe(url: str, key: str, shoe: Shoe, *, delay: float, rounds: int | None = None,
                   log: Callable[[str], None] = lambda line: None) -> ShoeRun:
    """Deal at the table behind ``url`` (the dealer WebSocket) until ``rounds`` rounds ended."""
    run = ShoeRun()
    async with websockets.connect(url, additional_headers={"Authorization": f"Bearer {key}"},
                                  open_timeout=30) as socket:
        async for raw in socket:
            message = jsonin.loads(raw)
            kind = message.get("type")
            outgoing: list[dict[str, Any]] = []
            if kind == "expect":
                outgoing = shoe.on_expect(message)
            elif kind == "error":
                run.refusals.append(message)
                log(f"refused: {message.get('error')}: {message.get('message')}")
                if message.get("error") in ("unauthorized", "not_found", "not_studio"):
                    raise ShoeError(str(message.get("message")))
                outgoing = shoe.on_error()
            elif kind == "dealer" and message.get("event") in ROUND_ENDS and message.get("round") \
                    and message["round"] not in run.rounds:
                if message["event"] != "no_bets":
                    run.rounds.append(message["round"])
                    log(f"{message['round']}: {message['event']}")
                elif message["round"] not in run.empty:
                    run.empty.append(message["round"])
                    log(f"{message['round']}: no bets, nothing to deal")
                if rounds is not None and len(run.rounds) + len(run.empty) >= rounds:
                    return run
            for item in outgoing:
                await asyncio.sleep(delay)
                await socket.send(json.dumps(item))
                run.sent.append(item)
                log(" ".join(f"{k}={v}" for k, v in item.items() if k != "source"))
    return run
