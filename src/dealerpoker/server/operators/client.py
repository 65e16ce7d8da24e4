"""Calls to an operator's seamless wallet: ``POST {wallet_url}/{balance,bet,win,rollback}``, JSON,
signed (:func:`outgoing_headers`: method, path, timestamp,
nonce and body; ``X-Operator-Id``), each call and its answer kept in ``wallet_calls``
(the player's session token left out, the secret never anywhere).

An answer is *known* only when the operator answered HTTP 200 with a JSON body of at most
``MAX_ANSWER_BYTES`` whose ``status`` is one of ``STATUSES`` (``ERROR`` included: then the operator
says it did nothing) and whose ``balance``, if any, is an amount (0 to ``MAX_AMOUNT``). A timeout,
a dropped connection, a redirect (never followed: the call goes to the configured wallet URL and
nowhere else), any other status code, a larger body or any other answer leaves the outcome
*unknown* (``status`` None): a bet is then rolled back. What the wallet answered is kept (its
first ``KEPT_ANSWER_CHARS`` characters) for staff; a player is never shown it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sqlalchemy import insert

from dealerpoker.games.money import MAX_AMOUNT
from dealerpoker.operator_signature import (
    OPERATOR_HEADER,
    SIGNATURE_HEADER,
    request_target,
    sign_body,
    sign_request,
)
from dealerpoker.server import jsonin
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.observability.metrics import WALLET_CALLS
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.schema import wallet_calls

if TYPE_CHECKING:
    import aiohttp

STATUSES = frozenset({"OK", "INSUFFICIENT_FUNDS", "INVALID_TOKEN", "UNKNOWN_TRANSACTION", "ERROR"})
MAX_ANSWER_BYTES = 65_536
"""The largest wallet answer read (a protocol answer is a few dozen bytes); a larger one is not
read further and counts as no answer."""
KEPT_ANSWER_CHARS = 2_000
"""How much of an answer ``wallet_calls`` keeps (for staff: the back office's round page)."""
OUTCOME_CHARS = 40
"""The length of ``wallet_transactions.last_answer``: an outcome is cut to it."""
KEEPALIVE_SECONDS = 4.0
"""An idle connection to a wallet is closed after this long: before the operator's server closes
it (uvicorn's default is 5 s), since a bet sent on a connection the server is closing meanwhile
gets no answer and is refused and rolled back (aiohttp's default, 15 s, made that happen under
load: ``ClientOSError``)."""


CONNECTIONS = 1024
"""Connections to the operators' wallets a process may hold at once: more than the calls its players
can have in flight (each player waits for its bet's answer; the outbox sends at most 16 at a time).
A call that must wait for a connection waits inside its own timeout: with 64, at 256 players bets
queued here past the operator's 3 s timeout, each was rolled back (another call) and the rounds/s
fell by half while the operator was idle (``benchmarks/RESULTS.md``, "Concurrency")."""


@dataclass(frozen=True, slots=True)
class Answer:
    status: str | None
    """One of ``STATUSES``; None: the outcome is unknown (timeout, dropped, unreadable)."""
    balance: int | None = None
    detail: str = ""
    record: dict[str, Any] = field(default_factory=dict, compare=False)
    """The ``wallet_calls`` row of the call that got this answer."""

    @property
    def outcome(self) -> str:
        """The status, else what went wrong, short enough for ``last_answer``."""
        return (self.status or self.detail)[:OUTCOME_CHARS]


class WalletClient:
    """Signed HTTP calls to operators' wallets, each one recorded."""

    def __init__(self, database: Database, now: Callable[[], str], *,
                 max_connections: int = CONNECTIONS) -> None:
        # aiohttp (~0.13 s of CPU to import) only in a server whose operators have wallets: a
        # server without, and every other command, starts without it.
        import aiohttp  # noqa: F401

        self.database = database
        self.now = now
        self.max_connections = max_connections
        self._http: aiohttp.ClientSession | None = None

    def _session(self) -> aiohttp.ClientSession:
        # aiohttp rather than httpx: measured on this machine, a call costs the caller about a
        # seventh of the CPU (0.3 ms against 2.2 ms, client and a trivial server together), and
        # the wallet's calls are most of a seamless round's CPU. Created in the running loop, at
        # the first call; TCP_NODELAY (aiohttp's default) spares each call the peer's delayed ACK.
        import aiohttp

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
        import aiohttp

        raw = json.dumps(body, separators=(",", ":")).encode()
        endpoint = operator.wallet_endpoint(call)
        parts = urlsplit(endpoint)
        headers = {
            "Content-Type": "application/json",
            OPERATOR_HEADER: operator.id,
            **outgoing_headers(operator, "POST", request_target(parts.path or "/", parts.query), raw,
                               now=time.time()),
        }
        at, started = self.now(), time.monotonic()
        http_status: int | None = None
        try:
            async with self._session().post(
                endpoint,
                data=raw,
                headers=headers,
                timeout=aiohttp.ClientTimeout(total=max(timeout, 0.001)),
                allow_redirects=False,
            ) as response:
                http_status = response.status
                raw_answer = await _bounded(response)
            if raw_answer is None:
                text = f"answer larger than {MAX_ANSWER_BYTES} bytes: not read"
                answer = Answer(None, detail=f"answer over {MAX_ANSWER_BYTES} bytes")
            else:
                text = raw_answer.decode("utf-8", "replace")
                answer = _answer(http_status, text)
                text = text.replace("\x00", "\ufffd")  # kept as text: PostgreSQL's has no NUL
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
            answer=text[:KEPT_ANSWER_CHARS],
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


async def _bounded(response: aiohttp.ClientResponse) -> bytes | None:
    """The answer's body, or None when it is larger than ``MAX_ANSWER_BYTES`` (read no further)."""
    if response.content_length is not None and response.content_length > MAX_ANSWER_BYTES:
        return None
    body = bytearray()
    while chunk := await response.content.read(MAX_ANSWER_BYTES + 1 - len(body)):
        body += chunk
        if len(body) > MAX_ANSWER_BYTES:
            return None
    return bytes(body)


def _answer(http_status: int, text: str) -> Answer:
    if 300 <= http_status < 400:
        return Answer(None, detail=f"HTTP {http_status}: redirect not followed")
    if http_status != 200:
        return Answer(None, detail=f"HTTP {http_status}")
    try:
        document = jsonin.loads(text)
    except ValueError as error:  # jsonin.TooDeepError included
        return Answer(None, detail=f"not JSON: {error}")
    status = document.get("status") if isinstance(document, dict) else None
    if status not in STATUSES:
        return Answer(None, detail=f"unknown status {str(status)[:OUTCOME_CHARS]!r}")
    balance = document.get("balance")
    if isinstance(balance, bool) or not isinstance(balance, int):
        balance = None
    elif not 0 <= balance <= MAX_AMOUNT:
        return Answer(None, detail="balance outside 0..2**53-1")
    return Answer(str(status), balance)


def now_text(clock: Callable[[], Any]) -> Callable[[], str]:
    return lambda: timestamp(clock())


def outgoing_headers(operator: Operator, method: str, target: str, body: bytes, *, now: float
                     ) -> dict[str, str]:
    """The signature headers of a request dealerpoker sends to ``operator`` (its wallet calls):
    the request scheme, or the body alone for an operator set to ``body-only``."""
    if operator.signature == "body-only":
        return {SIGNATURE_HEADER: sign_body(operator.secret, body)}
    return sign_request(operator.secret, method, target, body, now=now)
