"""Where a round's cards come from: the server's RNG, or a studio's dealer reporting each card.

The dealing order is the engine's deck order (CONTRACTS §4): player ``deck[0:2]``, dealer
``deck[2:4]``, flop ``deck[4:7]``, turn ``deck[7]``, river ``deck[8]``. An RNG table has the whole
deck at the deal; a studio table's deck grows as the dealer (a card reader or the dealer console)
reports cards, street by street: the cards a decision point shows (and the dealer's two, dealt
face down with the hole cards) must all be in before that point opens.

>>> [place_of(p) for p in range(9)]
['player', 'player', 'dealer', 'dealer', 'board', 'board', 'board', 'board', 'board']
>>> cards_before("preflop", "texas-bonus"), cards_before("flop", "texas-bonus"), cards_before("flop", "casino-holdem")
(4, 7, 7)
>>> engine_deck((51, 50, 49, 48))        # 4 cards reported: the engine's undealt positions filled
(51, 50, 49, 48, 0, 1, 2, 3, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.games.base import CARDS_PER_ROUND

DEALINGS = ("rng", "studio")
#: Board cards shown at each decision point and at the showdown (the rest of the deck: hidden).
BOARD_AT = {"preflop": 0, "flop": 3, "turn": 4, "showdown": 5}
SHOWDOWN = "showdown"
#: Players' and dealer's cards, then the board: the first dealing position of each place.
_PLACES = (("player", 0, 2), ("dealer", 2, 4), ("board", 4, 9))


def place_of(position: int) -> str:
    """Who a card at dealing ``position`` goes to: ``player``, ``dealer`` or ``board``."""
    for place, first, end in _PLACES:
        if first <= position < end:
            return place
    raise ValueError(f"a round deals positions 0..8, not {position}")


def street_of(position: int) -> str:
    """The street a dealing position belongs to: ``hole`` (player and dealer), ``flop``, ``turn``, ``river``."""
    if position < 4:
        return "hole"
    return "flop" if position < 7 else "turn" if position == 7 else "river"


def cards_before(point: str, game: str) -> int:
    """How many cards are dealt when ``point`` (a decision point or ``showdown``) opens.

    casino-holdem deals the flop with the hole cards; its one decision is at the flop.
    """
    del game  # both games: the hole cards (4) and the board shown at that point
    return 4 + BOARD_AT[point]


def engine_deck(dealt: Sequence[int]) -> tuple[int, ...]:
    """The nine-card deck the rules engine takes, from the cards dealt so far.

    Positions not dealt yet are filled with the lowest unused cards: the engine is only ever
    asked about cards that were dealt (a state's undealt board is never shown, and a studio
    round reaches the showdown only with all nine cards in), so the filler never counts.
    """
    cards = tuple(dealt[:CARDS_PER_ROUND])
    if len(cards) == CARDS_PER_ROUND:
        return cards
    used = set(cards)
    filler = (card for card in range(52) if card not in used)
    return cards + tuple(next(filler) for _ in range(CARDS_PER_ROUND - len(cards)))


def card_text(index: int) -> str:
    return str(index_to_card(index))


@dataclass(frozen=True, slots=True)
class CardReport:
    """One card the studio reported: which, when, from what (``reader``, ``console``, ``shoe``...),
    and when it was voided (a misread taken back before it was shown), if it was."""

    card: int
    at: float
    source: str
    voided_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card, "at": self.at, "source": self.source, "voided_at": self.voided_at}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> CardReport:
        voided = data.get("voided_at")
        return cls(int(data["card"]), float(data["at"]), str(data["source"]),
                   None if voided is None else float(voided))


@dataclass(frozen=True, slots=True)
class Misdeal:
    """The round was cancelled: by the dealer (``"dealer"``) or the deal timer (``"timer"``)."""

    at: float
    by: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"at": self.at, "by": self.by, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Misdeal:
        return cls(float(data["at"]), str(data["by"]), str(data["reason"]))


def dealt_cards(reports: Sequence[CardReport]) -> tuple[int, ...]:
    """The round's deck so far: every report not voided, in order."""
    return tuple(report.card for report in reports if report.voided_at is None)
