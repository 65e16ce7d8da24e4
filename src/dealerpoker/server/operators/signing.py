"""Signed operator requests, the server's side: every ``/operator/v1`` endpoint takes its operator
and raw body from one dependency, :data:`SignedByOperator`, which checks the request's signature
(:mod:`dealerpoker.operator_signature`: method, path with query, timestamp, nonce, body) and
records its nonce in the database, so a replay is refused by every process of the deployment.

A new signed endpoint is one parameter::

    @router.post("/operator/v1/something")
    async def something(signed: SignedByOperator) -> JSONResponse:
        found = parse(SomethingIn, signed.body)       # the raw body it signed
        ...signed.operator.id...

A request that fails is refused with 401 ``invalid_signature`` before the endpoint runs; nothing
is done. An operator whose settings say ``signature = "body-only"`` may still sign the body alone
(the old scheme, replayable: see docs/operators.md#migrating-from-body-only-signatures).
"""

from __future__ import annotations

import sqlite3
import weakref
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import delete, insert
from sqlalchemy.exc import IntegrityError

from dealerpoker.errors import DealerPokerError
from dealerpoker.operator_signature import (
    OPERATOR_HEADER,
    SIGNATURE_HEADER,
    WINDOW_SECONDS,
    RequestSignatureError,
    asgi_target,
    is_request_signed,
    verify_body,
    verify_request,
)
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.schema import operator_nonces
from dealerpoker.server.services import Services

__all__ = ["OPERATOR_HEADER", "SIGNATURE_HEADER", "SignatureError", "SignedByOperator", "SignedRequest",
           "signed_request"]

_SWEEP_SECONDS = 60.0
_last_sweep: weakref.WeakKeyDictionary[Database, float] = weakref.WeakKeyDictionary()


class SignatureError(DealerPokerError, ValueError):
    """A request from an operator without a valid signature (nothing is done)."""

    code = "invalid_signature"
    status = 401


@dataclass(frozen=True, slots=True)
class SignedRequest:
    """A request whose signature checked: who sent it and the raw body it signed."""

    operator: Operator
    body: bytes


async def signed_request(request: Request) -> SignedRequest:
    """The operator of a request and its body, once its signature checks and its nonce is new
    (else :class:`SignatureError`, 401)."""
    services: Services = request.app.state.services
    body = await request.body()
    operator = services.operators.get(request.headers.get(OPERATOR_HEADER, ""))
    if operator is None:
        raise SignatureError(f"unknown or missing {OPERATOR_HEADER}")
    if operator.signature == "body-only" and not is_request_signed(request.headers):
        signed_bytes = body or request.scope.get("query_string", b"")  # a GET signed its query
        if not verify_body(operator.secret, signed_bytes, request.headers.get(SIGNATURE_HEADER)):
            raise SignatureError(f"missing or wrong {SIGNATURE_HEADER}: expected the hex HMAC-SHA256 of the "
                                 "raw body under the operator's secret (body-only signatures)")
        return SignedRequest(operator, body)
    target = asgi_target(request.scope)
    now = services.clock()
    try:
        signed = verify_request(operator.secret, request.method, target, body, request.headers,
                                now=now.timestamp())
    except RequestSignatureError as error:
        raise SignatureError(str(error)) from None
    if not await first_use(services.database, operator.id, signed.nonce, now=now.timestamp()):
        raise SignatureError(f"X-Signature-Nonce {signed.nonce!r} was used before: a request is accepted "
                             "once (sign each request with a new nonce)")
    return SignedRequest(operator, body)


SignedByOperator = Annotated[SignedRequest, Depends(signed_request)]
"""An endpoint's parameter: the request is refused (401) unless an operator signed it."""


async def first_use(database: Database, operator_id: str, nonce: str, *, now: float) -> bool:
    """Record an operator's nonce; False if it was recorded before (a replay). Nonces older than
    twice the window are swept, at most once a minute by each process."""
    moment = datetime.fromtimestamp(now, UTC)
    expires = timestamp(moment + timedelta(seconds=2 * WINDOW_SECONDS))
    try:
        async with database.transaction() as connection:
            await connection.execute(insert(operator_nonces).values(
                operator_id=operator_id, nonce=nonce, expires_at=expires))
    except (IntegrityError, sqlite3.IntegrityError):
        return False
    if abs(now - _last_sweep.get(database, -_SWEEP_SECONDS)) >= _SWEEP_SECONDS:
        _last_sweep[database] = now
        async with database.transaction() as connection:
            await connection.execute(delete(operator_nonces).where(
                operator_nonces.c.expires_at < timestamp(moment)))
    return True
