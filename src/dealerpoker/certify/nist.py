"""The 15 tests of NIST SP 800-22 Rev. 1a on one bit sequence (numpy; p-values from SciPy).

Each test returns a list of :class:`NistResult` (most one; serial and cumulative sums two, the
random excursions 8 and 18, the non-overlapping template one per template). Parameters follow
SP 800-22 §2 and the reference implementation (sts-2.1.2): block sizes and the table constants
where the publication rounds them (longest run, overlapping template) and exact formulas where
it prints errata (the rank test's probabilities, linear complexity's pi_0, random excursions' pi).
The known-answer examples of SP 800-22 (§2.x.4 and §2.x.8) are checked in
``tests/certify/test_nist.py``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import exp, floor, lgamma, log, sqrt
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit
from scipy.special import erfc, gammaincc
from scipy.stats import norm

Bits = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class NistResult:
    test: str
    p_value: float
    statistic: float
    df: float | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"test": self.test, "p_value": self.p_value, "statistic": self.statistic, "df": self.df,
                "detail": self.detail}


def bits_of(text: str) -> Bits:
    return np.frombuffer(text.encode("ascii"), dtype=np.uint8) - ord("0")


def bits_from_bytes(data: bytes) -> Bits:
    return np.unpackbits(np.frombuffer(data, dtype=np.uint8))


def _igamc(a: float, x: float) -> float:
    return float(gammaincc(a, x))


def frequency(bits: Bits) -> list[NistResult]:
    n = bits.size
    s = 2 * int(bits.sum()) - n
    statistic = abs(s) / sqrt(n)
    return [NistResult("frequency", float(erfc(statistic / sqrt(2))), statistic)]


def block_frequency(bits: Bits, m: int = 128) -> list[NistResult]:
    blocks = bits.size // m
    pi = bits[: blocks * m].reshape(blocks, m).mean(axis=1)
    chi2 = float(4 * m * ((pi - 0.5) ** 2).sum())
    return [NistResult("block_frequency", _igamc(blocks / 2, chi2 / 2), chi2, blocks, f"M={m}")]


def runs(bits: Bits) -> list[NistResult]:
    n = bits.size
    pi = float(bits.mean())
    if abs(pi - 0.5) >= 2 / sqrt(n):  # the frequency prerequisite fails: p = 0, as sts-2.1.2 reports it
        return [NistResult("runs", 0.0, pi, None, "frequency prerequisite failed")]
    v = 1 + int(np.count_nonzero(bits[1:] != bits[:-1]))
    p = float(erfc(abs(v - 2 * n * pi * (1 - pi)) / (2 * sqrt(2 * n) * pi * (1 - pi))))
    return [NistResult("runs", p, v)]


_LONGEST = {8: (1, 4, (0.21484375, 0.3671875, 0.23046875, 0.1875)),
            128: (4, 9, (0.1174035788, 0.242955959, 0.249363483, 0.17517706, 0.102701071, 0.112398847)),
            10000: (10, 16, (0.0882, 0.2092, 0.2483, 0.1933, 0.1208, 0.0675, 0.0727))}


def longest_run(bits: Bits) -> list[NistResult]:
    n = bits.size
    m = 8 if n < 6272 else 128 if n < 750000 else 10000
    low, high, pi = _LONGEST[m]
    blocks = n // m
    matrix = bits[: blocks * m].reshape(blocks, m)
    current = np.zeros(blocks, dtype=np.int64)
    longest = np.zeros(blocks, dtype=np.int64)
    for column in range(m):
        current = (current + 1) * matrix[:, column]
        np.maximum(longest, current, out=longest)
    counts = np.bincount(np.clip(longest, low, high) - low, minlength=high - low + 1)
    expected = blocks * np.array(pi)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    k = len(pi) - 1
    return [NistResult("longest_run", _igamc(k / 2, chi2 / 2), chi2, k, f"M={m}")]


def _rank_probability(r: int, rows: int, cols: int) -> float:
    product = 1.0
    for i in range(r):
        product *= (1 - 2.0 ** (i - cols)) * (1 - 2.0 ** (i - rows)) / (1 - 2.0 ** (i - r))
    return float(2.0 ** (r * (cols + rows - r) - rows * cols) * product)


def gf2_ranks(matrices: npt.NDArray[np.uint8]) -> npt.NDArray[np.int64]:
    """Ranks over GF(2) of a stack of 0/1 matrices (k, rows, cols), all eliminated at once."""
    work = matrices.astype(np.uint8).copy()
    k, rows, cols = work.shape
    rank = np.zeros(k, dtype=np.int64)
    row_index = np.arange(rows)
    everyone = np.arange(k)
    for col in range(cols):
        has = work[:, :, col] == 1
        candidates = has & (row_index[None, :] >= rank[:, None])
        found = candidates.any(axis=1)
        pivot = np.argmax(candidates, axis=1)
        active = everyone[found & (rank < rows)]
        if active.size == 0:
            continue
        target = rank[active]
        pivot_rows = work[active, pivot[active]].copy()
        work[active, pivot[active]] = work[active, target]
        work[active, target] = pivot_rows
        eliminate = (work[active, :, col] == 1) & (row_index[None, :] != target[:, None])
        work[active] ^= eliminate[:, :, None].astype(np.uint8) * pivot_rows[:, None, :]
        rank[active] += 1
    return rank


def binary_matrix_rank(bits: Bits, rows: int = 32, cols: int = 32) -> list[NistResult]:
    count = bits.size // (rows * cols)
    matrices = bits[: count * rows * cols].reshape(count, rows, cols)
    ranks = gf2_ranks(matrices)
    full = int((ranks == rows).sum())
    below = int((ranks == rows - 1).sum())
    rest = count - full - below
    p_full = _rank_probability(rows, rows, cols)
    p_below = _rank_probability(rows - 1, rows, cols)
    p_rest = 1 - p_full - p_below
    chi2 = sum((observed - p * count) ** 2 / (p * count)
               for observed, p in ((full, p_full), (below, p_below), (rest, p_rest)))
    return [NistResult("binary_matrix_rank", float(np.exp(-chi2 / 2)), float(chi2), 2, f"{rows}x{cols}")]


def spectral(bits: Bits) -> list[NistResult]:
    n = bits.size
    x = 2.0 * bits - 1.0
    modulus = np.abs(np.fft.fft(x))[: n // 2]
    threshold = sqrt(log(1 / 0.05) * n)
    n0 = 0.95 * n / 2
    n1 = int((modulus < threshold).sum())
    d = (n1 - n0) / sqrt(n * 0.95 * 0.05 / 4)
    return [NistResult("spectral", float(erfc(abs(d) / sqrt(2))), d)]


def aperiodic_templates(m: int) -> list[str]:
    """Every m-bit template with no proper border (it cannot overlap itself)."""
    out = []
    for value in range(1 << m):
        text = format(value, f"0{m}b")
        if all(text[:k] != text[m - k:] for k in range(1, m)):
            out.append(text)
    return out


def _window_codes(bits: Bits, m: int, *, wrap: bool = False) -> npt.NDArray[np.int64]:
    source = np.concatenate([bits, bits[: m - 1]]) if wrap else bits
    count = source.size - m + 1
    codes = np.zeros(count, dtype=np.int64)
    for i in range(m):
        codes = (codes << 1) | source[i: i + count]
    return codes


def non_overlapping_template(bits: Bits, m: int = 9, blocks: int = 8,
                             templates: list[str] | None = None) -> list[NistResult]:
    chosen = templates if templates is not None else aperiodic_templates(m)
    size = bits.size // blocks
    mu = (size - m + 1) / 2**m
    variance = size * (1 / 2**m - (2 * m - 1) / 2 ** (2 * m))
    table = np.zeros((blocks, 1 << m), dtype=np.int64)
    for j in range(blocks):
        codes = _window_codes(bits[j * size:(j + 1) * size], m)
        table[j] = np.bincount(codes, minlength=1 << m)
    results = []
    for template in chosen:  # aperiodic: matches never overlap, so the greedy count is every match
        w = table[:, int(template, 2)]
        chi2 = float(((w - mu) ** 2).sum() / variance)
        results.append(NistResult("non_overlapping_template", _igamc(blocks / 2, chi2 / 2), chi2, blocks,
                                  f"template {template}"))
    return results


def _overlapping_pi(m: int, size: int) -> npt.NDArray[np.float64]:
    """The class probabilities as the reference implementation computes them (its ``Pr``)."""
    eta = (size - m + 1) / 2**m / 2
    pi = [exp(-eta)]
    for u in range(1, 5):
        pi.append(sum(exp(-eta - u * log(2) + ell * log(eta) - lgamma(ell + 1) + lgamma(u) - lgamma(ell)
                          - lgamma(u - ell + 1)) for ell in range(1, u + 1)))
    return np.array([*pi, 1 - sum(pi)])


def overlapping_template(bits: Bits, m: int = 9, size: int = 1032) -> list[NistResult]:
    blocks = bits.size // size
    counts = np.zeros(6, dtype=np.int64)
    template = (1 << m) - 1
    for j in range(blocks):
        codes = _window_codes(bits[j * size:(j + 1) * size], m)
        counts[min(int((codes == template).sum()), 5)] += 1
    expected = blocks * _overlapping_pi(m, size)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    return [NistResult("overlapping_template", _igamc(5 / 2, chi2 / 2), chi2, 5, f"m={m}, M={size}")]


_MAURER = {6: (5.2177052, 2.954), 7: (6.1962507, 3.125), 8: (7.1836656, 3.238), 9: (8.1764248, 3.311),
           10: (9.1723243, 3.356), 11: (10.170032, 3.384), 12: (11.168765, 3.401), 13: (12.168070, 3.410),
           14: (13.167693, 3.416), 15: (14.167488, 3.419), 16: (15.167379, 3.421)}
_MAURER_MIN = ((387840, 6), (904960, 7), (2068480, 8), (4654080, 9), (10342400, 10), (22753280, 11),
               (49643520, 12), (107560960, 13), (231669760, 14), (496435200, 15), (1059061760, 16))


def universal(bits: Bits) -> list[NistResult]:
    n = bits.size
    chosen = [length for least, length in _MAURER_MIN if n >= least]
    if not chosen:
        return [NistResult("universal", 0.0, float("nan"), None, "sequence too short (needs 387,840 bits)")]
    length = chosen[-1]
    q = 10 * 2**length
    total = n // length
    k = total - q
    values = np.zeros(total, dtype=np.int64)
    for i in range(length):
        values = (values << 1) | bits[i: total * length: length].astype(np.int64)
    order = np.argsort(values, kind="stable")
    previous = np.zeros(total, dtype=np.int64)  # 1-based index of the previous block of that value
    same = values[order[1:]] == values[order[:-1]]
    previous[order[1:][same]] = order[:-1][same] + 1
    index = np.arange(1, total + 1)
    tested = slice(q, total)
    total_log = float(np.log2(index[tested] - previous[tested]).sum())
    fn = total_log / k
    expected, variance = _MAURER[length]
    c = 0.7 - 0.8 / length + (4 + 32 / length) * k ** (-3 / length) / 15
    sigma = c * sqrt(variance / k)
    p = float(erfc(abs((fn - expected) / (sqrt(2) * sigma))))
    return [NistResult("universal", p, fn, None, f"L={length}, Q={q}, K={k}")]


@njit(cache=True)
def _complexities(blocks: Bits) -> npt.NDArray[np.int64]:  # pragma: no cover - compiled
    count, n = blocks.shape
    out = np.zeros(count, dtype=np.int64)
    for j in range(count):
        s = blocks[j]
        c = np.zeros(n + 1, dtype=np.uint8)
        b = np.zeros(n + 1, dtype=np.uint8)
        t = np.zeros(n + 1, dtype=np.uint8)
        c[0] = 1
        b[0] = 1
        length = 0
        m = -1
        for i in range(n):
            d = s[i]
            for k in range(1, length + 1):
                d ^= c[k] & s[i - k]
            if d == 1:
                t[:] = c
                shift = i - m
                for k in range(n + 1 - shift):
                    c[k + shift] ^= b[k]
                if 2 * length <= i:
                    length = i + 1 - length
                    m = i
                    b[:] = t
        out[j] = length
    return out


def berlekamp_massey(block: Bits) -> int:
    """Linear complexity of a 0/1 sequence (the shortest LFSR that makes it)."""
    return int(_complexities(np.ascontiguousarray(block, dtype=np.uint8).reshape(1, -1))[0])


def linear_complexity(bits: Bits, m: int = 500) -> list[NistResult]:
    blocks = bits.size // m
    mu = m / 2 + (9 + (-1) ** (m + 1)) / 36 - (m / 3 + 2 / 9) / 2**m
    pi = np.array([1 / 96, 1 / 32, 1 / 8, 1 / 2, 1 / 4, 1 / 16, 1 / 48])  # SP 800-22 §3.10, exact
    counts = np.zeros(7, dtype=np.int64)
    for complexity in _complexities(np.ascontiguousarray(bits[: blocks * m].reshape(blocks, m))):
        t = (-1) ** m * (int(complexity) - mu) + 2 / 9
        bucket = 0 if t <= -2.5 else 6 if t > 2.5 else floor(t + 0.5) + 3
        counts[bucket] += 1
    expected = blocks * pi
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    return [NistResult("linear_complexity", _igamc(3, chi2 / 2), chi2, 6, f"M={m}")]


def _psi2(bits: Bits, m: int) -> float:
    if m <= 0:
        return 0.0
    counts = np.bincount(_window_codes(bits, m, wrap=True), minlength=1 << m)
    return float((counts.astype(np.float64) ** 2).sum() * 2**m / bits.size - bits.size)


def serial(bits: Bits, m: int = 16) -> list[NistResult]:
    psi = [_psi2(bits, m - k) for k in range(3)]
    d1 = psi[0] - psi[1]
    d2 = psi[0] - 2 * psi[1] + psi[2]
    return [NistResult("serial", _igamc(2 ** (m - 2), d1 / 2), d1, 2 ** (m - 1), f"m={m}, first"),
            NistResult("serial", _igamc(2 ** (m - 3), d2 / 2), d2, 2 ** (m - 2), f"m={m}, second")]


def _phi(bits: Bits, m: int) -> float:
    counts = np.bincount(_window_codes(bits, m, wrap=True), minlength=1 << m)
    c = counts[counts > 0] / bits.size
    return float((c * np.log(c)).sum())


def approximate_entropy(bits: Bits, m: int = 10) -> list[NistResult]:
    n = bits.size
    apen = _phi(bits, m) - _phi(bits, m + 1)
    chi2 = 2 * n * (log(2) - apen)
    return [NistResult("approximate_entropy", _igamc(2 ** (m - 1), chi2 / 2), chi2, 2**m, f"m={m}")]


def _cusum_p(n: int, z: int) -> float:
    # The bounds as the reference implementation takes them (C's conversion to int truncates).
    root = sqrt(n)
    first = sum(float(norm.cdf((4 * k + 1) * z / root) - norm.cdf((4 * k - 1) * z / root))
                for k in range(int((-n / z + 1) / 4), int((n / z - 1) / 4) + 1))
    second = sum(float(norm.cdf((4 * k + 3) * z / root) - norm.cdf((4 * k + 1) * z / root))
                 for k in range(int((-n / z - 3) / 4), int((n / z - 1) / 4) + 1))
    return 1 - first + second


def cumulative_sums(bits: Bits) -> list[NistResult]:
    x = 2 * bits.astype(np.int64) - 1
    forward = int(np.abs(np.cumsum(x)).max())
    backward = int(np.abs(np.cumsum(x[::-1])).max())
    return [NistResult("cumulative_sums", _cusum_p(bits.size, forward), forward, None, "forward"),
            NistResult("cumulative_sums", _cusum_p(bits.size, backward), backward, None, "backward")]


def _excursion_pi(x: int) -> npt.NDArray[np.float64]:
    a = 1 / (2 * abs(x))
    return np.array([1 - a, *[(1 / (4 * x * x)) * (1 - a) ** (k - 1) for k in range(1, 5)], a * (1 - a) ** 4])


def _cycles(bits: Bits) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    walk = np.concatenate([[0], np.cumsum(2 * bits.astype(np.int64) - 1), [0]])
    zeros = np.flatnonzero(walk == 0)
    cycle_of = np.cumsum(walk == 0) - 1  # each position's cycle (a zero opens a new one)
    return walk, np.minimum(cycle_of, zeros.size - 2)


def random_excursions(bits: Bits) -> list[NistResult]:
    walk, cycle_of = _cycles(bits)
    j = int(cycle_of.max()) + 1
    results = []
    if j < max(0.005 * sqrt(bits.size), 500):
        return [NistResult("random_excursions", 0.0, float("nan"), None,
                           f"not applicable: {j} cycles (needs 500)")]
    for x in (-4, -3, -2, -1, 1, 2, 3, 4):
        visits = np.bincount(cycle_of[walk == x], minlength=j)
        counts = np.bincount(np.minimum(visits, 5), minlength=6)
        expected = j * _excursion_pi(x)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        results.append(NistResult("random_excursions", _igamc(5 / 2, chi2 / 2), chi2, 5, f"x={x:+d}, J={j}"))
    return results


def random_excursions_variant(bits: Bits) -> list[NistResult]:
    walk, cycle_of = _cycles(bits)
    j = int(cycle_of.max()) + 1
    if j < max(0.005 * sqrt(bits.size), 500):
        return [NistResult("random_excursions_variant", 0.0, float("nan"), None,
                           f"not applicable: {j} cycles (needs 500)")]
    results = []
    inner = walk[1:-1]
    for x in [*range(-9, 0), *range(1, 10)]:
        xi = int((inner == x).sum())
        p = float(erfc(abs(xi - j) / sqrt(2 * j * (4 * abs(x) - 2))))
        results.append(NistResult("random_excursions_variant", p, xi, None, f"x={x:+d}, J={j}"))
    return results


#: The 15 tests in SP 800-22's order, with the parameters used for 1,000,000-bit sequences.
TESTS = (frequency, block_frequency, runs, longest_run, binary_matrix_rank, spectral,
         non_overlapping_template, overlapping_template, universal, linear_complexity, serial,
         approximate_entropy, cumulative_sums, random_excursions, random_excursions_variant)


def run_all(bits: Bits) -> list[NistResult]:
    return [result for test in TESTS for result in test(bits)]
