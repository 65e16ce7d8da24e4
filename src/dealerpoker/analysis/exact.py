"""Exact analysis of both games under optimal strategy, by enumerating every deal.

:class:`Solver` computes the *card counts* (:mod:`dealerpoker.analysis.paytable`) with the
numba kernels of :mod:`dealerpoker.analysis.kernels`; the payout pass turns them into every
figure. It holds what both games share for one deck: the suit-symmetry tables and the
per-board holding statistics (stage 1), so analysing both games pays for stage 1 once. Every
figure is an exact integer count over all deals; ``Fraction`` carries them, floats appear only
in :meth:`GameAnalysis.to_json`.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import parallel_chunksize

from dealerpoker.analysis import kernels
from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.figures import (
    ALGORITHM_VERSION,
    GameAnalysis,
    OutcomeRow,
    StartingHand,
    StrategyClass,
    class_names,
    class_of_pairs,
)
from dealerpoker.analysis.paytable import CardCounts, figures
from dealerpoker.analysis.symmetry import Symmetry, build_symmetry
from dealerpoker.games.rules import CasinoHoldemRules, Rules, TexasBonusRules

__all__ = ["ALGORITHM_VERSION", "GameAnalysis", "OutcomeRow", "Solver", "StartingHand",
           "StrategyClass", "class_names", "class_of_pairs"]

Progress = Callable[[str, int, int], None]
I64 = npt.NDArray[np.int64]


def _no_progress(label: str, done: int, total: int) -> None:
    return None


def _qualifier_value(rules: Rules | None) -> int:
    rank = int(rules.dealer_qualifier_rank) if isinstance(rules, CasinoHoldemRules) else 2
    return (1 << 20) | (rank << 16)


#: Stage 1 (see :mod:`dealerpoker.analysis.kernels.board`): every canonical river board's table
#: of type pairs (one array, each board's from its offset), its cards' type ids, and the Casino
#: qualifier counts per card and per board.
BoardTable = tuple[npt.NDArray[np.uint32], I64, npt.NDArray[np.uint8], npt.NDArray[np.uint16],
                   npt.NDArray[np.int32]]


class Solver:
    """Shared enumeration state for one deck (and one Casino Hold'em dealer qualifier)."""

    def __init__(self, deck: DeckSpec = FULL_DECK, *, progress: Progress = _no_progress,
                 chunks: int = 40) -> None:
        self.deck = deck
        self.progress = progress
        self.chunks = chunks
        self._symmetry: Symmetry | None = None
        self._boards: tuple[int, BoardTable] | None = None

    @property
    def symmetry(self) -> Symmetry:
        if self._symmetry is None:
            self.progress("suit symmetry", 0, 1)
            self._symmetry = build_symmetry(self.deck)
            self.progress("suit symmetry", 1, 1)
        return self._symmetry

    def board_table(self, qualifier: int | None = None) -> BoardTable:
        """Stage 1 for every canonical river board (about 0.1 GB for the full deck). Texas does not
        use the qualifier, so it takes the table for whichever one was built last."""
        if self._boards is not None and qualifier in (None, self._boards[0]):
            return self._boards[1]
        qualifier = _qualifier_value(None) if qualifier is None else qualifier
        self._boards = None
        boards = self.symmetry.rivers.cards
        n_off = self.deck.size - 5
        rank, suit = self.deck.rank_array(), self.deck.suit_array()
        types = kernels.type_counts(boards, self.deck.size, rank, suit)
        sizes = types * (types + 1) // 2
        table_at = np.zeros(len(boards), dtype=np.int64)
        np.cumsum(sizes[:-1], out=table_at[1:])
        table = np.zeros(int(sizes.sum()), dtype=np.uint32)
        type_id = np.zeros((len(boards), n_off), dtype=np.uint8)
        below_card = np.zeros((len(boards), n_off), dtype=np.uint16)
        below_all = np.zeros(len(boards), dtype=np.int32)
        with parallel_chunksize(1):  # dynamic scheduling: boards, flops and turns differ in cost
            for start, stop in self._ranges(len(boards), "boards"):
                kernels.board_stats(boards, start, stop, self.deck.size, rank, suit, qualifier,
                                    table, table_at, type_id, below_card, below_all)
        self._boards = (qualifier, (table, table_at, type_id, below_card, below_all))
        return self._boards[1]

    def release(self) -> None:
        """Drop the per-board table."""
        self._boards = None

    def _ranges(self, total: int, label: str) -> _ReportingRanges:
        steps = max(1, min(self.chunks, total))
        bounds = [total * i // steps for i in range(steps + 1)]
        self.progress(label, 0, total)
        return _ReportingRanges(list(pairwise(bounds)), label, total, self.progress)

    def _maps(self) -> dict[str, npt.NDArray[Any]]:
        sym = self.symmetry
        return {"binom": sym.binom, "pair_perm": sym.pair_perm, "flop_id": sym.flops.id_of,
                "flop_perm": sym.flops.perm_of, "turn_id": sym.turns.id_of,
                "turn_perm": sym.turns.perm_of, "flop_cards": sym.flops.cards,
                "flop_weight": sym.flops.weight}

    # ------------------------------------------------------------------------------------
    def card_counts(self, rules: Rules) -> CardCounts:
        """The card-only part of ``rules``' analysis (see :mod:`dealerpoker.analysis.paytable`)."""
        with parallel_chunksize(1):  # dynamic scheduling: flops and turns differ in cost
            if isinstance(rules, TexasBonusRules):
                return self._texas_counts(rules)
            return self._casino_counts(rules)

    def analyze(self, rules: Rules) -> GameAnalysis:
        return figures(rules, self.card_counts(rules))

    def texas(self, rules: TexasBonusRules) -> GameAnalysis:
        return self.analyze(rules)

    def casino(self, rules: CasinoHoldemRules) -> GameAnalysis:
        return self.analyze(rules)

    def _texas_counts(self, rules: TexasBonusRules) -> CardCounts:
        deck, sym = self.deck, self.symmetry
        table, table_at, type_id, _, _ = self.board_table()
        n, pairs = deck.size, deck.pairs
        turns = sym.turns.cards
        sums = np.zeros((len(turns), pairs, 3), dtype=np.uint16)
        river_bet = np.zeros((len(turns), pairs), dtype=np.int8)
        for start, stop in self._ranges(len(turns), "texas-bonus turns"):
            kernels.texas_turns(turns[start:stop], n, sym.binom, sym.rivers.id_of, sym.rivers.perm_of,
                                sym.rivers.cards, sym.card_perm, deck.rank_array(), deck.suit_array(),
                                table, table_at, type_id, int(rules.ante_qualifier), sums[start:stop],
                                river_bet[start:stop])
        flops = sym.flops.cards
        out = np.zeros((len(flops), 169, kernels.TEXAS_K), dtype=np.int64)
        flop_bet = np.zeros((len(flops), pairs), dtype=np.int8)
        flop_ev = np.zeros((len(flops), pairs), dtype=np.int64)
        self.progress("texas-bonus flops", 0, 1)
        kernels.texas_flops(flops, n, sym.binom, sym.turns.id_of, sym.turns.perm_of, sym.card_perm,
                            sym.pair_perm, sums, class_of_pairs(deck), out, flop_bet, flop_ev)
        self.progress("texas-bonus flops", 1, 1)
        class_sums = _weighted(out, sym.flops.weight)
        return CardCounts("texas-bonus", deck, {
            "class_sums": class_sums, "flop_bet": flop_bet, "river_bet": river_bet,
            "flop_ev": flop_ev, **self._maps()})

    def _casino_counts(self, rules: CasinoHoldemRules) -> CardCounts:
        deck, sym = self.deck, self.symmetry
        table, table_at, type_id, below_card, below_all = self.board_table(_qualifier_value(rules))
        flops, turns = sym.flops.cards, sym.turns.cards
        n = deck.size
        holdings = comb(n - 3, 2)
        situations = np.zeros((len(flops), holdings, kernels.CASINO_K), dtype=np.int32)
        batch = np.empty((-(-len(turns) // self.chunks), deck.pairs, kernels.CASINO_K), dtype=np.uint16)
        for start, stop in self._ranges(len(turns), "casino-holdem turns"):
            sums = batch[: stop - start]
            kernels.casino_turns(turns[start:stop], n, sym.binom, sym.rivers.id_of, sym.rivers.perm_of,
                                 sym.rivers.cards, sym.card_perm, deck.rank_array(), deck.suit_array(),
                                 table, table_at, type_id, below_card, below_all, sums)
            kernels.casino_scatter(turns[start:stop], sums, sym.turns.weight[start:stop], n, sym.binom,
                                   sym.flops.id_of, sym.flops.perm_of, flops, sym.card_perm, situations)
        del batch
        kernels.casino_fold(flops, n, sym.card_perm, situations)
        strategy = np.zeros((len(flops), holdings), dtype=np.int8)
        aa = np.zeros((len(flops), holdings), dtype=np.int8)
        kernels.situation_classes(flops, n, deck.rank_array(), deck.suit_array(), strategy, aa)
        return CardCounts("casino-holdem", deck, {
            "situations": situations, "strategy_class": strategy, "aa_class": aa,
            "five_card": kernels.five_card_class_counts(  # the canonical boards, weighted
                sym.rivers.cards, sym.rivers.weight, deck.rank_array(), deck.suit_array()),
            **self._maps()})


class _ReportingRanges:
    def __init__(self, ranges: list[tuple[int, int]], label: str, total: int,
                 progress: Progress) -> None:
        self.ranges, self.label, self.total, self.progress = ranges, label, total, progress

    def __iter__(self) -> Any:
        for start, stop in self.ranges:
            yield start, stop
            self.progress(self.label, stop, self.total)


def _weighted(out: I64, weight: I64) -> I64:
    """Sum over flops of weight x row, checked to fit in 64 bits."""
    flat = out.reshape(out.shape[0], -1)
    totals = [0] * flat.shape[1]
    for w in np.unique(weight):
        rows = flat[weight == w].sum(axis=0, dtype=np.int64)
        for i, v in enumerate(rows.tolist()):
            totals[i] += int(w) * v
    if any(abs(v) >= 2**63 for v in totals):
        raise OverflowError("a weighted count does not fit in 64 bits")
    return np.array(totals, dtype=np.int64).reshape(out.shape[1:])
