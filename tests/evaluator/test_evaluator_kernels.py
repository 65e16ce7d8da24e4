"""The fast kernels (through the batch and scalar APIs) against the slow reference twin."""

from __future__ import annotations

import numpy as np
import pytest
from hands import random_hands
from reference_evaluator import reference_best_five, reference_value_of_indices

from dealerpoker.cards import parse_cards
from dealerpoker.cards.encoding import card_to_index, indices_to_cards
from dealerpoker.evaluator import evaluate, evaluate_batch, kernels, tables


def test_sum_keys_are_distinct_over_every_multiset_of_up_to_seven() -> None:
    for width in (7, 6):  # the low field holds Two..Eight, the high field Nine..Ace
        counts = tables.count_vectors(width, tuple(range(8)))
        sums = counts.astype(np.int64) @ np.array(tables.SUM_KEYS[:width])
        assert len(np.unique(sums)) == len(counts)
        assert sums.max() <= (tables.LOW_FIELD if width == 7 else tables.HIGH_FIELD)


def test_tables_have_one_slot_per_rank_multiset() -> None:
    # rank multisets of 5, 6, 7 cards (each rank at most four times)
    assert [len(t) for t in (tables.RANK_VALUES_5, tables.RANK_VALUES_6, tables.RANK_VALUES_7)] == [
        6175, 18395, 49205]  # fmt: skip
    assert min(t.min() for t in (tables.RANK_VALUES_5, tables.RANK_VALUES_6, tables.RANK_VALUES_7)) > 0


@pytest.mark.parametrize("width", [5, 6, 7])
def test_batch_matches_reference_on_random_hands(width: int) -> None:
    hands = random_hands(3000, width, seed=width)
    values = evaluate_batch(hands)
    assert values.dtype == np.int32
    for row, value in zip(hands.tolist(), values.tolist(), strict=True):
        assert value == reference_value_of_indices(row), row


@pytest.mark.parametrize("width", [5, 6, 7])
def test_scalar_matches_reference_and_best_five(width: int) -> None:
    for row in random_hands(1000, width, seed=10 + width).tolist():
        hand = evaluate(row)
        cards = indices_to_cards(row)
        assert hand.value == reference_value_of_indices(row)
        assert hand.best_five == reference_best_five(cards)
        assert evaluate(cards) == hand


def test_njit_callers_get_the_same_values() -> None:
    hands = random_hands(2000, 7, seed=99)
    expected = evaluate_batch(hands)
    got = [int(kernels.eval7(*row)) for row in hands.tolist()]
    assert got == expected.tolist()
    assert [int(kernels.eval5(*row[:5])) for row in hands.tolist()] == evaluate_batch(hands[:, :5]).tolist()


# Hands of every category, flush-and-straight corner cases included.
CASES = [
    ("Ah Kh Qh Jh Th 2c 3d", "Royal Flush"),
    ("9h Kh Qh Jh Th Ah 3d", "Royal Flush"),
    ("Ad 2d 3d 4d 5d Kc Qc", "Straight Flush, Five high"),
    ("6d 2d 3d 4d 5d Ad Kd", "Straight Flush, Six high"),
    ("9c 9d 9h 9s Ac Ad Ah", "Four of a Kind, Nines"),
    ("Kh Kd Ks 3c 3d 9s 2h", "Full House, Kings over Threes"),
    ("3h 3d 3s Kc Kd Ks 2h", "Full House, Kings over Threes"),
    ("As Ks 9s 5s 2s Kd Kh", "Flush, Ace high"),
    ("As 2d 3h 4c 5s Kd Qd", "Straight, Five high"),
    ("As 2d 3h 4c 5s 6d Qd", "Straight, Six high"),
    ("Ts Jd Qh Kc As 9d 8d", "Straight, Ace high"),
    ("7c 7d 7h As Kd 2c 3d", "Three of a Kind, Sevens"),
    ("7c 7d 2h 2s Kd Kc 3d", "Two Pair, Kings and Sevens"),
    ("Qc Qd 2h 5s 9d Tc 3d", "Pair of Queens"),
    ("Ac Qd 2h 5s 9d Tc 3d", "High Card, Ace"),
    ("Ac Kd Qh Js 9d", "High Card, Ace"),
]


@pytest.mark.parametrize(("text", "name"), CASES)
def test_named_hands(text: str, name: str) -> None:
    cards = parse_cards(text)
    hand = evaluate(cards)
    assert hand.name == name
    assert hand.value == reference_value_of_indices([card_to_index(c) for c in cards])
    assert evaluate_batch(np.array([[card_to_index(c) for c in cards]]))[0] == hand.value
