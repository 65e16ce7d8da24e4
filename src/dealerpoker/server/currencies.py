"""The currencies a server offers: their exponents, and per currency the demo players' starting
balance, the betting limits and the chips (``serve --currencies FILE``; the shipped
``currencies.toml`` by default).

Each currency plays every game under the game's rules with that currency's limits and chips
merged over them, so a round's rules (and their fingerprint) name its currency's table. Every
bad entry is refused at start with the file and the entry named, as the tables file is.

>>> currencies = parse_currencies('''
... default = "JPY"
... [currencies.JPY]
... starting_balance = 50000
... chips = [100, 500]
... [currencies.JPY.limits]
... ante = { min = 100, max = 5000 }
... [currencies.mBTC]
... exponent = 5
... symbol = "mBTC"
... chips = [1000]
... limits.ante = { min = 1000, max = 100000 }
... limits.bonus = { min = 1000, max = 100000 }
... limits.aa = { min = 1000, max = 100000 }
... ''')
>>> currencies.default, currencies.codes
('JPY', ('JPY', 'mBTC'))
>>> currencies["mBTC"].currency, currencies["JPY"].starting_balance
(Currency(code='mBTC', exponent=5, symbol='mBTC'), 50000)
>>> currencies["JPY"].rules("casino-holdem").limits["ante"].min
100
>>> parse_currencies('default = "EUR"\\n[currencies.EUR]\\nchips = [50, 100]')  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealerpoker.server.currencies.InvalidCurrenciesError: currencies: currencies.EUR: ...: chips: 50 is below ...
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from dealerpoker.errors import InvalidRulesError
from dealerpoker.games.currency import Currency, UnknownCurrencyError, iso_currency
from dealerpoker.games.rules import ALL_FIELDS, GAMES, Rules, field_overrides, load_rules

_ENTRY_KEYS = {"exponent", "symbol", "starting_balance", "chips", "limits"}


class InvalidCurrenciesError(InvalidRulesError):
    """A currencies file with a bad entry (the message names the file and the entry)."""


@dataclass(frozen=True, slots=True)
class CurrencyTable:
    """One currency as this server plays it: its starting balance, limits and chips."""

    currency: Currency
    starting_balance: int | None = None
    """A new demo player's balance in minor units (None: the server's ``starting_balance``)."""
    limits: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    """Betting field -> ``{"min", "max"}`` in this currency's minor units (default: the rules')."""
    chips: tuple[int, ...] | None = None
    """Chip denominations in minor units (default: the rules')."""
    rules_files: Mapping[str, str] = field(default_factory=dict, compare=False)
    """Game -> a rules file merged before this currency's limits and chips (``serve --rules``)."""

    def overrides(self, game: str) -> dict[str, Any]:
        """What this currency changes in ``game``'s rules."""
        return field_overrides(game, self.limits, self.chips)

    def rules(self, game: str, extra: Mapping[str, Any] | None = None) -> Rules:
        """``game``'s rules in this currency (``extra``: an operator's own overrides on top)."""
        overrides = self.overrides(game)
        if extra:
            overrides = {**overrides, **extra}
        return load_rules(game, self.rules_files.get(game), overrides=overrides)


@dataclass(frozen=True, slots=True)
class Currencies:
    """The currencies players may hold here, and the one a demo player gets by default."""

    default: str
    tables: Mapping[str, CurrencyTable]

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(self.tables)

    def __getitem__(self, code: str) -> CurrencyTable:
        table = self.tables.get(code) if isinstance(code, str) else None
        if table is None:
            raise UnknownCurrencyError(
                f"currency {code!r}: not offered here (currencies: {', '.join(self.tables)})")
        return table

    def currency(self, code: str) -> Currency:
        return self[code].currency

    def with_rules_files(self, rules_files: Mapping[str, str]) -> Currencies:
        """The same currencies with ``serve --rules`` files under each currency's settings."""
        return Currencies(self.default, {
            code: CurrencyTable(table.currency, table.starting_balance, table.limits, table.chips,
                                dict(rules_files))
            for code, table in self.tables.items()})


def default_currencies_text() -> str:
    return resources.files("dealerpoker.server").joinpath("currencies.toml").read_text("utf-8")


def load_currencies(path: str | Path | None = None) -> Currencies:
    """The currencies of a TOML file; the shipped ``currencies.toml`` when ``path`` is None."""
    if path is None:
        return parse_currencies(default_currencies_text(), where="currencies.toml")
    try:
        text = Path(path).read_text("utf-8")
    except OSError as error:
        raise InvalidCurrenciesError(f"{path}: cannot read currencies file: {error.strerror}") from None
    return parse_currencies(text, where=str(path))


def parse_currencies(text: str, *, where: str = "currencies") -> Currencies:
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InvalidCurrenciesError(f"{where}: not valid TOML: {error}") from None
    unknown = set(document) - {"default", "currencies"}
    if unknown:
        raise InvalidCurrenciesError(f"{where}: {sorted(unknown)[0]}: unknown entry (expected default and "
                                     "[currencies.CODE] entries)")
    entries = document.get("currencies")
    if not isinstance(entries, Mapping) or not entries:
        raise InvalidCurrenciesError(f"{where}: currencies: expected at least one [currencies.CODE] entry")
    tables = {code: _table(code, entry, f"{where}: currencies.{code}") for code, entry in entries.items()}
    default = document.get("default")
    if default not in tables:
        raise InvalidCurrenciesError(
            f"{where}: default: expected one of the currencies ({', '.join(tables)}), got {default!r}")
    return Currencies(str(default), tables)


def _table(code: str, entry: Any, where: str) -> CurrencyTable:
    if not isinstance(entry, Mapping):
        raise InvalidCurrenciesError(f"{where}: expected a table")
    unknown = set(entry) - _ENTRY_KEYS
    if unknown:
        raise InvalidCurrenciesError(f"{where}.{sorted(unknown)[0]}: unknown entry")
    currency = _currency(code, entry, where)
    balance = entry.get("starting_balance")
    if balance is not None and (isinstance(balance, bool) or not isinstance(balance, int) or balance < 0):
        raise InvalidCurrenciesError(f"{where}.starting_balance: expected an integer >= 0, got {balance!r}")
    limits = entry.get("limits", {})
    if not isinstance(limits, Mapping):
        raise InvalidCurrenciesError(f"{where}.limits: expected fields such as ante = {{ min, max }}")
    for name, limit in limits.items():
        if name not in ALL_FIELDS:
            raise InvalidCurrenciesError(
                f"{where}.limits.{name}: unknown betting field (fields: {', '.join(ALL_FIELDS)})")
        if not isinstance(limit, Mapping) or set(limit) != {"min", "max"}:
            raise InvalidCurrenciesError(f"{where}.limits.{name}: expected {{ min = N, max = N }}")
    chips = entry.get("chips")
    if chips is not None and not isinstance(chips, list):
        raise InvalidCurrenciesError(f"{where}.chips: expected a list of denominations (minor units)")
    table = CurrencyTable(currency, balance, {name: dict(limit) for name, limit in limits.items()},
                          None if chips is None else tuple(chips))
    for game in GAMES:  # each game's rules in this currency must be valid rules
        try:
            table.rules(game)
        except InvalidRulesError as error:
            raise InvalidCurrenciesError(f"{where}: {error}") from None
    return table


def _currency(code: str, entry: Mapping[str, Any], where: str) -> Currency:
    exponent, symbol = entry.get("exponent"), entry.get("symbol")
    try:
        if exponent is None and symbol is None:
            return iso_currency(code)
        if exponent is None or not isinstance(symbol, str) or not symbol.strip() or len(symbol) > 8:
            raise InvalidCurrenciesError(
                f"{where}: a currency ISO 4217 does not list needs exponent (0-8) and symbol "
                "(1-8 characters)")
        try:
            iso_currency(code)
        except UnknownCurrencyError:
            return Currency(code, exponent, symbol)
        raise InvalidCurrenciesError(f"{where}: {code} is an ISO 4217 currency: its exponent comes from ISO "
                                     "(remove exponent and symbol)")
    except UnknownCurrencyError as error:
        raise InvalidCurrenciesError(f"{where}: {error}") from None
