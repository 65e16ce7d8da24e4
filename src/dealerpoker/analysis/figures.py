"""What an exact analysis finds, as exact integers and fractions: the return table, the
starting hands (Texas), the raise strategy (Casino), the side bets. No numba here: the payout
pass (:mod:`dealerpoker.analysis.paytable`) builds these from stored card counts in a fraction
of a second; :mod:`dealerpoker.analysis.exact` computes the counts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from math import comb, sqrt
from typing import Any

import numpy as np
import numpy.typing as npt

from dealerpoker.analysis.deck import DeckSpec
from dealerpoker.cards import RANK_CHARS
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import Rules

#: Bump when a change alters any computed figure or the layout of stored tables: it is part of
#: every cache key (the card counts' layout has its own number too, ``paytable.COUNTS_LAYOUT``).
ALGORITHM_VERSION = "2"

I64 = npt.NDArray[np.int64]


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
