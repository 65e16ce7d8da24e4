"""One test per rule clause of the VueTec Live Poker (Texas Hold'em Bonus) seed page.

Each docstring quotes the clause (../shared/seeds/vuetec_live_poker_rules.txt). Amounts are
worked out by hand: "returned" is stake + winnings, the stake on a stand-off, 0 on a loss.
"""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING

import pytest

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.errors import BetLimitError, IllegalActionError
from dealerpoker.games import get_game, load_rules

if TYPE_CHECKING:  # conftest is not importable by name from every test run
    from conftest import Play

GAME = "texas-bonus"
ANTE_BONUS = {"ante": 100, "bonus": 100}


def test_rule_heads_up_against_the_dealer_only(play: Play) -> None:
    """Seed: "played as a "heads up" game, with your hand playing against the dealers hand only"."""
    state = play(GAME, "Ah Ad", "Kc Qd", "2s 7h 9c Jd 3h", {"ante": 100}, ["bet", "check", "check"])
    settlement = state.settlement
    assert settlement is not None and settlement.player_hand and settlement.dealer_hand
    assert (settlement.player_hand.name, settlement.dealer_hand.name) == ("Pair of Aces", "High Card, King")


def test_rule_ante_required_before_the_first_card() -> None:
    """Seed: "In order to play a hand, you must place an 'Ante' prior to the first card being drawn"."""
    game = get_game(GAME)
    deck = list(range(52))
    with pytest.raises(BetLimitError, match="ante: an ante bet is required"):
        game.start({}, deck)
    with pytest.raises(BetLimitError, match="bonus: needs an ante bet"):
        game.start({"bonus": 100}, deck)
    assert game.start({"ante": 100}, deck).bets == {"ante": 100}


def test_rule_bonus_bet_is_optional(play: Play) -> None:
    """Seed: "You may also place a "Bonus" bet"."""
    without = play(GAME, "Ah Ad", "Kc Qd", "2s 7h 9c Jd 3h", {"ante": 100}, ["fold"])
    with_bonus = play(GAME, "Ah Ad", "Kc Qd", "2s 7h 9c Jd 3h", ANTE_BONUS, ["fold"])
    assert without.bonus is None and without.settlement is not None
    assert [line.field for line in without.settlement.lines] == ["ante"]
    assert with_bonus.bonus is not None and with_bonus.bonus.returned == 3100


def test_rule_bonus_paid_straight_after_the_first_two_cards() -> None:
    """Seed: "Once the first two cards are dealt to you, the "Bonus" bet will be paid if won";
    "The bonus bet is paid or taken straight after the deal of your first two cards"."""
    game = get_game(GAME)
    won = game.start(ANTE_BONUS, indices_from_text("As Ks Qh Qc 2c 7d 9h Js 3s"))
    lost = game.start(ANTE_BONUS, indices_from_text("7s 2d Qh Qc 2c 7d 9h Js 3s"))
    assert won.phase == lost.phase == "preflop"
    assert won.bonus is not None and (won.bonus.status, won.bonus.returned) == ("won", 2600)
    assert lost.bonus is not None and (lost.bonus.status, lost.bonus.returned) == ("lost", 0)
    assert game.view(won)["bonus"]["line"] == "Ace - King (suited)"


def test_rule_bonus_stands_whatever_happens_later(play: Play) -> None:
    """The Bonus is settled on the two hole cards "whatever happens later": fold, loss, tie, win."""
    deals = {
        "fold": ("Ah Kd", "Qh Qc", "2c 7d 9h Js 3s", ["fold"]),
        "lose": ("Ah Kd", "Qh Qc", "2c 7d 9h Js 3s", ["bet", "check", "check"]),
        "tie": ("Ah Kd", "Ac Kh", "2s 7h 9c Jd 3h", ["bet", "check", "check"]),
        "win": ("Ah Kd", "Qh Jc", "2c 7d 9h 8s 3s", ["bet", "check", "check"]),
    }
    for outcome, (player, dealer, board, actions) in deals.items():
        settlement = play(GAME, player, dealer, board, ANTE_BONUS, actions).settlement
        assert settlement.outcome == outcome
        assert settlement.returned_by_field["bonus"] == 1600  # A-K unsuited 15 to 1


def test_rule_preflop_choose_bet_or_fold() -> None:
    """Seed: "After the first two cards are dealt, you may then choose to 'Bet' or 'Fold'"."""
    game = get_game(GAME)
    state = game.start({"ante": 100}, list(range(52)))
    assert game.legal_actions(state) == ("bet", "fold")
    for illegal in ("check", "raise", "call"):
        with pytest.raises(IllegalActionError, match="not allowed in the preflop phase"):
            game.apply(state, illegal)


def test_rule_fold_forfeits_the_ante(play: Play) -> None:
    """Seed: "if you fold at this point your Ante will be forfeited"."""
    state = play(GAME, "Ah Ad", "Kc Qd", "", {"ante": 100}, ["fold"])
    settlement = state.settlement
    assert settlement is not None and settlement.outcome == "fold"
    assert [(line.field, line.stake, line.returned, line.net) for line in settlement.lines] == [
        ("ante", 100, 0, -100)
    ]
    assert state.board == ()  # no more cards are dealt


def test_rule_bet_makes_a_flop_bet_equal_to_twice_the_ante() -> None:
    """Seed: "click the "BET" button to make a "Flop" bet equal to twice the ANTE bet"."""
    game = get_game(GAME)
    state = game.start({"ante": 250}, list(range(52)))
    assert game.stake_for(state, "bet") == 500
    state, _ = game.apply(state, "bet")
    assert state.bets == {"ante": 250, "flop": 500}


def test_rule_flop_bet_reveals_three_flop_cards() -> None:
    """Seed: "The game will continue, revealing the three flop cards"."""
    game = get_game(GAME)
    state = game.start({"ante": 100}, indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s"))
    state, _ = game.apply(state, "bet")
    assert game.view(state)["board"] == ["2c", "7d", "9h"]


def test_rule_turn_bet_or_check_costs_the_ante_then_turn_revealed() -> None:
    """Seed: "You may then decide to "Bet" or "Check" on the "Turn". The "Turn" bet will cost the same
    amount as the initial "Ante" bet. The "Turn" card will then be revealed"."""
    game = get_game(GAME)
    state, _ = game.apply(game.start({"ante": 300}, indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s")), "bet")
    assert game.legal_actions(state) == ("bet", "check")
    assert (game.stake_for(state, "bet"), game.stake_for(state, "check")) == (300, 0)
    betting, _ = game.apply(state, "bet")
    checking, _ = game.apply(state, "check")
    assert betting.bets["turn"] == 300 and "turn" not in checking.bets
    assert game.view(betting)["board"] == game.view(checking)["board"] == ["2c", "7d", "9h", "Js"]


def test_rule_river_bet_or_check_costs_the_ante_then_dealer_revealed() -> None:
    """Seed: "You may then decide to "Bet" or "Check" on the "River". The "River" bet will also cost the
    same amount as the initial "Ante" bet. The dealer's hand will then be revealed"."""
    game = get_game(GAME)
    state = game.start({"ante": 300}, indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s"))
    for action in ("bet", "check"):
        state, _ = game.apply(state, action)
    assert game.stake_for(state, "bet") == 300 and game.view(state)["dealer_cards"] == []
    state, _ = game.apply(state, "bet")
    assert state.bets["river"] == 300
    view = game.view(state)
    assert view["dealer_cards"] == ["Qh", "Qc"] and view["board"] == ["2c", "7d", "9h", "Js", "3s"]


def test_rule_timer_assumes_fold_then_check_on_turn_and_river() -> None:
    """Seed: "If you do not make a selection to Bet, then the game will assume you have Folded on the
    Flop, or Checked on the Turn or River bets" (the Flop bet is the pre-flop decision)."""
    game = get_game(GAME)
    state = game.start({"ante": 100}, list(range(52)))
    assert game.timeout_action(state) == "fold"
    state, _ = game.apply(state, "bet")
    assert game.timeout_action(state) == "check"
    state, _ = game.apply(state, game.timeout_action(state))
    assert game.timeout_action(state) == "check"
    state, _ = game.apply(state, game.timeout_action(state))
    assert state.is_settled and state.bets == {"ante": 100, "flop": 200}


def test_rule_timer_defaults_are_configuration() -> None:
    rules = load_rules(GAME, overrides={"timeout_actions": {"preflop": "bet", "turn": "bet"}})
    game = get_game(GAME, rules)
    state = game.start({"ante": 100}, list(range(52)))
    assert game.timeout_action(state) == "bet"


def test_rule_hand_must_be_better_than_the_dealers_to_win(play: Play) -> None:
    """Seed: "To win, your hand must be better than the dealer's hand"."""
    better = play(GAME, "Ah Ad", "Kc Kd", "2s 7h 9c Jd 3h", {"ante": 100}, ["bet", "check", "check"])
    worse = play(GAME, "Kc Kd", "Ah Ad", "2s 7h 9c Jd 3h", {"ante": 100}, ["bet", "check", "check"])
    assert better.settlement.outcome == "win" and worse.settlement.outcome == "lose"


def test_rule_best_five_of_two_hole_cards_and_five_common_cards(play: Play) -> None:
    """Seed: "Final hands consist of the best 5 card hand that can be made from the Yours or Dealer's
    first 2 cards, and the 5 common cards dealt" (the board alone may be the best five)."""
    state = play(GAME, "2h 3d", "Kc 7d", "As Ks Qs Js Ts", {"ante": 100}, ["bet", "check", "check"])
    settlement = state.settlement
    assert settlement.player_hand.category.slug == settlement.dealer_hand.category.slug == "royal-flush"
    assert settlement.player_hand.best_five == ("As", "Ks", "Qs", "Js", "Ts")
    assert settlement.outcome == "tie"


def test_rule_all_bets_pay_even_money(play: Play) -> None:
    """Seed: "All bets are paid at even money 1 to 1" (the ante when the player has a flush or better)."""
    state = play(GAME, "Ah 8h", "Kc Qd", "Kh 5h 2h 9c Jd", {"ante": 100}, ["bet", "bet", "bet"])
    assert state.settlement.returned_by_field == {"ante": 200, "flop": 400, "turn": 200, "river": 200}


def test_rule_ante_stand_off_without_flush(play: Play) -> None:
    """Seed: "If your hand does not have a Flush or better, the "Ante" bet will be a stand off"."""
    state = play(GAME, "9s 8d", "Kh Qc", "7c 6d 5h 2s 2c", {"ante": 100}, ["bet", "bet", "bet"])
    settlement = state.settlement
    assert settlement.outcome == "win" and settlement.player_hand.category.slug == "straight"
    ante = settlement.line("ante")
    assert ante is not None and (ante.returned, ante.net) == (100, 0)
    assert settlement.returned_by_field["flop"] == 400


@pytest.mark.parametrize(
    ("player", "dealer", "board", "category"),
    [
        ("Ah 8h", "Kc Qd", "Kh 5h 2h 9c Jd", "flush"),
        ("Kh Kd", "Qc Jd", "Kc 2s 2d 9c 5h", "full-house"),
        ("3h 3d", "Jc 7d", "3c 3s Kd 8c 5h", "four-of-a-kind"),
        ("9h 8h", "Jc 3d", "7h 6h 5h Kc 2d", "straight-flush"),
        ("As Ks", "7h 2d", "Qs Js Ts 4c 9d", "royal-flush"),
    ],
)
def test_rule_ante_pays_with_flush_or_better(
    play: Play, player: str, dealer: str, board: str, category: str
) -> None:
    state = play(GAME, player, dealer, board, {"ante": 100}, ["bet", "check", "check"])
    assert state.settlement.player_hand.category.slug == category
    assert state.settlement.returned_by_field == {"ante": 200, "flop": 400}


def test_rule_higher_hands_win_lower_hands_lose(play: Play) -> None:
    """Seed: "Hands with a higher value than the dealer's will win, and hands with a lower value will
    lose"."""
    state = play(GAME, "Kc Kd", "Ah Ad", "2s 7h 9c Jd 3h", {"ante": 100, "bonus": 100}, ["bet", "bet", "bet"])
    assert state.settlement.outcome == "lose"
    assert state.settlement.returned_by_field == {"ante": 0, "bonus": 1100, "flop": 0, "turn": 0, "river": 0}


def test_rule_equal_value_next_highest_card_decides(play: Play) -> None:
    """Seed: "Where both hands have equal value then, the next highest card in each hand will be the
    deciding the winner"."""
    state = play(GAME, "Kh 9d", "Kc 8d", "Ks 7s 4h 2c Jd", {"ante": 100}, ["bet", "check", "check"])
    settlement = state.settlement
    assert settlement.player_hand.name == settlement.dealer_hand.name == "Pair of Kings"
    assert settlement.outcome == "win"
    assert settlement.returned_by_field == {"ante": 100, "flop": 400}


def test_rule_still_the_same_is_a_draw(play: Play) -> None:
    """Seed: "If the hands are still the same the hand is declared a draw" (cards outside the best five
    do not count)."""
    state = play(GAME, "Kh 3d", "Kc 2d", "Ks Qs Jh 9c 7d", {"ante": 100}, ["bet", "bet", "check"])
    assert state.settlement.outcome == "tie"


def test_rule_draw_returns_all_bets_except_the_bonus(play: Play) -> None:
    """Seed: "If a game results in a draw, all bets are returned except the Bonus bet"."""
    lost_bonus = play(GAME, "2h 3d", "2c 3c", "As Ks Qs Js 9d", ANTE_BONUS, ["bet", "bet", "bet"])
    assert lost_bonus.settlement.outcome == "tie"
    assert lost_bonus.settlement.returned_by_field == {
        "ante": 100,
        "bonus": 0,
        "flop": 200,
        "turn": 100,
        "river": 100,
    }
    won_bonus = play(GAME, "Ah Kd", "Ac Kh", "2s 7h 9c Jd 3h", ANTE_BONUS, ["bet", "check", "bet"])
    assert won_bonus.settlement.outcome == "tie"
    assert won_bonus.settlement.returned_by_field == {"ante": 100, "bonus": 1600, "flop": 200, "river": 100}


@pytest.mark.parametrize(
    ("player", "line", "returned"),
    [
        ("Ah Ad", "Ace - Ace", 3100),
        ("As Ks", "Ace - King (suited)", 2600),
        ("Ad Qd", "A - Q or A - J (suited)", 2100),
        ("Jc Ac", "A - Q or A - J (suited)", 2100),
        ("Ah Kc", "Ace - King (un-suited)", 1600),
        ("Kh Ks", "K - K, Q - Q or J - J", 1100),
        ("Qh Qs", "K - K, Q - Q or J - J", 1100),
        ("Jh Js", "K - K, Q - Q or J - J", 1100),
        ("Ah Qs", "A - Q or A - J (un-suited)", 600),
        ("Js Ah", "A - Q or A - J (un-suited)", 600),
        ("Th Ts", "Any Pair 2 - 10", 400),
        ("5h 5s", "Any Pair 2 - 10", 400),
        ("2h 2s", "Any Pair 2 - 10", 400),
        ("Ah Th", None, 0),
        ("Kh Qh", None, 0),
        ("Ah 2c", None, 0),
        ("7h 2c", None, 0),
    ],
)
def test_rule_bonus_paytable(player: str, line: str | None, returned: int) -> None:
    """Seed: "Bonus Bet Payouts": A-A 30, A-K suited 25, A-Q/A-J suited 20, A-K 15, K-K/Q-Q/J-J 10,
    A-Q/A-J 5, any pair 2-10 3 (to 1); anything else loses."""
    game = get_game(GAME)
    given = indices_from_text(player)
    state = game.start(ANTE_BONUS, given + [i for i in range(52) if i not in given])
    assert state.bonus is not None and (state.bonus.line, state.bonus.returned) == (line, returned)


def test_rule_bonus_any_amount_within_min_and_max() -> None:
    """Seed: "This can be a bet of any amount according to the set Minimum and Maximum's"."""
    game = get_game(GAME, load_rules(GAME, overrides={"limits": {"bonus": {"min": 100, "max": 25000}}}))
    limit = game.rules.limits["bonus"]
    assert game.validate_bets({"ante": 100, "bonus": limit.min}) == {"ante": 100, "bonus": limit.min}
    assert game.validate_bets({"ante": 100, "bonus": 1234}) == {"ante": 100, "bonus": 1234}
    for amount in (limit.min - 1, limit.max + 1):
        with pytest.raises(BetLimitError, match=f"bonus: {amount} is outside the table limits"):
            game.validate_bets({"ante": 100, "bonus": amount})


def test_rule_ranking_of_hands_low_to_high(play: Play) -> None:
    """Seed: "Ranking of hands": high card < one pair < two pairs < three of a kind < straight < flush <
    full house < four of a kind < straight flush < royal flush."""
    boards = [  # (player, dealer, board): the player holds the next category up from the dealer
        ("Ah 2d", "Kc 3d", "Qs 9h 7c 5d Tc"),  # high card: Ace high > King high
        ("Qh 2d", "Kc 3d", "Qs 9h 7c 5d 8c"),  # one pair > high card
        ("Qh 9d", "Qc 3d", "Qs 9h 7c 5d 2c"),  # two pairs > one pair
        ("Qh Qd", "9c 9d", "Qs 5h 7c 2d 9h"),  # three of a kind: QQQ > 999
        ("8h 6d", "Qc Qd", "Qs 9h 7c 5d 2c"),  # straight > three of a kind
        ("Ah 3h", "Tc 8d", "Qh 9h 7c 6d 2h"),  # flush > straight
        ("Qh 9d", "Ah 3h", "Qs 9h Qc 5h 2h"),  # full house > flush
        ("Qh Qd", "9c 9d", "Qs Qc 9h 5d 2c"),  # four of a kind > full house
        ("8h 6h", "Qc Qd", "Qh 9h 7h 5h Qs"),  # straight flush > four of a kind
        ("Ah Kh", "9h 8h", "Qh Jh Th 5d 2c"),  # royal flush > straight flush
    ]
    categories = []
    for player, dealer, board in boards:
        settlement = play(GAME, player, dealer, board, {"ante": 100}, ["bet", "check", "check"]).settlement
        assert settlement.outcome == "win", (player, dealer, board)
        categories.append((settlement.dealer_hand.category.slug, settlement.player_hand.category.slug))
    ladder = [
        "high-card",
        "one-pair",
        "two-pair",
        "three-of-a-kind",
        "straight",
        "flush",
        "full-house",
        "four-of-a-kind",
        "straight-flush",
        "royal-flush",
    ]
    assert categories == [
        ("high-card", "high-card"),
        ("high-card", "one-pair"),
        ("one-pair", "two-pair"),
        ("three-of-a-kind", "three-of-a-kind"),
        *itertools.pairwise(ladder[3:]),
    ]


def test_rule_dealer_cards_hidden_until_revealed() -> None:
    """The dealer's two cards are dealt face down and shown only when the dealer's hand is revealed."""
    game = get_game(GAME)
    state = game.start(ANTE_BONUS, indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s"))
    while not state.is_settled:
        assert "Qh" not in json.dumps(game.view(state)) and "Qc" not in json.dumps(game.view(state))
        state, _ = game.apply(state, "bet")
    assert game.view(state)["dealer_cards"] == ["Qh", "Qc"]
