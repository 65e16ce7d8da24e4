"""Signatures of the requests between dealerpoker and an operator, both ways: the header
``X-Signature`` is the hex HMAC-SHA256 of the raw body under the operator's shared secret.

>>> body = b'{"player": "u1"}'
>>> signature = sign(b"0123456789abcdef", body)
>>> len(signature), verify(b"0123456789abcdef", body, signature)
(64, True)
>>> verify(b"0123456789abcdef", body + b" ", signature), verify(b"another secret!!", body, signature)
(False, False)
>>> verify(b"0123456789abcdef", body, None), verify(b"0123456789abcdef", body, "not hex")
(False, False)
"""

from __future__ import annotations

import hashlib
import hmac

from dealerpoker.errors import DealerPokerError

SIGNATURE_HEADER = "X-Signature"
OPERATOR_HEADER = "X-Operator-Id"


class SignatureError(DealerPokerError, ValueError):
    """A request from an operator without a valid signature (nothing is done)."""

    code = "invalid_signature"
    status = 401


def sign(secret: bytes, body: bytes) -> str:
    """The hex HMAC-SHA256 of ``body`` under ``secret``."""
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, signature: str | None) -> bool:
    """Whether ``signature`` (a header's value) signs ``body`` (compared in constant time)."""
    if not signature:
        return False
    return hmac.compare_digest(
        sign(secret, body), signature.strip().lower().encode("ascii", "replace").decode("ascii")
    )
