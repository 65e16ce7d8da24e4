"""Side bets against hand-countable combinatorics."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerpoker.analysis.sidebets import aa_house_edge_settled_on_fold, bonus_side_bet, five_card_counts
from dealerpoker.evaluator.categories import HandCategory as C
from dealerpoker.games.rules import load_rules

# Five-card poker hands by category (the textbook counts of the 2,598,960 hands).
TEXTBOOK = {C.ROYAL_FLUSH: 4, C.STRAIGHT_FLUSH: 36, C.FOUR_OF_A_KIND: 624, C.FULL_HOUSE: 3744,
            C.FLUSH: 5108, C.STRAIGHT: 10200, C.THREE_OF_A_KIND: 54912, C.TWO_PAIR: 123552,
            C.ONE_PAIR: 1098240, C.HIGH_CARD: 1302540}


def test_five_card_counts_are_the_textbook_counts() -> None:
    by_category, pairs = five_card_counts()
    assert by_category == TEXTBOOK
    assert set(pairs.values()) == {1098240 // 13}  # 84,480 hands hold a pair of each rank


def test_aa_bet_settled_on_fold_by_hand() -> None:
    # Seed AA paytable: royal 100, straight flush 50, quads 40, full house 30, flush 20, straight,
    # trips, two pair and a pair of aces 7 (to 1); every other five-card hand loses 1.
    wins = {100: 4, 50: 36, 40: 624, 30: 3744, 20: 5108, 7: 10200 + 54912 + 123552 + 84480}
    winners = sum(wins.values())
    net = sum(pays * count for pays, count in wins.items()) - (2598960 - winners)
    assert aa_house_edge_settled_on_fold(load_rules("casino-holdem")) == Fraction(-net, 2598960)


def test_bonus_bet_by_hand() -> None:
    # AA 6 combos x 30, AKs 4 x 25, AQs/AJs 8 x 20, AKo 12 x 15, KK/QQ/JJ 18 x 10, AQo/AJo 24 x 5,
    # 22-TT 54 x 3; the other 1,200 of the 1,326 two-card hands lose.
    net = 6 * 30 + 4 * 25 + 8 * 20 + 12 * 15 + 18 * 10 + 24 * 5 + 54 * 3 - 1200
    bonus = bonus_side_bet(load_rules("texas-bonus"))["bonus"]
    assert bonus["exact"] == str(Fraction(-net, 1326))


def test_bonus_both_aces_line_adds_the_dealer_aces_chance() -> None:
    rules = load_rules("texas-bonus", overrides={"bonus_both_aces": {"pays": 500}})
    plain = Fraction(bonus_side_bet(load_rules("texas-bonus"))["bonus"]["exact"])
    both = Fraction(bonus_side_bet(rules)["bonus"]["exact"])
    # Player A-A (6/1326), dealer the other two aces (1 of C(50,2) = 1225): 500 instead of 30.
    assert plain - both == Fraction(6, 1326) * Fraction(1, 1225) * (500 - 30)


@pytest.mark.parametrize("deck", ["23456Ax3", "23456789TJQKAx4"])
def test_five_card_counts_over_canonical_boards_equal_every_board(deck: str) -> None:
    """The solver counts the five-card classes over the canonical boards, weighted."""
    from dealerpoker.analysis import kernels
    from dealerpoker.analysis.deck import DeckSpec
    from dealerpoker.analysis.sidebets import five_card_class_counts
    from dealerpoker.analysis.symmetry import build_symmetry

    spec = DeckSpec.parse(deck)
    rivers = build_symmetry(spec).rivers
    weighted = kernels.five_card_class_counts(rivers.cards, rivers.weight, spec.rank_array(),
                                              spec.suit_array())
    assert weighted.tolist() == five_card_class_counts(spec).tolist()
