"""The first-five jackpot bet: its rules file, and its exact return against a brute-force
enumeration with the reference evaluator, the textbook counts, and a simulation."""

from __future__ import annotations

import json
from fractions import Fraction
from itertools import combinations
from math import comb

import pytest
from tests.evaluator.reference_evaluator import reference_value_of_indices

from dealerpoker.analysis.deck import DeckSpec
from dealerpoker.analysis.jackpot import jackpot_figures, simulate_jackpot
from dealerpoker.cli import main
from dealerpoker.errors import InvalidRulesError
from dealerpoker.evaluator.categories import HandCategory as C
from dealerpoker.games.jackpot import load_jackpot

SHIPPED = load_jackpot()


def _category(indices: tuple[int, ...]) -> C:
    value = reference_value_of_indices(indices)
    category = C(value >> 20)
    if category is C.STRAIGHT_FLUSH and value & 0xF0000 == 12 << 16:
        return C.ROYAL_FLUSH
    return category


@pytest.mark.parametrize("pool", [0, 5_000_000, 987_654_321])
@pytest.mark.parametrize("sharers", [1, 3])
def test_return_equals_brute_force_on_a_reduced_deck(pool: int, sharers: int) -> None:
    # 8 9 T J Q K A in four suits: every category occurs, royal flushes included.
    deck = DeckSpec(ranks=(6, 7, 8, 9, 10, 11, 12), suits=4)
    cards = [deck.global_index(local) for local in range(deck.size)]
    paid = Fraction(0)
    hands = 0
    for five in combinations(cards, 5):
        category = _category(five)
        if category is SHIPPED.pool_category:
            paid += Fraction(pool, sharers)
        else:
            paid += SHIPPED.awards.get(category, 0)
        hands += 1
    assert hands == comb(28, 5)
    expected = paid / (hands * SHIPPED.stake)
    assert jackpot_figures(SHIPPED, sharers=sharers, deck=deck).return_at(pool) == expected


def test_full_deck_figures_from_the_textbook_counts() -> None:
    figures = jackpot_figures(SHIPPED)
    hands = 2_598_960
    fixed = Fraction(36 * 250_000 + 624 * 25_000 + 3744 * 5000 + 5108 * 3000 + 10200 * 2500 + 54912 * 1500,
                     hands * 100)
    assert figures.fixed_return == fixed
    assert figures.pool_probability == Fraction(4, hands)
    assert figures.return_at(figures.break_even_pool.numerator // figures.break_even_pool.denominator) <= 1
    assert figures.return_at(int(figures.break_even_pool)) == 1  # the shipped figures break even exactly
    assert figures.long_run_return == fixed + Fraction(1, 5) + Fraction(4, hands) * 50_000
    assert figures.hit_frequency == Fraction(4 + 36 + 624 + 3744 + 5108 + 10200 + 54912, hands)


@pytest.mark.slow
def test_ten_million_simulated_rounds_agree_with_the_exact_return() -> None:
    pool = SHIPPED.seed
    exact = float(jackpot_figures(SHIPPED).return_at(pool))
    simulation = simulate_jackpot(SHIPPED, pool, 10_000_000, seed=20261203)
    low, high = simulation.interval_99
    assert low <= exact <= high, (exact, simulation)
    # Not vacuous: narrower than the three-of-a-kind line's share, so a lost line would show.
    assert high - low < 54912 * 1500 / (2_598_960 * 100)


@pytest.mark.parametrize(("overrides", "message"), [
    ({"stake": 0}, "stake: expected an integer amount"),
    ({"stake": 1.5}, "stake: expected an integer amount"),
    ({"seed": 2**53}, "seed: expected an integer amount"),
    ({"contribution": "1"}, "contribution: the share of a stake must be at least 0 and below 1"),
    ({"contribution": "a fifth"}, "contribution: expected a share"),
    ({"pool_category": "royal"}, "pool_category: unknown hand category 'royal'"),
    ({"awards": {"four-of-kind": 5}}, "awards: unknown hand category 'four-of-kind'"),
    ({"awards": {"royal-flush": 5}}, "'royal-flush' is the pool's category"),
    ({"pool_category": "straight-flush", "awards": {"royal-flush": 5}}, "ranks above the pool's category"),
    ({"sharing": "winner-takes-all"}, "sharing: expected one of ['equal']"),
    ({"stakes": 100}, "unknown entries ['stakes']"),
])
def test_a_bad_jackpot_entry_is_refused_naming_it(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_jackpot(overrides=overrides)


def test_analyze_jackpot_prints_the_exact_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["analyze", "texas-bonus", "--jackpot", "--json", "--pool", "5000000", "--sharers", "2"]) == 0
    document = json.loads(capsys.readouterr().out)
    figures = jackpot_figures(SHIPPED, sharers=2)
    assert document["return_at_pool"] == [{"pool": 5_000_000, "exact": str(figures.return_at(5_000_000)),
                                           "value": float(figures.return_at(5_000_000))}]
    assert Fraction(document["break_even_pool"]["exact"]) == figures.break_even_pool
    assert [line["combinations"] for line in document["lines"]] == [4, 36, 624, 3744, 5108, 10200, 54912]
