"""What a server offers: each game in each of its currencies, as an engine with that currency's
rules (limits and chips), built once at start.

A round is played by the engine of its game and its currency (both stored with the round), so
a JPY round is checked against the JPY limits and its record cites the JPY rules' fingerprint.
An operator's player plays the engine of their operator in that currency: the currency's rules
narrowed by the operator's limits and chips (``operators.limits``; the same engine as the
server's players' when the operator sets none).

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

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerpoker.games import GAMES, AnyGame, get_game
from dealerpoker.games.currency import Currency
from dealerpoker.server.currencies import Currencies
from dealerpoker.server.errors import UnknownGameError
from dealerpoker.server.operators.config import Operator
from dealerpoker.server.operators.limits import player_rules


@dataclass(frozen=True, slots=True)
class Offer:
    currencies: Currencies
    engines: Mapping[str, Mapping[str, AnyGame]]
    """Currency code -> game id -> the game's engine under that currency's rules."""
    operators: Mapping[str, Operator] = field(default_factory=dict)
    by_operator: Mapping[tuple[str, str], Mapping[str, AnyGame]] = field(default_factory=dict)
    """(operator id, currency) -> game id -> the engine its players play in that currency."""

    @classmethod
    def build(cls, currencies: Currencies, operators: Sequence[Operator] = ()) -> Offer:
        engines = {code: {name: get_game(name, table.rules(name)) for name in GAMES}
                   for code, table in currencies.tables.items()}
        return cls(currencies, engines, {op.id: op for op in operators}, _by_operator(operators, engines))

    @property
    def default_currency(self) -> str:
        return self.currencies.default

    def games(self, currency: str | None = None, operator: str | None = None) -> Mapping[str, AnyGame]:
        """Every game's engine in ``currency`` (default: the default currency) for a player of
        ``operator`` (None: of this server; an operator unknown here, or without that currency,
        changes nothing)."""
        code = self.currencies.default if currency is None else currency
        self.currencies[code]
        found = self.by_operator.get((operator, code)) if operator is not None else None
        return self.engines[code] if found is None else found

    def game(self, name: str, currency: str, operator: str | None = None) -> AnyGame:
        games = self.games(currency, operator)
        try:
            return games[name]
        except (KeyError, TypeError):
            raise UnknownGameError(f"unknown game {name!r} (games: {', '.join(games)})") from None

    def menu_key(self, currency: str, operator: str | None = None) -> str:
        """The key of the games a player of ``operator`` in ``currency`` is offered: the currency
        code, or ``"{operator}/{currency}"`` where the operator's engines differ from it."""
        games = self.by_operator.get((operator, currency)) if operator is not None else None
        return currency if games is None or games == self.engines.get(currency) else f"{operator}/{currency}"

    def menus(self) -> Iterator[tuple[str, str, Mapping[str, AnyGame]]]:
        """Each distinct menu of games: ``(menu_key, currency, games)``."""
        for code, games in self.engines.items():
            yield code, code, games
        for (operator, code), games in self.by_operator.items():
            if self.menu_key(code, operator) != code:
                yield self.menu_key(code, operator), code, games

    def table_overrides(self, currency: str | None, game: str) -> dict[str, Any]:
        """What a live table in ``currency`` (None: the default) changes in ``game``'s rules."""
        return self.currencies[self.default_currency if currency is None else currency].overrides(game)

    def currency(self, code: str) -> Currency:
        return self.currencies.currency(code)

    def currency_formats(self) -> list[dict[str, object]]:
        """Every currency offered here as the API describes one (``{code, exponent, symbol}``):
        the back office writes each amount with its currency's exponent from these."""
        return [self.currency(code).to_dict() for code in self.currencies.codes]

    def currency_code_of(self, engine: AnyGame) -> str:
        """The currency whose rules ``engine`` plays (one of this offer's engines)."""
        for code, games in self.engines.items():
            if games.get(engine.name) is engine:
                return code
        raise ValueError(f"{engine!r} is not one of this offer's engines")

    def operators_limits(self, field: str) -> dict[str, tuple[int, int]]:
        """Currency -> the loosest ``(min, max)`` of ``field`` over every operator having that
        currency and every game betting it: what an operator may ask of ``field`` in that currency
        (a free-bet campaign's ante: each game's limits for the signing operator hold as well)."""
        found: dict[str, tuple[int, int]] = {}
        for operator in self.operators.values():
            for code in operator.currencies:
                if code not in self.engines:
                    continue
                for engine in self.games(code, operator.id).values():
                    limit = engine.rules.limits.get(field)
                    if limit is not None:
                        low, high = found.get(code, (limit.min, limit.max))
                        found[code] = (min(low, limit.min), max(high, limit.max))
        return found

    def with_rules(self, game: str, extra: Mapping[str, Any]) -> Offer:
        """This offer with ``game``'s engine in every currency rebuilt with ``extra`` merged over
        its rules (the back office's saved paytable versions; limits and chips stay each
        currency's and each operator's)."""
        engines = {code: {**games, game: get_game(game, self.currencies.tables[code].rules(game, extra))}
                   for code, games in self.engines.items()}
        return Offer(self.currencies, engines, self.operators,
                     _by_operator(self.operators.values(), engines, self.by_operator, game))

    def all_engines(self) -> Iterator[AnyGame]:
        """Every engine of every currency and operator (their rules documents are stored at start)."""
        seen: set[int] = set()
        for games in (*self.engines.values(), *self.by_operator.values()):
            for engine in games.values():
                if id(engine) not in seen:
                    seen.add(id(engine))
                    yield engine


def _by_operator(operators: Iterable[Operator], engines: Mapping[str, Mapping[str, AnyGame]],
                 before: Mapping[tuple[str, str], Mapping[str, AnyGame]] | None = None,
                 only: str | None = None) -> dict[tuple[str, str], dict[str, AnyGame]]:
    """(operator, currency) -> game -> the engine of the operator's players: the currency's
    engine narrowed by the operator (the same engine when it narrows nothing); with ``before``,
    only game ``only`` is rebuilt."""
    found: dict[tuple[str, str], dict[str, AnyGame]] = {}
    for operator in operators:
        for code in operator.currencies:
            games = found[(operator.id, code)] = dict(before.get((operator.id, code), {})) if before else {}
            for name, engine in engines[code].items():
                if only is None or name == only:
                    rules = player_rules(engine.rules, operator, code)
                    games[name] = engine if rules is engine.rules else get_game(name, rules)
    return found
