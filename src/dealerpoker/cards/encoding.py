"""The only bridge between :class:`Card` objects and the integer forms fast code uses.

* index: ``rank * 4 + suit`` in 0..51, the position in :data:`dealerpoker.cards.DECK_ORDER`
  (``2c`` = 0, ``2d`` = 1, ..., ``As`` = 51);
* mask: a 52-bit integer with bit ``index`` set for each card.

>>> card_to_index(parse_card("As")), str(index_to_card(0))
(51, '2c')
>>> format_cards(mask_to_cards(cards_to_mask(parse_cards("Kd 2c"))))
'2c Kd'
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from dealerpoker.cards import DECK_ORDER, Card, format_cards, parse_card, parse_cards
from dealerpoker.errors import InvalidCardError

__all__ = [
    "card_to_index",
    "cards_to_indices",
    "cards_to_mask",
    "format_cards",
    "index_to_card",
    "indices_to_cards",
    "mask_to_cards",
    "parse_card",
    "parse_cards",
    "rank_of",
    "suit_of",
    "text_from_indices",
    "texts_from_indices",
]

FULL_MASK = (1 << 52) - 1


def card_to_index(card: Card) -> int:
    return int(card.rank) * 4 + int(card.suit)


def rank_of(index: int) -> int:
    return index >> 2


def suit_of(index: int) -> int:
    return index & 3


def index_to_card(index: int) -> Card:
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)):
        raise InvalidCardError(f"card index must be an integer, got {index!r}")
    if not 0 <= int(index) < 52:
        raise InvalidCardError(f"card index {index} out of range 0..51")
    return DECK_ORDER[int(index)]


def cards_to_indices(cards: Iterable[Card]) -> npt.NDArray[np.int8]:
    return np.array([card_to_index(card) for card in cards], dtype=np.int8)


def indices_to_cards(indices: Iterable[int] | npt.NDArray[np.integer]) -> tuple[Card, ...]:
    return tuple(index_to_card(int(i)) for i in indices)


def cards_to_mask(cards: Iterable[Card]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card_to_index(card)
    return mask


def mask_to_cards(mask: int) -> tuple[Card, ...]:
    if not 0 <= mask <= FULL_MASK:
        raise InvalidCardError(f"card mask {mask:#x} has bits outside 0..51")
    return tuple(DECK_ORDER[i] for i in range(52) if mask >> i & 1)


def indices_from_text(text: str) -> list[int]:
    """Convenience for tests and tools: ``"As Kd"`` -> ``[51, 45]``."""
    return [card_to_index(card) for card in parse_cards(text)]


def texts_from_indices(indices: Iterable[int]) -> list[str]:
    """Each card's text, in order: ``[51, 45]`` -> ``["As", "Kd"]`` (an index outside 0..51 is an
    :class:`InvalidCardError`). The one way from indices to card text (records, views, events)."""
    return [str(index_to_card(i)) for i in indices]


def text_from_indices(indices: Iterable[int]) -> str:
    """The cards as one text: ``[51, 45]`` -> ``"As Kd"`` (the pair of :func:`indices_from_text`)."""
    return " ".join(texts_from_indices(indices))
