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

from dealerpoker.errors import InvalidRulesError
from dealerpoker.games.base import BonusResult, RoundState, Step
from dealerpoker.games.casino_holdem import CasinoHoldem
from dealerpoker.games.rules import GAMES, CasinoHoldemRules, Rules, TexasBonusRules, load_rules
from dealerpoker.games.settlement import HandSummary, Settlement, SettlementLine
from dealerpoker.games.texas_bonus import TexasBonus

AnyGame = TexasBonus | CasinoHoldem


def get_game(name: str, rules: Rules | None = None) -> AnyGame:
    """The engine of game ``name`` with ``rules`` (default: the shipped rules of that game)."""
    if name not in GAMES:
        raise InvalidRulesError(f"unknown game {name!r} (expected one of {', '.join(GAMES)})")
    if rules is None:
        rules = load_rules(name)
    if rules.game != name:
        raise InvalidRulesError(f"rules are for {rules.game!r}, not {name!r}")
    if isinstance(rules, TexasBonusRules):
        return TexasBonus(rules)
    assert isinstance(rules, CasinoHoldemRules)
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
