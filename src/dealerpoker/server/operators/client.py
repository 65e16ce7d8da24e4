"""Calls to an operator's seamless wallet: ``POST {wallet_url}/{balance,bet,win,rollback}``, JSON,
signed (``X-Signature``, ``X-Operator-Id``), each call and its answer kept in ``wallet_calls``
(the player's session token left out, the secret never anywhere).

An answer is *known* only when the operator answered HTTP 200 with a JSON body whose ``status`` is
one of ``STATUSES`` (``ERROR`` included: then the operator says it did nothing). A timeout, a
dropped connection, any other status code or body leaves the outcome *unknown* (``status`` None).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import aiohttp
from sqlalchemy import insert

from dealerpoker.server import jsonin
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.edge.metrics import WALLET_CALLS
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.signing import OPERATOR_HEADER, SIGNATURE_HEADER, sign
from dealerpoker.server.schema import wallet_calls

STATUSES = frozenset({"OK", "INSUFFICIENT_FUNDS", "INVALID_TOKEN", "UNKNOWN_TRANSACTION", "ERROR"})
KEEPALIVE_SECONDS = 4.0
"""An idle connection to a wallet is closed after this long: before the operator's server closes
it (uvicorn's default is 5 s), since a bet sent on a connection the server is closing meanwhile
gets no answer and is refused and rolled back (aiohttp's default, 15 s, made that happen under
load: ``ClientOSError``)."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: str | None
    """One of ``STATUSES``; None: the outcome is unknown (timeout, dropped, unreadable)."""
    balance: int | None = None
    detail: str = ""
    record: dict[str, Any] = field(default_factory=dict, compare=False)
    """The ``wallet_calls`` row of the call that got this answer."""


class WalletClient:
    """Signed HTTP calls to operators' wallets, each one recorded."""

    def __init__(self, database: Database, now: Callable[[], str], *, max_connections: int = 64) -> None:
        self.database = database
        self.now = now
        self.max_connections = max_connections
        self._http: aiohttp.ClientSession | None = None

    def _session(self) -> aiohttp.ClientSession:
        # aiohttp rather than httpx: measured on this machine, a call costs the caller about a
        # seventh of the CPU (0.3 ms against 2.2 ms, client and a trivial server together), and
        # the wallet's calls are most of a seamless round's CPU. Created in the running loop, at
        # the first call; TCP_NODELAY (aiohttp's default) spares each call the peer's delayed ACK.
        if self._http is None or self._http.closed:
            self._http = aiohttp.ClientSession(
                connector=aiohttp.TCPConnector(
                    limit=self.max_connections, keepalive_timeout=KEEPALIVE_SECONDS
                ),
                skip_auto_headers=("User-Agent",),
            )
        return self._http

    async def call(
        self, operator: Operator, call: str, body: dict[str, Any], *, timeout: float, keep: bool = True
    ) -> Answer:
        """Send the call; its answer. ``keep``: record the call at once in its own transaction
        (else the caller records ``answer.record`` with :func:`keep_calls` in its next one)."""
        raw = json.dumps(body, separators=(",", ":")).encode()
        headers = {
            "Content-Type": "application/json",
            OPERATOR_HEADER: operator.id,
            SIGNATURE_HEADER: sign(operator.secret, raw),
        }
        at, started = self.now(), time.monotonic()
        http_status: int | None = None
        try:
            async with self._session().post(
                operator.wallet_endpoint(call),
                data=raw,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=max(timeout, 0.001)),
            ) as response:
                http_status = response.status
                text = (await response.read()).decode("utf-8", "replace")
            answer = _answer(http_status, text)
        except TimeoutError:  # asyncio.TimeoutError is TimeoutError on Python 3.11
            text, answer = "timeout", Answer(None, detail="timeout")
        except aiohttp.ClientError as error:
            text, answer = f"failed: {type(error).__name__}", Answer(None, detail=type(error).__name__)
        elapsed = int((time.monotonic() - started) * 1000)
        outcome = (answer.status or "unknown").lower()
        WALLET_CALLS.labels(operator=operator.id, operation=call, outcome=outcome).inc()
        kept = {key: value for key, value in body.items() if key != "token"}
        answer.record.update(
            transaction_id=str(body.get("transaction_id", "")),
            call=call,
            request=json.dumps(kept, separators=(",", ":")),
            http_status=http_status,
            answer=text[:2000],
            at=at,
            duration_ms=elapsed,
        )
        if keep:
            async with self.database.transaction() as connection:
                await keep_calls(connection, [answer.record])
        return answer

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()


_KEEP = insert(wallet_calls).inline()


async def keep_calls(connection: Connection, records: list[dict[str, Any]]) -> None:
    """Record calls (``Answer.record``) in a unit of work."""
    rows = [record for record in records if record]
    if rows:
        await connection.run(_KEEP, rows)


def _answer(http_status: int, text: str) -> Answer:
    if http_status != 200:
        return Answer(None, detail=f"HTTP {http_status}")
    try:
        document = jsonin.loads(text)
    except ValueError as error:  # jsonin.TooDeepError included
        return Answer(None, detail=f"not JSON: {error}")
    status = document.get("status") if isinstance(document, dict) else None
    if status not in STATUSES:
        return Answer(None, detail=f"unknown status {status!r}")
    balance = document.get("balance")
    if isinstance(balance, bool) or not isinstance(balance, int):
        balance = None
    return Answer(str(status), balance)


def now_text(clock: Callable[[], Any]) -> Callable[[], str]:
    return lambda: timestamp(clock())
