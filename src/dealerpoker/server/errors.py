"""Errors of the server layer, and the one lookup that turns any error of the package into what
the wire carries (REST: ``dealerpoker.server.api.errors``; WebSocket: ``dealerpoker.server.live``).

Each error class names its own ``code`` and HTTP ``status`` (see ``dealerpoker.errors``).

>>> error_fields(NotFoundError("no round 'r_1'"))
{'error': 'not_found', 'message': "no round 'r_1'"}
>>> error_fields(WrongCurrencyError(key="error.wrong_currency", table_currency="EUR", currency="JPY"))["key"]
'error.wrong_currency'
"""

from __future__ import annotations

from typing import Any

from dealerpoker.errors import DealerPokerError


def error_fields(error: DealerPokerError) -> dict[str, Any]:
    """``{"error": code, "message": text, **details}`` for a REST body or a WebSocket message,
    with the message's catalogue ``key`` and ``params`` when it has them (pages show the text
    in the player's language; ``dealerpoker.messages``)."""
    fields = {"error": error.code, "message": str(error), **error.details()}
    if error.key is not None:
        fields.update(key=error.key, params=error.params)
    return fields


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


class WrongCurrencyError(DealerPokerError, ValueError):
    """A bet at a table that plays in another currency than the player's account."""

    code = "wrong_currency"
    status = 409


class UnknownParameterError(DealerPokerError, ValueError):
    """A query parameter the operation does not take."""
