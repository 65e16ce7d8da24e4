"""Each bet's moments for the back office's reports (``analysis.moments``) against a brute force:
the Bonus's mean and variance over all 1,326 two-card hands, for the shipped paytable and a
changed one; the main game's from the analysis' own outcome table."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import pytest

from dealerpoker.analysis.moments import bet_moments
from dealerpoker.analysis.rtp import analysis_document
from dealerpoker.cards.encoding import index_to_card
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.games.rules import TexasBonusRules, load_rules, starting_hand_class


def brute_bonus(rules: TexasBonusRules) -> tuple[Fraction, Fraction]:
    """(mean net, mean net²) of one unit on the Bonus, hand by hand."""
    first = second = Fraction(0)
    hands = list(combinations(range(52), 2))
    for a, b in hands:
        one, two = index_to_card(a), index_to_card(b)
        name = starting_hand_class(one.rank, two.rank, one.suit == two.suit)
        pays = next((line.pays for line in rules.bonus_paytable if name in line.hands), -1)
        first += pays
        second += pays * pays
    return first / len(hands), second / len(hands)


CHANGED = {"bonus_paytable": [{"name": "Ace - Ace", "hands": ["AA"], "pays": 40},
                              {"name": "pairs", "hands": ["KK", "QQ"], "pays": 9}]}


@pytest.mark.parametrize("overrides", [None, CHANGED])
def test_the_bonus_moments_equal_the_brute_force(overrides: dict[str, object] | None) -> None:
    rules = load_rules("texas-bonus", overrides=overrides)
    assert isinstance(rules, TexasBonusRules)
    moments = bet_moments(rules, analysis_document(rules, DiskCache(), DiskCache()))
    mean, square = brute_bonus(rules)
    assert moments["bonus"].edge == -mean
    assert moments["bonus"].variance == square - mean**2


def test_the_main_games_moments_are_the_analysis_outcomes() -> None:
    rules = load_rules("casino-holdem")
    document = analysis_document(rules, DiskCache(), DiskCache())
    outcomes = document["outcomes"]
    total = sum(int(row["combinations"]) for row in outcomes)
    mean = Fraction(sum(int(row["combinations"]) * Fraction(row["net"]) for row in outcomes), total)
    square = Fraction(sum(int(row["combinations"]) * Fraction(row["net"]) ** 2 for row in outcomes), total)
    moments = bet_moments(rules, document)["ante"]
    assert moments.edge == -mean and moments.variance == square - mean**2
