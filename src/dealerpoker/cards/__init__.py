"""Cards, ranks, suits, their text forms, and the deck.

>>> from dealerpoker.cards import Card, parse_cards
>>> str(parse_card("10d")), repr(parse_card("ah")), str(parse_card("K♠"))
('Td', "Card('Ah')", 'Ks')
>>> [str(c) for c in parse_cards("AsKd")]
['As', 'Kd']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Protocol

from dealerpoker.errors import InvalidCardError, InvalidHandError

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
SUIT_SYMBOLS = "♣♦♥♠"

_RANK_NAMES = (
    ("Two", "Twos"), ("Three", "Threes"), ("Four", "Fours"), ("Five", "Fives"),
    ("Six", "Sixes"), ("Seven", "Sevens"), ("Eight", "Eights"), ("Nine", "Nines"),
    ("Ten", "Tens"), ("Jack", "Jacks"), ("Queen", "Queens"), ("King", "Kings"),
    ("Ace", "Aces"),
)  # fmt: skip


class Rank(IntEnum):
    """Card rank; the integer value orders ranks (Two = 0 ... Ace = 12)."""

    TWO = 0
    THREE = 1
    FOUR = 2
    FIVE = 3
    SIX = 4
    SEVEN = 5
    EIGHT = 6
    NINE = 7
    TEN = 8
    JACK = 9
    QUEEN = 10
    KING = 11
    ACE = 12

    @property
    def char(self) -> str:
        return RANK_CHARS[self]

    @property
    def singular(self) -> str:
        return _RANK_NAMES[self][0]

    @property
    def plural(self) -> str:
        return _RANK_NAMES[self][1]

    @classmethod
    def parse(cls, token: str) -> Rank:
        text = token.strip().upper()
        if text == "10":
            text = "T"
        if len(text) != 1 or text not in RANK_CHARS:
            raise InvalidCardError(f"unknown rank {token!r} (expected one of 2-9, T/10, J, Q, K, A)")
        return cls(RANK_CHARS.index(text))


class Suit(IntEnum):
    """Card suit, in the deck's fixed order clubs, diamonds, hearts, spades."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3

    @property
    def char(self) -> str:
        return SUIT_CHARS[self]

    @property
    def symbol(self) -> str:
        return SUIT_SYMBOLS[self]

    @classmethod
    def parse(cls, token: str) -> Suit:
        text = token.strip()
        if text in SUIT_SYMBOLS:
            return cls(SUIT_SYMBOLS.index(text))
        if text in ("\u2664", "\u2661", "\u2662", "\u2667"):  # white (outline) suit symbols
            return cls("\u2667\u2662\u2661\u2664".index(text))
        lower = text.lower()
        if len(lower) != 1 or lower not in SUIT_CHARS:
            raise InvalidCardError(f"unknown suit {token!r} (expected one of c, d, h, s or ♣♦♥♠)")
        return cls(SUIT_CHARS.index(lower))


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """An immutable playing card. ``str(card)`` is the two-character form, e.g. ``"As"``."""

    rank: Rank
    suit: Suit

    def __post_init__(self) -> None:
        if not isinstance(self.rank, Rank) or not isinstance(self.suit, Suit):
            raise InvalidCardError(f"Card needs a Rank and a Suit, got {self.rank!r}, {self.suit!r}")

    def __str__(self) -> str:
        return self.rank.char + self.suit.char

    def __repr__(self) -> str:
        return f"Card('{self}')"

    @property
    def pretty(self) -> str:
        """Rank and suit symbol, e.g. ``"A♠"``."""
        return ("10" if self.rank == Rank.TEN else self.rank.char) + self.suit.symbol

    @classmethod
    def parse(cls, token: str) -> Card:
        return parse_card(token)


def parse_card(token: str) -> Card:
    """Parse one card: ``"As"``, ``"Td"``, ``"10d"``, ``"ah"``, ``"A♠"``."""
    if not isinstance(token, str):
        raise InvalidCardError(f"a card must be text, got {token!r}")
    text = token.strip()
    if len(text) < 2:
        raise InvalidCardError(f"invalid card {token!r}: expected a rank then a suit, e.g. 'As'")
    try:
        return Card(Rank.parse(text[:-1]), Suit.parse(text[-1]))
    except InvalidCardError as error:
        raise InvalidCardError(f"invalid card {token!r}: {error}") from None


_CARD_RE = re.compile(r"(10|[2-9TJQKAtjqka])([cdhsCDHS♠♥♦♣♤♡♢♧])")


def parse_cards(text: str | Iterable[str], *, unique: bool = True) -> tuple[Card, ...]:
    """Parse several cards: ``"As Kd"``, ``"AsKd"``, ``"As,Kd"`` or a list of tokens.

    Duplicates raise ``InvalidHandError`` unless ``unique=False``.
    """
    if isinstance(text, str):
        tokens: list[str] = []
        for chunk in re.split(r"[\s,]+", text.strip()):
            if not chunk:
                continue
            position = 0
            while position < len(chunk):
                match = _CARD_RE.match(chunk, position)
                if match is None:
                    raise InvalidCardError(f"invalid card {chunk[position:position + 3]!r} in {text!r}")
                tokens.append(match.group(0))
                position = match.end()
    else:
        tokens = list(text)
    cards = tuple(parse_card(token) for token in tokens)
    if unique:
        ensure_unique(cards)
    return cards


def ensure_unique(cards: Sequence[Card]) -> None:
    """Raise ``InvalidHandError`` naming the first card that appears twice."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise InvalidHandError(f"duplicate card {card}")
        seen.add(card)


def format_cards(cards: Iterable[Card], separator: str = " ") -> str:
    """The inverse of :func:`parse_cards`: ``"As Kd"``."""
    return separator.join(str(card) for card in cards)


class RandomSource(Protocol):
    """What a shuffle needs from an RNG (``random.Random``, ``secrets.SystemRandom``)."""

    def randrange(self, stop: int, /) -> int: ...


#: The deck's fixed order: 2c 2d 2h 2s 3c ... As (rank-major, suits c d h s).
#: Position i in this order is the card's 0-51 index (see ``dealerpoker.cards.encoding``).
DECK_ORDER: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in Suit)


@dataclass(frozen=True, slots=True)
class Deck:
    """An ordered deck; ``Deck()`` is the fixed order :data:`DECK_ORDER`."""

    cards: tuple[Card, ...] = DECK_ORDER

    def __post_init__(self) -> None:
        ensure_unique(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __getitem__(self, index: int) -> Card:
        return self.cards[index]

    def shuffled(self, rng: RandomSource) -> Deck:
        """A new deck in random order (Fisher-Yates driven by the injected ``rng``)."""
        cards = list(self.cards)
        for i in range(len(cards) - 1, 0, -1):
            j = rng.randrange(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        return Deck(tuple(cards))

    def __str__(self) -> str:
        return format_cards(self.cards)


__all__ = [
    "DECK_ORDER",
    "Card",
    "Deck",
    "RandomSource",
    "Rank",
    "Suit",
    "ensure_unique",
    "format_cards",
    "parse_card",
    "parse_cards",
]
