"""Agreement with independent evaluators from PyPI: the same comparisons and the same ties."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hands import random_hands

from dealerpoker.evaluator import evaluate_batch

HANDS = 1_000_000


def assert_same_order(
    ours: npt.NDArray[np.int64], theirs: npt.NDArray[np.int64], higher_is_better: bool
) -> None:
    """Same order on every pair of hands: our values map one-to-one and monotonically onto theirs."""
    assert ours.min() >= 0 and theirs.min() >= 0 and max(ours.max(), theirs.max()) < 1 << 31
    combined = np.unique(ours << 32 | theirs)  # the distinct (ours, theirs) pairs, by our value
    pairs = np.stack([combined >> 32, combined & 0xFFFFFFFF], axis=1)
    assert len(np.unique(pairs[:, 0])) == len(pairs), "one of our values maps to two of theirs"
    assert len(np.unique(pairs[:, 1])) == len(pairs), "two of our values map to one of theirs"
    steps = np.diff(pairs[:, 1])
    assert (steps > 0).all() if higher_is_better else (steps < 0).all()


@pytest.mark.slow
def test_phevaluator_agrees_on_a_million_random_seven_card_hands() -> None:
    phevaluator = pytest.importorskip("phevaluator._pheval")
    hands = random_hands(HANDS, 7, seed=2026)
    ours = evaluate_batch(hands).astype(np.int64)
    theirs = np.array([phevaluator.evaluate_7cards(*row) for row in hands.tolist()], dtype=np.int64)
    assert len(np.unique(ours)) > 4000  # most of the 4,824 classes occur, ties galore
    assert_same_order(ours, theirs, higher_is_better=False)  # phevaluator: 1 is the best


def test_eval7_agrees_on_random_seven_card_hands() -> None:
    eval7 = pytest.importorskip("eval7")
    hands = random_hands(100_000, 7, seed=7)
    # eval7's cards are "As"-style text; build them from rank and suit letters
    deck = [eval7.Card("23456789TJQKA"[i >> 2] + "cdhs"[i & 3]) for i in range(52)]
    ours = evaluate_batch(hands).astype(np.int64)
    theirs = np.array([eval7.evaluate([deck[c] for c in row]) for row in hands.tolist()], dtype=np.int64)
    assert_same_order(ours, theirs, higher_is_better=True)
