"""The RNG battery: the real shuffle passes at a fixed seed set, the biased control fails it."""

from __future__ import annotations

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest

from dealerpoker.certify import rng
from dealerpoker.fairness.shuffle import deck_order

MASTER = "5eed" * 16      # fixed: the result is deterministic, whatever luck
DECKS = 20_000
NIST_SEQUENCES = 2


@pytest.fixture(scope="module")
def fair() -> dict:  # type: ignore[type-arg]
    return rng.run_battery(MASTER, DECKS, NIST_SEQUENCES)


@pytest.fixture(scope="module")
def control() -> dict:  # type: ignore[type-arg]
    return rng.run_battery(MASTER, DECKS, NIST_SEQUENCES, biased=True)


@pytest.mark.slow
def test_the_shuffle_passes_every_test(fair: dict) -> None:  # type: ignore[type-arg]
    assert fair["passed"], [t for t in fair["card_tests"] if not t["passed"]] + \
        [t["test"] for t in fair["nist_tests"] if not t["passed"]]
    assert len(fair["card_tests"]) == 8 and len(fair["nist_tests"]) == 15
    for test in fair["card_tests"]:
        assert 0 <= test["p_value"] <= 1 and test["sample"]
    position = fair["card_tests"][0]
    assert position["df"] == 2601 and "20,000 decks" in position["sample"]


@pytest.mark.slow
def test_the_biased_control_fails(control: dict) -> None:  # type: ignore[type-arg]
    assert not control["passed"]
    failed = {t["test"] for t in control["card_tests"] if not t["passed"]}
    assert "card x position (52 x 52 chi-square)" in failed and "first card frequency" in failed
    assert not next(t for t in control["nist_tests"] if t["test"] == "frequency")["passed"]


def test_decks_are_the_real_shuffle_of_the_derived_seeds() -> None:
    decks = rng.deal_decks(MASTER, 3)
    for i in range(3):
        assert tuple(decks[i]) == deck_order(rng.server_seed(MASTER, i), rng.CLIENT_SEED, 0)
    assert len({rng.server_seed(MASTER, i) for i in range(100)}) == 100


def test_serial_moments_equal_every_permutation_of_a_small_deck() -> None:
    values = [0, 1, 2, 3, 5, 8]
    sums = [sum(a * b for a, b in itertools.pairwise(order)) for order in itertools.permutations(values)]
    mean = Fraction(sum(sums), len(sums))
    variance = Fraction(sum(s * s for s in sums), len(sums)) - mean * mean
    assert rng.permutation_serial_moments(values) == (mean, variance)


def test_runs_moments_and_poker_patterns_are_exact() -> None:
    assert sum(rng.POKER_PATTERNS.values()) == comb(52, 5)
    # runs of high/low along a 10-card deck, every arrangement: mean and variance of Wald-Wolfowitz
    runs = [1 + sum(a != b for a, b in itertools.pairwise(order))
            for order in set(itertools.permutations([0] * 5 + [1] * 5))]
    assert np.mean(runs) == pytest.approx(2 * 5 * 5 / 10 + 1)
    assert np.var(runs) == pytest.approx(2 * 5 * 5 * (2 * 5 * 5 - 10) / (10**2 * 9))


def test_stream_bits_are_the_hmac_blocks() -> None:
    from dealerpoker.fairness.shuffle import stream_blocks

    bits = rng.stream_bits(MASTER, 0, 512)
    first = next(stream_blocks(rng.server_seed(MASTER, 0, "nist"), rng.CLIENT_SEED, 0))
    assert np.array_equal(bits[:256], np.unpackbits(np.frombuffer(first, dtype=np.uint8)))
