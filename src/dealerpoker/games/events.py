"""What happened in a round, as immutable values returned by ``start`` and ``apply``.

Events never carry the dealer's hole cards before they are revealed: ``DealerDealt`` only
says how many cards the dealer received; ``DealerRevealed`` names them at the showdown.

>>> CardsDealt(to="board", street="flop", cards=("2c", "7d", "9h")).to_dict()
{'kind': 'cards-dealt', 'to': 'board', 'street': 'flop', 'cards': ['2c', '7d', '9h']}
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar, Literal

from dealerpoker.games.money import Money
from dealerpoker.games.settlement import Settlement


def _plain(value: object) -> Any:
    to_dict = getattr(value, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    return value


@dataclass(frozen=True, slots=True)
class Event:
    """Base of every event; ``to_dict()`` is its JSON form with a ``kind``."""

    kind: ClassVar[str] = "event"

    def to_dict(self) -> dict[str, Any]:
        document: dict[str, Any] = {"kind": self.kind}
        for item in fields(self):
            document[item.name] = _plain(getattr(self, item.name))
        return document


@dataclass(frozen=True, slots=True)
class BetPlaced(Event):
    kind: ClassVar[str] = "bet-placed"
    field: str
    amount: Money


@dataclass(frozen=True, slots=True)
class CardsDealt(Event):
    """Face-up cards: the player's hole cards or board cards."""

    kind: ClassVar[str] = "cards-dealt"
    to: Literal["player", "board"]
    street: Literal["hole", "flop", "turn", "river"]
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DealerDealt(Event):
    """The dealer received face-down cards (which ones is not said)."""

    kind: ClassVar[str] = "dealer-dealt"
    count: int


@dataclass(frozen=True, slots=True)
class BonusSettled(Event):
    """Texas Bonus: the Bonus bet settled on the player's two cards (or pending, see ``pending``)."""

    kind: ClassVar[str] = "bonus-settled"
    stake: Money
    hand: str
    line: str | None
    pays: int
    returned: Money
    pending: bool


@dataclass(frozen=True, slots=True)
class PlayerActed(Event):
    kind: ClassVar[str] = "player-acted"
    phase: str
    action: str


@dataclass(frozen=True, slots=True)
class DealerRevealed(Event):
    kind: ClassVar[str] = "dealer-revealed"
    cards: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RoundSettled(Event):
    kind: ClassVar[str] = "round-settled"
    settlement: Settlement
