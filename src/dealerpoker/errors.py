"""Errors split by cause. Bad input is always a ``ValueError`` subclass.

Each class carries what the server answers with it: ``code`` (the ``"error"`` of a REST body or
a WebSocket ``error`` message), ``status`` (the HTTP status of a REST answer) and ``details()``
(the fields sent beside the message), so one lookup serves REST and WebSocket alike
(``dealerpoker.server.errors.error_fields``).

>>> error = BetLimitError("ante: 5 is outside the table limits (min 10, max 100)", field="ante")
>>> error.code, error.status, error.details()
('bet_limit', 422, {'field': 'ante'})
"""

from typing import Any


class DealerPokerError(Exception):
    """Base of every error this package raises on purpose."""

    #: The error's code on the wire; a subclass names its cause.
    code: str = "invalid_request"
    #: The HTTP status of a REST answer with this error.
    status: int = 422

    def details(self) -> dict[str, Any]:
        """The fields sent beside ``code`` and the message (none unless a subclass has some)."""
        return {}


class InvalidCardError(DealerPokerError, ValueError):
    """A card token that is not a card (unknown rank or suit, out-of-range index)."""


class InvalidHandError(DealerPokerError, ValueError):
    """A set of cards that is not a hand: wrong count, duplicated card."""


class IllegalActionError(DealerPokerError, ValueError):
    """An action that the round's rules do not allow in its current phase."""

    code = "illegal_action"
    status = 409

    def __init__(self, message: str, *, phase: str = "", action: str = "") -> None:
        super().__init__(message)
        self.phase = phase
        self.action = action

    def details(self) -> dict[str, Any]:
        return {"phase": self.phase, "action": self.action}


class BetLimitError(DealerPokerError, ValueError):
    """A stake outside a field's limits, or on a field that is not open."""

    code = "bet_limit"

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field

    def details(self) -> dict[str, Any]:
        return {"field": self.field}


class InvalidRulesError(DealerPokerError, ValueError):
    """A rules or paytable file with a bad entry (the message names it)."""


class InsufficientFundsError(DealerPokerError, ValueError):
    """A stake the player's balance cannot cover."""

    code = "insufficient_funds"
    status = 409

    def __init__(self, message: str, *, balance: int = 0, needed: int = 0) -> None:
        super().__init__(message)
        self.balance = balance
        self.needed = needed

    def details(self) -> dict[str, Any]:
        return {"balance": self.balance, "needed": self.needed}


class InvalidSeedError(DealerPokerError, ValueError):
    """A provably-fair input that is not valid: server seed, client seed or nonce."""

    code = "invalid_seed"
