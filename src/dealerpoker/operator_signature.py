"""The signature of every request between dealerpoker and an operator, both ways: what is signed,
how to sign a request and how to check one. Standard library only; the server (operator API,
wallet client) and the reference operator (``dealerpoker operator-demo``) both use it, and
neither imports the other.

A signed request carries three headers (besides ``X-Operator-Id`` on requests to dealerpoker):

* ``X-Signature-Timestamp``: the Unix time it was signed, whole seconds (decimal digits);
* ``X-Signature-Nonce``: 16 to 128 characters of ``A-Z a-z 0-9 - _``, never used before;
* ``X-Signature``: the hex HMAC-SHA256, under the secret the two sides share, of the bytes::

    DP-HMAC-SHA256-2 LF METHOD LF TARGET LF TIMESTAMP LF NONCE LF hex(SHA-256(BODY))

  where ``METHOD`` is upper case, ``TARGET`` is the path exactly as sent, with ``?`` and the raw
  query string when there is one (``/operator/v1/transactions?since=2026-01-01&until=2026-01-02``),
  and ``BODY`` is the raw body (empty for a GET). Each line ends with one LF (0x0A) but the last.

A request is refused when a header is missing or malformed, the timestamp is more than
:data:`WINDOW_SECONDS` away from the receiver's clock, the signature is wrong, or (the receiver's
part: :class:`NonceMemory`, or the server's database) the nonce was seen before from that sender.
The same bytes sent again are therefore refused, and a signature made for one method, path or
query is refused on another.

>>> secret = b"0123456789abcdef"
>>> headers = sign_request(secret, "POST", "/operator/v1/launch", b"{}", now=1_700_000_000,
...                        nonce="n-0123456789abcdef")
>>> headers[TIMESTAMP_HEADER], headers[NONCE_HEADER], len(headers[SIGNATURE_HEADER])
('1700000000', 'n-0123456789abcdef', 64)
>>> verify_request(secret, "POST", "/operator/v1/launch", b"{}", headers, now=1_700_000_100)
Signed(timestamp=1700000000, nonce='n-0123456789abcdef')
>>> verify_request(secret, "POST", "/operator/v1/other", b"{}", headers, now=1_700_000_100)
Traceback (most recent call last):
...
dealerpoker.operator_signature.RequestSignatureError: wrong X-Signature: expected the hex HMAC-SHA256 ...
>>> verify_request(secret, "POST", "/operator/v1/launch", b"{}", headers, now=1_700_000_301)
Traceback (most recent call last):
...
dealerpoker.operator_signature.RequestSignatureError: X-Signature-Timestamp 1700000000 is 301 s from ...
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

SCHEME = "DP-HMAC-SHA256-2"
"""The first line of what is signed (a later scheme would change it)."""
SIGNATURE_HEADER = "X-Signature"
TIMESTAMP_HEADER = "X-Signature-Timestamp"
NONCE_HEADER = "X-Signature-Nonce"
OPERATOR_HEADER = "X-Operator-Id"
WINDOW_SECONDS = 300
"""How far (either way) a request's timestamp may be from the receiver's clock; a nonce is kept
at least twice this long, so a request is never accepted twice."""
NONCE_PATTERN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
Scheme = Literal["request", "body-only"]
"""An operator's signature scheme: ``request`` (this module's, the default) or ``body-only``
(the old one, HMAC of the body alone, kept only where an operator's setting asks for it)."""


class RequestSignatureError(ValueError):
    """A request without a valid signature; the message names what is wrong (never the secret)."""


@dataclass(frozen=True, slots=True)
class Signed:
    """A request whose signature checked: when it was signed and its nonce (not yet recorded)."""

    timestamp: int
    nonce: str


def _key(secret: bytes | str) -> bytes:
    return secret.encode() if isinstance(secret, str) else secret


def request_target(path: bytes | str, query: bytes | str = b"") -> str:
    """The ``TARGET`` line: the path as sent, with ``?query`` when there is a query.

    >>> request_target(b"/operator/v1/transactions", b"since=2026-01-01&until=2026-01-02")
    '/operator/v1/transactions?since=2026-01-01&until=2026-01-02'
    >>> request_target("/operator/v1/launch")
    '/operator/v1/launch'
    """
    text = path.decode("latin-1") if isinstance(path, bytes) else path
    tail = query.decode("latin-1") if isinstance(query, bytes) else query
    return f"{text}?{tail}" if tail else text


def asgi_target(scope: Mapping[str, Any]) -> str:
    """The ``TARGET`` line of an ASGI request (Starlette's ``request.scope``): its raw path and
    query as received."""
    path = scope.get("raw_path") or str(scope["path"]).encode()
    return request_target(path, scope.get("query_string", b""))


def string_to_sign(method: str, target: str, timestamp: str, nonce: str, body: bytes) -> bytes:
    """The exact bytes the HMAC covers (see the module's description)."""
    lines = (SCHEME, method.upper(), target, timestamp, nonce, hashlib.sha256(body).hexdigest())
    return "\n".join(lines).encode("latin-1")


def signature(secret: bytes | str, method: str, target: str, timestamp: str, nonce: str,
              body: bytes) -> str:
    """The ``X-Signature`` of a request: hex HMAC-SHA256 of :func:`string_to_sign`."""
    return hmac.new(_key(secret), string_to_sign(method, target, timestamp, nonce, body),
                    hashlib.sha256).hexdigest()


def sign_request(secret: bytes | str, method: str, target: str, body: bytes = b"", *,
                 now: float | None = None, nonce: str | None = None) -> dict[str, str]:
    """The three signature headers of a request (a fresh random nonce unless one is given)."""
    stamp = str(int(time.time() if now is None else now))
    nonce = secrets.token_urlsafe(24) if nonce is None else nonce
    return {TIMESTAMP_HEADER: stamp, NONCE_HEADER: nonce,
            SIGNATURE_HEADER: signature(secret, method, target, stamp, nonce, body)}


def _header(headers: Mapping[str, str], name: str) -> str | None:
    found = headers.get(name)
    return headers.get(name.lower()) if found is None else found


def verify_request(secret: bytes | str, method: str, target: str, body: bytes,
                   headers: Mapping[str, str], *, now: float | None = None,
                   window: int = WINDOW_SECONDS) -> Signed:
    """The request's timestamp and nonce once its signature checks and its timestamp is within
    ``window`` seconds of ``now``; else :class:`RequestSignatureError`. The caller then records the
    nonce (refusing one it has seen: :meth:`NonceMemory.first_use`, or the server's database)."""
    stamp, nonce, given = (_header(headers, name) for name in
                           (TIMESTAMP_HEADER, NONCE_HEADER, SIGNATURE_HEADER))
    if not stamp or not stamp.isascii() or not stamp.isdigit() or len(stamp) > 12:
        raise RequestSignatureError(f"missing or malformed {TIMESTAMP_HEADER}: expected the Unix time "
                                    "in whole seconds")
    if not nonce or not NONCE_PATTERN.match(nonce):
        raise RequestSignatureError(f"missing or malformed {NONCE_HEADER}: expected 16 to 128 characters "
                                    "of A-Z a-z 0-9 - _")
    moment = int(stamp)
    skew = abs(int(time.time() if now is None else now) - moment)
    if skew > window:
        raise RequestSignatureError(f"{TIMESTAMP_HEADER} {moment} is {skew} s from this server's clock "
                                    f"(at most {window} s allowed)")
    expected = signature(secret, method, target, stamp, nonce, body)
    if not given or not hmac.compare_digest(expected, given.strip().lower().encode("ascii", "replace")
                                            .decode("ascii")):
        raise RequestSignatureError(f"wrong {SIGNATURE_HEADER}: expected the hex HMAC-SHA256 of the "
                                    "request's method, path, timestamp, nonce and body hash "
                                    "(docs/operators.md#signatures)")
    return Signed(moment, nonce)


def is_request_signed(headers: Mapping[str, str]) -> bool:
    """Whether a request carries this scheme's headers (an operator in ``body-only`` mode may
    send either scheme while it migrates)."""
    return bool(_header(headers, TIMESTAMP_HEADER) or _header(headers, NONCE_HEADER))


def sign_body(secret: bytes | str, body: bytes) -> str:
    """The old ``body-only`` ``X-Signature``: hex HMAC-SHA256 of the body alone. Replayable on any
    path: used only for an operator whose settings ask for it."""
    return hmac.new(_key(secret), body, hashlib.sha256).hexdigest()


def verify_body(secret: bytes | str, body: bytes, given: str | None) -> bool:
    """Whether ``given`` is the ``body-only`` signature of ``body`` (compared in constant time)."""
    if not given:
        return False
    return hmac.compare_digest(sign_body(secret, body),
                               given.strip().lower().encode("ascii", "replace").decode("ascii"))


class NonceMemory:
    """The nonces one process has seen in the last ``2 * window`` seconds, for a receiver that is
    a single process (the reference operator). Several processes must share theirs (the server
    keeps them in its database)."""

    def __init__(self, window: int = WINDOW_SECONDS) -> None:
        self.window = window
        self._seen: dict[str, float] = {}
        self._swept = 0.0

    def first_use(self, nonce: str, *, now: float | None = None) -> bool:
        """Record ``nonce``; False if it was seen before (a replay)."""
        moment = time.time() if now is None else now
        if moment - self._swept > self.window:
            self._seen = {seen: until for seen, until in self._seen.items() if until > moment}
            self._swept = moment
        if nonce in self._seen:
            return False
        self._seen[nonce] = moment + 2 * self.window
        return True
