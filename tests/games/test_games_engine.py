"""The engine API of docs/CONTRACTS.md section 4, for both games."""

from __future__ import annotations

import json

import pytest

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.errors import BetLimitError, IllegalActionError, InvalidCardError, InvalidHandError
from dealerpoker.games import CasinoHoldem, TexasBonus, get_game, load_rules
from dealerpoker.games.events import BetPlaced, BonusSettled, CardsDealt, DealerDealt, DealerRevealed

DEAL = "As Kd Qh Qc 2c 7d 9h Js 3s"  # player, dealer, flop, turn, river


def test_get_game_shapes() -> None:
    texas, casino = get_game("texas-bonus"), get_game("casino-holdem")
    assert isinstance(texas, TexasBonus) and isinstance(casino, CasinoHoldem)
    assert (texas.name, texas.opening_fields) == ("texas-bonus", ("ante", "bonus"))
    assert (casino.name, casino.opening_fields) == ("casino-holdem", ("ante", "aa"))
    straight = load_rules("texas-bonus", overrides={"ante_qualifier": "straight"})
    assert get_game("texas-bonus", straight).rules is straight


def test_get_game_refuses_rules_of_the_other_game() -> None:
    with pytest.raises(ValueError, match="rules are for 'casino-holdem'"):
        get_game("texas-bonus", load_rules("casino-holdem"))


def test_texas_phases_legal_actions_and_stakes() -> None:
    game = get_game("texas-bonus")
    state = game.start({"ante": 150}, indices_from_text(DEAL))
    seen = []
    for action in ("bet", "bet", "bet"):
        seen.append((state.phase, game.legal_actions(state), game.stake_for(state, action)))
        state, _ = game.apply(state, action)
    assert seen == [
        ("preflop", ("bet", "fold"), 300),
        ("flop", ("bet", "check"), 150),
        ("turn", ("bet", "check"), 150),
    ]
    assert state.phase == "settled" and game.legal_actions(state) == ()
    assert state.bets == {"ante": 150, "flop": 300, "turn": 150, "river": 150}
    assert state.settlement is not None


def test_casino_phases_legal_actions_and_stakes() -> None:
    game = get_game("casino-holdem")
    state = game.start({"ante": 100, "aa": 100}, indices_from_text(DEAL))
    assert (state.phase, game.legal_actions(state)) == ("flop", ("raise", "fold"))
    assert game.stake_for(state, "raise") == game.stake_for(state, "call") == 200
    assert game.stake_for(state, "fold") == 0
    state, _ = game.apply(state, "call")
    assert state.actions == ("raise",)
    assert state.bets == {"ante": 100, "aa": 100, "raise": 200}


def test_check_action_names_phase_and_action() -> None:
    game = get_game("texas-bonus")
    state = game.start({"ante": 100}, indices_from_text(DEAL))
    with pytest.raises(IllegalActionError, match="'check' is not allowed in the preflop phase") as info:
        game.check_action(state, "check")
    assert (info.value.phase, info.value.action) == ("preflop", "check")
    assert game.can(state, "bet") and not game.can(state, "raise")


def test_no_action_after_settlement() -> None:
    game = get_game("casino-holdem")
    state, _ = game.apply(game.start({"ante": 100}, indices_from_text(DEAL)), "fold")
    with pytest.raises(IllegalActionError, match="settled") as info:
        game.apply(state, "raise")
    assert info.value.phase == "settled"
    with pytest.raises(IllegalActionError):
        game.timeout_action(state)


def test_timeout_defaults_from_rules() -> None:
    texas = get_game("texas-bonus")
    state = texas.start({"ante": 100}, indices_from_text(DEAL))
    defaults = []
    while not state.is_settled:
        action = texas.timeout_action(state)
        defaults.append(action)
        if action == "fold":
            break
        state, _ = texas.apply(state, action)
    assert defaults == ["fold"]
    state, _ = texas.apply(texas.start({"ante": 100}, indices_from_text(DEAL)), "bet")
    assert texas.timeout_action(state) == "check"
    state, _ = texas.apply(state, "check")
    assert texas.timeout_action(state) == "check"
    casino = get_game("casino-holdem")
    assert casino.timeout_action(casino.start({"ante": 100}, indices_from_text(DEAL))) == "fold"
    raising = get_game(
        "casino-holdem", load_rules("casino-holdem", overrides={"timeout_actions": {"flop": "raise"}})
    )
    assert raising.timeout_action(raising.start({"ante": 100}, indices_from_text(DEAL))) == "raise"


def test_timeout_rules_must_be_legal_actions_of_that_game() -> None:
    with pytest.raises(ValueError, match=r"timeout_actions\.flop: expected one of fold, raise, got 'check'"):
        load_rules("casino-holdem", overrides={"timeout_actions": {"flop": "check"}})
    with pytest.raises(ValueError, match=r"timeout_actions\.flop: expected one of check, bet, got 'fold'"):
        load_rules("texas-bonus", overrides={"timeout_actions": {"flop": "fold"}})


@pytest.mark.parametrize(
    ("bets", "field", "message"),
    [
        ({"ante": 100001}, "ante", "ante: 100001 is outside the table limits (min 100, max 100000)"),
        ({"ante": 100001}, "ante", "max 100000"),
        ({"ante": 100, "bonus": 25001}, "bonus", "bonus: 25001 is outside the table limits"),
        ({"bonus": 100}, "bonus", "bonus: needs an ante bet"),
        ({"ante": 0, "bonus": 100}, "bonus", "needs an ante"),
        ({}, "ante", "ante: an ante bet is required"),
        ({"ante": 100, "aa": 100}, "aa", "aa: unknown betting field; opening fields: ante, bonus"),
        ({"ante": 100, "flop": 200}, "flop", "placed by an action"),
        ({"ante": 100.0}, "ante", "whole number"),
        ({"ante": "100"}, "ante", "whole number"),
        ({"ante": True}, "ante", "whole number"),
        ({"ante": -100}, "ante", "must not be negative"),
    ],
)
def test_validate_bets_names_the_field(bets: dict[str, object], field: str, message: str) -> None:
    game = get_game("texas-bonus")
    with pytest.raises(BetLimitError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        game.validate_bets(bets)
    assert info.value.field == field


def test_validate_bets_drops_zero_side_bets_and_accepts_limits() -> None:
    game = get_game("casino-holdem")
    assert game.validate_bets({"ante": 100, "aa": 0}) == {"ante": 100}
    assert game.validate_bets({"aa": 25000, "ante": 100000}) == {"ante": 100000, "aa": 25000}
    with pytest.raises(BetLimitError, match="aa: needs an ante"):
        game.validate_bets({"aa": 100})


@pytest.mark.parametrize(
    ("deck", "error", "message"),
    [
        ([0, 1, 2, 3, 4, 5, 6, 7], InvalidHandError, "deck has 8 cards; a round needs 9"),
        ([0, 1, 2, 3, 4, 5, 6, 7, 7], InvalidHandError, r"deck\[8\]: duplicate card 3s"),
        ([0, 1, 2, 3, 4, 5, 6, 7, 52], InvalidCardError, r"deck\[8\]: 52 is not a card index"),
        ([0, 1, 2, 3, 4, 5, 6, 7, -1], InvalidCardError, "not a card index"),
        ([0, 1, 2, 3, 4, 5, 6, 7, 8, 8], InvalidHandError, "duplicate"),
    ],
)
def test_start_rejects_bad_decks(deck: list[int], error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        get_game("casino-holdem").start({"ante": 100}, deck)


def test_dealing_positions_follow_the_contract() -> None:
    game = get_game("texas-bonus")
    deck = list(range(51, -1, -1))
    state = game.start({"ante": 100}, deck)
    assert state.player_cards == (51, 50) and state.dealer_cards == (49, 48) and state.board == ()
    for action, board in (
        ("bet", (47, 46, 45)),
        ("check", (47, 46, 45, 44)),
        ("check", (47, 46, 45, 44, 43)),
    ):
        state, _ = game.apply(state, action)
        assert state.board == board


def test_view_hides_dealer_and_undealt_board_until_revealed() -> None:
    game = get_game("texas-bonus")
    deck = indices_from_text(DEAL)
    state = game.start({"ante": 100, "bonus": 100}, deck)
    view = game.view(state)
    json.dumps(view)
    assert view["dealer_cards"] == [] and view["board"] == []
    assert view["player_cards"] == ["As", "Kd"]
    assert view["player_hand"]["name"] == "High Card, Ace", "the hole cards are named before the flop"
    assert view["action_stakes"] == {"bet": 200, "fold": 0}
    assert view["bonus"]["status"] == "won" and view["bonus"]["returned"] == 1600
    text = json.dumps(view)
    for hidden in ("Qh", "Qc", "2c", "7d", "9h", "Js", "3s"):
        assert hidden not in text
    state, _ = game.apply(state, "bet")
    view = game.view(state)
    assert view["board"] == ["2c", "7d", "9h"] and view["dealer_cards"] == []
    assert view["player_hand"] == {
        "category": "high-card",
        "name": "High Card, Ace",
        "best_five": ["As", "Kd", "9h", "7d", "2c"],
    }
    assert "Js" not in json.dumps(view) and "Qh" not in json.dumps(view)
    state, _ = game.apply(state, "check")
    state, _ = game.apply(state, "check")
    view = game.view(state)
    assert view["dealer_cards"] == ["Qh", "Qc"] and view["board"] == ["2c", "7d", "9h", "Js", "3s"]
    assert view["settlement"] == state.settlement.to_dict()  # type: ignore[union-attr]
    assert view["legal_actions"] == [] and view["action_stakes"] == {}


def test_casino_view_shows_the_flop_hand() -> None:
    game = get_game("casino-holdem")
    view = game.view(game.start({"ante": 100}, indices_from_text("Ah Ad Qh Qc As 7d 9h Js 3s")))
    assert view["board"] == ["As", "7d", "9h"] and view["dealer_cards"] == []
    assert view["player_hand"]["name"] == "Three of a Kind, Aces"
    assert view["action_stakes"] == {"raise": 200, "fold": 0}


def test_events_never_show_the_dealer_cards_before_the_reveal() -> None:
    game = get_game("texas-bonus")
    state, events = game.start_with_events({"ante": 100, "bonus": 100}, indices_from_text(DEAL))
    assert [type(e) for e in events] == [BetPlaced, BetPlaced, CardsDealt, DealerDealt, BonusSettled]
    every = list(events)
    for action in ("bet", "bet", "check"):
        state, more = game.apply(state, action)
        if not state.is_settled:
            assert "Qh" not in json.dumps([e.to_dict() for e in more])
        every.extend(more)
    reveals = [e for e in every if isinstance(e, DealerRevealed)]
    assert [r.cards for r in reveals] == [("Qh", "Qc")]
    assert every[-1].to_dict()["settlement"] == state.settlement.to_dict()  # type: ignore[union-attr]


def test_settlement_to_dict_shape() -> None:
    game = get_game("casino-holdem")
    state, _ = game.replay({"ante": 100, "aa": 100}, indices_from_text(DEAL), ["raise"])
    document = state.settlement.to_dict()  # type: ignore[union-attr]
    assert list(document) == [
        "game",
        "outcome",
        "dealer_qualifies",
        "player_hand",
        "dealer_hand",
        "lines",
        "total_stake",
        "total_returned",
        "net",
    ]
    assert list(document["player_hand"]) == ["category", "name", "best_five"]
    assert all(list(line) == ["field", "stake", "returned", "net"] for line in document["lines"])
    assert json.loads(json.dumps(document)) == document


def test_start_accepts_any_iterable_of_integers() -> None:
    import numpy as np

    game = get_game("texas-bonus")
    from_array = game.start({"ante": 100}, np.arange(52, dtype=np.int8)[::-1])
    assert from_array.deck == tuple(range(51, 42, -1))
    assert all(type(card) is int for card in from_array.deck)
    assert game.start({"ante": 100}, iter(range(9))).deck == tuple(range(9))
    with pytest.raises(InvalidHandError, match="deck must be a sequence"):
        game.start({"ante": 100}, "As Kd Qh Qc 2c 7d 9h Js 3s")  # type: ignore[arg-type]


@pytest.mark.parametrize("action", [None, 1, ["bet"], b"bet"])
def test_non_text_actions_are_illegal(action: object) -> None:
    game = get_game("casino-holdem")
    state = game.start({"ante": 100}, list(range(52)))
    with pytest.raises(IllegalActionError, match="an action is a word such as raise, fold") as info:
        game.apply(state, action)  # type: ignore[arg-type]
    assert info.value.phase == "flop"
    assert not game.can(state, action)  # type: ignore[arg-type]
