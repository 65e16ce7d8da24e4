"""Errors split by cause. Bad input is always a ``ValueError`` subclass."""


class DealerPokerError(Exception):
    """Base of every error this package raises on purpose."""


class InvalidCardError(DealerPokerError, ValueError):
    """A card token that is not a card (unknown rank or suit, out-of-range index)."""


class InvalidHandError(DealerPokerError, ValueError):
    """A set of cards that is not a hand: wrong count, duplicated card."""


class IllegalActionError(DealerPokerError, ValueError):
    """An action that the round's rules do not allow in its current phase."""

    def __init__(self, message: str, *, phase: str = "", action: str = "") -> None:
        super().__init__(message)
        self.phase = phase
        self.action = action


class BetLimitError(DealerPokerError, ValueError):
    """A stake outside a field's limits, or on a field that is not open."""

    def __init__(self, message: str, *, field: str = "") -> None:
        super().__init__(message)
        self.field = field


class InvalidRulesError(DealerPokerError, ValueError):
    """A rules or paytable file with a bad entry (the message names it)."""


class InsufficientFundsError(DealerPokerError, ValueError):
    """A stake the player's balance cannot cover."""

    def __init__(self, message: str, *, balance: int = 0, needed: int = 0) -> None:
        super().__init__(message)
        self.balance = balance
        self.needed = needed


class InvalidSeedError(DealerPokerError, ValueError):
    """A provably-fair input that is not valid: server seed, client seed or nonce."""
