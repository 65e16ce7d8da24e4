"""What a server offers: each game in each of its currencies, as an engine with that currency's
rules (limits and chips), built once at start.

A round is played by the engine of its game and its currency (both stored with the round), so
a JPY round is checked against the JPY limits and its record cites the JPY rules' fingerprint.

>>> from dealerpoker.server.currencies import load_currencies
>>> offer = Offer.build(load_currencies())
>>> offer.game("casino-holdem", "JPY").rules.limits["ante"].min, offer.default_currency
(100, 'EUR')
>>> offer.game("casino-holdem", "XYZ")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealerpoker.games.currency.UnknownCurrencyError: currency 'XYZ': not offered here (currencies: EUR, ...)
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from dealerpoker.games import GAMES, AnyGame, get_game
from dealerpoker.games.currency import Currency
from dealerpoker.server.currencies import Currencies
from dealerpoker.server.errors import UnknownGameError


@dataclass(frozen=True, slots=True)
class Offer:
    currencies: Currencies
    engines: Mapping[str, Mapping[str, AnyGame]]
    """Currency code -> game id -> the game's engine under that currency's rules."""

    @classmethod
    def build(cls, currencies: Currencies) -> Offer:
        return cls(currencies, {code: {name: get_game(name, table.rules(name)) for name in GAMES}
                                for code, table in currencies.tables.items()})

    @property
    def default_currency(self) -> str:
        return self.currencies.default

    def games(self, currency: str | None = None) -> Mapping[str, AnyGame]:
        """Every game's engine in ``currency`` (default: the default currency)."""
        code = self.currencies.default if currency is None else currency
        self.currencies[code]
        return self.engines[code]

    def game(self, name: str, currency: str) -> AnyGame:
        games = self.games(currency)
        try:
            return games[name]
        except (KeyError, TypeError):
            raise UnknownGameError(f"unknown game {name!r} (games: {', '.join(games)})") from None

    def table_overrides(self, currency: str | None, game: str) -> dict[str, Any]:
        """What a live table in ``currency`` (None: the default) changes in ``game``'s rules."""
        return self.currencies[self.default_currency if currency is None else currency].overrides(game)

    def currency(self, code: str) -> Currency:
        return self.currencies.currency(code)

    def currency_code_of(self, engine: AnyGame) -> str:
        """The currency whose rules ``engine`` plays (one of this offer's engines)."""
        for code, games in self.engines.items():
            if games.get(engine.name) is engine:
                return code
        raise ValueError(f"{engine!r} is not one of this offer's engines")

    def with_rules(self, game: str, extra: Mapping[str, Any]) -> Offer:
        """This offer with ``game``'s engine in every currency rebuilt with ``extra`` merged over
        its rules (the back office's saved paytable versions; limits and chips stay each
        currency's)."""
        return Offer(self.currencies, {
            code: {**games, game: get_game(game, self.currencies.tables[code].rules(game, extra))}
            for code, games in self.engines.items()})

    def all_engines(self) -> Iterator[AnyGame]:
        """Every engine of every currency (their rules documents are stored at start)."""
        for games in self.engines.values():
            yield from games.values()
