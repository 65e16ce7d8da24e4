"""Advise and simulate against the solver's tables; the engine played with the solver's strategy."""

from __future__ import annotations

from fractions import Fraction
from math import comb

import pytest

from dealerpoker.analysis.advise import advise
from dealerpoker.analysis.deck import SMALL_DECK as SMALL
from dealerpoker.analysis.exact import GameAnalysis, Solver
from dealerpoker.analysis.rtp import solver_tables
from dealerpoker.analysis.simulate import simulate
from dealerpoker.cards.encoding import index_to_card
from dealerpoker.games import get_game
from dealerpoker.games.rules import load_rules

N = SMALL.size


@pytest.fixture(scope="module")
def solver() -> Solver:
    return Solver(SMALL)


@pytest.fixture(scope="module")
def texas(solver: Solver) -> GameAnalysis:
    return solver.texas(load_rules("texas-bonus"))


@pytest.fixture(scope="module")
def casino(solver: Solver) -> GameAnalysis:
    return solver.casino(load_rules("casino-holdem"))


def cards(local: list[int]) -> list:  # type: ignore[type-arg]
    return [index_to_card(SMALL.global_index(c)) for c in local]


def situations(solver: Solver, count: int) -> list[tuple[int, int, int, list[int]]]:
    """(canonical flop id, pair index, [a, b], flop) for a spread of flop situations."""
    out = []
    flops = solver.symmetry.flops.cards
    for f in range(0, len(flops), max(1, len(flops) // count)):
        flop = [int(c) for c in flops[f]]
        free = [c for c in range(N) if c not in flop]
        a, b = free[f % len(free)], free[(3 * f + 1) % len(free)]
        if a == b:
            continue
        lo, hi = min(a, b), max(a, b)
        out.append((f, hi * (hi - 1) // 2 + lo, lo, hi, flop))  # type: ignore[arg-type]
    return out  # type: ignore[return-value]


def test_advise_agrees_with_the_solver_tables(solver: Solver, texas: GameAnalysis,
                                               casino: GameAnalysis) -> None:
    deals = (N - 5) * (N - 6) * comb(N - 7, 2)
    for f, p, a, b, flop in situations(solver, 25):  # type: ignore[misc]
        t_advice = advise(texas.rules, cards([a, b]), cards(flop), deck=SMALL)
        assert t_advice.actions[t_advice.best] == Fraction(int(texas.tables["flop_ev"][f, p]), deals)
        assert (t_advice.best == "bet") == bool(texas.tables["flop_bet"][f, p])
        c_advice = advise(casino.rules, cards([a, b]), cards(flop), deck=SMALL)
        assert c_advice.actions["raise"] == Fraction(int(casino.tables["raise_ev"][f, p]), deals // 2)
        assert (c_advice.best == "raise") == bool(casino.tables["raise"][f, p])
    starting = {h.name: h.ev_bet for h in texas.starting_hands}
    preflop = advise(texas.rules, cards([0, 1]), (), deck=SMALL, starting_hands=starting)
    assert preflop.actions["bet"] == starting["22"]


def test_river_decisions_of_advise_match_the_solver(solver: Solver, texas: GameAnalysis) -> None:
    sym = solver.symmetry
    for t in range(0, len(sym.turns.cards), 97):
        board = [int(c) for c in sym.turns.cards[t]]
        free = [c for c in range(N) if c not in board]
        a, b = free[t % len(free)], free[-1 - t % 3]
        p = max(a, b) * (max(a, b) - 1) // 2 + min(a, b)
        advice = advise(texas.rules, cards([a, b]), cards(board), deck=SMALL, turn_bet=False)
        assert (advice.best == "bet") == bool(texas.tables["river_bet"][t, p])


@pytest.mark.slow
@pytest.mark.parametrize("game", ["texas-bonus", "casino-holdem"])
def test_simulation_interval_contains_the_exact_value(solver: Solver, texas: GameAnalysis,
                                                      casino: GameAnalysis, game: str) -> None:
    analysis = texas if game == "texas-bonus" else casino
    side = "bonus" if game == "texas-bonus" else "aa"
    result = simulate(analysis.rules, 2_000_000, seed=1, bets={"ante": 1, side: 1},
                      tables=solver_tables(solver, analysis.tables), deck=SMALL)
    main = sum(b.mean for b in result.per_bet if b.field != side)
    exact = float(analysis.expected_return)
    main_half = result.total.half_width  # the total's interval is the wider one
    assert abs(main - exact) <= main_half
    side_bet = next(b for b in result.per_bet if b.field == side)
    side_exact = (-Fraction(analysis.side_bets["bonus"]["exact"]) if side == "bonus"
                  else -Fraction(analysis.side_bets["aa"]["exact_lost_on_fold"]))
    assert abs(side_bet.mean - float(side_exact)) <= side_bet.half_width


def _engine_net(game_name: str, rules, deck: list[int], actions: list[str]) -> int:  # type: ignore[no-untyped-def]
    game = get_game(game_name, rules)
    state = game.start({"ante": 100}, deck)
    for action in actions:
        state, _ = game.apply(state, action)
    assert state.settlement is not None
    return state.settlement.net


@pytest.mark.slow
def test_engine_with_the_solver_strategy_earns_the_solver_ev(solver: Solver, texas: GameAnalysis,
                                                             casino: GameAnalysis) -> None:
    sym = solver.symmetry
    dealers = comb(N - 7, 2)
    for f, p, a, b, flop in situations(solver, 3)[:2]:  # type: ignore[misc]
        free = [c for c in range(N) if c not in (a, b, *flop)]
        # Texas: flop bet, then the solver's turn and river decisions, every turn, river, dealer.
        x = "bet" if texas.tables["flop_bet"][f, p] else "check"
        total = 0
        for t in free:
            s = sorted([*flop, t])
            index = sum(int(sym.binom[c, i + 1]) for i, c in enumerate(s))
            q = sym.pair_perm[sym.turns.perm_of[index], p]
            y = "bet" if texas.tables["river_bet"][sym.turns.id_of[index], q] else "check"
            for r in free:
                if r == t:
                    continue
                rest = [c for c in free if c not in (t, r)]
                for j, d1 in enumerate(rest):
                    for d0 in rest[:j]:
                        deck = [SMALL.global_index(c) for c in (a, b, d0, d1, *flop, t, r)]
                        total += _engine_net("texas-bonus", texas.rules, deck, ["bet", x, y])
        deals = (N - 5) * (N - 6) * dealers
        assert Fraction(total, 100 * deals) == Fraction(int(texas.tables["flop_ev"][f, p]), deals)
        # Casino: raise or fold as the solver says, every turn/river and dealer holding.
        action = "raise" if casino.tables["raise"][f, p] else "fold"
        total = 0
        for i, t in enumerate(free):
            for r in free[i + 1:]:
                rest = [c for c in free if c not in (t, r)]
                for j, d1 in enumerate(rest):
                    for d0 in rest[:j]:
                        deck = [SMALL.global_index(c) for c in (a, b, d0, d1, *flop, t, r)]
                        total += _engine_net("casino-holdem", casino.rules, deck, [action])
        deals = comb(N - 5, 2) * dealers
        expected = casino.tables["raise_ev"][f, p] if action == "raise" else -deals
        assert Fraction(total, 100 * deals) == Fraction(int(expected), deals)
