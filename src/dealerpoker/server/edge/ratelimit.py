"""Rate limits, counted by the ``limits`` library: in Redis when the server has one
(``Settings.redis_url``: every process and worker shares the counts), else in this process's
memory. Fixed windows (one counter per key and window: one Redis round trip per check).

| name | counts | per |
|---|---|---|
| ``session`` | ``POST /api/session`` (each creates an account) | client address |
| ``auth_failure`` | answers 401 and WebSockets closed 4401 | client address |
| ``request`` | every HTTP request | client address |
| ``account`` | every authenticated request | account |
| ``websocket`` | WebSocket connections | client address |
| ``websocket_account`` | WebSocket connections of an authenticated player | account |

Two caps count WebSockets open at once, not a rate: ``websockets_open`` per client address (every
WebSocket path) and ``websockets_open_account`` per account (the players' table sockets). They
count in this process only (each process and ``--workers`` worker has its own caps: open sockets
cannot be counted in Redis without leaking counts when a process dies).

Addresses and networks in ``Settings.rate_limit_exempt`` (a load test's machine) are exempt from
every limit, the per-account ones too for the requests and sockets they send: the middleware
marks the request's context (``exempt``), which the account checks read.

A refused request is answered ``429 rate_limited`` with ``Retry-After`` (seconds); a refused
WebSocket upgrade likewise where the server can answer an upgrade with a response (else the
upgrade is refused, 403); a refused player's WebSocket is closed with 4429 after an error
message. An address whose failed authentications pass ``auth_failure`` is refused every request
that could authenticate (the API, the WebSockets, the back office, the operator API) until the
window ends. A storage that fails (Redis down) lets requests through and logs a warning: the
limits protect the service, they must not stop it.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import os
import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from typing import Any

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import FixedWindowRateLimiter
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.edge.bodylimit import send_refusal
from dealerpoker.server.edge.errors import ErrorOut
from dealerpoker.server.settings import Settings, SettingsError, address_network

log = logging.getLogger("dealerpoker.server.ratelimit")

DEFAULT_LIMITS: Mapping[str, str] = {
    "session": "100/minute;2000/day",
    "auth_failure": "100/minute;1000/hour",
    "request": "12000/minute",
    "account": "3000/minute",
    "websocket": "120/minute",
    "websocket_account": "30/minute",
}
OPEN_CAPS: Mapping[str, str] = {"websockets_open": "100", "websockets_open_account": "10"}
"""WebSockets open at once (a number, or "off") per address and per account, in each process."""
OPEN_RETRY_AFTER = 10
"""The ``Retry-After`` of a refusal for too many open sockets (no window ends: one must close)."""
"""Generous: a person playing never meets them; a script creating accounts, guessing tokens
or opening sockets in bulk does within the first minute."""

exempt: ContextVar[bool] = ContextVar("rate_limit_exempt", default=False)
"""Whether the request or socket being served came from an exempt address (set by ``RateLimit``)."""

_WHAT = {"session": "sessions created", "auth_failure": "failed authentications", "request": "requests",
         "account": "requests of this account", "websocket": "WebSocket connections",
         "websocket_account": "WebSocket connections of this account",
         "websockets_open": "WebSockets open from this address", "websockets_open_account":
         "WebSockets open of this account"}
_AUTHENTICATING = ("/api/", "/ws/", "/admin/api/", "/admin/ws/", "/operator")


EDGE_RESPONSES: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorOut, "description": "too_large: the body is over the server's limit"},
    429: {"model": ErrorOut, "description": "rate_limited: too many requests (see the Retry-After header)",
          "headers": {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}},
    503: {"model": ErrorOut, "description": "busy: every database connection of the server stayed busy; "
                                             "nothing was done (see the Retry-After header)",
          "headers": {"Retry-After": {"description": "seconds to wait", "schema": {"type": "integer"}}}},
}
"""What the edge may answer on every operation (documented in the OpenAPI of each)."""


class RateLimitedError(DealerPokerError):
    """Too many requests of one kind from one address or account (HTTP 429, ``Retry-After``)."""

    code = "rate_limited"
    status = 429

    def __init__(self, name: str, retry_after: int, limit: str) -> None:
        super().__init__(f"too many {_WHAT.get(name, name)} (limit {limit}): retry in {retry_after} s")
        self.name, self.retry_after, self.limit = name, retry_after, limit

    def details(self) -> dict[str, Any]:
        return {"limit": self.name, "retry_after": self.retry_after}


def parse_limits(configured: Mapping[str, str]) -> dict[str, list[RateLimitItem]]:
    """Each limit of ``DEFAULT_LIMITS`` with ``configured`` over it ("off": none).

    >>> parse_limits({"session": "5/minute", "request": "off"})["session"][0].amount
    5
    >>> "request" in parse_limits({"request": "off"})
    False
    """
    unknown = sorted(set(configured) - set(DEFAULT_LIMITS) - set(OPEN_CAPS))
    if unknown:
        known = ", ".join([*DEFAULT_LIMITS, *OPEN_CAPS])
        raise SettingsError(f"rate limit {unknown[0]!r}: unknown (known: {known})")
    limits: dict[str, list[RateLimitItem]] = {}
    for name, text in {**DEFAULT_LIMITS, **configured}.items():
        if name in OPEN_CAPS or text.strip().lower() == "off":
            continue
        try:
            limits[name] = parse_many(text)
        except ValueError:
            raise SettingsError(f"rate limit {name}: {text!r} is not a limit such as 10/minute or "
                                "100/hour;1000/day (or off)") from None
    return limits


def parse_caps(configured: Mapping[str, str]) -> dict[str, int]:
    """Each cap of ``OPEN_CAPS`` with ``configured`` over it ("off": none).

    >>> parse_caps({"websockets_open": "5", "websockets_open_account": "off"})
    {'websockets_open': 5}
    """
    caps: dict[str, int] = {}
    for name, text in {**OPEN_CAPS, **{k: v for k, v in configured.items() if k in OPEN_CAPS}}.items():
        if text.strip().lower() == "off":
            continue
        if not text.strip().isdigit() or int(text) < 1:
            raise SettingsError(f"rate limit {name}: {text!r} is not a number of sockets such as 50 (or off)")
        caps[name] = int(text)
    return caps


def storage_for(redis_url: str | None, prefix: str) -> Storage:
    if not redis_url:
        return MemoryStorage()
    return RedisStorage(f"async+{redis_url}", implementation="redispy", key_prefix=f"{prefix}limits")


class RateLimits:
    """The server's limits and where they count."""

    def __init__(self, limits: Mapping[str, list[RateLimitItem]], storage: Storage,
                 caps: Mapping[str, int] | None = None, exempt: Sequence[str] = ()) -> None:
        self.limits = dict(limits)
        self.caps = dict(caps or {})
        self.exempt = tuple(address_network(entry, "rate_limit_exempt") for entry in exempt)
        self._open: dict[tuple[str, str], int] = {}  # (cap, address or account) -> sockets open
        self.limiter = FixedWindowRateLimiter(storage)
        self._blocked: dict[str, float] = {}  # address -> until (epoch seconds): auth failures spent
        self.refused = 0

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimits:
        prefix = os.environ.get("DEALERPOKER_REDIS_PREFIX") or "dealerpoker:"
        return cls(parse_limits(settings.rate_limits), storage_for(settings.redis_url, prefix),
                   parse_caps(settings.rate_limits), settings.rate_limit_exempt)

    def is_exempt(self, address: str) -> bool:
        """Whether ``address`` is in one of the exempt networks."""
        if not self.exempt:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in network for network in self.exempt)

    def opened(self, name: str, key: str) -> RateLimitedError | None:
        """Count one more socket open under cap ``name`` for ``key`` (``closed`` when it ends);
        the refusal instead when ``key`` has its cap open already."""
        cap = self.caps.get(name)
        if cap is None or exempt.get():
            return None
        if self._open.get((name, key), 0) >= cap:
            self.refused += 1
            count_refusal(name)
            return RateLimitedError(name, OPEN_RETRY_AFTER, f"{cap} open")
        self._open[(name, key)] = self._open.get((name, key), 0) + 1
        return None

    def closed(self, name: str, key: str) -> None:
        """One socket counted by ``opened`` ended."""
        if exempt.get():
            return
        left = self._open.get((name, key), 0) - 1
        if left > 0:
            self._open[(name, key)] = left
        else:
            self._open.pop((name, key), None)

    async def hit(self, name: str, key: str) -> RateLimitedError | None:
        """Count one ``name`` for ``key``; the error to answer when that passes a limit."""
        if exempt.get():
            return None
        for item in self.limits.get(name, ()):
            try:
                if await self.limiter.hit(item, name, key):
                    continue
                stats = await self.limiter.get_window_stats(item, name, key)
            except Exception as error:  # the limits must not stop the service
                log.warning("rate limit %s not counted: %s", name, error)
                return None
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
            self.refused += 1
            count_refusal(name)
            return RateLimitedError(name, retry_after, str(item))
        return None

    async def check_account(self, player_id: str, name: str = "account") -> None:
        """Count one request (or WebSocket: ``websocket_account``) of an account; raise when over."""
        refusal = await self.hit(name, player_id)
        if refusal is not None:
            raise refusal

    async def failed_authentication(self, address: str) -> None:
        """Count a failed authentication; once the address has none left, block it (here, in
        this process; another process blocks it at its own next failure, the count is shared)."""
        for item in self.limits.get("auth_failure", ()):
            try:
                await self.limiter.hit(item, "auth_failure", address)
                if await self.limiter.test(item, "auth_failure", address):
                    continue
                stats = await self.limiter.get_window_stats(item, "auth_failure", address)
            except Exception as error:  # the limits must not stop the service
                log.warning("rate limit auth_failure not counted: %s", error)
                return
            self._blocked[address] = max(self._blocked.get(address, 0.0), stats.reset_time)

    def blocked(self, address: str) -> RateLimitedError | None:
        """The refusal for an address that spent its failed authentications, while it lasts."""
        until = self._blocked.get(address)
        if until is None:
            return None
        left = until - time.time()
        if left <= 0:
            del self._blocked[address]
            return None
        self.refused += 1
        count_refusal("auth_failure")
        items = self.limits.get("auth_failure", ())
        return RateLimitedError("auth_failure", max(1, math.ceil(left)), ";".join(map(str, items)))


def count_refusal(name: str) -> None:
    """The metrics' count of refusals (``dealerpoker_rate_limit_refusals_total``)."""
    from dealerpoker.server.observability.metrics import RATE_LIMIT_REFUSALS

    RATE_LIMIT_REFUSALS.labels(limit=name).inc()


class RateLimit:
    """ASGI middleware: the limits per client address, and the failed authentications seen."""

    def __init__(self, app: ASGIApp, limits: RateLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket") or not (self.limits.limits or self.limits.caps):
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        address = str(client[0]) if client else "unknown"
        if self.limits.is_exempt(address):
            marked = exempt.set(True)  # for what this request or socket runs (tasks it starts copy it)
            try:
                await self.app(scope, receive, send)
            finally:
                exempt.reset(marked)
            return
        path: str = scope["path"]
        refusal = self.limits.blocked(address) if path.startswith(_AUTHENTICATING) else None
        if refusal is None:
            if kind == "websocket":
                refusal = await self.limits.hit("websocket", address)
            else:
                refusal = await self.limits.hit("request", address)
                if refusal is None and path == "/api/session" and scope["method"] == "POST":
                    refusal = await self.limits.hit("session", address)
        opened = kind == "websocket" and refusal is None
        if opened:
            refusal = self.limits.opened("websockets_open", address)
        if refusal is not None:
            await _refuse(scope, send, refusal)
            return
        limits = self.limits

        async def watching(message: Message) -> None:
            if (message["type"] == "http.response.start" and message["status"] == 401) \
                    or (message["type"] == "websocket.close" and message.get("code") == 4401):
                await limits.failed_authentication(address)
            await send(message)

        try:
            await self.app(scope, receive, watching)
        finally:
            if opened:
                limits.closed("websockets_open", address)


async def _refuse(scope: Scope, send: Send, error: RateLimitedError) -> None:
    headers = [(b"retry-after", str(error.retry_after).encode())]
    if scope["type"] == "http":
        await send_refusal(send, 429, error.code, str(error), headers=headers, **error.details())
        return
    if "websocket.http.response" in scope.get("extensions", {}):
        body = b'{"error": "rate_limited", "message": "%s"}' % str(error).encode()
        await send({"type": "websocket.http.response.start", "status": 429,
                    "headers": [(b"content-type", b"application/json"), *headers]})
        await send({"type": "websocket.http.response.body", "body": body})
        return
    await send({"type": "websocket.close", "code": 1008, "reason": str(error)})
