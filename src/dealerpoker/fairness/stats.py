"""Statistics for the RNG quality checks: chi-square tests of shuffle frequencies (pure).

The p-value is the chi-square survival function, SciPy's (``scipy.stats.chi2.sf``; the
certification pack's RNG battery, ``certify/rng.py``, uses the same library).

A check **fails when p < 0.001** (:data:`REJECT_BELOW`): a fair shuffle fails one such check in
a thousand by chance, so the fixed-seed tests are stable, while a real bias (e.g. the naive
"swap with any position" shuffle) gives p far below it.

>>> round(chi2_sf(2.0, 2), 6)  # exp(-1), the closed form for 2 degrees of freedom
0.367879
>>> round(chi2_sf(124.342, 100), 3)
0.05
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy import stats

__all__ = [
    "REJECT_BELOW",
    "ChiSquareResult",
    "ShuffleCounts",
    "chi2_sf",
    "first_card_test",
    "first_pair_test",
    "position_test",
    "shuffle_counts",
]

REJECT_BELOW = 0.001


def chi2_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square distributed with ``df`` degrees of freedom (SciPy's)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    return float(stats.chi2.sf(statistic, df))


@dataclass(frozen=True, slots=True)
class ChiSquareResult:
    name: str
    samples: int
    cells: int
    df: int
    statistic: float
    p_value: float

    @property
    def passed(self) -> bool:
        return self.p_value >= REJECT_BELOW

    def describe(self) -> str:
        verdict = "pass" if self.passed else f"FAIL (p < {REJECT_BELOW})"
        return (
            f"{self.name}: n={self.samples:,}, cells={self.cells:,}, df={self.df:,}, "
            f"chi2={self.statistic:,.1f}, p={self.p_value:.4f} -> {verdict}"
        )


@dataclass(frozen=True, slots=True)
class ShuffleCounts:
    """Frequencies over many decks: card at each position, first card, ordered first pair."""

    decks: int
    position: npt.NDArray[np.int64]  # (52, 52): [position, card]
    first_pair: npt.NDArray[np.int64]  # (52, 52): [first card, second card]

    def __add__(self, other: ShuffleCounts) -> ShuffleCounts:
        return ShuffleCounts(
            self.decks + other.decks, self.position + other.position, self.first_pair + other.first_pair
        )


def shuffle_counts(decks: Iterable[Sequence[int]]) -> ShuffleCounts:
    """Count the frequencies of :class:`ShuffleCounts` over ``decks`` (each 52 card indices)."""
    array = np.asarray(list(decks), dtype=np.int64).reshape(-1, 52)
    positions = np.arange(52, dtype=np.int64) * 52 + array
    position = np.bincount(positions.ravel(), minlength=52 * 52).reshape(52, 52)
    first_pair = np.bincount(array[:, 0] * 52 + array[:, 1], minlength=52 * 52).reshape(52, 52)
    return ShuffleCounts(len(array), position, first_pair)


def _chi_square(
    name: str, observed: npt.NDArray[np.int64], expected: float, df: int, n: int
) -> ChiSquareResult:
    statistic = float(((observed - expected) ** 2).sum() / expected)
    return ChiSquareResult(name, n, int(observed.size), df, statistic, chi2_sf(statistic, df))


def position_test(counts: ShuffleCounts) -> ChiSquareResult:
    """Each card equally likely at each of the 52 positions (52x52 table, both margins fixed)."""
    return _chi_square("card x position", counts.position, counts.decks / 52, 51 * 51, counts.decks)


def first_card_test(counts: ShuffleCounts) -> ChiSquareResult:
    """Each card equally likely to be dealt first (52 cells)."""
    return _chi_square("first card", counts.position[0], counts.decks / 52, 51, counts.decks)


def first_pair_test(counts: ShuffleCounts) -> ChiSquareResult:
    """Each ordered pair of distinct cards equally likely as the first two cards (2,652 cells)."""
    off_diagonal = counts.first_pair[~np.eye(52, dtype=bool)]
    expected = counts.decks / 2652
    return _chi_square("first two cards (ordered pair)", off_diagonal, expected, 2651, counts.decks)
