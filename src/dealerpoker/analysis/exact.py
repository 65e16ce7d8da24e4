"""Exact analysis of both games under optimal strategy, by enumerating every deal.

:class:`Solver` holds what both games share for one deck: the suit-symmetry tables and the
per-board holding statistics (stage 1 of :mod:`dealerpoker.analysis.kernels`), so analysing
both games pays for stage 1 once. Every figure is an exact integer count over all deals;
``Fraction`` carries them, floats appear only in :meth:`GameAnalysis.to_json`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from math import comb, sqrt
from typing import Any

import numpy as np
import numpy.typing as npt

from dealerpoker.analysis import kernels
from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.sidebets import aa_house_edge_settled_on_fold, bonus_side_bet
from dealerpoker.analysis.symmetry import Symmetry, build_symmetry
from dealerpoker.cards import RANK_CHARS
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import CasinoHoldemRules, Rules, TexasBonusRules

#: Bump when a change alters any computed figure: it is part of every cache key.
ALGORITHM_VERSION = "1"

Progress = Callable[[str, int, int], None]
I64 = npt.NDArray[np.int64]


def _no_progress(label: str, done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class OutcomeRow:
    """One line of a return table: ``combinations`` deals, each returning ``net`` antes."""

    name: str
    combinations: int
    net: int


@dataclass(frozen=True)
class StartingHand:
    name: str            # "AKs"
    combos: int          # two-card combinations of this class
    ev_bet: Fraction     # EV (per ante) of the flop bet, then optimal play
    turn_bets: Fraction  # share of its (hand, flop) situations that bet the turn
    river_bets: Fraction

    @property
    def action(self) -> str:
        return "bet" if self.ev_bet > -1 else "fold"

    @property
    def ev(self) -> Fraction:
        return max(self.ev_bet, Fraction(-1))


@dataclass(frozen=True)
class StrategyClass:
    """Casino Hold'em flop situations of one kind and how often the optimal player raises."""

    name: str
    situations: int
    raised: int


@dataclass(frozen=True)
class GameAnalysis:
    game: str
    rules: Rules
    deck: DeckSpec
    outcomes: tuple[OutcomeRow, ...]
    second_moment: Fraction
    play_frequency: Fraction
    side_bets: dict[str, Any]
    starting_hands: tuple[StartingHand, ...] = ()
    turn_bet_frequency: Fraction | None = None
    river_bet_frequency: Fraction | None = None
    strategy: tuple[StrategyClass, ...] = ()
    tables: dict[str, npt.NDArray[Any]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def total_combinations(self) -> int:
        return sum(row.combinations for row in self.outcomes)

    @property
    def expected_return(self) -> Fraction:
        return Fraction(sum(r.combinations * r.net for r in self.outcomes), self.total_combinations)

    @property
    def house_edge(self) -> Fraction:
        return -self.expected_return

    @property
    def average_total_bet(self) -> Fraction:
        return Fraction(sum(r.combinations * _stake_of(self.game, r) for r in self.outcomes),
                        self.total_combinations)

    @property
    def element_of_risk(self) -> Fraction:
        return self.house_edge / self.average_total_bet

    @property
    def variance(self) -> Fraction:
        return self.second_moment - self.expected_return**2

    @property
    def std_dev(self) -> float:
        return sqrt(self.variance)

    def to_json(self) -> dict[str, Any]:
        """The ``analyze --json`` document (exact values as ``"p/q"`` strings beside floats)."""
        total = self.total_combinations
        document: dict[str, Any] = {
            "game": self.game,
            "rules": {"fingerprint": self.rules.fingerprint(), "deck": self.deck.key(),
                      "algorithm_version": ALGORITHM_VERSION, **self.rules.to_dict()},
            "house_edge": float(self.house_edge),
            "element_of_risk": float(self.element_of_risk),
            "average_total_bet": float(self.average_total_bet),
            "std_dev": self.std_dev,
            "play_frequency": float(self.play_frequency),
            "outcomes": [
                {"outcome": r.name, "combinations": r.combinations, "net": r.net,
                 "probability": r.combinations / total, "return": r.combinations * r.net / total}
                for r in self.outcomes
            ],
            "side_bets": self.side_bets,
        }
        document["rules"]["exact"] = {
            "house_edge": str(self.house_edge), "element_of_risk": str(self.element_of_risk),
            "average_total_bet": str(self.average_total_bet), "variance": str(self.variance),
            "play_frequency": str(self.play_frequency), "total_combinations": total,
        }
        if self.game == "texas-bonus":
            document["two_card_ev"] = {
                h.name: {"ev": float(h.ev), "ev_bet": float(h.ev_bet), "action": h.action,
                         "exact": str(h.ev_bet), "combos": h.combos,
                         "turn_bet_frequency": float(h.turn_bets),
                         "river_bet_frequency": float(h.river_bets)}
                for h in self.starting_hands
            }
            document["rules"]["exact"]["turn_bet_frequency"] = float(self.turn_bet_frequency or 0)
            document["rules"]["exact"]["river_bet_frequency"] = float(self.river_bet_frequency or 0)
        else:
            document["rules"]["exact"]["strategy"] = [
                {"situation": s.name, "situations": s.situations, "raised": s.raised,
                 "raise_frequency": s.raised / s.situations} for s in self.strategy
            ]
        return document


def _stake_of(game: str, row: OutcomeRow) -> int:
    if row.name.startswith("fold"):
        return 1
    if game == "casino-holdem":
        return 3
    return 3 + row.name.count("+turn") + row.name.count("+river")


def class_names() -> list[str]:
    """The 169 starting-hand classes by index ``hi * 13 + lo`` (suited) / ``lo * 13 + hi``."""
    names = [""] * 169
    for hi in range(13):
        for lo in range(13):
            if hi == lo:
                names[hi * 13 + hi] = RANK_CHARS[hi] * 2
            elif hi > lo:
                names[hi * 13 + lo] = f"{RANK_CHARS[hi]}{RANK_CHARS[lo]}s"
                names[lo * 13 + hi] = f"{RANK_CHARS[hi]}{RANK_CHARS[lo]}o"
    return names


def class_of_pairs(deck: DeckSpec) -> I64:
    rank, suit = deck.rank_array(), deck.suit_array()
    out = np.empty(deck.pairs, dtype=np.int64)
    for b in range(deck.size):
        for a in range(b):
            hi, lo = max(rank[a], rank[b]), min(rank[a], rank[b])
            suited = suit[a] == suit[b] and hi != lo
            out[b * (b - 1) // 2 + a] = hi * 13 + lo if suited or hi == lo else lo * 13 + hi
    return out


def _qualifier_value(rules: Rules | None) -> int:
    rank = int(rules.dealer_qualifier_rank) if isinstance(rules, CasinoHoldemRules) else 2
    return (1 << 20) | (rank << 16)


class Solver:
    """Shared enumeration state for one deck (and one Casino Hold'em dealer qualifier)."""

    def __init__(self, deck: DeckSpec = FULL_DECK, *, progress: Progress = _no_progress,
                 chunks: int = 40) -> None:
        self.deck = deck
        self.progress = progress
        self.chunks = chunks
        self._symmetry: Symmetry | None = None
        self._boards: tuple[int, npt.NDArray[np.uint32], npt.NDArray[np.uint8]] | None = None

    @property
    def symmetry(self) -> Symmetry:
        if self._symmetry is None:
            self.progress("suit symmetry", 0, 1)
            self._symmetry = build_symmetry(self.deck)
            self.progress("suit symmetry", 1, 1)
        return self._symmetry

    def board_table(self, qualifier: int) -> tuple[npt.NDArray[np.uint32], npt.NDArray[np.uint8]]:
        if self._boards is not None and self._boards[0] == qualifier:
            return self._boards[1], self._boards[2]
        self._boards = None
        sym = self.symmetry
        boards = sym.rivers.cards
        packed = np.zeros((len(boards), self.deck.pairs), dtype=np.uint32)
        category = np.zeros((len(boards), self.deck.pairs), dtype=np.uint8)
        rank, suit = self.deck.rank_array(), self.deck.suit_array()
        for start, stop in self._ranges(len(boards), "boards"):
            kernels.board_stats(boards, start, stop, self.deck.size, rank, suit, qualifier,
                                packed, category)
        self._boards = (qualifier, packed, category)
        return packed, category

    def release(self) -> None:
        """Drop the per-board table (about 0.9 GB for the full deck)."""
        self._boards = None

    def _ranges(self, total: int, label: str) -> _ReportingRanges:
        steps = max(1, min(self.chunks, total))
        bounds = [total * i // steps for i in range(steps + 1)]
        self.progress(label, 0, total)
        return _ReportingRanges(list(pairwise(bounds)), label, total,
                                self.progress)

    # ------------------------------------------------------------------------------------
    def texas(self, rules: TexasBonusRules) -> GameAnalysis:
        deck, sym = self.deck, self.symmetry
        packed, category = self.board_table(self._boards[0] if self._boards else _qualifier_value(None))
        flops = sym.flops.cards
        n, pairs = deck.size, deck.pairs
        out = np.zeros((len(flops), 169, kernels.TEXAS_K), dtype=np.int64)
        flop_bet = np.zeros((len(flops), pairs), dtype=np.int8)
        river_bet = np.zeros((len(sym.turns.cards), pairs), dtype=np.int8)
        flop_ev = np.zeros((len(flops), pairs), dtype=np.int64)
        for start, stop in self._ranges(len(flops), "texas-bonus flops"):
            kernels.texas_flops(flops, start, stop, n, sym.binom, sym.rivers.id_of,
                                sym.rivers.perm_of, sym.turns.id_of, sym.turns.perm_of,
                                sym.pair_perm, packed, category, int(rules.ante_qualifier),
                                class_of_pairs(deck), out, flop_bet, river_bet, flop_ev)
        sums = _weighted(out, sym.flops.weight)  # (169, K) Python ints
        dealers = comb(n - 7, 2)
        per_situation = (n - 5) * (n - 6) * dealers
        flops_total = comb(n - 2, 3)
        names = class_names()
        hands: list[StartingHand] = []
        qualifier = rules.ante_qualifier.title
        rows: dict[str, list[int]] = {}
        folded = played = turn_bets = river_bets = situations = 0
        second = 0
        for c in _present_classes(deck):
            combos = _class_combos(names[c], deck.suits)
            deals = combos * flops_total * per_situation
            s = sums[c]
            hand = StartingHand(names[c], combos, Fraction(s[0], deals),
                                Fraction(s[3], s[2]), Fraction(s[4], s[2] * (n - 5)))
            hands.append(hand)
            if hand.action == "fold":
                folded += deals
                second += deals
                continue
            played += deals
            second += s[1]
            situations += s[2]
            turn_bets += s[3]
            river_bets += s[4]
            for x in (0, 1):
                for y in (0, 1):
                    base = 5 + 8 * x + 4 * y
                    wq, wn, lost, turns = s[base:base + 4]
                    label = "ante+flop" + ("+turn" if x else "") + ("+river" if y else "")
                    deals_here = turns * (n - 6) * dealers
                    bets = 3 + x + y
                    _add(rows, f"win with {qualifier} or better, {label}", wq, bets)
                    _add(rows, f"win below {qualifier} (ante pushes), {label}", wn, bets - 1)
                    _add(rows, f"tie, {label}", deals_here - wq - wn - lost, 0)
                    _add(rows, f"loss, {label}", lost, -bets)
        outcomes = [OutcomeRow("fold before the flop", folded, -1)]
        outcomes += [OutcomeRow(name, v[0], v[1]) for name, v in rows.items()]
        total = folded + played
        hands.sort(key=_hand_order)
        return GameAnalysis(
            "texas-bonus", rules, deck, tuple(outcomes), Fraction(second, total),
            Fraction(played, total), bonus_side_bet(rules, deck), tuple(hands),
            Fraction(turn_bets, situations) if situations else Fraction(0),
            Fraction(river_bets, situations * (n - 5)) if situations else Fraction(0),
            tables={"flop_bet": flop_bet, "river_bet": river_bet, "flop_ev": flop_ev,
                    "preflop_bet": _preflop_table(hands)},
        )

    def casino(self, rules: CasinoHoldemRules) -> GameAnalysis:
        deck, sym = self.deck, self.symmetry
        packed, category = self.board_table(_qualifier_value(rules))
        flops = sym.flops.cards
        n, pairs = deck.size, deck.pairs
        out = np.zeros((len(flops), kernels.CASINO_K), dtype=np.int64)
        by_class = np.zeros((len(flops), kernels.STRATEGY_CLASSES, 2), dtype=np.int64)
        raise_table = np.zeros((len(flops), pairs), dtype=np.int8)
        raise_ev = np.zeros((len(flops), pairs), dtype=np.int64)
        ante = np.array([rules.ante_paytable[HandCategory(c)] for c in range(10)], dtype=np.int64)
        aa = np.array([rules.aa_paytable.get(HandCategory(c), -1) for c in range(10)], dtype=np.int64)
        for start, stop in self._ranges(len(flops), "casino-holdem flops"):
            kernels.casino_flops(flops, start, stop, n, sym.binom, sym.rivers.id_of,
                                 sym.rivers.perm_of, sym.pair_perm, packed, category,
                                 deck.rank_array(), deck.suit_array(), ante, aa,
                                 int(rules.aa_min_pair_rank), out, by_class, raise_table, raise_ev)
        s = _weighted(out, sym.flops.weight)
        cls = _weighted(by_class, sym.flops.weight)
        deals_per = comb(n - 5, 2) * comb(n - 7, 2)
        raised, folded_situations = s[2], s[3]
        situations = raised + folded_situations
        rows = [OutcomeRow("fold at the flop", folded_situations * deals_per, -1)]
        won = 0
        for cat in range(10):
            title = HandCategory(cat).title
            rows.append(OutcomeRow(f"dealer does not qualify, {title}", s[4 + cat], int(ante[cat])))
            won += s[4 + cat]
        for cat in range(10):
            title = HandCategory(cat).title
            rows.append(OutcomeRow(f"dealer qualifies, player wins with {title}", s[14 + cat],
                                   int(ante[cat]) + 2))
            won += s[14 + cat]
        rows.append(OutcomeRow("tie", raised * deals_per - won - s[24], 0))
        rows.append(OutcomeRow("loss", s[24], -3))
        rows = [r for r in rows if r.combinations or r.name in ("tie", "loss")]
        total = situations * deals_per
        strategy = tuple(StrategyClass(_strategy_name(i), cls[i][0], cls[i][1])
                         for i in range(kernels.STRATEGY_CLASSES) if cls[i][0])
        aa_on_fold_rule = Fraction(s[25] - folded_situations, situations)
        side_bets = {
            "aa": {
                "paytable": {c.slug: p for c, p in rules.aa_paytable.items()},
                "min_pair": RANK_CHARS[int(rules.aa_min_pair_rank)],
                "settles_on_fold": rules.aa_settles_on_fold,
                "house_edge_settled_on_fold": float(-Fraction(s[27], situations)),
                "house_edge_lost_on_fold": float(-aa_on_fold_rule),
                "exact_settled_on_fold": str(-Fraction(s[27], situations)),
                "exact_lost_on_fold": str(-aa_on_fold_rule),
                "winning_hands_folded": s[26],
                "hand_countable_settled_on_fold": str(aa_house_edge_settled_on_fold(rules, deck)),
            }
        }
        side_bets["aa"]["house_edge"] = (side_bets["aa"]["house_edge_settled_on_fold"]
                                         if rules.aa_settles_on_fold
                                         else side_bets["aa"]["house_edge_lost_on_fold"])
        return GameAnalysis(
            "casino-holdem", rules, deck, tuple(rows), Fraction(s[1] + folded_situations * deals_per, total),
            Fraction(raised, situations), side_bets, strategy=strategy,
            tables={"raise": raise_table, "raise_ev": raise_ev},
        )

    def analyze(self, rules: Rules) -> GameAnalysis:
        if isinstance(rules, TexasBonusRules):
            return self.texas(rules)
        return self.casino(rules)


class _ReportingRanges:
    def __init__(self, ranges: list[tuple[int, int]], label: str, total: int,
                 progress: Progress) -> None:
        self.ranges, self.label, self.total, self.progress = ranges, label, total, progress

    def __iter__(self) -> Any:
        for start, stop in self.ranges:
            yield start, stop
            self.progress(self.label, stop, self.total)


def _weighted(out: I64, weight: I64) -> Any:
    """Sum over flops of weight x row, in Python integers (no overflow)."""
    flat = out.reshape(out.shape[0], -1)
    totals = [0] * flat.shape[1]
    for w in np.unique(weight):
        rows = flat[weight == w].sum(axis=0, dtype=np.int64)
        for i, v in enumerate(rows.tolist()):
            totals[i] += int(w) * v
    shaped: Any = np.array(totals, dtype=object).reshape(out.shape[1:])
    return shaped.tolist()


def _add(rows: dict[str, list[int]], name: str, count: int, net: int) -> None:
    if name not in rows:
        rows[name] = [0, net]
    rows[name][0] += count


def _present_classes(deck: DeckSpec) -> list[int]:
    present = []
    for hi in deck.ranks:
        for lo in deck.ranks:
            if hi == lo and deck.suits < 2:
                continue
            if hi < lo and deck.suits < 2:
                continue
            present.append(hi * 13 + lo)
    return present


def _class_combos(name: str, suits: int) -> int:
    if len(name) == 2:
        return comb(suits, 2)
    return suits if name[2] == "s" else suits * (suits - 1)


def _hand_order(hand: StartingHand) -> tuple[int, int, int]:
    hi, lo = RANK_CHARS.index(hand.name[0]), RANK_CHARS.index(hand.name[1])
    kind = 0 if len(hand.name) == 2 else (1 if hand.name[2] == "s" else 2)
    return (-hi, -lo, kind)


def _preflop_table(hands: list[StartingHand]) -> I64:
    table = np.zeros(169, dtype=np.int64)
    names = class_names()
    for hand in hands:
        table[names.index(hand.name)] = 1 if hand.action == "bet" else 0
    return table


_DRAWS = ("", ", four to a flush", ", four to a straight", ", four to a flush and a straight")


def _strategy_name(index: int) -> str:
    return HandCategory(index // 4).title + _DRAWS[index % 4]
