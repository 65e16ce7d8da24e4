"""Monte Carlo rounds through the same rules, with a 95% confidence interval per bet.

The kernel deals from its own counter-seeded xorshift generator (chunk ``i`` of a run is
seeded from ``(seed, i)``), so a run is reproducible for a seed whatever the thread count.
Strategies: ``optimal`` (the solver's decision tables), ``always-play`` (every bet / raise),
``flop-only`` (Texas: bet pre-flop, then check).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from math import sqrt
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit, prange

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.evaluation import category_of_value
from dealerpoker.analysis.figures import class_names, class_of_pairs
from dealerpoker.errors import DealerPokerError
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.evaluator.kernels import eval5, eval7
from dealerpoker.games.rules import CasinoHoldemRules, Rules, TexasBonusRules

I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]
STRATEGIES = {"texas-bonus": ("optimal", "always-play", "flop-only"),
              "casino-holdem": ("optimal", "always-play")}
TEXAS_FIELDS = ("ante", "flop", "turn", "river", "bonus")
CASINO_FIELDS = ("ante", "raise", "aa")
CHUNK = 1 << 16


class SimulationError(DealerPokerError, ValueError):
    """Bad simulation input (unknown strategy or bet field)."""


@dataclass(frozen=True)
class BetEstimate:
    field: str
    mean: float        # mean net per round, in antes
    half_width: float  # 95% confidence half-width

    def to_json(self) -> dict[str, Any]:
        return {"mean": self.mean, "ci95": [self.mean - self.half_width, self.mean + self.half_width]}


@dataclass(frozen=True)
class SimulationResult:
    game: str
    strategy: str
    rounds: int
    seed: int
    bets: Mapping[str, int]
    per_bet: tuple[BetEstimate, ...]
    total: BetEstimate

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "strategy": self.strategy, "rounds": self.rounds,
                "seed": self.seed, "bets": dict(self.bets),
                "per_bet": {b.field: b.to_json() for b in self.per_bet},
                "total": self.total.to_json()}


@njit(cache=True)
def _next(state: npt.NDArray[np.uint64]) -> np.uint64:
    x = state[0]
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    state[0] = x
    return x * np.uint64(2685821657736338717)  # type: ignore[no-any-return]


@njit(cache=True)
def _seed(seed: int, chunk: int) -> np.uint64:
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(chunk + 1) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z if z != 0 else np.uint64(1)


@njit(cache=True)
def _index(cards: I64, k: int, binom: I64) -> int:
    """Colex index of the first ``k`` cards, sorted in place (insertion sort: no allocation)."""
    for i in range(1, k):
        card = cards[i]
        j = i
        while j > 0 and cards[j - 1] > card:
            cards[j] = cards[j - 1]
            j -= 1
        cards[j] = card
    index = 0
    for i in range(k):
        index += binom[cards[i], i + 1]
    return index


@njit(cache=True, parallel=True)
def _texas_kernel(rounds: int, seed: int, n: int, rank: I64, glob: I64, strategy: int,
                  qualifier: int, stakes: I64, bonus_pays: I64, both_aces: int,
                  class_of_pair: I64, preflop: I64, binom: I64, flop_id: I64, flop_perm: I64,
                  turn_id: I64, turn_perm: I64, pair_perm: I32, flop_bet: npt.NDArray[np.int8],
                  river_bet: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    chunks = (rounds + CHUNK - 1) // CHUNK
    sums = np.zeros((chunks, 12), dtype=np.float64)  # 5 fields + total: sum, sum of squares
    for chunk in prange(chunks):
        state = np.empty(1, dtype=np.uint64)
        state[0] = _seed(seed, chunk)
        deck = np.arange(n)
        tmp = np.empty(4, dtype=np.int64)
        net = np.zeros(5, dtype=np.int64)
        todo = min(CHUNK, rounds - chunk * CHUNK)
        for _ in range(todo):
            for i in range(9):
                j = i + np.int64(_next(state) % np.uint64(n - i))
                deck[i], deck[j] = deck[j], deck[i]
            a, b = min(deck[0], deck[1]), max(deck[0], deck[1])
            p = b * (b - 1) // 2 + a
            net[:] = 0
            cls = class_of_pair[p]
            dealer_aces = rank[deck[2]] == 12 and rank[deck[3]] == 12
            if stakes[4] > 0:
                pays = bonus_pays[cls]
                if both_aces > pays and rank[a] == 12 and rank[b] == 12 and dealer_aces:
                    pays = both_aces
                net[4] = stakes[4] * pays if pays >= 0 else -stakes[4]
            play = strategy != 0 or preflop[cls] == 1
            if not play:
                net[0] = -stakes[0]
            else:
                if strategy == 1:
                    x = 1
                    y = 1
                elif strategy == 2:
                    x = 0
                    y = 0
                else:
                    for i in range(3):
                        tmp[i] = deck[4 + i]
                    idx = _index(tmp, 3, binom)
                    x = flop_bet[flop_id[idx], pair_perm[flop_perm[idx], p]]
                    tmp[3] = deck[7]  # tmp[:3] holds the flop, now sorted
                    idx = _index(tmp, 4, binom)
                    y = river_bet[turn_id[idx], pair_perm[turn_perm[idx], p]]
                b0, b1, b2 = glob[deck[4]], glob[deck[5]], glob[deck[6]]
                b3, b4 = glob[deck[7]], glob[deck[8]]
                pv = eval7(glob[deck[0]], glob[deck[1]], b0, b1, b2, b3, b4)
                dv = eval7(glob[deck[2]], glob[deck[3]], b0, b1, b2, b3, b4)
                if pv > dv:
                    net[0] = stakes[0] if category_of_value(int(pv)) >= qualifier else 0
                    net[1] = stakes[1]
                    net[2] = stakes[2] * x
                    net[3] = stakes[3] * y
                elif pv < dv:
                    net[0] = -stakes[0]
                    net[1] = -stakes[1]
                    net[2] = -stakes[2] * x
                    net[3] = -stakes[3] * y
            total = 0
            for f in range(5):
                sums[chunk, f] += net[f]
                sums[chunk, 6 + f] += net[f] * net[f]
                total += net[f]
            sums[chunk, 5] += total
            sums[chunk, 11] += total * total
    return sums.sum(axis=0)  # type: ignore[no-any-return]


@njit(cache=True, parallel=True)
def _casino_kernel(rounds: int, seed: int, n: int, rank: I64, glob: I64, strategy: int,
                   stakes: I64, ante_pays: I64, aa_pays: I64, aa_min: int, aa_on_fold: bool,
                   qualifier: int, binom: I64, flop_id: I64, flop_perm: I64, pair_perm: I32,
                   raise_table: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
    chunks = (rounds + CHUNK - 1) // CHUNK
    sums = np.zeros((chunks, 8), dtype=np.float64)  # 3 fields + total: sum, sum of squares
    for chunk in prange(chunks):
        state = np.empty(1, dtype=np.uint64)
        state[0] = _seed(seed, chunk)
        deck = np.arange(n)
        tmp = np.empty(3, dtype=np.int64)
        net = np.zeros(3, dtype=np.int64)
        todo = min(CHUNK, rounds - chunk * CHUNK)
        for _ in range(todo):
            for i in range(9):
                j = i + np.int64(_next(state) % np.uint64(n - i))
                deck[i], deck[j] = deck[j], deck[i]
            a, b = min(deck[0], deck[1]), max(deck[0], deck[1])
            p = b * (b - 1) // 2 + a
            net[:] = 0
            if strategy == 1:
                raising = True
            else:
                for i in range(3):
                    tmp[i] = deck[4 + i]
                idx = _index(tmp, 3, binom)
                raising = raise_table[flop_id[idx], pair_perm[flop_perm[idx], p]] == 1
            aa_net = 0
            if stakes[2] > 0:
                v5 = eval5(glob[deck[0]], glob[deck[1]], glob[deck[4]], glob[deck[5]], glob[deck[6]])
                c5 = category_of_value(int(v5))
                pays = aa_pays[c5]
                if c5 == 1 and ((v5 >> 16) & 15) < aa_min:
                    pays = -1
                aa_net = stakes[2] * pays if pays >= 0 else -stakes[2]
            if not raising:
                net[0] = -stakes[0]
                net[2] = aa_net if aa_on_fold else -stakes[2]
            else:
                net[2] = aa_net
                b0, b1, b2 = glob[deck[4]], glob[deck[5]], glob[deck[6]]
                b3, b4 = glob[deck[7]], glob[deck[8]]
                pv = eval7(glob[deck[0]], glob[deck[1]], b0, b1, b2, b3, b4)
                dv = eval7(glob[deck[2]], glob[deck[3]], b0, b1, b2, b3, b4)
                pay = ante_pays[category_of_value(int(pv))]
                if dv < qualifier:
                    net[0] = stakes[0] * pay
                elif pv > dv:
                    net[0] = stakes[0] * pay
                    net[1] = stakes[1]
                elif pv < dv:
                    net[0] = -stakes[0]
                    net[1] = -stakes[1]
            total = 0
            for f in range(3):
                sums[chunk, f] += net[f]
                sums[chunk, 4 + f] += net[f] * net[f]
                total += net[f]
            sums[chunk, 3] += total
            sums[chunk, 7] += total * total
    return sums.sum(axis=0)  # type: ignore[no-any-return]


def parse_bets(text: str, game: str) -> dict[str, int]:
    """``"ante=1,bonus=1"`` -> stakes per opening field (the ante must be positive)."""
    allowed = ("ante", "bonus") if game == "texas-bonus" else ("ante", "aa")
    bets: dict[str, int] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, _, amount = part.partition("=")
        if name not in allowed:
            raise SimulationError(f"unknown bet field {name!r} (fields: {', '.join(allowed)})")
        if not amount.isdigit():
            raise SimulationError(f"bet {name}: expected a whole number, got {amount!r}")
        bets[name] = int(amount)
    if bets.get("ante", 0) <= 0:
        raise SimulationError("the ante must be a positive whole number")
    return bets


def simulate(rules: Rules, rounds: int, *, seed: int = 0, strategy: str = "optimal",
             bets: Mapping[str, int] | None = None, tables: Mapping[str, Any] | None = None,
             deck: DeckSpec = FULL_DECK,
             progress: Callable[[int, int], None] | None = None) -> SimulationResult:
    """Play ``rounds`` rounds; ``tables`` (the solver's decision tables) for ``optimal``."""
    game = rules.game
    if strategy not in STRATEGIES[game]:
        raise SimulationError(f"unknown strategy {strategy!r} (one of {', '.join(STRATEGIES[game])})")
    if rounds <= 0:
        raise SimulationError("--rounds must be positive")
    bets = dict(bets or {"ante": 1})
    ante = bets["ante"]
    code = STRATEGIES[game].index(strategy)
    t = dict(tables or {})
    if code == 0 and not t:
        raise SimulationError("the optimal strategy needs the solver's tables (run analyze)")
    empty8 = np.zeros((1, 1), dtype=np.int8)
    zero = np.zeros(1, dtype=np.int64)
    rank, glob, n = deck.rank_array(), deck.global_array(), deck.size
    binom = t.get("binom", np.zeros((n + 1, 8), dtype=np.int64))
    batches = max(1, min(100, rounds // (CHUNK * 4)))
    done = 0
    total_sums: npt.NDArray[np.float64] | None = None
    for batch in range(batches):
        size = rounds * (batch + 1) // batches - done
        batch_seed = seed * 1_000_003 + batch
        if isinstance(rules, TexasBonusRules):
            stakes = np.array([ante, 2 * ante, ante, ante, bets.get("bonus", 0)], dtype=np.int64)
            pays = np.full(169, -1, dtype=np.int64)
            names = class_names()
            for line in rules.bonus_paytable:
                for hand in line.hands:
                    pays[names.index(hand)] = line.pays
            sums = _texas_kernel(size, batch_seed, n, rank, glob, code, int(rules.ante_qualifier),
                                 stakes, pays, rules.both_aces_pays, class_of_pairs(deck),
                                 t.get("preflop_bet", zero), binom, t.get("flop_id", zero),
                                 t.get("flop_perm", zero), t.get("turn_id", zero),
                                 t.get("turn_perm", zero), t.get("pair_perm", np.zeros((1, 1), np.int32)),
                                 t.get("flop_bet", empty8), t.get("river_bet", empty8))
            fields: tuple[str, ...] = TEXAS_FIELDS
        else:
            assert isinstance(rules, CasinoHoldemRules)
            stakes = np.array([ante, 2 * ante, bets.get("aa", 0)], dtype=np.int64)
            ante_pays = np.array([rules.ante_paytable[HandCategory(c)] for c in range(10)], dtype=np.int64)
            aa_pays = np.array([rules.aa_paytable.get(HandCategory(c), -1) for c in range(10)],
                               dtype=np.int64)
            qualifier = (1 << 20) | (int(rules.dealer_qualifier_rank) << 16)
            sums = _casino_kernel(size, batch_seed, n, rank, glob, code, stakes, ante_pays, aa_pays,
                                  int(rules.aa_min_pair_rank), rules.aa_settles_on_fold, qualifier,
                                  binom, t.get("flop_id", zero), t.get("flop_perm", zero),
                                  t.get("pair_perm", np.zeros((1, 1), np.int32)),
                                  t.get("raise", empty8))
            fields = CASINO_FIELDS
        total_sums = sums if total_sums is None else total_sums + sums
        done += size
        if progress is not None:
            progress(done, rounds)
    assert total_sums is not None
    k = len(fields) + 1
    estimates = []
    for i, name in enumerate((*fields, "total")):
        mean = total_sums[i] / rounds
        var = max(0.0, total_sums[k + i] / rounds - mean * mean)
        half = 1.96 * sqrt(var / rounds)
        estimates.append(BetEstimate(name, float(mean / ante), float(half / ante)))
    return SimulationResult(game, strategy, rounds, seed, bets, tuple(estimates[:-1]), estimates[-1])
