"""Public evaluator API: ``evaluate`` (scalar) and ``evaluate_batch`` (numpy arrays).

>>> from dealerpoker.evaluator import evaluate
>>> hand = evaluate("Kh Kd Ks 3c 3d 9s 2h")
>>> hand.name, hand.category.slug
('Full House, Kings over Threes', 'full-house')
>>> evaluate("As 2d 3h 4c 5s Kd Qd").name
'Straight, Five high'
>>> evaluate("As Ks Qs Js Ts") == evaluate("Ah Kh Qh Jh Th")
True
>>> import numpy as np
>>> values = evaluate_batch(np.array([[51, 47, 43, 39, 35, 0, 1], [0, 4, 8, 12, 50, 5, 9]]))
>>> values.dtype.name, [describe(int(v)) for v in values]
('int32', ['Royal Flush', 'Straight, Five high'])
>>> categorize_batch(values).tolist()
[9, 4]
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from dealerpoker.cards import DECK_ORDER, Card, Rank, format_cards, parse_cards
from dealerpoker.cards.encoding import card_to_index, indices_to_cards
from dealerpoker.errors import InvalidCardError, InvalidHandError
from dealerpoker.evaluator import tables
from dealerpoker.evaluator.categories import (
    CATEGORY_SHIFT,
    ROYAL_FLUSH_VALUE,
    HandCategory,
    category_of,
    ranks_of,
)

__all__ = ["HandValue", "categorize_batch", "describe", "evaluate", "evaluate_batch", "value_of"]


class HandValue(NamedTuple):
    """The value of a poker hand. Ordered, compared and hashed by ``value`` alone.

    ``cards`` are the evaluated cards as indices; ``best_five`` (the five that make the hand,
    highest rank first) is derived from them and the value when asked for. (An immutable named
    tuple rather than a dataclass: it is built on every evaluation, and this is 3x cheaper.)
    """

    value: int
    cards: tuple[int, ...]

    @property
    def best_five(self) -> tuple[Card, ...]:
        return best_five(indices_to_cards(self.cards), self.value)

    @property
    def category(self) -> HandCategory:
        return category_of(self.value)

    @property
    def name(self) -> str:
        return describe(self.value)

    def __eq__(self, other: object) -> bool:
        return self.value == other.value if isinstance(other, HandValue) else NotImplemented

    def __ne__(self, other: object) -> bool:
        return self.value != other.value if isinstance(other, HandValue) else NotImplemented

    def __lt__(self, other: object) -> bool:
        return self.value < other.value if isinstance(other, HandValue) else NotImplemented

    def __le__(self, other: object) -> bool:
        return self.value <= other.value if isinstance(other, HandValue) else NotImplemented

    def __gt__(self, other: object) -> bool:
        return self.value > other.value if isinstance(other, HandValue) else NotImplemented

    def __ge__(self, other: object) -> bool:
        return self.value >= other.value if isinstance(other, HandValue) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __str__(self) -> str:
        return f"{self.name} ({format_cards(self.best_five)})"


def describe(value: int) -> str:
    """A human name for a hand value, e.g. ``"Flush, Ace high"``."""
    category = category_of(value)
    r = [Rank(x) for x in ranks_of(value)]
    if category is HandCategory.ROYAL_FLUSH:
        return "Royal Flush"
    if category is HandCategory.STRAIGHT_FLUSH:
        return f"Straight Flush, {r[0].singular} high"
    if category is HandCategory.FOUR_OF_A_KIND:
        return f"Four of a Kind, {r[0].plural}"
    if category is HandCategory.FULL_HOUSE:
        return f"Full House, {r[0].plural} over {r[1].plural}"
    if category is HandCategory.FLUSH:
        return f"Flush, {r[0].singular} high"
    if category is HandCategory.STRAIGHT:
        return f"Straight, {r[0].singular} high"
    if category is HandCategory.THREE_OF_A_KIND:
        return f"Three of a Kind, {r[0].plural}"
    if category is HandCategory.TWO_PAIR:
        return f"Two Pair, {r[0].plural} and {r[1].plural}"
    if category is HandCategory.ONE_PAIR:
        return f"Pair of {r[0].plural}"
    return f"High Card, {r[0].singular}"


_STRAIGHT, _FLUSH, _STRAIGHT_FLUSH = 4, 5, 8
#: Ranks each category takes from the value's rank fields, in order (a straight: its top card).
_GROUP_SIZES = {0: (1, 1, 1, 1, 1), 1: (2, 1, 1, 1), 2: (2, 2, 1), 3: (3, 1, 1), 5: (1, 1, 1, 1, 1),
                6: (3, 2), 7: (4, 1)}  # fmt: skip


def best_five(hand: Sequence[Card], value: int) -> tuple[Card, ...]:
    """The five cards of ``hand`` that make ``value`` (its value), highest rank first.

    For each rank the value needs, the earliest cards of that rank in ``hand`` are taken (so the
    choice is that of the first best subset in ``itertools.combinations`` order).
    """
    category = value >> CATEGORY_SHIFT
    ranks = ranks_of(value)
    pool = list(hand)
    if category in (_FLUSH, _STRAIGHT_FLUSH):
        suits = [card.suit for card in pool]
        flush_suit = max(set(suits), key=suits.count)
        pool = [card for card in pool if card.suit == flush_suit]
    if category in (_STRAIGHT, _STRAIGHT_FLUSH):
        top = ranks[0]
        needed = [12, 3, 2, 1, 0] if top == 3 else list(range(top, top - 5, -1))
    else:
        needed = [
            rank for rank, size in zip(ranks, _GROUP_SIZES[category], strict=False) for _ in range(size)
        ]
    chosen: list[Card] = []
    for rank in needed:
        card = next((c for c in pool if c.rank == rank and c not in chosen), None)
        if card is None:
            raise InvalidHandError(f"{format_cards(hand)} does not make the value {value:#x}")
        chosen.append(card)
    return tuple(sorted(chosen, key=lambda c: (c.rank, c.suit), reverse=True))


# Plain-Python copies of the tables: for one hand, Python lookups beat a numba call.
# _KEYS has 52 more entries of None, so that negative indices (which a list wraps around) and
# indices 52..103 fail the key sum with a TypeError, and larger ones with an IndexError.
# Each key also carries the card's own bit above the key's highest possible sum: a hand's key sum
# then has one such bit per distinct card, so a duplicate shows as a missing bit (carry), which is
# cheaper to test than building a set.
_UNIQUE_SHIFT = (tables.SUIT_BIAS + 7 * max(int(key) for key in tables.CARD_KEYS)).bit_length()
_KEYS: list[Any] = [
    int(key) | 1 << (_UNIQUE_SHIFT + index) for index, key in enumerate(tables.CARD_KEYS)
] + [None] * 52
_INDEX_OF: dict[Card, int] = {card: card_to_index(card) for card in DECK_ORDER}
_SUIT_BIAS, _FLUSH_CHECK = tables.SUIT_BIAS, tables.FLUSH_CHECK
_FLUSH_VALUES: list[int] = tables.FLUSH_VALUES.tolist()
_FLUSH_BIT = {tables.SUIT_SHIFT + 4 * suit + 3: suit for suit in range(4)}


# Compact copies (array.array, not lists: no pointer to chase per element, fewer cache misses)
_LOW_INDEX: array[int] = array("h", tables.LOW_INDEX.tobytes())
_HIGH_BASE_5, _HIGH_BASE_6, _HIGH_BASE_7 = (array("i", base.tobytes()) for base in tables.HIGH_BASES)
_RANK_VALUES_5, _RANK_VALUES_6, _RANK_VALUES_7 = (
    array("i", values.tobytes())
    for values in (tables.RANK_VALUES_5, tables.RANK_VALUES_6, tables.RANK_VALUES_7)
)
_LOW_BITS, _LOW_FIELD, _HIGH_FIELD = tables.LOW_FIELD_BITS, tables.LOW_FIELD, tables.HIGH_FIELD


def _flush_value(hand: Sequence[int], key: int) -> int:
    suit = _FLUSH_BIT[(key & _FLUSH_CHECK).bit_length() - 1]
    mask = 0
    for index in hand:
        if index & 3 == suit:
            mask |= 1 << (index >> 2)
    return _FLUSH_VALUES[mask]


def _checked_indices(cards: str | Iterable[Card] | Iterable[int]) -> tuple[int, ...]:
    """The slow path: any accepted form to indices, or the error that names the bad token."""
    hand: tuple[object, ...] = parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    indices = []
    for card in hand:
        if isinstance(card, Card):
            indices.append(_INDEX_OF[card])
        elif isinstance(card, (int, np.integer)) and 0 <= card < 52:
            indices.append(int(card))
        elif isinstance(card, (int, np.integer)):
            raise InvalidCardError(f"card index {card} out of range 0..51")
        else:
            raise InvalidCardError(f"not a card: {card!r} (expected a Card or an index 0..51)")
    if len(set(indices)) != len(indices):
        seen: set[int] = set()
        for card, index in zip(hand, indices, strict=True):
            if index in seen:
                raise InvalidHandError(f"duplicate card {indices_to_cards([index])[0]} ({card!r})")
            seen.add(index)
    if not 5 <= len(indices) <= 7:
        raise InvalidHandError(f"a hand needs 5, 6 or 7 cards, got {len(indices)}")
    return tuple(indices)


def value_of(cards: str | Iterable[Card] | Iterable[int]) -> int:
    """The integer value of 5, 6 or 7 cards: ``evaluate(cards).value`` without the object.

    >>> value_of([51, 47, 43, 39, 35]) == value_of("Ah Kh Qh Jh Th")
    True
    """
    # The fast path, unrolled by length, takes a list or tuple of 5-7 distinct ints; anything else
    # (text, Cards, other iterables, bad tokens, which end in a TypeError or IndexError here)
    # goes through _checked_indices, which converts or raises the error that names the token.
    if type(cards) is not list and type(cards) is not tuple:
        return value_of(_checked_indices(cards))
    keys, n = _KEYS, len(cards)
    key: int
    high_base: array[int]
    values: array[int]
    try:
        if n == 7:
            a, b, c, d, e, f, g = cards
            key = _SUIT_BIAS + keys[a] + keys[b] + keys[c] + keys[d] + keys[e] + keys[f] + keys[g]
            high_base, values = _HIGH_BASE_7, _RANK_VALUES_7
        elif n == 6:
            a, b, c, d, e, f = cards
            key = _SUIT_BIAS + keys[a] + keys[b] + keys[c] + keys[d] + keys[e] + keys[f]
            high_base, values = _HIGH_BASE_6, _RANK_VALUES_6
        elif n == 5:
            a, b, c, d, e = cards
            key = _SUIT_BIAS + keys[a] + keys[b] + keys[c] + keys[d] + keys[e]
            high_base, values = _HIGH_BASE_5, _RANK_VALUES_5
        else:
            return value_of(_checked_indices(cards))
    except (TypeError, IndexError):
        return value_of(_checked_indices(cards))
    if (key >> _UNIQUE_SHIFT).bit_count() != n:  # a duplicated card
        return value_of(_checked_indices(cards))
    if key & _FLUSH_CHECK:
        return _flush_value(cards, key)
    return values[high_base[key >> _LOW_BITS & _HIGH_FIELD] + _LOW_INDEX[key & _LOW_FIELD]]


def evaluate(cards: str | Iterable[Card] | Iterable[int]) -> HandValue:
    """Evaluate 5, 6 or 7 cards (text, ``Card`` objects or indices 0..51): the best five they make.

    Python and numpy integers are taken as card indices (so are ``True``/``False``, being ints).
    """
    value = value_of(cards)  # raises on bad input
    if (type(cards) is list or type(cards) is tuple) and _INDEX_TYPES.issuperset(map(type, cards)):
        return _new_hand_value(HandValue, (value, tuple(cards)))
    return _new_hand_value(HandValue, (value, _checked_indices(cards)))


_INDEX_TYPES = frozenset({int, *(np.dtype(code).type for code in "bBhHiIlLqQ")})
_new_hand_value = tuple.__new__  # skips the named tuple's Python-level __new__


def evaluate_batch(cards: npt.ArrayLike) -> npt.NDArray[np.int32]:
    """Values of the rows of an ``(n, 5)``, ``(n, 6)`` or ``(n, 7)`` array of card indices.

    The values are those of ``evaluate(row).value``. Raises ``InvalidCardError`` /
    ``InvalidHandError`` naming the first bad row and card.
    """
    array = np.asarray(cards)
    if array.ndim != 2 or array.shape[1] not in (5, 6, 7):
        raise InvalidHandError(
            f"expected an (n, 5), (n, 6) or (n, 7) array of card indices, got shape {array.shape}"
        )
    if array.dtype.kind not in "iu":
        raise InvalidCardError(f"card indices must be integers, got dtype {array.dtype}")
    out = np.empty(array.shape[0], dtype=np.int32)
    if array.size == 0:
        return out
    if array.dtype != np.int8:  # range first: a cast to int8 would wrap large values
        if int(array.min()) < 0 or int(array.max()) > 51:
            _raise_for_row(array, int(np.flatnonzero(((array < 0) | (array > 51)).any(axis=1))[0]))
        array = array.astype(np.int8)
    from dealerpoker.evaluator import kernels  # numba: imported only when a batch is evaluated

    bad = kernels.eval_rows_checked(np.ascontiguousarray(array), out)
    if bad >= 0:
        _raise_for_row(array, bad)
    return out


def _raise_for_row(array: npt.NDArray[np.integer], row: int) -> None:
    for card in array[row].tolist():
        if not 0 <= card < 52:
            raise InvalidCardError(f"row {row}: card index {card} out of range 0..51")
    try:
        _checked_indices(array[row].tolist())
    except InvalidHandError as error:
        raise InvalidHandError(f"row {row}: {error}") from None
    raise AssertionError(f"row {row} was reported invalid but is valid")


def categorize_batch(values: npt.ArrayLike) -> npt.NDArray[np.int8]:
    """``HandCategory`` numbers (0..9, royal flush = 9) of an array of hand values."""
    array = np.asarray(values)
    if array.dtype.kind not in "iu":
        raise InvalidHandError(f"hand values must be integers, got dtype {array.dtype}")
    categories = array >> CATEGORY_SHIFT
    if array.size and (int(array.min()) < 0 or int(categories.max()) > int(HandCategory.STRAIGHT_FLUSH)):
        bad = array.flat[int(np.flatnonzero((array.ravel() < 0) | (categories.ravel() > 8))[0])]
        raise InvalidHandError(f"not a hand value: {int(bad)}")
    result = categories.astype(np.int8)
    result[array == ROYAL_FLUSH_VALUE] = HandCategory.ROYAL_FLUSH
    return result
