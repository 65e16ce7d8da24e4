"""An itemised settlement: one line per betting field, totals, both hands.

>>> line = SettlementLine("ante", stake=100, returned=200)
>>> line.net, line.to_dict()
(100, {'field': 'ante', 'stake': 100, 'returned': 200, 'net': 100})
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dealerpoker.cards.encoding import indices_to_cards
from dealerpoker.evaluator import HandCategory, HandValue, evaluate
from dealerpoker.games.money import Money

#: "misdeal": a studio round cancelled by its dealer (``games.payments.cancellation``).
Outcome = Literal["win", "lose", "tie", "fold", "misdeal"]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """A hand as shown to people and on the wire: category slug, name, best five cards."""

    category: HandCategory
    name: str
    best_five: tuple[str, ...]
    value: int

    @classmethod
    def of(cls, hand: HandValue) -> HandSummary:
        return cls(hand.category, hand.name, tuple(str(c) for c in hand.best_five), hand.value)

    @classmethod
    def of_indices(cls, indices: Sequence[int]) -> HandSummary:
        """The best five-card hand of 5 to 7 card indices."""
        return cls.of(evaluate(indices_to_cards(indices)))

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category.slug, "name": self.name, "best_five": list(self.best_five)}


@dataclass(frozen=True, slots=True)
class SettlementLine:
    """One betting field: ``returned`` is stake + winnings, the stake on a push, 0 on a loss."""

    field: str
    stake: Money
    returned: Money

    @property
    def net(self) -> Money:
        """The player's gain (negative: loss) on this field."""
        return self.returned - self.stake

    def to_dict(self) -> dict[str, Any]:
        return {"field": self.field, "stake": self.stake, "returned": self.returned, "net": self.net}


@dataclass(frozen=True, slots=True)
class Settlement:
    """How a round ended and what every field returns. The house's net is ``-net``."""

    game: str
    outcome: Outcome
    dealer_qualifies: bool | None
    player_hand: HandSummary | None
    dealer_hand: HandSummary | None
    lines: tuple[SettlementLine, ...]

    @property
    def total_stake(self) -> Money:
        return sum(line.stake for line in self.lines)

    @property
    def total_returned(self) -> Money:
        return sum(line.returned for line in self.lines)

    @property
    def net(self) -> Money:
        return self.total_returned - self.total_stake

    @property
    def returned_by_field(self) -> dict[str, Money]:
        """``{field: returned}`` for every staked field."""
        return {line.field: line.returned for line in self.lines}

    def line(self, field: str) -> SettlementLine | None:
        """The line of ``field``, or None when nothing was staked on it."""
        for line in self.lines:
            if line.field == field:
                return line
        return None

    def to_dict(self) -> dict[str, Any]:
        """The JSON of ``dealerpoker settle --json`` (docs/CONTRACTS.md section 4)."""
        return {
            "game": self.game,
            "outcome": self.outcome,
            "dealer_qualifies": self.dealer_qualifies,
            "player_hand": None if self.player_hand is None else self.player_hand.to_dict(),
            "dealer_hand": None if self.dealer_hand is None else self.dealer_hand.to_dict(),
            "lines": [line.to_dict() for line in self.lines],
            "total_stake": self.total_stake,
            "total_returned": self.total_returned,
            "net": self.net,
        }


def hand_so_far(indices: list[int]) -> dict[str, Any] | None:
    """The shared player hand as far as it is shown (the rules name it after the deal and after
    each street): the best five of five to seven cards, or, before the flop, a pair or the high card
    of the two hole cards.

    >>> hand_so_far([48, 49])["name"], hand_so_far([48, 44])["name"]
    ('Pair of Aces', 'High Card, Ace')
    """
    if len(indices) >= 5:
        return HandSummary.of_indices(indices).to_dict()
    if not indices:
        return None
    cards = indices_to_cards(indices)
    ranks = sorted((card.rank for card in cards), reverse=True)
    paired = len(set(ranks)) < len(ranks)
    category = HandCategory.ONE_PAIR if paired else HandCategory.HIGH_CARD
    top = next(r for r in ranks if ranks.count(r) > 1) if paired else ranks[0]
    name = f"Pair of {top.plural}" if paired else f"High Card, {top.singular}"
    return {"category": category.slug, "name": name, "best_five": [str(c) for c in cards]}
