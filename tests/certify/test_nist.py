"""NIST SP 800-22 tests against the publication's known-answer examples (§2.x.4 and §2.x.8).

Where the publication prints errata the expected value is the one the NIST reference implementation
(sts-2.1.2) gives, as noted; the 1,000,000-bit examples use the binary expansion of e, computed here
exactly (binary splitting of sum 1/k!).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dealerpoker.certify import nist

PI_100 = nist.bits_of("1100100100001111110110101010001000100001011010001100001000110100110001001100011001100"
                      "010100010111000")


def e_expansion(bits: int) -> np.ndarray:  # type: ignore[type-arg]
    def split(a: int, b: int) -> tuple[int, int]:
        if b - a == 1:
            return 1, b
        m = (a + b) // 2
        p1, q1 = split(a, m)
        p2, q2 = split(m, b)
        return p1 * q2 + p2, q1 * q2

    terms = 2
    while math.lgamma(terms + 1) / math.log(2) < bits + 64:
        terms += 1000
    p, q = split(0, terms)
    return nist.bits_of(bin(((p + q) << (bits - 2)) // q)[2:])  # e = 10.1011011111...


@pytest.fixture(scope="module")
def e() -> np.ndarray:  # type: ignore[type-arg]
    bits = e_expansion(1_000_000)
    assert bits.size == 1_000_000 and "".join(map(str, bits[:16])) == "1010110111111000"
    return bits


@pytest.mark.parametrize(("test", "bits", "args", "expected"), [
    (nist.frequency, "1011010101", (), [0.527089]),                                   # 2.1.4
    (nist.frequency, PI_100, (), [0.109599]),                                          # 2.1.8
    (nist.block_frequency, "0110011010", (3,), [0.801252]),                           # 2.2.4
    (nist.block_frequency, PI_100, (10,), [0.706438]),                                 # 2.2.8
    (nist.runs, "1001101011", (), [0.147232]),                                         # 2.3.4
    (nist.runs, PI_100, (), [0.500798]),                                               # 2.3.8
    # 2.4.8 (the exact class probabilities, as sts-2.1.2)
    (nist.longest_run, "11001100000101010110110001001100111000000000001001001101010100010001001111010110"
                       "100000001101011111001100111001101101100010110010", (), [0.180609]),
    (nist.spectral, "1001010011", (), [0.468160]),   # 2.6.4: sts-2.1.2's value (the text's is an erratum)
    (nist.spectral, PI_100, (), [0.646355]),         # 2.6.8: likewise
    (nist.non_overlapping_template, "10100100101110010110", (3, 2, ["001"]), [0.344154]),  # 2.7.4
    (nist.serial, "0011011101", (3,), [0.808792, 0.670320]),                          # 2.11.4/6
    (nist.approximate_entropy, "0100110101", (3,), [0.261961]),                        # 2.12.4
    (nist.approximate_entropy, PI_100, (2,), [0.235301]),                              # 2.12.8
    (nist.cumulative_sums, "1011010111", (), [0.411659, 0.411659]),                     # 2.13.4
    (nist.cumulative_sums, PI_100, (), [0.219194, 0.114866]),                          # 2.13.8
])
def test_small_known_answers(test, bits, args, expected) -> None:  # type: ignore[no-untyped-def]
    sequence = nist.bits_of(bits) if isinstance(bits, str) else bits
    results = test(sequence, *args)
    assert [round(r.p_value, 6) for r in results] == expected


@pytest.mark.slow
def test_one_million_bits_of_e(e: np.ndarray) -> None:  # type: ignore[type-arg]
    assert round(nist.binary_matrix_rank(e[:100_000])[0].p_value, 6) == 0.532069          # 2.5.8
    assert round(nist.overlapping_template(e)[0].p_value, 6) == 0.110434                  # 2.8.8 (sts)
    assert round(nist.universal(e)[0].p_value, 6) == 0.282568                             # 2.9.8 (sts)
    # 2.10.8 with the exact pi_0 = 1/96 (the text's 0.845406 comes from a rounded 0.01047)
    assert round(nist.linear_complexity(e, 1000)[0].p_value, 6) == 0.844738
    assert [round(r.p_value, 6) for r in nist.serial(e, 2)] == [0.843764, 0.561915]         # 2.11.8
    assert [round(r.p_value, 6) for r in nist.random_excursions(e)] == [                    # 2.14.8
        0.573306, 0.197996, 0.164011, 0.007779, 0.786868, 0.440912, 0.797854, 0.778186]
    assert [round(r.p_value, 6) for r in nist.random_excursions_variant(e)] == [            # 2.15.8
        0.858946, 0.794755, 0.576249, 0.493417, 0.633873, 0.917283, 0.934708, 0.816012, 0.826009,
        0.137861, 0.200642, 0.441254, 0.939291, 0.505683, 0.445935, 0.512207, 0.538635, 0.593930]


def test_components() -> None:
    assert len(nist.aperiodic_templates(9)) == 148                 # SP 800-22 §2.7: 148 templates, m = 9
    assert nist.berlekamp_massey(nist.bits_of("1101011110001")) == 4  # §2.10.4's example sequence
    assert nist.berlekamp_massey(nist.bits_of("1110100" * 3)) == 3    # x^3 + x + 1
    rng = np.random.default_rng(5)
    matrices = rng.integers(0, 2, size=(200, 6, 6), dtype=np.uint8)
    ranks = nist.gf2_ranks(matrices)
    for matrix, rank in zip(matrices, ranks, strict=True):   # against a plain elimination on ints
        rows, r = [int("".join(map(str, row)), 2) for row in matrix], 0
        for bit in reversed(range(6)):
            pivot = next((i for i in range(r, 6) if rows[i] >> bit & 1), None)
            if pivot is None:
                continue
            rows[r], rows[pivot] = rows[pivot], rows[r]
            rows = [row ^ rows[r] if i != r and row >> bit & 1 else row for i, row in enumerate(rows)]
            r += 1
        assert rank == r
