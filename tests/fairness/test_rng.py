"""RNG quality of the fair shuffle: chi-square tests on fixed seeds, with a biased control.

Fixed seeds make these deterministic (they cannot flake); they would fail for a biased shuffle,
as the control shows. The >= 1,000,000-deal run is ``benchmarks/rng.py`` (results in
``benchmarks/RESULTS.md``, section "RNG").
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator

import pytest

from dealerpoker.fairness import deck_order
from dealerpoker.fairness.shuffle import draw_below, stream_words
from dealerpoker.fairness.stats import (
    REJECT_BELOW,
    chi2_sf,
    first_card_test,
    first_pair_test,
    position_test,
    shuffle_counts,
)

DECKS = 20_000


def seed_for(k: int) -> str:
    return hashlib.sha256(f"rng-test:{k}".encode()).hexdigest()


def fair_decks(n: int) -> Iterator[tuple[int, ...]]:
    for k in range(n):
        yield deck_order(seed_for(k // 100), "rng-test", k % 100)


def naive_decks(n: int) -> Iterator[list[int]]:
    """The classic wrong shuffle: swap every position with ANY position (n**n paths, biased)."""
    for k in range(n):
        words = stream_words(seed_for(k // 100), "rng-test", k % 100)
        deck = list(range(52))
        for i in range(52):
            j = draw_below(52, words)
            deck[i], deck[j] = deck[j], deck[i]
        yield deck


@pytest.fixture(scope="module")
def fair_counts():  # type: ignore[no-untyped-def]
    return shuffle_counts(fair_decks(DECKS))


def test_chi2_sf_closed_forms() -> None:
    for x in (0.1, 1.0, 3.7, 10.0, 40.0):
        assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-10)
        assert chi2_sf(x, 4) == pytest.approx(math.exp(-x / 2) * (1 + x / 2), rel=1e-10)
        assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9)
    assert chi2_sf(0.0, 5) == 1.0


def test_chi2_sf_table_values() -> None:
    # critical values from standard chi-square tables
    assert chi2_sf(124.342, 100) == pytest.approx(0.05, abs=2e-5)
    assert chi2_sf(135.807, 100) == pytest.approx(0.01, abs=2e-5)
    assert chi2_sf(149.449, 100) == pytest.approx(0.001, abs=2e-6)
    # large df: the mean of chi-square(df) sits near the median, so p is close to (just under) 1/2
    assert 0.49 < chi2_sf(2601.0, 2601) < 0.51
    assert chi2_sf(3000.0, 2601) < 1e-6


def test_card_position_frequencies(fair_counts) -> None:  # type: ignore[no-untyped-def]
    result = position_test(fair_counts)
    assert result.df == 2601
    assert result.p_value >= REJECT_BELOW, result.describe()
    assert (fair_counts.position.sum(axis=0) == DECKS).all()  # every deck holds every card once


def test_first_card_frequencies(fair_counts) -> None:  # type: ignore[no-untyped-def]
    result = first_card_test(fair_counts)
    assert result.p_value >= REJECT_BELOW, result.describe()


def test_first_pair_frequencies(fair_counts) -> None:  # type: ignore[no-untyped-def]
    result = first_pair_test(fair_counts)
    assert result.p_value >= REJECT_BELOW, result.describe()
    assert fair_counts.first_pair.trace() == 0  # a card never follows itself


def test_the_tests_catch_a_biased_shuffle() -> None:
    """Control: the same stream in the naive shuffle is rejected, so the position test has power."""
    result = position_test(shuffle_counts(naive_decks(DECKS)))
    assert result.p_value < REJECT_BELOW, result.describe()
