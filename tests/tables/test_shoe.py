"""The simulated shoe's dealing (pure): the deck's cards in the order the table asks for them,
misreads taken back with a void, misdeals, a fresh shuffle each round."""

from __future__ import annotations

import random

import pytest

from dealerpoker.tables.shoe import Shoe, ShoeRates


def expect(position: int, cards: int = 2, round_id: str = "t/1") -> dict[str, object]:
    return {"type": "expect", "round": round_id, "position": position, "cards": cards, "to": "player"}


def test_it_deals_its_deck_in_order_and_answers_each_expect_once() -> None:
    shoe = Shoe(random.Random(1))
    sent = [shoe.on_expect(expect(p, cards=9 - p)) for p in range(9)]
    deck = shoe.deck("t/1")
    assert [m[0]["card"] for m in sent] == deck[:9] and len(set(deck)) == 52
    assert shoe.on_expect(expect(3)) == []  # repeated: already dealt
    shoe.on_expect(expect(0, round_id="t/2"))
    assert shoe.deck("t/2") != deck  # a new round, a new shuffle


def test_a_misread_is_a_wrong_card_then_a_void_then_the_right_card() -> None:
    shoe = Shoe(random.Random(3), ShoeRates(misread=1.0))
    wrong = shoe.on_expect(expect(0))[0]
    right = shoe.deck("t/1")[0]
    assert wrong["type"] == "card" and wrong["card"] != right and wrong["card"] in shoe.deck("t/1")[1:]
    assert shoe.on_expect(expect(1)) == [{"type": "void"}]  # the wrong card was taken: void it
    assert shoe.on_expect(expect(0)) == [{"type": "card", "card": right, "source": "shoe"}]
    assert shoe.misreads == 1
    # The last card of a street cannot be voided (it is shown at once): never misread.
    assert shoe.on_expect(expect(1, cards=1))[0]["card"] == shoe.deck("t/1")[1]


def test_a_refused_misread_is_followed_by_the_right_card() -> None:
    shoe = Shoe(random.Random(3), ShoeRates(misread=1.0))
    shoe.on_expect(expect(0))
    assert shoe.on_error() == [{"type": "card", "card": shoe.deck("t/1")[0], "source": "shoe"}]
    assert shoe.on_error() == []


def test_a_misdealt_round_ends_with_a_misdeal() -> None:
    shoe = Shoe(random.Random(5), ShoeRates(misdeal=1.0))
    sent = [m for p in range(9) for m in shoe.on_expect(expect(p, cards=1))]
    assert sent[-1]["type"] == "misdeal" and shoe.misdeals == 1
    assert all(m["type"] == "card" for m in sent[:-1])


@pytest.mark.parametrize("rates", [{"misread": -0.1}, {"misdeal": 1.5}, {"misread": True}])
def test_rates_are_probabilities(rates: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="probability"):
        ShoeRates(**rates)
