"""The exact return of the progressive first-five jackpot bet, as a function of the pool.

The bet is settled on five cards drawn from a full deck (hole cards and flop), so every figure
comes from the count of five-card hands by category (:func:`five_card_counts`, exact). With
``p_k`` the chance of category ``k``, ``a_k`` its fixed award, ``p_pool`` the chance of the
pool's category and ``n`` the number of jackpot bets sharing a hit (1 solo; every jackpot bet of
a live table's round, which all hold the same first five cards):

* return per stake at pool ``P``: ``R(P) = sum(p_k a_k) / stake + p_pool P / (n stake)``;
* the pool at which the bet breaks even: ``P* = n (stake - sum(p_k a_k)) / p_pool``;
* the long-run return, what players win back per stake over pool cycles: every contribution is
  paid back in some jackpot and the operator adds the seed at each hit, so
  ``R_long = sum(p_k a_k) / stake + contribution + p_pool seed / stake``.

>>> from dealerpoker.games.jackpot import load_jackpot
>>> figures = jackpot_figures(load_jackpot())
>>> str(figures.fixed_return), round(float(figures.fixed_return), 6)
('6938/10829', 0.640687)
>>> str(figures.break_even_pool), round(float(figures.return_at(5_000_000)), 6)
('23346000', 0.717641)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.evaluation import category_of_value
from dealerpoker.analysis.sidebets import five_card_counts
from dealerpoker.analysis.simulate import CHUNK, _next, _seed
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.evaluator.kernels import eval5
from dealerpoker.games.jackpot import JackpotRules


@dataclass(frozen=True, slots=True)
class JackpotFigures:
    rules: JackpotRules
    hands: int
    counts: dict[HandCategory, int]
    """Five-card hands of each category (royal flush apart from the other straight flushes)."""
    sharers: int

    @property
    def pool_probability(self) -> Fraction:
        return Fraction(self.counts[self.rules.pool_category], self.hands)

    @property
    def fixed_return(self) -> Fraction:
        """What the fixed awards give back per unit staked, whatever the pool."""
        paid = sum(self.counts[category] * amount for category, amount in self.rules.awards.items())
        return Fraction(paid, self.hands * self.rules.stake)

    def return_at(self, pool: int) -> Fraction:
        """The return per unit staked when the pool stands at ``pool`` minor units."""
        return self.fixed_return + self.pool_probability * Fraction(pool, self.sharers * self.rules.stake)

    @property
    def break_even_pool(self) -> Fraction:
        """The pool (minor units) at which the bet returns exactly its stake."""
        return (1 - self.fixed_return) * self.sharers * self.rules.stake / self.pool_probability

    @property
    def long_run_return(self) -> Fraction:
        return (self.fixed_return + self.rules.contribution
                + self.pool_probability * Fraction(self.rules.seed, self.rules.stake))

    @property
    def hit_frequency(self) -> Fraction:
        """The chance that a bet wins anything: a fixed award or the pool."""
        winning = sum(self.counts[c] for c in (*self.rules.awards, self.rules.pool_category))
        return Fraction(winning, self.hands)

    def to_json(self, pools: tuple[int, ...] = ()) -> dict[str, Any]:
        stake = self.rules.stake
        lines = [{"hand": category.slug, "combinations": self.counts[category],
                  "probability": str(Fraction(self.counts[category], self.hands)),
                  "award": "pool" if category is self.rules.pool_category else self.rules.awards[category],
                  "return": str(Fraction(self.counts[category] * self.rules.awards[category],
                                         self.hands * stake))
                  if category in self.rules.awards else None}
                 for category in (self.rules.pool_category, *self.rules.awards)]
        chosen = pools or (self.rules.seed, int(self.break_even_pool))
        return {"rules": self.rules.to_dict(), "hands": self.hands, "sharers": self.sharers, "lines": lines,
                "hit_frequency": {"exact": str(self.hit_frequency), "value": float(self.hit_frequency)},
                "fixed_return": {"exact": str(self.fixed_return), "value": float(self.fixed_return)},
                "break_even_pool": {"exact": str(self.break_even_pool), "value": float(self.break_even_pool)},
                "long_run_return": {"exact": str(self.long_run_return), "value": float(self.long_run_return)},
                "return_at_pool": [{"pool": pool, "exact": str(self.return_at(pool)),
                                    "value": float(self.return_at(pool))} for pool in chosen]}


def jackpot_figures(rules: JackpotRules, *, sharers: int = 1, deck: DeckSpec = FULL_DECK) -> JackpotFigures:
    """The bet's exact figures; ``sharers`` jackpot bets share a hit (all hold the same cards)."""
    if sharers < 1:
        raise ValueError(f"sharers must be at least 1, got {sharers}")
    by_category, _ = five_card_counts(deck)
    return JackpotFigures(rules=rules, hands=comb(deck.size, 5), counts=by_category, sharers=sharers)


@dataclass(frozen=True, slots=True)
class JackpotSimulation:
    rounds: int
    mean: float
    """Mean return per unit staked at the simulated pool."""
    half_width_99: float

    @property
    def interval_99(self) -> tuple[float, float]:
        return (self.mean - self.half_width_99, self.mean + self.half_width_99)


def simulate_jackpot(rules: JackpotRules, pool: int, rounds: int, seed: int) -> JackpotSimulation:
    """Monte Carlo of the bet's return at a fixed pool: ``rounds`` first-five hands dealt by the
    simulator's generator (:mod:`dealerpoker.analysis.simulate`) and valued by the evaluator's
    kernel, not from the counts above."""
    counts = _category_kernel(rounds, seed)
    pays = np.zeros(10, dtype=np.float64)
    for category, amount in rules.awards.items():
        pays[int(category)] = amount / rules.stake
    pays[int(rules.pool_category)] = pool / rules.stake
    mean = float((counts * pays).sum()) / rounds
    variance = max(float((counts * pays * pays).sum()) / rounds - mean * mean, 0.0)
    return JackpotSimulation(rounds=rounds, mean=mean, half_width_99=Z_99 * (variance / rounds) ** 0.5)


Z_99 = 2.5758293035489004
"""The two-sided 99% quantile of the normal distribution."""


@njit(cache=True, parallel=True)
def _category_kernel(rounds: int, seed: int) -> npt.NDArray[np.int64]:
    chunks = (rounds + CHUNK - 1) // CHUNK
    counts = np.zeros((chunks, 10), dtype=np.int64)
    for chunk in prange(chunks):
        state = np.empty(1, dtype=np.uint64)
        state[0] = _seed(seed, chunk)
        deck = np.arange(52)
        for _ in range(min(CHUNK, rounds - chunk * CHUNK)):
            for i in range(5):
                j = i + np.int64(_next(state) % np.uint64(52 - i))
                deck[i], deck[j] = deck[j], deck[i]
            value = eval5(deck[0], deck[1], deck[2], deck[3], deck[4])
            counts[chunk, category_of_value(int(value))] += 1
    return counts.sum(axis=0)  # type: ignore[no-any-return]
