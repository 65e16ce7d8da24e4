"""Currencies: a code and the number of decimals of its minor unit (the ISO 4217 exponent).

Money is always an integer of the currency's minor units (``games.money``); the exponent says
how many of them make one unit: EUR 2 (cents), JPY 0 (yen have no minor unit), KWD 3 (fils).
The ISO 4217 table comes from the ``iso4217`` package (the maintenance agency's list); a
deployment may add currencies ISO does not list, such as ``mBTC`` with 5 decimals.

>>> iso_currency("JPY"), iso_currency("KWD").exponent
(Currency(code='JPY', exponent=0, symbol=None), 3)
>>> format_minor(123456, iso_currency("EUR")), format_minor(123456, iso_currency("JPY"))
('1234.56', '123456')
>>> format_minor(-5, Currency("mBTC", 5, "mBTC"))
'-0.00005'
>>> iso_currency("XAU")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealerpoker.games.currency.UnknownCurrencyError: XAU: not an ISO 4217 currency with a minor unit ...
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.money import MAX_AMOUNT

#: A currency code: ISO's three capital letters, or a configured code of 2-8 letters (``mBTC``).
CODE = re.compile(r"^[A-Za-z]{2,8}$")
#: The currency of a deployment that names none (and of amounts stored before currencies).
DEFAULT_CURRENCY = "EUR"
#: The most decimals a configured currency may have (minor units stay exact 64-bit integers).
MAX_EXPONENT = 8


class AmountRangeError(DealerPokerError, ValueError):
    """An amount outside 0..``MAX_AMOUNT`` (or its negative where a debit is allowed)."""

    code = "invalid_amount"
    status = 422


def check_amount(amount: int, name: str, *, negative: bool = False) -> int:
    """``amount`` if it is within the maximum (and not negative unless ``negative``); else
    :class:`AmountRangeError` naming it.

    >>> check_amount(2**53 - 1, "amount")
    9007199254740991
    >>> check_amount(2**62, "amount")
    Traceback (most recent call last):
    ...
    dealerpoker.games.currency.AmountRangeError: amount: 4611686018427387904 is more than the maximum ...
    """
    if abs(amount) > MAX_AMOUNT:
        raise AmountRangeError(f"{name}: {amount} is more than the maximum amount, {MAX_AMOUNT} minor units")
    if amount < 0 and not negative:
        raise AmountRangeError(f"{name}: {amount} is negative")
    return amount


class UnknownCurrencyError(DealerPokerError, ValueError):
    """A currency code that is neither in ISO 4217 nor configured."""

    code = "unknown_currency"
    status = 422


@dataclass(frozen=True, slots=True)
class Currency:
    """A currency: ``code`` and ``exponent`` (minor units per unit = 10 ** exponent).

    ``symbol`` is what a page shows beside amounts of a currency ISO does not list (browsers
    format ISO codes themselves: ``1.000,00 €``); None for ISO currencies.
    """

    code: str
    exponent: int
    symbol: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.code, str) or not CODE.match(self.code):
            raise UnknownCurrencyError(
                f"currency code: expected 2-8 letters such as EUR or mBTC, got {self.code!r}")
        if isinstance(self.exponent, bool) or not isinstance(self.exponent, int) \
                or not 0 <= self.exponent <= MAX_EXPONENT:
            raise UnknownCurrencyError(
                f"{self.code}: exponent must be an integer 0..{MAX_EXPONENT}, got {self.exponent!r}")

    @property
    def is_iso(self) -> bool:
        return self.symbol is None

    def to_dict(self) -> dict[str, object]:
        """What the API says about a currency (pages format amounts with it)."""
        return {"code": self.code, "exponent": self.exponent, "symbol": self.symbol}


@cache
def iso_currency(code: str) -> Currency:
    """The ISO 4217 currency ``code`` (three capital letters) with its exponent."""
    from iso4217 import Currency as IsoCurrency

    try:
        iso = IsoCurrency(code) if isinstance(code, str) and len(code) == 3 and code.isupper() else None
    except ValueError:
        iso = None
    if iso is None or iso.exponent is None:
        raise UnknownCurrencyError(f"{code}: not an ISO 4217 currency with a minor unit "
                                   "(a precious metal or fund code, or unknown)")
    return Currency(code, int(iso.exponent))


HOUSE_PREFIX = "house:"


def house_account(code: str) -> str:
    """The ledger account of the house in currency ``code``: the other side of every stake and
    every return of players in that currency (one per currency, so no account mixes them).

    >>> house_account("JPY"), is_house_account("house:JPY"), is_house_account("p_1")
    ('house:JPY', True, False)
    """
    return HOUSE_PREFIX + code


def is_house_account(account: str) -> bool:
    """Whether ``account`` is a house account (``house`` in records made before currencies)."""
    return account == "house" or account.startswith(HOUSE_PREFIX)


def format_minor(amount: int, currency: Currency) -> str:
    """``amount`` minor units as a plain decimal number of units (no grouping, no symbol): the
    locale-neutral form for logs, messages to API clients and the command line. Pages format
    amounts for the player's language themselves."""
    sign = "-" if amount < 0 else ""
    whole, minor = divmod(abs(amount), 10 ** currency.exponent)
    if currency.exponent == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{minor:0{currency.exponent}d}"
