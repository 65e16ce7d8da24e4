"""Money: integer minor units (e.g. cents), never floats.

Payouts are quoted "N to 1": a winning stake comes back with N times the stake on top.

>>> returned_on_win(100, 3), returned_on_push(100), returned_on_loss(100)
(400, 100, 0)
>>> require_amount("ante", 2.5)
Traceback (most recent call last):
...
dealerpoker.errors.BetLimitError: ante: amount must be a whole number of minor units, got 2.5
"""

from __future__ import annotations

from dealerpoker.errors import BetLimitError

#: A sum of money in integer minor units (cents).
Money = int

MAX_AMOUNT: Money = 2**53 - 1
"""The largest amount of money anywhere, in minor units (9,007,199,254,740,991): a stake, a
balance, a credit or adjustment, an amount in a query, a balance a wallet answers, a jackpot. It
is the largest integer a browser's JavaScript number holds exactly (so a page shows every amount
to the cent), and 1,024 such amounts still sum within a 64-bit column, on SQLite and PostgreSQL
alike. Every edge that takes an amount refuses a larger one (or a negative one where none is
allowed) with an error naming it (``games.currency.check_amount``)."""


def require_amount(field: str, amount: object) -> Money:
    """``amount`` as a non-negative ``int``; anything else is a :class:`BetLimitError` naming ``field``."""
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise BetLimitError(key="error.bet.not_whole", field=field, amount=repr(amount))
    if amount < 0:
        raise BetLimitError(key="error.bet.negative", field=field, amount=amount)
    return amount


def returned_on_win(stake: Money, pays: int) -> Money:
    """Stake plus winnings for a bet that pays ``pays`` to 1."""
    return stake * (pays + 1)


def returned_on_push(stake: Money) -> Money:
    """A stand-off: the stake comes back, nothing more."""
    return stake


def returned_on_loss(stake: Money) -> Money:
    """A lost bet returns nothing."""
    del stake
    return 0
