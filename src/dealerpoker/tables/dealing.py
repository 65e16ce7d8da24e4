"""Where a round's cards come from: the server's RNG, or a studio's dealer reporting each card.

The dealing order is the engine's deck order (CONTRACTS §4): player ``deck[0:2]``, dealer
``deck[2:4]``, flop ``deck[4:7]``, turn ``deck[7]``, river ``deck[8]``. An RNG table has the whole
deck at the deal; a studio table's deck grows as the dealer (a card reader or the dealer console)
reports cards, street by street: the cards a decision point shows (and the dealer's two, dealt
face down with the hole cards) must all be in before that point opens.

>>> [street_of(p) for p in range(9)]
['hole', 'hole', 'hole', 'hole', 'flop', 'flop', 'flop', 'turn', 'river']
>>> cards_before("preflop"), cards_before("flop"), cards_before("turn"), cards_before("showdown")
(4, 7, 8, 9)

The engine takes nine cards: ``dealerpoker.games.base.padded_deck`` fills the positions not dealt
yet (never shown), and ``place_of`` says whose each position is.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Board cards shown at each decision point and at the showdown (the rest of the deck: hidden).
BOARD_AT = {"preflop": 0, "flop": 3, "turn": 4, "showdown": 5}
SHOWDOWN = "showdown"


def street_of(position: int) -> str:
    """The street of a dealing position: ``hole`` (player's and dealer's), ``flop``, ``turn``, ``river``."""
    if position < 4:
        return "hole"
    return "flop" if position < 7 else "turn" if position == 7 else "river"


def cards_before(point: str) -> int:
    """How many cards are dealt when ``point`` (a decision point, or ``showdown`` with a hand
    still in) opens: the hole cards (the dealer's two included) and the board shown there.
    casino-holdem deals its flop with the hole cards: its one decision point is the flop."""
    return 4 + BOARD_AT[point]


@dataclass(frozen=True, slots=True)
class CardReport:
    """One card the studio reported: which, at which dealing position, when, from what
    (``reader``, ``console``, ``shoe``...), and when it was voided (a misread taken back before
    it was shown), if it was."""

    card: int
    position: int
    at: float
    source: str
    voided_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"card": self.card, "position": self.position, "at": self.at, "source": self.source,
                "voided_at": self.voided_at}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> CardReport:
        voided = data.get("voided_at")
        return cls(int(data["card"]), int(data["position"]), float(data["at"]), str(data["source"]),
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
    def from_dict(cls, data: Mapping[str, Any]) -> Misdeal:
        return cls(float(data["at"]), str(data["by"]), str(data["reason"]))


def dealt_cards(reports: Sequence[CardReport]) -> tuple[int, ...]:
    """The round's deck so far: every report not voided, in order."""
    return tuple(report.card for report in reports if report.voided_at is None)
