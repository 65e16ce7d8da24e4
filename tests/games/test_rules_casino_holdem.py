"""One test per rule clause of the Casino Hold'em seed page.

Each docstring quotes the clause (../shared/seeds/casino_holdem_rules.txt). Amounts are worked
out by hand: "returned" is stake + winnings, the stake on a push, 0 on a loss.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.errors import BetLimitError, IllegalActionError, InvalidCardError, InvalidHandError
from dealerpoker.games import get_game, load_rules

if TYPE_CHECKING:  # conftest is not importable by name from every test run
    from conftest import Play

GAME = "casino-holdem"
ANTE_AA = {"ante": 100, "aa": 100}


def test_rule_standard_pack_of_52_cards() -> None:
    """Seed: "played with a standard pack of 52 cards (Jokers are excluded)": indices 0..51, once each."""
    game = get_game(GAME)
    with pytest.raises(InvalidCardError, match="52 is not a card index"):
        game.start({"ante": 100}, [52, 0, 1, 2, 3, 4, 5, 6, 7])
    with pytest.raises(InvalidHandError, match="duplicate card"):
        game.start({"ante": 100}, [0, 0, 1, 2, 3, 4, 5, 6, 7])
    assert game.start({"ante": 100}, list(range(52))).deck == tuple(range(9))


def test_rule_ace_high_or_low_in_a_straight(play: Play) -> None:
    """Seed: "Ace can be the highest-value card in a straight of A, K, Q, J, 10, or the lowest-value card
    in a straight of 5, 4, 3, 2, A"."""
    high = play(GAME, "Ah Kd", "9c 9d", "Qs Jh Tc 3d 2c", {"ante": 100}, ["raise"]).settlement
    low = play(GAME, "Ah 2d", "9c 9d", "3s 4h 5c Kd Qc", {"ante": 100}, ["raise"]).settlement
    assert high.player_hand.name == "Straight, Ace high" and high.outcome == "win"
    assert low.player_hand.name == "Straight, Five high" and low.outcome == "win"


def test_rule_min_max_on_each_betting_field() -> None:
    """Seed: "Min/Max sign indicates minimum and maximum amount that can be placed on each betting field"."""
    limits = {"ante": {"min": 100, "max": 100000}, "aa": {"min": 100, "max": 25000}}
    game = get_game(GAME, load_rules(GAME, overrides={"limits": limits}))
    for field in ("ante", "aa"):
        limit = game.rules.limits[field]
        bets = {"ante": 100, field: limit.max}
        assert game.validate_bets(bets)[field] == limit.max
        for amount in (limit.min - 1, limit.max + 1):
            with pytest.raises(BetLimitError, match=f"{field}: {amount} is outside") as info:
                game.validate_bets({"ante": 100, field: amount})
            assert info.value.field == field


def test_rule_aa_bet_cannot_be_made_without_ante() -> None:
    """Seed: "You can also make a side AA bet, but it cannot be made without Ante being placed"."""
    game = get_game(GAME)
    with pytest.raises(BetLimitError, match="aa: needs an ante bet"):
        game.start({"aa": 100}, list(range(52)))
    assert game.start({"ante": 100, "aa": 100}, list(range(52))).bets == ANTE_AA


def test_rule_two_cards_each_face_down_and_three_flop_cards() -> None:
    """Seed: "You and the dealer are both dealt two cards face down and three "flop" cards are dealt"."""
    game = get_game(GAME)
    view = game.view(game.start({"ante": 100}, indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s")))
    assert view["player_cards"] == ["As", "Kd"] and view["board"] == ["2c", "7d", "9h"]
    assert view["dealer_cards"] == [] and "Qh" not in json.dumps(view) and "Js" not in json.dumps(view)


def test_rule_winning_combination_name_is_displayed() -> None:
    """Seed: "If the hand contains a winning combination, its name is displayed"."""
    game = get_game(GAME)
    view = game.view(game.start({"ante": 100}, indices_from_text("Ah Ad Qh Qc As 7d 9h Js 3s")))
    assert view["player_hand"]["name"] == "Three of a Kind, Aces"


def test_rule_decide_raise_or_fold() -> None:
    """Seed: "decide whether to raise and continue playing against the dealer, or fold"."""
    game = get_game(GAME)
    state = game.start({"ante": 100}, list(range(52)))
    assert game.legal_actions(state) == ("raise", "fold")
    assert game.can(state, "call")  # `call` is the other name of `raise`
    with pytest.raises(IllegalActionError, match="'check' is not allowed in the flop phase"):
        game.apply(state, "check")


def test_rule_fold_loses_ante_and_aa(play: Play) -> None:
    """Seed: "Fold – by selecting to fold you end the game and lose all the stakes – both AA and Ante"
    (even an AA-winning first five)."""
    state = play(GAME, "Ah Ad", "Qh Qc", "As 7c 2d", ANTE_AA, ["fold"])
    settlement = state.settlement
    assert settlement.outcome == "fold" and settlement.dealer_qualifies is None
    assert [(line.field, line.stake, line.returned) for line in settlement.lines] == [
        ("ante", 100, 0),
        ("aa", 100, 0),
    ]
    assert settlement.net == -200 and state.board_count == 3


def test_rule_aa_settles_on_fold_when_configured(play: Play) -> None:
    """Some operators settle the AA bet on a fold (``aa_settles_on_fold = true``); the ante is lost."""
    state = play(GAME, "Ah Ad", "Qh Qc", "As 7c 2d", ANTE_AA, ["fold"], aa_settles_on_fold=True)
    assert state.settlement.returned_by_field == {"ante": 0, "aa": 800}
    losing = play(GAME, "Kh 8d", "Qh Qc", "As 7c 2d", ANTE_AA, ["fold"], aa_settles_on_fold=True)
    assert losing.settlement.returned_by_field == {"ante": 0, "aa": 0}


def test_rule_raise_is_twice_the_ante() -> None:
    """Seed: "by selecting to raise you place one more stake that equal twice your Ante"."""
    game = get_game(GAME)
    state = game.start({"ante": 350}, list(range(52)))
    assert game.stake_for(state, "raise") == 700
    state, _ = game.apply(state, "raise")
    assert state.bets == {"ante": 350, "raise": 700}


def test_rule_raise_deals_two_more_cards_and_reveals_dealer() -> None:
    """Seed: "Two more community cards are dealt, for a total of five. The Dealer's cards are revealed"."""
    game = get_game(GAME)
    state, _ = game.apply(game.start({"ante": 100}, indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s")), "raise")
    view = game.view(state)
    assert view["board"] == ["2c", "7d", "9h", "Js", "3s"] and view["dealer_cards"] == ["Qh", "Qc"]


def test_rule_best_five_of_seven(play: Play) -> None:
    """Seed: "The best paying hands are formed for the player and the dealer, using 5 out 7 available
    cards"."""
    settlement = play(GAME, "Ah 2d", "9c 9d", "Kh Qh 7h 3h 3c", {"ante": 100}, ["raise"]).settlement
    assert settlement.player_hand.best_five == ("Ah", "Kh", "Qh", "7h", "3h")
    assert settlement.dealer_hand.name == "Two Pair, Nines and Threes"


@pytest.mark.parametrize(
    ("dealer", "board", "qualifies"),
    [
        ("4c 4d", "Qs 9c 7h 2d 3s", True),  # pair of 4s: the lowest qualifying hand
        ("3c 3d", "Qs 9c 7h 2d 8s", False),  # pair of 3s
        ("Kc 5d", "2s 2h 9c Qd 7s", False),  # pair of 2s from the board
        ("3c 2d", "3s 2h 9c Qd 7h", True),  # any two pair qualifies, even 3s and 2s
        ("Kc Jd", "Qs 9c 7h 2d 3s", False),  # King high
    ],
)
def test_rule_dealer_must_have_pair_of_fours_or_higher(
    play: Play, dealer: str, board: str, qualifies: bool
) -> None:
    """Seed: "The dealer must have a pair of 4s or higher to qualify"."""
    settlement = play(GAME, "Ah Kd", dealer, board, {"ante": 100}, ["raise"]).settlement
    assert settlement.dealer_qualifies is qualifies


def test_rule_dealer_not_qualified_ante_paid_raise_returned(play: Play) -> None:
    """Seed: "If the Dealer's hand does not qualify, you win. Ante bet is paid out according to the Ante
    paytable, and Raise bet is returned to you" (here a flush: 2 to 1)."""
    settlement = play(GAME, "Ah 8h", "Qc 7d", "Kh 5h 2h 9c Jd", {"ante": 100}, ["raise"]).settlement
    assert (settlement.outcome, settlement.dealer_qualifies) == ("win", False)
    assert settlement.returned_by_field == {"ante": 300, "raise": 200}


def test_rule_dealer_lower_ante_by_paytable_raise_pays_1_to_1(play: Play) -> None:
    """Seed: "If the Dealer's hand is lower, your Ante bet is paid according to Ante paytable and Raise
    bet pays 1:1" (a full house: 3 to 1)."""
    settlement = play(GAME, "Kh Kd", "5c 5d", "Kc 2s 2d 9c 7h", {"ante": 100}, ["raise"]).settlement
    assert (settlement.outcome, settlement.dealer_qualifies) == ("win", True)
    assert settlement.returned_by_field == {"ante": 400, "raise": 400}


def test_rule_dealer_higher_lose_ante_and_raise(play: Play) -> None:
    """Seed: "If the Dealer's hand is higher, you lose both Ante and Raise bets"."""
    settlement = play(GAME, "Ah Kd", "4c 4d", "Qs 9c 7h 2d 3s", {"ante": 100}, ["raise"]).settlement
    assert (settlement.outcome, settlement.dealer_qualifies) == ("lose", True)
    assert settlement.returned_by_field == {"ante": 0, "raise": 0}


def test_rule_aa_paid_even_when_losing_to_the_dealer(play: Play) -> None:
    """Seed: "Even if you lose against the Dealer, you still receive AA winnings if you qualify for it"."""
    settlement = play(GAME, "Ah Ad", "7h 7s", "As 7c 7d Kh 2s", ANTE_AA, ["raise"]).settlement
    assert settlement.outcome == "lose" and settlement.dealer_hand.category.slug == "four-of-a-kind"
    assert settlement.returned_by_field == {"ante": 0, "aa": 3100, "raise": 0}  # first five: full house 30:1


def test_rule_same_hands_push_ante_and_raise_aa_still_wins(play: Play) -> None:
    """Seed: "If you and the Dealer have exactly the same hands it is a push. In this case Raise and Ante
    are returned to you, while AA bet still can win"."""
    settlement = play(GAME, "Ah 3d", "Ac 2c", "As Ks Kd Qh 9c", ANTE_AA, ["raise"]).settlement
    assert (settlement.outcome, settlement.dealer_qualifies) == ("tie", True)
    assert settlement.player_hand.name == settlement.dealer_hand.name == "Two Pair, Aces and Kings"
    assert settlement.returned_by_field == {"ante": 100, "aa": 800, "raise": 200}


def test_rule_same_type_higher_card_wins(play: Play) -> None:
    """Seed: "If you and the dealer have hands of the same type, the hand that includes the card of higher
    value wins (i.e. Three Kings beats Three Queens; a flush of A, 6, 5, 4, 3 beats a flush of K, J,
    10, 8, 7)"."""
    kings = play(GAME, "Kh Kd", "Qh Qd", "Ks Qs 7c 5d 2c", {"ante": 100}, ["raise"]).settlement
    assert (kings.player_hand.name, kings.dealer_hand.name, kings.outcome) == (
        "Three of a Kind, Kings",
        "Three of a Kind, Queens",
        "win",
    )
    flush = play(GAME, "Ah 6h", "Kh Jh", "5h 4h 3h 8c Tc", {"ante": 100}, ["raise"]).settlement
    assert flush.player_hand.best_five == ("Ah", "6h", "5h", "4h", "3h")
    assert flush.dealer_hand.best_five == ("Kh", "Jh", "5h", "4h", "3h")
    assert flush.outcome == "win"


def test_rule_same_type_and_value_kicker_decides(play: Play) -> None:
    """Seed: "If the hands are of the same type and value, the next highest card that is not part of the
    paying hand, known as the kicker, determines the winner"."""
    won = play(GAME, "Kh 9d", "Kc 8d", "Ks 7s 4h 2c Jd", {"ante": 100}, ["raise"]).settlement
    lost = play(GAME, "Kh 8d", "Kc 9d", "Ks 7s 4h 2c Jd", {"ante": 100}, ["raise"]).settlement
    assert won.outcome == "win" and won.returned_by_field == {"ante": 200, "raise": 400}
    assert lost.outcome == "lose" and lost.returned_by_field == {"ante": 0, "raise": 0}


@pytest.mark.parametrize(
    ("player", "dealer", "board", "category", "ante_returned"),
    [
        ("As Ks", "7h 2d", "Qs Js Ts 4c 9d", "royal-flush", 10100),
        ("9h 8h", "Jc 3d", "7h 6h 5h Kc 2d", "straight-flush", 2100),
        ("3h 3d", "Jc 7d", "3c 3s Kd 8c 5h", "four-of-a-kind", 1100),
        ("Kh Kd", "Jc 7d", "Kc 2s 2d 9c 5h", "full-house", 400),
        ("Ah 8h", "Qc 7d", "Kh 5h 2h 9c Jd", "flush", 300),
        ("9h 8d", "Jc 3d", "7c 6s 5h Kc 2d", "straight", 200),
        ("7h 7d", "Qc 3d", "7c Ks 5h Jc 2d", "three-of-a-kind", 200),
        ("Kh 5d", "Qc 3d", "Ks 5h 9c Jd 2c", "two-pair", 200),
        ("Ah 8d", "Qc 3d", "As Kc 5h Jd 2c", "one-pair", 200),
        ("Ah 8d", "Qc 3d", "Ks 6c 5h Jd 2c", "high-card", 200),
    ],
)
def test_rule_ante_paytable(
    play: Play, player: str, dealer: str, board: str, category: str, ante_returned: int
) -> None:
    """Seed: "Ante Bet Payouts": royal flush 100, straight flush 20, four of a kind 10, full house 3,
    flush 2, straight or lower 1 (to 1). Dealer not qualified here, so the raise comes back."""
    settlement = play(GAME, player, dealer, board, {"ante": 100}, ["raise"]).settlement
    assert settlement.player_hand.category.slug == category and settlement.dealer_qualifies is False
    assert settlement.returned_by_field == {"ante": ante_returned, "raise": 200}


@pytest.mark.parametrize(
    ("player", "flop", "category", "aa_returned"),
    [
        ("As Ks", "Qs Js Ts", "royal-flush", 10100),
        ("9h 8h", "7h 6h 5h", "straight-flush", 5100),
        ("3h 3d", "3c 3s Kd", "four-of-a-kind", 4100),
        ("Kh Kd", "Kc 2s 2d", "full-house", 3100),
        ("Ah 8h", "Kh 5h 2h", "flush", 2100),
        ("9h 8d", "7c 6s 5h", "straight", 800),
        ("7h 7d", "7c Ks 5h", "three-of-a-kind", 800),
        ("Kh 5d", "Ks 5h 9c", "two-pair", 800),
        ("Ah 8d", "As Kc 5h", "one-pair", 800),
        ("Kh 8d", "Ks Ac 5h", "one-pair", 0),  # a pair below aces
        ("Ah 8d", "Ks 6c 5h", "high-card", 0),
    ],
)
def test_rule_aa_paytable_on_first_five_cards(
    play: Play, player: str, flop: str, category: str, aa_returned: int
) -> None:
    """Seed: "AA Bet Payouts": royal flush 100, straight flush 50, four of a kind 40, full house 30, flush
    20, straight / three of a kind / two pair / aces or better 7 (to 1), on hole cards + flop."""
    game = get_game(GAME)
    state = play(GAME, player, "Qc 4d", flop, ANTE_AA, ["raise"])
    assert game.view(game.start(ANTE_AA, list(state.deck)))["player_hand"]["category"] == category
    assert state.settlement.returned_by_field["aa"] == aa_returned


def test_rule_aa_judged_on_first_five_not_final_hand(play: Play) -> None:
    """The AA bet is settled on the first five cards: turn and river do not improve it."""
    settlement = play(GAME, "Ah 8d", "Qc 3d", "Ks 6c 5h As Ad", ANTE_AA, ["raise"]).settlement
    assert settlement.player_hand.category.slug == "three-of-a-kind"
    assert settlement.returned_by_field["aa"] == 0


def test_rule_aa_minimum_pair_is_configuration(play: Play) -> None:
    settlement = play(
        GAME, "Kh 8d", "Qc 3d", "Ks Ac 5h 9d 2c", ANTE_AA, ["raise"], aa_min_pair="K"
    ).settlement
    assert settlement.returned_by_field["aa"] == 800


def test_rule_dealer_qualifier_is_configuration(play: Play) -> None:
    settlement = play(
        GAME, "Ah Kd", "4c 4d", "Qs 9c 7h 2d 3s", {"ante": 100}, ["raise"], dealer_qualifier="55"
    ).settlement
    assert settlement.dealer_qualifies is False and settlement.returned_by_field == {
        "ante": 200,
        "raise": 200,
    }
