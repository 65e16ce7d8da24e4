"""Properties that must hold for every hand (hypothesis)."""

from __future__ import annotations

from random import Random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerpoker.cards.encoding import card_to_index
from dealerpoker.evaluator import evaluate, evaluate_batch

hands = st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True)
suit_permutations = st.permutations([0, 1, 2, 3])


@settings(max_examples=300, deadline=None)
@given(hands, suit_permutations)
def test_a_suit_permutation_never_changes_the_value(hand: list[int], suits: list[int]) -> None:
    renamed = [(card & ~3) | suits[card & 3] for card in hand]
    assert evaluate(renamed).value == evaluate(hand).value
    assert evaluate_batch(np.array([hand, renamed])).tolist() == [evaluate(hand).value] * 2


@settings(max_examples=300, deadline=None)
@given(hands, st.randoms(use_true_random=False))
def test_card_order_never_changes_the_value(hand: list[int], rng: Random) -> None:
    shuffled = list(hand)
    rng.shuffle(shuffled)
    assert evaluate(shuffled).value == evaluate(hand).value
    assert evaluate_batch(np.array([hand, shuffled])).tolist() == [evaluate(hand).value] * 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=6, max_size=7, unique=True))
def test_adding_a_card_never_lowers_the_best_hand(hand: list[int]) -> None:
    assert evaluate(hand).value >= evaluate(hand[:-1]).value
    assert evaluate_batch(np.array([hand]))[0] >= evaluate_batch(np.array([hand[:-1]]))[0]


@settings(max_examples=200, deadline=None)
@given(hands)
def test_best_five_is_five_of_the_cards_with_the_same_value(hand: list[int]) -> None:
    value = evaluate(hand)
    best = value.best_five
    assert len(set(best)) == 5
    assert {card_to_index(card) for card in best} <= set(hand)
    assert evaluate(best).value == value.value
