"""dealerpoker: casino poker against the dealer.

Layers (each may import only those below it, enforced by import-linter):
cards <- evaluator <- games <- analysis / fairness <- server <- cli.
"""

from dealerpoker.cards import Card, Deck, Rank, Suit, parse_card, parse_cards
from dealerpoker.errors import InvalidCardError, InvalidHandError

__all__ = [
    "Card",
    "Deck",
    "InvalidCardError",
    "InvalidHandError",
    "Rank",
    "Suit",
    "parse_card",
    "parse_cards",
]
__version__ = "0.1.0"
