"""The two games' rules as a pure engine (no I/O, no clock, no global RNG).

>>> game = get_game("casino-holdem")
>>> game.name, game.opening_fields
('casino-holdem', ('ante', 'aa'))
>>> get_game("blackjack")
Traceback (most recent call last):
...
dealerpoker.errors.InvalidRulesError: unknown game 'blackjack' (expected one of texas-bonus, casino-holdem)
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from dealerpoker.errors import InvalidRulesError
from dealerpoker.games.rules import GAMES, CasinoHoldemRules, Rules, TexasBonusRules, load_rules

if TYPE_CHECKING:
    from dealerpoker.games.base import BonusResult, RoundState, Step
    from dealerpoker.games.casino_holdem import CasinoHoldem
    from dealerpoker.games.settlement import HandSummary, Settlement, SettlementLine
    from dealerpoker.games.texas_bonus import TexasBonus

    AnyGame = TexasBonus | CasinoHoldem

# The engines (and the hand evaluator under them) are imported on first use, so that reading
# rules (``dealerpoker.games.rules``) stays cheap for a command line that only needs them.
_LAZY = {"BonusResult": "base", "RoundState": "base", "Step": "base", "CasinoHoldem": "casino_holdem",
         "HandSummary": "settlement", "Settlement": "settlement", "SettlementLine": "settlement",
         "TexasBonus": "texas_bonus"}


def __getattr__(name: str) -> Any:
    if name == "AnyGame":
        return __getattr__("TexasBonus") | __getattr__("CasinoHoldem")
    if name in _LAZY:
        return getattr(importlib.import_module(f"dealerpoker.games.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'dealerpoker.games' has no attribute {name!r}")


def get_game(name: str, rules: Rules | None = None) -> AnyGame:
    """The engine of game ``name`` with ``rules`` (default: the shipped rules of that game)."""
    if name not in GAMES:
        raise InvalidRulesError(f"unknown game {name!r} (expected one of {', '.join(GAMES)})")
    if rules is None:
        rules = load_rules(name)
    if rules.game != name:
        raise InvalidRulesError(f"rules are for {rules.game!r}, not {name!r}")
    if isinstance(rules, TexasBonusRules):
        from dealerpoker.games.texas_bonus import TexasBonus

        return TexasBonus(rules)
    assert isinstance(rules, CasinoHoldemRules)
    from dealerpoker.games.casino_holdem import CasinoHoldem

    return CasinoHoldem(rules)


__all__ = [
    "GAMES",
    "AnyGame",
    "BonusResult",
    "CasinoHoldem",
    "HandSummary",
    "RoundState",
    "Settlement",
    "SettlementLine",
    "Step",
    "TexasBonus",
    "get_game",
    "load_rules",
]
