"""Errors split by cause. Bad input is always a ``ValueError`` subclass.

Each class carries what the server answers with it: ``code`` (the ``"error"`` of a REST body or
a WebSocket ``error`` message), ``status`` (the HTTP status of a REST answer) and ``details()``
(the fields sent beside the message), so one lookup serves REST and WebSocket alike
(``dealerpoker.server.errors.error_fields``).

>>> error = BetLimitError("ante: 5 is outside the table limits (min 10, max 100)", field="ante")
>>> error.code, error.status, error.details()
('bet_limit', 422, {'field': 'ante'})

An error a player can meet also carries a message ``key`` and its ``params``
(``dealerpoker.messages``): the page shows the catalogue's text in the player's language; API
clients read the English message, rendered from the same catalogue when the error is raised
with a key (so each English text is written once).

>>> error = BetLimitError(key="error.bet.outside_limits", field="ante", amount=5, min=100, max=500)
>>> str(error), error.key, error.params["min"]
('ante: 5 is outside the table limits (min 100, max 500)', 'error.bet.outside_limits', 100)
"""

from typing import Any


class DealerPokerError(Exception):
    """Base of every error this package raises on purpose.

    Raised with ``key`` (and the key's parameters as keyword arguments), its message is the
    English catalogue's text; without one, the message given (``key`` None: the page shows the
    text of the error's code).
    """

    def __init__(self, message: str | None = None, *, key: str | None = None, **params: Any) -> None:
        if message is None:
            if key is None:
                raise TypeError(f"{type(self).__name__} needs a message or a message key")
            from dealerpoker.messages import render

            message = render(key, params)
        super().__init__(message)
        self.key = key
        self.params: dict[str, Any] = params

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

    def __init__(self, message: str | None = None, *, phase: str = "", action: str = "",
                 **params: Any) -> None:
        super().__init__(message, phase=phase, action=action, **params)
        self.phase = phase
        self.action = action

    def details(self) -> dict[str, Any]:
        return {"phase": self.phase, "action": self.action}


class BetLimitError(DealerPokerError, ValueError):
    """A stake outside a field's limits, or on a field that is not open."""

    code = "bet_limit"

    def __init__(self, message: str | None = None, *, field: str = "", **params: Any) -> None:
        super().__init__(message, field=field, **params)
        self.field = field

    def details(self) -> dict[str, Any]:
        return {"field": self.field}


class InvalidRulesError(DealerPokerError, ValueError):
    """A rules or paytable file with a bad entry (the message names it)."""


class InsufficientFundsError(DealerPokerError, ValueError):
    """A stake the player's balance cannot cover."""

    code = "insufficient_funds"
    status = 409

    def __init__(self, message: str | None = None, *, balance: int = 0, needed: int = 0,
                 **params: Any) -> None:
        super().__init__(message, balance=balance, needed=needed, **params)
        self.balance = balance
        self.needed = needed

    def details(self) -> dict[str, Any]:
        return {"balance": self.balance, "needed": self.needed}


class InvalidSeedError(DealerPokerError, ValueError):
    """A provably-fair input that is not valid: server seed, client seed or nonce."""

    code = "invalid_seed"
