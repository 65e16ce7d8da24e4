"""Errors of the server layer (the API maps each to an HTTP status and an error code)."""

from __future__ import annotations

from dealerpoker.errors import DealerPokerError


class NotFoundError(DealerPokerError, ValueError):
    """No such round (or other resource)."""


class ForbiddenError(DealerPokerError, ValueError):
    """The resource belongs to another player."""


class ConflictError(DealerPokerError, ValueError):
    """The request contradicts what already happened (an idempotency key reused differently)."""


class UnknownGameError(DealerPokerError, ValueError):
    """A game id the server does not offer."""


class WrongCurrencyError(DealerPokerError, ValueError):
    """A bet at a table that plays in another currency than the player's account."""


class UnknownParameterError(DealerPokerError, ValueError):
    """A query parameter the operation does not take."""
