"""A live table's limits and chips for each player: the table's own, narrowed for an operator's
players by their operator's limits and chips in the table's currency (``operators.limits``, the
rule solo rounds follow too). Every seat's bets are still within the table's limits, so the
table deals and settles every seat under its own rules; only what a player may bet, and the
chips and Min/Max signs their page shows, differ.

Built once at start: an operator whose limits do not overlap a table's, or whose chips the
narrowed limits cannot use, stops the server with both named.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dealerpoker.errors import InvalidRulesError
from dealerpoker.games import AnyGame, get_game
from dealerpoker.games.rules import Rules
from dealerpoker.server.offer import Offer
from dealerpoker.server.operators.config import InvalidOperatorsError
from dealerpoker.server.operators.limits import OperatorOf, player_rules
from dealerpoker.tables.config import TableConfig


class PlayerLimits:
    """(table, operator) -> the rules and engine that operator's players bet under there."""

    def __init__(self, tables: Iterable[tuple[TableConfig, str]], offer: Offer,
                 operator_of: OperatorOf) -> None:
        self.operator_of = operator_of
        self.rules: dict[tuple[str, str], Rules] = {}
        self.engines: dict[tuple[str, str], AnyGame] = {}
        for table, currency in tables:
            for operator in offer.operators.values():
                if currency not in operator.currencies:
                    continue  # its players cannot sit here (another currency)
                try:
                    rules = player_rules(table.rules, operator, currency,
                                         where=f"operators: {operator.id}: table {table.id!r}")
                except InvalidRulesError as error:
                    raise InvalidOperatorsError(str(error)) from None
                if rules is not table.rules:
                    self.rules[(table.id, operator.id)] = rules
                    self.engines[(table.id, operator.id)] = get_game(table.game, rules)

    async def rules_for(self, table: TableConfig, player_id: str) -> Rules:
        """The rules ``player_id`` bets under at ``table``."""
        if not self.rules:
            return table.rules
        return self.rules.get((table.id, await self.operator_of(player_id) or ""), table.rules)

    async def engine_for(self, table: TableConfig, engine: AnyGame, player_id: str) -> AnyGame:
        """The engine that checks ``player_id``'s bets at ``table`` (``engine``: the table's)."""
        if not self.engines:
            return engine
        return self.engines.get((table.id, await self.operator_of(player_id) or ""), engine)


def table_for(table: TableConfig, rules: Rules) -> dict[str, Any]:
    """The table as ``GET /api/tables`` and the welcome describe it, with a player's limits and
    chips (``rules``); the rules fingerprint stays the table's: its rounds are played under it."""
    described = table.to_dict()
    if rules is not table.rules:
        described["limits"] = {name: {"min": lim.min, "max": lim.max} for name, lim in rules.limits.items()}
        described["chips"] = list(rules.chips)
    return described
