"""Which limits and chips an operator's player plays: the one rule, and who a player's operator is.

An operator's per-currency ``limits`` and ``chips`` (the operators file) narrow what the
player would otherwise play: a solo round the server's limits of the currency, a live table
that table's. Each betting field the operator names is the overlap of its ``{min, max}`` and the
base's (so a live table's own limits still hold: every seat's bets pass the table's rules too),
and the operator's chips replace the base's. The server's own players, and an operator's players
in a currency it sets nothing for, play the base unchanged.

>>> from dealerpoker.games.rules import load_rules
>>> base = load_rules("casino-holdem")
>>> narrow = narrowed(base, {"ante": {"min": 200, "max": 500_000}}, (100, 200, 1000))
>>> narrow.limits["ante"], narrow.chips, narrow.limits["aa"] == base.limits["aa"]
(FieldLimit(min=200, max=100000), (100, 200, 1000), True)
>>> narrowed(base, {"ante": {"min": 200_000, "max": 300_000}}, None)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
dealerpoker.errors.InvalidRulesError: ...: limits.ante: 200000-300000 does not overlap 100-100000
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence

from sqlalchemy import select

from dealerpoker.errors import InvalidRulesError
from dealerpoker.games.currency import UnknownCurrencyError
from dealerpoker.games.rules import GAMES, Rules, rules_from_document
from dealerpoker.server.currencies import Currencies
from dealerpoker.server.db import Database
from dealerpoker.server.operators.config import InvalidOperatorsError, Operator
from dealerpoker.server.schema import operator_players

OperatorOf = Callable[[str], Awaitable[str | None]]
"""Player id -> the id of the operator that launched them (None: the server's own player)."""
_REMEMBERED = 100_000
"""Players whose operator one process remembers (a player's operator never changes)."""


async def no_operator(_player_id: str) -> str | None:
    """The ``OperatorOf`` of a server without operators."""
    return None


def narrowed(base: Rules, limits: Mapping[str, Mapping[str, int]], chips: tuple[int, ...] | None,
             *, where: str = "operator") -> Rules:
    """``base`` with each field of ``limits`` (betting field -> ``{min, max}``; fields the game
    lacks are ignored) cut to its overlap with the base's, and ``chips`` (when given) as the
    chips. An empty overlap, or chips the narrowed limits cannot use, raise ``InvalidRulesError``."""
    own = {name: limit for name, limit in limits.items() if name in base.limits}
    if not own and chips is None:
        return base
    document = base.to_dict()
    cut = dict(document.get("limits", {}))
    for name, limit in own.items():
        table = base.limits[name]
        low, high = max(table.min, limit["min"]), min(table.max, limit["max"])
        if low > high:
            raise InvalidRulesError(f"{where}: limits.{name}: {limit['min']}-{limit['max']} does not overlap "
                                    f"{table.min}-{table.max}")
        cut[name] = {"min": low, "max": high}
    document["limits"] = cut
    if chips is not None:
        document["chips"] = list(chips)
    return rules_from_document(document, where=where)


def player_rules(base: Rules, operator: Operator | None, currency: str, *, where: str | None = None) -> Rules:
    """The rules a player of ``operator`` (None: of this server) plays where others play ``base``
    in ``currency`` (``where`` begins the message of an ``InvalidRulesError``)."""
    if operator is None:
        return base
    return narrowed(base, operator.limits.get(currency, {}), operator.chips.get(currency),
                    where=where or f"operator {operator.id}: {currency}: {base.game}")


def operator_lookup(database: Database, operators: Mapping[str, Operator]) -> OperatorOf:
    """The ``OperatorOf`` of a server: without operators, nobody has one (nothing is read); with
    them, each player's row of ``operator_players`` is read once per process."""
    known: dict[str, str | None] = {}

    if not operators:
        return no_operator

    async def operator_of(player_id: str) -> str | None:
        if player_id in known:
            return known[player_id]
        async with database.reading() as connection:
            found = await connection.scalar(
                select(operator_players.c.operator_id).where(operator_players.c.player_id == player_id))
        if len(known) >= _REMEMBERED:
            known.clear()
        known[player_id] = None if found is None else str(found)
        return known[player_id]

    return operator_of


def check_against_offer(operators: Sequence[Operator], currencies: Currencies) -> None:
    """Refuse, naming it, an operator whose currencies the server does not offer, whose limits
    reach outside the server's own in that currency (they narrow them, never widen), or whose
    limits and chips make a game's rules invalid."""
    for operator in operators:
        for code in operator.currencies:
            try:
                table = currencies[code]
            except UnknownCurrencyError as error:
                raise InvalidOperatorsError(f"operators: {operator.id}: currencies: {error}") from None
            for game in GAMES:
                base = table.rules(game)
                where = f"operators: {operator.id}: {code}: {game}"
                for name, limit in operator.limits.get(code, {}).items():
                    own = base.limits.get(name)
                    if own is not None and not own.min <= limit["min"] <= limit["max"] <= own.max:
                        raise InvalidOperatorsError(
                            f"{where}: limits.{name}: {limit['min']}-{limit['max']} is not within the "
                            f"server's {code} limits ({own.min}-{own.max})")
                try:
                    player_rules(base, operator, code, where=where)
                except InvalidRulesError as error:
                    raise InvalidOperatorsError(str(error)) from None
