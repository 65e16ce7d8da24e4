"""The fast solver against an independent brute-force enumerator, on reduced decks."""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import Any

import pytest
from tests.analysis.brute import assert_casino_equals_brute, casino_brute_figures, texas_brute_of_each

from dealerpoker.analysis.deck import SMALL_DECK as SMALL
from dealerpoker.analysis.exact import Solver, class_names, class_of_pairs
from dealerpoker.games.rules import load_rules


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(SMALL)


TEXAS_QUALIFIERS = ["flush", "straight"]


@pytest.fixture(scope="module")
def texas_brute_force() -> dict[str, Any]:
    """The brute-force sums of each of ``TEXAS_QUALIFIERS``, from one enumeration of every deal."""
    qualifiers = [int(load_rules("texas-bonus", overrides={"ante_qualifier": q}).ante_qualifier)
                  for q in TEXAS_QUALIFIERS]
    found = texas_brute_of_each(qualifiers, SMALL, class_of_pairs(SMALL))
    return dict(zip(TEXAS_QUALIFIERS, found, strict=True))


@pytest.mark.slow  # every deal of the reduced deck, literally: seconds (one enumeration for both)
@pytest.mark.parametrize("qualifier", TEXAS_QUALIFIERS)
def test_texas_solver_equals_brute_force_on_a_reduced_deck(
        solver: Solver, texas_brute_force: dict[str, Any], qualifier: str) -> None:
    rules = load_rules("texas-bonus", overrides={"ante_qualifier": qualifier})
    fast = solver.texas(rules)
    n = SMALL.size
    brute = texas_brute_force[qualifier]
    names = class_names()
    per_flop_deals = (n - 5) * (n - 6) * comb(n - 7, 2)
    net = square = played = 0
    for hand in fast.starting_hands:
        c = names.index(hand.name)
        deals = hand.combos * comb(n - 2, 3) * per_flop_deals
        assert hand.ev_bet == Fraction(int(brute[c, 0]), deals), hand.name
        situations = hand.combos * comb(n - 2, 3)
        assert hand.turn_bets == Fraction(int(brute[c, 2]), situations), hand.name
        assert hand.river_bets == Fraction(int(brute[c, 3]), situations * (n - 5)), hand.name
        if brute[c, 0] > -deals:
            net += int(brute[c, 0])
            square += int(brute[c, 1])
            played += deals
        else:
            net -= deals
            square += deals
    total = comb(n, 2) * comb(n - 2, 3) * per_flop_deals
    assert fast.total_combinations == total
    assert fast.expected_return == Fraction(net, total)
    assert fast.second_moment == Fraction(square, total)
    assert fast.play_frequency == Fraction(played, total)


@pytest.mark.slow  # every deal of the reduced deck, literally: tens of seconds each
@pytest.mark.parametrize("overrides", [{}, {"dealer_qualifier": "55", "aa_min_pair": "4"}])
def test_casino_solver_equals_brute_force_on_a_reduced_deck(
        solver: Solver, overrides: dict[str, str]) -> None:
    rules = load_rules("casino-holdem", overrides=overrides)
    assert_casino_equals_brute(solver.casino(rules), casino_brute_figures(rules, SMALL))
