"""The money rules of ``dealerpoker.games.payments``, one test per rule (named after it).

Solo rounds, live tables and the verifier all call these functions; that they agree on whole
rounds is checked in ``tests/server/test_money_rules_agree.py``.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.games import GAMES, RoundState, get_game, load_rules
from dealerpoker.games.payments import (
    FREE_ACTIONS,
    Payment,
    at_deal,
    cancellation,
    credit,
    decide,
    free_action,
    opening_stake,
    paid_at_deal,
    settlement_credit,
    timer_action,
    timer_may_play,
)

TEXAS = get_game("texas-bonus")
CASINO = get_game("casino-holdem")
BOTH_ACES = get_game("texas-bonus", load_rules("texas-bonus", overrides={"bonus_both_aces": {"pays": 1000}}))
# Timer defaults that cost a stake (an operator may configure them).
COSTLY_TEXAS = get_game("texas-bonus", load_rules(
    "texas-bonus", overrides={"timeout_actions": {"preflop": "bet", "flop": "bet", "turn": "bet"}}))
COSTLY_CASINO = get_game("casino-holdem", load_rules(
    "casino-holdem", overrides={"timeout_actions": {"flop": "raise"}}))


def deal(game: Any, cards: str, bets: dict[str, int]) -> RoundState:
    """Start ``game`` on the deal ``cards`` (player, dealer, board), the rest of the deck after them."""
    given_cards = indices_from_text(cards)
    state: RoundState = game.start(bets, given_cards + [i for i in range(52) if i not in given_cards])
    return state


ACES_WIN = "As Ah  2c 7d  Ad 9c 5h Kd 3s"   # player A-A, dealer 2-7: the player's set of aces wins
SEVEN_DEUCE = "7s 2h  Ac Kc  Qd 9c 5h Jd 3s"  # player 7-2 off-suit, dealer A-K: no Bonus, a loss
BOTH_HOLD_ACES = "As Ah  Ad Ac  Kd 9c 5h Jd 3s"


# ---- the deal ------------------------------------------------------------------------------
def test_the_deal_takes_every_opening_bet() -> None:
    assert opening_stake({"ante": 500, "bonus": 200}) == 700
    assert at_deal(deal(TEXAS, SEVEN_DEUCE, {"ante": 500, "bonus": 200})).stake == 700
    assert at_deal(deal(CASINO, SEVEN_DEUCE, {"ante": 500, "aa": 100})).stake == 600


def test_a_bonus_the_hole_cards_win_is_paid_at_the_deal() -> None:
    state = deal(TEXAS, ACES_WIN, {"ante": 100, "bonus": 100})
    assert paid_at_deal(state) == 100 * 31  # A-A pays 30 to 1, the stake comes back with it
    assert at_deal(state) == Payment(stake=200, returned=3100)


def test_a_lost_or_missing_bonus_pays_nothing_at_the_deal() -> None:
    assert paid_at_deal(deal(TEXAS, SEVEN_DEUCE, {"ante": 100, "bonus": 100})) == 0
    assert paid_at_deal(deal(TEXAS, ACES_WIN, {"ante": 100})) == 0


def test_casino_holdem_pays_nothing_at_the_deal() -> None:
    """The AA side bet needs the flop: it is settled with the round, not at the deal."""
    assert at_deal(deal(CASINO, ACES_WIN, {"ante": 100, "aa": 100})) == Payment(stake=200, returned=0)


def test_with_the_both_aces_line_aces_wait_for_the_dealer_and_the_settlement_pays_the_bonus() -> None:
    state = deal(BOTH_ACES, BOTH_HOLD_ACES, {"ante": 100, "bonus": 100})
    assert state.bonus is not None and state.bonus.pending
    assert paid_at_deal(state) == 0
    state, payment = decide(BOTH_ACES, state, "fold", already_returned=0)
    assert state.settlement is not None
    bonus = next(line for line in state.settlement.lines if line.field == "bonus")
    assert bonus.returned == 100 * 1001  # both A-A pays 1000 to 1, settled with the dealer's cards
    assert payment == Payment(stake=0, returned=state.settlement.total_returned)


# ---- decisions and the settlement ----------------------------------------------------------
def test_a_decision_takes_its_stake_and_pays_nothing_before_the_settlement() -> None:
    state = deal(TEXAS, ACES_WIN, {"ante": 100, "bonus": 100})
    state, flop = decide(TEXAS, state, "bet", already_returned=3100)
    assert flop == Payment(stake=200, returned=0)  # the Flop bet: twice the ante
    state, turn = decide(TEXAS, state, "check", already_returned=3100)
    assert turn == Payment(stake=0, returned=0)


def test_the_settlement_pays_every_line_less_what_the_deal_already_paid() -> None:
    state = deal(TEXAS, ACES_WIN, {"ante": 100, "bonus": 100})
    for action in ("bet", "check", "check"):
        state, last = decide(TEXAS, state, action, already_returned=3100)
    assert state.settlement is not None
    assert any(line.field == "bonus" and line.returned == 3100 for line in state.settlement.lines)
    assert last.returned == state.settlement.total_returned - 3100 == settlement_credit(state, 3100)
    assert settlement_credit(deal(TEXAS, ACES_WIN, {"ante": 100}), 0) == 0  # not settled: nothing


def test_an_illegal_decision_raises_and_moves_nothing() -> None:
    state = deal(CASINO, SEVEN_DEUCE, {"ante": 100})
    with pytest.raises(ValueError, match="not allowed"):
        decide(CASINO, state, "check", already_returned=0)


@st.composite
def played(draw: st.DrawFn) -> tuple[Any, RoundState, list[Payment]]:
    """A random round of a random game and rules, with the payment of each step."""
    game = draw(st.sampled_from([TEXAS, CASINO, BOTH_ACES, COSTLY_TEXAS, COSTLY_CASINO]))
    limits = game.rules.limits
    bets = {"ante": draw(st.integers(limits["ante"].min, 5000))}
    if draw(st.booleans()):
        bets[game.opening_fields[1]] = draw(st.integers(limits[game.opening_fields[1]].min, 5000))
    state = game.start(bets, draw(st.permutations(range(52))))
    payments = [at_deal(state)]
    returned = payments[0].returned
    while not state.is_settled:
        action = draw(st.sampled_from(game.legal_actions(state)))
        state, payment = decide(game, state, action, already_returned=returned)
        payments.append(payment)
        returned += payment.returned
    return game, state, payments


@given(played())
def test_the_steps_move_exactly_what_the_settlement_stakes_and_returns(
    round_: tuple[Any, RoundState, list[Payment]],
) -> None:
    _game, state, payments = round_
    assert state.settlement is not None
    assert sum(p.stake for p in payments) == state.settlement.total_stake
    assert sum(p.returned for p in payments) == state.settlement.total_returned
    assert all(p.returned == 0 for p in payments[1:-1])  # only the deal and the settlement pay


# ---- the timer -------------------------------------------------------------------------------
def test_the_timer_folds_preflop_and_checks_on_the_flop_and_turn() -> None:
    state = deal(TEXAS, SEVEN_DEUCE, {"ante": 100})
    assert timer_action(TEXAS, state) == "fold"
    state, _ = TEXAS.apply(state, "bet")
    assert timer_action(TEXAS, state) == "check"
    state, _ = TEXAS.apply(state, "check")
    assert (state.phase, timer_action(TEXAS, state)) == ("turn", "check")


def test_the_timer_folds_in_casino_holdem() -> None:
    assert timer_action(CASINO, deal(CASINO, SEVEN_DEUCE, {"ante": 100})) == "fold"


def test_a_timer_default_the_funds_cannot_cover_becomes_the_free_action() -> None:
    texas = deal(COSTLY_TEXAS, SEVEN_DEUCE, {"ante": 100})
    assert timer_action(COSTLY_TEXAS, texas) == "bet"  # the rules' default, until its stake is refused
    assert timer_action(COSTLY_TEXAS, texas, stake_refused=True) == "fold"
    texas, _ = COSTLY_TEXAS.apply(texas, "bet")
    assert timer_action(COSTLY_TEXAS, texas, stake_refused=True) == "check"
    casino = deal(COSTLY_CASINO, SEVEN_DEUCE, {"ante": 100})
    assert (timer_action(COSTLY_CASINO, casino), timer_action(COSTLY_CASINO, casino, stake_refused=True)) \
        == ("raise", "fold")
    free = deal(TEXAS, SEVEN_DEUCE, {"ante": 100})  # a free default stays itself
    assert timer_action(TEXAS, free, stake_refused=True) == timer_action(TEXAS, free) == "fold"


def test_the_timer_never_plays_a_stake_of_its_own_choosing() -> None:
    state = deal(TEXAS, SEVEN_DEUCE, {"ante": 100})
    assert timer_may_play(TEXAS, state, "fold")
    assert not timer_may_play(TEXAS, state, "bet")
    costly = deal(COSTLY_TEXAS, SEVEN_DEUCE, {"ante": 100})
    assert timer_may_play(COSTLY_TEXAS, costly, "bet") and timer_may_play(COSTLY_TEXAS, costly, "fold")


@pytest.mark.parametrize("name", GAMES)
def test_every_decision_has_exactly_one_free_action(name: str) -> None:
    """So the timer's free action is never a choice between a check and a fold."""
    game = get_game(name)
    for phase, steps in game.steps.items():
        free = [action for action, step in steps.items() if step.ante_multiple == 0]
        assert len(free) == 1 and free[0] in FREE_ACTIONS, (phase, free)
    state = deal(game, SEVEN_DEUCE, {"ante": 100})
    while not state.is_settled:
        assert game.stake_for(state, free_action(game, state)) == 0
        state, _ = game.apply(state, next(a for a in game.legal_actions(state) if a != "fold"))


# ---- a cancelled round (a live studio's misdeal) -------------------------------------------
def test_a_cancelled_round_returns_every_stake() -> None:
    before_the_deal = cancellation(TEXAS, {"ante": 100, "bonus": 100}, None)
    assert [(line.field, line.stake, line.returned) for line in before_the_deal.lines] == [
        ("ante", 100, 100), ("bonus", 100, 100)]
    on_the_flop = cancellation(CASINO, {}, deal(CASINO, ACES_WIN, {"ante": 100, "aa": 100}))
    assert on_the_flop.outcome == "misdeal" and on_the_flop.net == 0
    assert credit(on_the_flop, 0) == 200


def test_a_cancelled_round_returns_a_lost_bonus_stake_and_keeps_a_won_bonus_paid() -> None:
    won = deal(TEXAS, ACES_WIN, {"ante": 100, "bonus": 100})
    won, _ = decide(TEXAS, won, "bet", already_returned=3100)
    cancelled = cancellation(TEXAS, {}, won)
    assert [(line.field, line.stake, line.returned) for line in cancelled.lines] == [
        ("ante", 100, 100), ("bonus", 100, 3100), ("flop", 200, 200)]
    assert credit(cancelled, already_returned=3100) == 300  # the Bonus was paid at the deal
    lost = cancellation(TEXAS, {}, deal(TEXAS, SEVEN_DEUCE, {"ante": 100, "bonus": 100}))
    # Lost on the hole cards: its stake comes back with the others (every stake of the round).
    assert lost.line("bonus") is not None and lost.line("bonus").returned == 100  # type: ignore[union-attr]
    assert lost.net == 0 and credit(lost, 0) == 200


def test_a_bonus_still_waiting_for_the_dealer_is_returned_when_the_round_is_cancelled() -> None:
    state = deal(BOTH_ACES, BOTH_HOLD_ACES, {"ante": 100, "bonus": 100})
    cancelled = cancellation(BOTH_ACES, {}, state)
    assert cancelled.line("bonus") is not None and cancelled.line("bonus").returned == 100  # type: ignore[union-attr]
