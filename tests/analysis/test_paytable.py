"""A new paytable's figures from stored card counts, against from-scratch brute force.

The card counts are computed once (default rules); every paytable below is then analysed by
the payout pass alone and compared, to the last digit, with the independent brute-force
enumerator run from scratch with that paytable (its own evaluator, decisions and settlements;
one enumeration prices every paytable, each deciding its own raises).
"""

from __future__ import annotations

import threading
from fractions import Fraction
from math import comb
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.analysis.brute import assert_casino_equals_brute, casino_brute_figures_of_each

from dealerpoker.analysis.deck import SMALL_DECK as SMALL
from dealerpoker.analysis.exact import Solver
from dealerpoker.analysis.paytable import CardCounts, card_rules, counts_key, figures, with_entry
from dealerpoker.analysis.pipeline import exact_analysis, sweep
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.errors import InvalidRulesError
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import load_rules

# Ante paytables (high card .. royal flush); several move the raise decisions (see the test).
ANTE_PAYTABLES = [
    {"flush": 1},                                              # flush no longer pays 2 to 1
    {"flush": 3, "full-house": 5},
    {"straight": 4, "three-of-a-kind": 3},                    # straights and trips pay well
    {"one-pair": 0, "high-card": 0},                           # a weak ante pays nothing
    {"royal-flush": 500, "straight-flush": 200, "four-of-a-kind": 50},
]


class MemoryStore:
    def __init__(self) -> None:
        self.saved: dict[str, dict[str, Any]] = {}
        self.loads = 0

    def load_counts(self, key: str) -> dict[str, Any] | None:
        self.loads += 1
        return self.saved.get(key)

    def save_counts(self, key: str, arrays: dict[str, Any]) -> None:
        self.saved[key] = arrays


AA_OVERRIDES: list[dict[str, Any]] = [
    {"aa_paytable": {"flush": 25, "straight": 9}, "aa_min_pair": "4"},
    {"aa_settles_on_fold": True, "ante_paytable": {"straight": 2}},
]
RULES_TESTED = [{"ante_paytable": paytable} for paytable in ANTE_PAYTABLES] + AA_OVERRIDES


@pytest.fixture(scope="module")
def casino_counts() -> CardCounts:
    return Solver(SMALL).card_counts(load_rules("casino-holdem"))


@pytest.fixture(scope="module")
def brute_force() -> list[dict[str, Any]]:
    """The brute-force figures of each of ``RULES_TESTED``, in that order."""
    return casino_brute_figures_of_each(
        [load_rules("casino-holdem", overrides=overrides) for overrides in RULES_TESTED], SMALL)


@pytest.mark.slow
@pytest.mark.parametrize("number", range(len(ANTE_PAYTABLES)), ids=lambda n: f"paytable{n}")
def test_a_new_ante_paytable_from_stored_counts_equals_brute_force(
        casino_counts: CardCounts, brute_force: list[dict[str, Any]], number: int) -> None:
    rules = load_rules("casino-holdem", overrides=RULES_TESTED[number])
    assert_casino_equals_brute(figures(rules, casino_counts), brute_force[number])


def test_the_paytables_tested_change_the_optimal_strategy(casino_counts: CardCounts) -> None:
    default = figures(load_rules("casino-holdem"), casino_counts)
    changed = [figures(load_rules("casino-holdem", overrides={"ante_paytable": p}), casino_counts)
               for p in ANTE_PAYTABLES]
    moved = [a for a in changed if a.play_frequency != default.play_frequency]
    assert len(moved) >= 3
    assert any((a.tables["raise"] != default.tables["raise"]).any() for a in moved)


@pytest.mark.parametrize("number", range(len(ANTE_PAYTABLES), len(RULES_TESTED)),
                         ids=lambda n: f"overrides{n - len(ANTE_PAYTABLES)}")
def test_aa_rules_from_stored_counts_equal_brute_force(
        casino_counts: CardCounts, brute_force: list[dict[str, Any]], number: int) -> None:
    rules = load_rules("casino-holdem", overrides=RULES_TESTED[number])
    fast = figures(rules, casino_counts)
    expected = brute_force[number]
    assert_casino_equals_brute(fast, expected)
    aa = fast.side_bets["aa"]
    assert aa["hand_countable_settled_on_fold"] == aa["exact_settled_on_fold"]
    edge = expected["aa_settled_on_fold"] if rules.aa_settles_on_fold else expected["aa_lost_on_fold"]
    assert aa["house_edge"] == float(edge)


def test_a_card_rule_changes_the_counts_key_and_a_payout_does_not() -> None:
    base = load_rules("casino-holdem")
    assert counts_key(base) == counts_key(load_rules("casino-holdem", overrides={
        "ante_paytable": {"flush": 9}, "aa_min_pair": "K", "limits": {"ante": {"min": 500, "max": 50000}}}))
    assert counts_key(base) != counts_key(load_rules("casino-holdem", overrides={"dealer_qualifier": "55"}))
    assert counts_key(base) != counts_key(base, SMALL)
    texas = load_rules("texas-bonus")
    assert card_rules(texas) == {"ante_qualifier": "flush"}
    straight = load_rules("texas-bonus", overrides={"ante_qualifier": "straight"})
    assert counts_key(texas) != counts_key(straight)


def test_exact_analysis_counts_once_then_reuses_the_store(monkeypatch: pytest.MonkeyPatch) -> None:
    store = MemoryStore()
    rules = load_rules("texas-bonus")
    first = exact_analysis(rules, store, deck=SMALL)
    assert list(store.saved) == [counts_key(rules, SMALL)]

    def no_counting(self: Solver, rules: Any) -> CardCounts:
        raise AssertionError("counted again")

    monkeypatch.setattr(Solver, "card_counts", no_counting)
    bonus = with_entry(rules, "bonus_paytable.0.pays", 50)  # A-A pays 50 instead of 30
    second = exact_analysis(bonus, store, deck=SMALL)
    assert second.expected_return == first.expected_return  # the main game does not move
    assert second.starting_hands == first.starting_hands
    # A-A is 3 of the 153 two-card hands of this deck: 20 more on each.
    edge = Fraction(first.side_bets["bonus"]["exact"]) - Fraction(second.side_bets["bonus"]["exact"])
    assert edge == Fraction(3 * 20, comb(SMALL.size, 2))


def test_a_second_counter_of_the_same_counts_waits_for_the_first_and_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes (here a thread: ``flock`` locks an open file, not a process) needing counts
    that are not stored yet: the one that finds them missing while the other counts waits."""
    rules = load_rules("texas-bonus")
    key = counts_key(rules, SMALL)
    counted = Solver(SMALL).card_counts(rules)
    missed = threading.Event()

    class WatchedCache(DiskCache):
        def load_counts(self, key: str) -> Any:
            found = super().load_counts(key)
            if found is None:
                missed.set()
            return found

    def no_counting(self: Solver, rules: Any) -> CardCounts:
        raise AssertionError("counted what the other counter was counting")

    monkeypatch.setattr(Solver, "card_counts", no_counting)
    first = DiskCache(tmp_path)
    analyses: list[Any] = []
    second = threading.Thread(target=lambda: analyses.append(exact_analysis(rules, WatchedCache(tmp_path),
                                                                            deck=SMALL)))
    with first.counting(key):
        second.start()
        assert missed.wait(timeout=60)
        first.save_counts(key, counted.arrays)
    second.join(timeout=60)
    assert len(analyses) == 1  # else the thread raised, or still waits
    assert analyses[0].expected_return == figures(rules, counted).expected_return


def test_texas_from_stored_counts_equals_a_fresh_solver_for_another_ante_rule() -> None:
    store = MemoryStore()
    straight = load_rules("texas-bonus", overrides={"ante_qualifier": "straight"})
    reused = exact_analysis(straight, store, deck=SMALL)
    fresh = Solver(SMALL).texas(straight)
    assert reused.outcomes == fresh.outcomes and reused.second_moment == fresh.second_moment


def test_sweep_gives_each_value_the_figures_of_its_own_rules(casino_counts: CardCounts) -> None:
    store = MemoryStore()
    store.saved[counts_key(load_rules("casino-holdem"), SMALL)] = casino_counts.arrays
    rules = load_rules("casino-holdem")
    rows = sweep(rules, "ante_paytable.flush", [1, 2, 3], store, deck=SMALL)
    assert [value for value, _ in rows] == [1, 2, 3]
    for value, analysis in rows:
        alone = figures(load_rules("casino-holdem", overrides={"ante_paytable": {"flush": value}}),
                        casino_counts)
        assert analysis.house_edge == alone.house_edge
        assert analysis.rules.ante_paytable[HandCategory.FLUSH] == value
    edges = [analysis.house_edge for _, analysis in rows]
    assert edges[0] > edges[1] > edges[2]  # a better-paying flush, a lower edge


@pytest.mark.parametrize(("path", "value", "message"), [
    ("ante_paytable.flush", -1, "ante_paytable.flush: expected an integer >= 0"),
    ("ante_paytable.flsh", 2, "flsh"),
    ("no_such.entry", 2, "no entry 'no_such'"),
])
def test_with_entry_names_a_bad_entry(path: str, value: int, message: str) -> None:
    with pytest.raises(InvalidRulesError, match=message):
        with_entry(load_rules("casino-holdem"), path, value)


@pytest.mark.slow
def test_full_deck_counts_reused_for_a_new_paytable_agree_with_direct_enumeration() -> None:
    """The full deck: counts of the shipped rules give their published exact edge; reused for a
    paytable that moves the strategy, each sampled situation's raise EV equals `advise`'s direct
    enumeration of every turn, river and dealer holding with that paytable (independent code)."""
    from dealerpoker.analysis.advise import advise
    from dealerpoker.cards.encoding import index_to_card

    solver = Solver()
    counts = solver.card_counts(load_rules("casino-holdem"))
    solver.release()
    default = figures(load_rules("casino-holdem"), counts)
    assert default.house_edge == Fraction(1363917077, 63213204600)
    rules = load_rules("casino-holdem", overrides={"ante_paytable": {
        "flush": 1, "straight": 3, "three-of-a-kind": 2}})
    changed = figures(rules, counts)
    assert changed.play_frequency != default.play_frequency
    moved = np.argwhere(changed.tables["raise"] != default.tables["raise"])
    assert len(moved) > 0
    deals = comb(47, 2) * comb(45, 2)
    flop_cards = counts.arrays["flop_cards"]
    samples = [tuple(moved[i]) for i in np.linspace(0, len(moved) - 1, 4).astype(int)]
    samples += [(17, 1300), (901, 77)]  # and two that may not have moved
    for f, p in samples:
        b = int((1 + np.sqrt(1 + 8 * p)) // 2)
        a = p - b * (b - 1) // 2
        flop = [int(c) for c in flop_cards[f]]
        if a in flop or b in flop:
            continue
        advice = advise(rules, [index_to_card(a), index_to_card(b)], [index_to_card(c) for c in flop])
        assert advice.actions["raise"] == Fraction(int(changed.tables["raise_ev"][f, p]), deals)
        assert (advice.best == "raise") == bool(changed.tables["raise"][f, p])
