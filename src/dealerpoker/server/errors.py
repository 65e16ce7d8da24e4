"""Errors of the server layer, and the one lookup that turns any error of the package into what
the wire carries (REST: ``dealerpoker.server.api.errors``; WebSocket: ``dealerpoker.server.live``).

Each error class names its own ``code`` and HTTP ``status`` (see ``dealerpoker.errors``).

>>> error_fields(NotFoundError("no round 'r_1'"))
{'error': 'not_found', 'message': "no round 'r_1'"}
"""

from __future__ import annotations

from typing import Any

from dealerpoker.errors import DealerPokerError


def error_fields(error: DealerPokerError) -> dict[str, Any]:
    """``{"error": code, "message": text, **details}`` for a REST body or a WebSocket message."""
    return {"error": error.code, "message": str(error), **error.details()}


class NotFoundError(DealerPokerError, ValueError):
    """No such round (or other resource)."""

    code = "not_found"
    status = 404


class ForbiddenError(DealerPokerError, ValueError):
    """The resource belongs to another player."""

    code = "forbidden"
    status = 403


class ConflictError(DealerPokerError, ValueError):
    """The request contradicts what already happened (an idempotency key reused differently)."""

    code = "conflict"
    status = 409


class UnknownGameError(DealerPokerError, ValueError):
    """A game id the server does not offer."""

    code = "unknown_game"


class UnknownParameterError(DealerPokerError, ValueError):
    """A query parameter the operation does not take."""
