import random

import pytest

from dealerpoker.cards import (
    DECK_ORDER,
    Card,
    Deck,
    Rank,
    Suit,
    format_cards,
    parse_card,
    parse_cards,
)
from dealerpoker.cards.encoding import (
    card_to_index,
    cards_to_mask,
    index_to_card,
    mask_to_cards,
)
from dealerpoker.errors import InvalidCardError, InvalidHandError


@pytest.mark.parametrize(
    ("token", "expected"),
    [("As", "As"), ("Td", "Td"), ("10d", "Td"), ("ah", "Ah"), ("A♠", "As"), ("10♥", "Th"),
     ("k♦", "Kd"), ("2♣", "2c"), ("QS", "Qs")],
)
def test_parse_card_forms(token: str, expected: str) -> None:
    assert str(parse_card(token)) == expected


def test_text_forms_round_trip() -> None:
    for card in DECK_ORDER:
        assert parse_card(str(card)) == card
        assert parse_card(card.pretty) == card
        assert eval(repr(card), {"Card": Card.parse}) == card


def test_parse_cards_with_and_without_spaces() -> None:
    assert parse_cards("As Kd") == parse_cards("AsKd") == parse_cards("As,Kd")
    assert format_cards(parse_cards("10s10d 2c")) == "Ts Td 2c"


@pytest.mark.parametrize("token", ["Ax", "1s", "A", "", "Asd", "11h", "Zz"])
def test_bad_card_names_the_token(token: str) -> None:
    with pytest.raises(InvalidCardError) as info:
        parse_card(token)
    assert repr(token) in str(info.value)


def test_duplicate_card_is_invalid_hand() -> None:
    with pytest.raises(InvalidHandError, match="duplicate card As"):
        parse_cards("As Kd As")


def test_deck_order_and_indices() -> None:
    assert len(DECK_ORDER) == 52 == len(set(DECK_ORDER))
    assert str(DECK_ORDER[0]) == "2c" and str(DECK_ORDER[51]) == "As"
    for index, card in enumerate(DECK_ORDER):
        assert card_to_index(card) == index
        assert index_to_card(index) == card
    assert mask_to_cards(cards_to_mask(DECK_ORDER)) == DECK_ORDER


@pytest.mark.parametrize("index", [-1, 52, 100])
def test_out_of_range_index(index: int) -> None:
    with pytest.raises(InvalidCardError, match=str(index)):
        index_to_card(index)


def test_shuffle_uses_injected_rng_and_keeps_cards() -> None:
    first = Deck().shuffled(random.Random(7))
    second = Deck().shuffled(random.Random(7))
    assert first == second
    assert sorted(first.cards) == sorted(DECK_ORDER)
    assert first != Deck()


def test_cards_are_immutable_and_ordered() -> None:
    card = Card(Rank.ACE, Suit.SPADES)
    with pytest.raises(AttributeError):
        card.rank = Rank.TWO  # type: ignore[misc]
    assert Card(Rank.TWO, Suit.SPADES) < card
