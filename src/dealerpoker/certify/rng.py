"""RNG evidence: the battery a lab runs on the real shuffle and on the generator's bit stream.

The decks come from :func:`dealerpoker.fairness.shuffle.deck_order` (``hmac-sha256-fy-v1``), one
fresh 32-byte server seed per deal as production draws them. So that a run can be repeated, the
server seeds are derived from one master seed: seed ``i`` is SHA-256(master || ``i`` as 8 bytes
big-endian), a uniform 32-byte value like ``secrets.token_hex(32)``; the pack draws its master
seed with :mod:`secrets` and prints it, and the tests fix it (their result is then deterministic).

Card tests (each at 99%, p-values from SciPy's distributions): card x position (52 x 52
chi-square), first card, ordered pair of the first two cards, runs above/below the middle card
within each deck (Wald-Wolfowitz), serial correlation of adjacent cards within each deck (exact
permutation moments), serial correlation of the first card between successive deals, the gap
test and the poker test on the ranks of the first five cards. Bit tests: the 15 tests of NIST SP
800-22 (:mod:`dealerpoker.certify.nist`) on sequences of the stream, each assessed as SP 800-22
§4.2 says: the proportion of sequences passing and the uniformity of their p-values.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb, sqrt
from typing import Any

import numpy as np
import numpy.typing as npt
from scipy import stats

from dealerpoker.certify import nist
from dealerpoker.fairness.shuffle import (
    ALGORITHM_VERSION,
    deck_order,
    draw_below,
    stream_blocks,
    stream_words,
)

ALPHA = 0.01
CLIENT_SEED = "certify"
NIST_BITS = 1_000_000
BLOCKS_PER_DEAL = 7  # a deal reads 51 words and rarely one more: seven 32-byte blocks
Decks = npt.NDArray[np.int64]
Progress = Callable[[int, int], None]


@dataclass
class TestResult:
    name: str
    statistic: float
    df: float | None
    p_value: float
    sample: str
    detail: str = ""
    passed: bool = field(init=False)

    def __post_init__(self) -> None:
        self.passed = bool(self.p_value >= ALPHA)

    def to_json(self) -> dict[str, Any]:
        return {"test": self.name, "statistic": self.statistic, "df": self.df, "p_value": self.p_value,
                "passed": self.passed, "sample": self.sample, "detail": self.detail}


def server_seed(master: str, index: int, label: str = "deal") -> str:
    """The ``index``-th server seed of a run (64 hex), from its master seed."""
    data = bytes.fromhex(master) + label.encode("ascii") + index.to_bytes(8, "big")
    return hashlib.sha256(data).hexdigest()


def biased_deck_order(seed: str, client_seed: str, nonce: int) -> tuple[int, ...]:
    """The control: the classic wrong shuffle (swap each position with *any* position) on the
    same word stream. Its 52^52 paths cannot map evenly onto 52! orders: a real bias."""
    deck = list(range(52))
    words = stream_words(seed, client_seed, nonce)
    for i in range(52):
        j = draw_below(52, words)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def deal_decks(master: str, count: int, *, shuffle: Callable[[str, str, int], Sequence[int]] = deck_order,
               progress: Progress | None = None) -> Decks:
    decks = np.empty((count, 52), dtype=np.int64)
    for i in range(count):
        decks[i] = shuffle(server_seed(master, i), CLIENT_SEED, 0)
        if progress is not None and (i % 2000 == 1999 or i == count - 1):
            progress(i + 1, count)
    return decks


def _chi_square(observed: npt.NDArray[np.int64], expected: npt.NDArray[np.float64] | float,
                df: int) -> tuple[float, float]:
    statistic = float(((observed - expected) ** 2 / expected).sum())
    return statistic, float(stats.chi2.sf(statistic, df))


def card_position_test(decks: Decks) -> TestResult:
    n = decks.shape[0]
    counts = np.zeros((52, 52), dtype=np.int64)
    for position in range(52):
        counts[position] = np.bincount(decks[:, position], minlength=52)
    statistic, p = _chi_square(counts, n / 52, 51 * 51)
    return TestResult("card x position (52 x 52 chi-square)", statistic, 51 * 51, p, f"{n:,} decks")


def first_card_test(decks: Decks) -> TestResult:
    n = decks.shape[0]
    statistic, p = _chi_square(np.bincount(decks[:, 0], minlength=52), n / 52, 51)
    return TestResult("first card frequency", statistic, 51, p, f"{n:,} decks")


def first_pair_test(decks: Decks) -> TestResult:
    n = decks.shape[0]
    codes = decks[:, 0] * 52 + decks[:, 1]
    counts = np.bincount(codes, minlength=52 * 52).reshape(52, 52)
    observed = counts[~np.eye(52, dtype=bool)]
    statistic, p = _chi_square(observed, n / 2652, 2651)
    return TestResult("ordered pair of the first two cards", statistic, 2651, p, f"{n:,} decks")


def runs_test(decks: Decks) -> TestResult:
    """Runs of cards above / below the middle (index >= 26) along each deck: given 26 of each, the
    number of runs has mean 27 and variance 2*26*26*(2*26*26-52)/(52^2*51) per deck."""
    n = decks.shape[0]
    high = decks >= 26
    runs = 1 + (high[:, 1:] != high[:, :-1]).sum(axis=1)
    n1 = n2 = 26
    mean = 2 * n1 * n2 / 52 + 1
    variance = 2 * n1 * n2 * (2 * n1 * n2 - 52) / (52**2 * 51)
    z = float((runs.sum() - n * mean) / sqrt(n * variance))
    return TestResult("runs above/below the middle card (Wald-Wolfowitz)", z, None,
                      float(2 * stats.norm.sf(abs(z))), f"{n:,} decks, {n * 52:,} cards")


def permutation_serial_moments(values: Iterable[int]) -> tuple[Fraction, Fraction]:
    """Exact mean and variance of sum_i x_i x_(i+1) over a uniformly random order of ``values``."""
    values = list(values)
    n = len(values)
    p1, p2, p3, p4 = (sum((Fraction(v) ** k for v in values), Fraction(0)) for k in (1, 2, 3, 4))
    pairs = (p1 * p1 - p2) / (n * (n - 1))                        # E[X1 X2]
    squares = (p2 * p2 - p4) / (n * (n - 1))                      # E[X1^2 X2^2]
    triples = (p2 * p1 * p1 - 2 * p1 * p3 + 2 * p4 - p2 * p2) / (n * (n - 1) * (n - 2))  # E[X1 X2^2 X3]
    quads = ((p1**4 - 6 * p1 * p1 * p2 + 3 * p2 * p2 + 8 * p1 * p3 - 6 * p4)
             / (n * (n - 1) * (n - 2) * (n - 3)))                  # E[X1 X2 X3 X4]
    mean = (n - 1) * pairs
    variance = ((n - 1) * (squares - pairs**2) + 2 * (n - 2) * (triples - pairs**2)
                + (n - 2) * (n - 3) * (quads - pairs**2))
    return mean, variance


def serial_correlation_test(decks: Decks) -> TestResult:
    n = decks.shape[0]
    mean, variance = permutation_serial_moments(range(52))
    sums = (decks[:, 1:] * decks[:, :-1]).sum(axis=1)
    z = float((int(sums.sum()) - n * mean) / sqrt(n * variance))
    x, y = decks[:, :-1].ravel(), decks[:, 1:].ravel()
    r = float(np.corrcoef(x, y)[0, 1])
    return TestResult("serial correlation of adjacent cards in a deck", z, None,
                      float(2 * stats.norm.sf(abs(z))), f"{n:,} decks, {n * 51:,} pairs",
                      f"lag-1 correlation {r:+.6f} (expected -1/51 = -0.019608 without replacement)")


def serial_across_deals_test(decks: Decks) -> TestResult:
    first = decks[:, 0].astype(np.float64)
    n = first.size - 1
    r = float(np.corrcoef(first[:-1], first[1:])[0, 1])
    z = r * sqrt(n)
    return TestResult("serial correlation of the first card between successive deals", z, None,
                      float(2 * stats.norm.sf(abs(z))), f"{n:,} pairs of deals", f"r = {r:+.6f}")


def gap_test(decks: Decks, *, longest: int = 20) -> TestResult:
    """Knuth's gap test on the first card of successive deals: a 'hit' is a card below 13 (the
    2s to 4s, p = 1/4); gap lengths 0..longest-1 and longer are geometric."""
    hits = np.flatnonzero(decks[:, 0] < 13)
    gaps = np.diff(hits) - 1
    p = 13 / 52
    probability = np.array([p * (1 - p) ** k for k in range(longest)] + [(1 - p) ** longest])
    counts = np.bincount(np.minimum(gaps, longest), minlength=longest + 1)
    statistic, pv = _chi_square(counts, gaps.size * probability, longest)
    return TestResult("gap test (first card below a 5, successive deals)", statistic, longest, pv,
                      f"{gaps.size:,} gaps")


#: Rank patterns of five cards from a 52-card deck and their counts of C(52, 5) hands.
POKER_PATTERNS = {"all ranks different": comb(13, 5) * 4**5, "one pair": 13 * 6 * comb(12, 3) * 4**3,
                  "two pairs": comb(13, 2) * 36 * 11 * 4, "three of a kind": 13 * 4 * comb(12, 2) * 16,
                  "full house or four of a kind": 13 * 4 * 12 * 6 + 13 * 48}


def poker_test(decks: Decks) -> TestResult:
    n = decks.shape[0]
    ranks = np.sort(decks[:, :5] // 4, axis=1)
    counts = np.zeros((n, 13), dtype=np.int64)
    np.add.at(counts, (np.repeat(np.arange(n), 5), ranks.ravel()), 1)
    biggest = counts.max(axis=1)
    distinct = (counts > 0).sum(axis=1)
    pattern = np.select([distinct == 5, distinct == 4, (distinct == 3) & (biggest == 2),
                         (distinct == 3) & (biggest == 3)], [0, 1, 2, 3], 4)
    observed = np.bincount(pattern, minlength=5)
    expected = n * np.array(list(POKER_PATTERNS.values())) / comb(52, 5)
    statistic, p = _chi_square(observed, expected, 4)
    return TestResult("poker test (rank pattern of the first five cards)", statistic, 4, p, f"{n:,} hands")


CARD_TESTS = (card_position_test, first_card_test, first_pair_test, runs_test, serial_correlation_test,
              serial_across_deals_test, gap_test, poker_test)


def stream_bits(master: str, sequence: int, bits: int = NIST_BITS, *, stuck: bool = False) -> nist.Bits:
    """The generator's raw bit stream as deals read it: for successive deals (fresh server seeds),
    the first seven HMAC-SHA256 blocks of each, concatenated. ``stuck`` is the control: the same
    bytes with the top bit of every 16th byte stuck at 1."""
    needed = -(-bits // 8)
    chunks: list[bytes] = []
    size = 0
    deal = 0
    while size < needed:
        blocks = stream_blocks(server_seed(master, sequence * 1_000_000 + deal, "nist"), CLIENT_SEED, 0)
        for _ in range(BLOCKS_PER_DEAL):
            block = next(blocks)
            chunks.append(block)
            size += len(block)
        deal += 1
    data = bytearray(b"".join(chunks)[:needed])
    if stuck:
        for i in range(0, len(data), 16):
            data[i] |= 0x80
    return nist.bits_from_bytes(bytes(data))[:bits]


def allowed_failures(subtests: int) -> int:
    """Sub-tests of one NIST test that may fall outside the acceptance region while the test
    passes: chosen so that a fair generator fails a test less than 1% of the time (each sub-test
    alone is outside it about 0.35% of the time)."""
    return 0 if subtests <= 2 else 1 if subtests <= 30 else 3


#: The proportion check's level: the one-sided tail of 3 standard deviations.
PROPORTION_TAIL = 0.0027


def assess_nist(per_sequence: list[list[nist.NistResult]]) -> list[dict[str, Any]]:
    """SP 800-22 §4.2 over m sequences: per sub-test, the proportion passing at 0.01 and the
    uniformity of the p-values (10 bins, chi-square, P >= 0.0001, when m >= 55).

    The proportion check is SP 800-22's "p ± 3 sqrt(p(1-p)/m)" taken exactly: the number of
    sequences failing is binomial (m, 0.01), and a sub-test fails when that many failures or more
    have a probability below 0.0027 (the tail of 3 standard deviations). The publication's normal
    approximation is far from it at these m (at m = 100 it rejects 4 failures, which a fair
    generator shows 1.8% of the time); its interval is kept in the JSON (``nist_interval_low``)."""
    m = len(per_sequence)
    keyed: dict[tuple[str, str], list[float]] = {}
    for results in per_sequence:
        for result in results:
            if result.statistic != result.statistic:  # not applicable to this sequence (NaN)
                continue
            keyed.setdefault((result.test, result.detail.split(", J=")[0]), []).append(result.p_value)
    by_test: dict[str, list[dict[str, Any]]] = {}
    for (test, detail), values in keyed.items():
        count = len(values)
        passed = sum(v >= ALPHA for v in values)
        low = (1 - ALPHA) - 3 * sqrt(ALPHA * (1 - ALPHA) / count)
        tail = float(stats.binom.sf(count - passed - 1, count, ALPHA))  # P(at least this many fail)
        bins = np.bincount(np.minimum((np.array(values) * 10).astype(int), 9), minlength=10)
        chi2 = float(((bins - count / 10) ** 2 / (count / 10)).sum())
        uniformity = float(stats.chi2.sf(chi2, 9))
        ok = tail >= PROPORTION_TAIL and (count < 55 or uniformity >= 0.0001)
        by_test.setdefault(test, []).append({"detail": detail, "sequences": count, "passed": passed,
                                             "failures_tail_p": tail, "nist_interval_low": low,
                                             "uniformity_p": uniformity,
                                             "uniformity_applies": count >= 55, "ok": ok})
    rows = []
    for test in (t.__name__ for t in nist.TESTS):
        subtests = by_test.get(test, [])
        failures = sum(not s["ok"] for s in subtests)
        allowed = allowed_failures(len(subtests))
        # No sub-test at all: no sequence qualified (random excursions need 500 cycles): not
        # applicable, as SP 800-22 says, rather than failed.
        rows.append({"test": test, "subtests": subtests, "failures": failures, "allowed_failures": allowed,
                     "passed": failures <= allowed, "applicable": bool(subtests), "sequences": m,
                     "min_proportion": min((s["passed"] / s["sequences"] for s in subtests), default=0.0),
                     "min_uniformity_p": min((s["uniformity_p"] for s in subtests), default=0.0)})
    return rows


def run_battery(master: str, decks: int, nist_sequences: int, *, biased: bool = False,
                progress: Progress | None = None, nist_progress: Progress | None = None) -> dict[str, Any]:
    """The whole battery on ``decks`` deals and ``nist_sequences`` 1,000,000-bit sequences."""
    shuffle = biased_deck_order if biased else deck_order
    dealt = deal_decks(master, decks, shuffle=shuffle, progress=progress)
    card = [test(dealt) for test in CARD_TESTS]
    per_sequence = []
    for s in range(nist_sequences):
        per_sequence.append(nist.run_all(stream_bits(master, s, stuck=biased)))
        if nist_progress is not None:
            nist_progress(s + 1, nist_sequences)
    bit_tests = assess_nist(per_sequence)
    return {"kind": "rng-battery", "algorithm": ALGORITHM_VERSION,
            "shuffle": ("biased control (swap with any position)" if biased else
                        "hmac-sha256-fy-v1 Fisher-Yates"),
            "bit_stream": "control: top bit of every 16th byte stuck at 1" if biased else
                          "HMAC-SHA256 blocks 0-6 of successive deals",
            "master_seed": master, "seed_derivation": "server seed i = SHA-256(master || label || i, 8 bytes "
                                                      "big-endian), label 'deal' or 'nist'",
            "client_seed": CLIENT_SEED, "nonce": 0, "alpha": ALPHA, "decks": decks,
            "nist_sequences": nist_sequences, "nist_bits_per_sequence": NIST_BITS,
            "card_tests": [t.to_json() for t in card], "nist_tests": bit_tests,
            "nist_per_sequence": [[r.to_json() for r in results] for results in per_sequence],
            "passed": all(t.passed for t in card) and all(t["passed"] for t in bit_tests)}


NIST_TITLES = {"frequency": "Frequency (monobit)", "block_frequency": "Frequency within a block (M = 128)",
               "runs": "Runs", "longest_run": "Longest run of ones in a block",
               "binary_matrix_rank": "Binary matrix rank (32 x 32)", "spectral": "Discrete Fourier transform",
               "non_overlapping_template": "Non-overlapping template matching (m = 9, 148 templates)",
               "overlapping_template": "Overlapping template matching (m = 9)",
               "universal": "Maurer's universal statistical",
               "linear_complexity": "Linear complexity (M = 500)",
               "serial": "Serial (m = 16)", "approximate_entropy": "Approximate entropy (m = 10)",
               "cumulative_sums": "Cumulative sums (forward, backward)",
               "random_excursions": "Random excursions (x = ±1..±4)",
               "random_excursions_variant": "Random excursions variant (x = ±1..±9)"}


def battery_html(fair: dict[str, Any], control: dict[str, Any] | None, version: str) -> str:
    from html import escape

    from dealerpoker.certify.html import page, table, verdict

    def card_rows(run: dict[str, Any]) -> list[list[Any]]:
        return [[escape(t["test"]), f"{t['statistic']:.6g}", "—" if t["df"] is None else str(t["df"]),
                 f"{t['p_value']:.6f}", verdict(t["passed"]), escape(t["sample"]), escape(t["detail"])]
                for t in run["card_tests"]]

    def nist_rows(run: dict[str, Any]) -> list[list[Any]]:
        return [[escape(NIST_TITLES[t["test"]]), str(len(t["subtests"])),
                 f"{t['min_proportion']:.4f}", f"{t['min_uniformity_p']:.6f}",
                 f"{t['failures']} (≤ {t['allowed_failures']})",
                 verdict(t["passed"]) if t["applicable"] else "not applicable (no sequence with 500 cycles)"]
                for t in run["nist_tests"]]

    def section(run: dict[str, Any], title: str) -> str:
        return "\n".join([
            f"<h2>{escape(title)}: {verdict(run['passed'])}</h2>",
            f"<p>Shuffle: {escape(run['shuffle'])}; bit stream: {escape(run['bit_stream'])}. Master seed "
            f"<code>{run['master_seed']}</code>; {escape(run['seed_derivation'])}; client seed "
            f"<code>{run['client_seed']}</code>, nonce {run['nonce']}. {run['decks']:,} decks; "
            f"{run['nist_sequences']} sequences of {run['nist_bits_per_sequence']:,} bits.</p>",
            "<h3>Card tests (99% confidence: pass when p ≥ 0.01)</h3>",
            table(["test", "statistic", "df", "p-value", "result", "sample", "note"], card_rows(run),
                  raw=True),
            "<h3>NIST SP 800-22 on the generator's bit stream</h3>",
            "<p>Per test and sub-test (template, state): the number of sequences with p &lt; 0.01 must "
            "have a binomial (m, 0.01) tail of at least 0.0027 (SP 800-22's 3σ proportion check, "
            "taken exactly), and the p-values' uniformity (10 bins, χ², 9 df) "
            "at least 0.0001 (m ≥ 55). A test passes with at most the stated number of sub-tests "
            "outside that region.</p>",
            table(["test", "sub-tests", "lowest proportion", "lowest uniformity p", "sub-tests failing",
                   "result"], nist_rows(run), raw=True)])

    body = [f"<h1>RNG evidence — {escape(fair['algorithm'])}</h1>",
            "<p class=\"meta\">The real shuffle (<code>dealerpoker.fairness.shuffle.deck_order</code>) "
            "with a fresh server seed per deal, tested for uniformity and independence; and a control "
            "run with a biased shuffle and a flawed bit stream, which must fail, to show the battery's "
            "power.</p>",
            section(fair, "The shuffle as dealt")]
    if control is not None:
        body.append(section(control, "Control: biased shuffle and stuck bit"))
    return page("RNG evidence — dealerpoker", "\n".join(body),
                footer=f"Generated by dealerpoker {escape(version)}; every p-value per sequence is in "
                       "the JSON.")
