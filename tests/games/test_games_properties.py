"""Properties that hold for every deal and every sequence of decisions (hypothesis)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.errors import IllegalActionError
from dealerpoker.games import GAMES, RoundState, get_game, load_rules

ENGINES = {name: get_game(name) for name in GAMES}
VARIANTS = {
    "texas-bonus": get_game(
        "texas-bonus",
        load_rules(
            "texas-bonus", overrides={"ante_qualifier": "straight", "bonus_both_aces": {"pays": 1000}}
        ),
    ),
    "casino-holdem": get_game(
        "casino-holdem",
        load_rules("casino-holdem", overrides={"aa_settles_on_fold": True, "aa_min_pair": "Q"}),
    ),
}
ACTION_WORDS = ["bet", "check", "fold", "raise", "call", "", "BET", "stand", "double"]


@st.composite
def rounds(draw: st.DrawFn) -> tuple[str, bool, dict[str, int], list[int], list[int]]:
    """(game, variant rules?, bets, deck, choice indices): a random round."""
    name = draw(st.sampled_from(GAMES))
    game = ENGINES[name]
    limits = game.rules.limits
    bets = {"ante": draw(st.integers(limits["ante"].min, limits["ante"].max))}
    side = game.opening_fields[1]
    if draw(st.booleans()):
        bets[side] = draw(st.integers(limits[side].min, limits[side].max))
    deck = draw(st.permutations(range(52)))
    choices = draw(st.lists(st.integers(0, 1), min_size=3, max_size=3))
    return name, draw(st.booleans()), bets, list(deck), choices


def play_out(
    name: str, variant: bool, bets: dict[str, int], deck: list[int], choices: list[int]
) -> tuple[RoundState, int, list[str]]:
    """Play choices[i] as the i-th decision's legal action; total debited by stake_for and the actions."""
    game = VARIANTS[name] if variant else ENGINES[name]
    state = game.start(bets, deck)
    debited = sum(state.bets.values())
    actions = []
    for choice in choices:
        if state.is_settled:
            break
        action = game.legal_actions(state)[choice]
        debited += game.stake_for(state, action)
        state, _ = game.apply(state, action)
        actions.append(action)
    return state, debited, actions


@settings(max_examples=300, deadline=None)
@given(rounds())
def test_money_is_conserved(round_: tuple[str, bool, dict[str, int], list[int], list[int]]) -> None:
    """Stakes debited = sum of the line stakes; returned + house net = stakes; no line below 0."""
    state, debited, _ = play_out(*round_)
    settlement = state.settlement
    assert settlement is not None
    assert settlement.total_stake == debited == sum(state.bets.values())
    house_net = -settlement.net
    assert settlement.total_returned + house_net == settlement.total_stake
    assert {line.field for line in settlement.lines} == set(state.bets)
    for line in settlement.lines:
        assert isinstance(line.returned, int) and line.returned >= 0
        assert line.returned % line.stake == 0  # N to 1 payouts on whole stakes
    if settlement.outcome != "fold":
        assert settlement.player_hand is not None and settlement.dealer_hand is not None


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_replay_from_record_gives_the_same_settlement(
    round_: tuple[str, bool, dict[str, int], list[int], list[int]],
) -> None:
    name, variant, bets, deck, _ = round_
    state, _, actions = play_out(*round_)
    game = VARIANTS[name] if variant else ENGINES[name]
    # the record: opening bets, the nine cards used, the decisions taken
    record = json.loads(json.dumps({"bets": bets, "deck": list(state.deck), "actions": list(state.actions)}))
    replayed, _ = game.replay(record["bets"], record["deck"], record["actions"])
    assert replayed == state
    assert replayed.settlement is not None and state.settlement is not None
    assert replayed.settlement.to_dict() == state.settlement.to_dict()
    assert actions == list(state.actions)
    assert list(state.deck) == deck[:9]


@settings(max_examples=200, deadline=None)
@given(rounds(), st.lists(st.sampled_from(ACTION_WORDS), min_size=1, max_size=8))
def test_illegal_actions_never_change_state(
    round_: tuple[str, bool, dict[str, int], list[int], list[int]], attempts: list[str]
) -> None:
    name, variant, bets, deck, _ = round_
    game = VARIANTS[name] if variant else ENGINES[name]
    state = game.start(bets, deck)
    for action in attempts:
        before = state
        snapshot = (repr(state), game.view(state))
        if game.can(state, action):
            state, _ = game.apply(state, action)
            continue
        try:
            game.apply(state, action)
        except IllegalActionError as error:
            assert error.phase == state.phase and error.action == action
        else:
            raise AssertionError(f"{action!r} was applied although can() said no")
        assert state is before and (repr(state), game.view(state)) == snapshot


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_view_never_shows_hidden_cards(
    round_: tuple[str, bool, dict[str, int], list[int], list[int]],
) -> None:
    """Before settlement the view carries no dealer hole card and no undealt board card."""
    name, variant, bets, deck, choices = round_
    game = VARIANTS[name] if variant else ENGINES[name]
    state = game.start(bets, deck)
    for choice in choices:
        if state.is_settled:
            break
        text = json.dumps(game.view(state))
        hidden = [*state.dealer_cards, *state.deck[4 + state.board_count :]]
        for card in hidden:
            assert f'"{index_to_card(card)}"' not in text
        state, _ = game.apply(state, game.legal_actions(state)[choice])


@settings(max_examples=200, deadline=None)
@given(rounds())
def test_events_tell_the_same_story_as_the_view(
    round_: tuple[str, bool, dict[str, int], list[int], list[int]],
) -> None:
    """A client following only the events sees the cards, bets and result the view shows."""
    name, variant, bets, deck, choices = round_
    game = VARIANTS[name] if variant else ENGINES[name]
    state, events = game.start_with_events(bets, deck)
    story = list(events)
    for choice in choices:
        if state.is_settled:
            break
        state, more = game.apply(state, game.legal_actions(state)[choice])
        story.extend(more)
    view = game.view(state)
    told = [event.to_dict() for event in story]
    assert [
        c for e in told if e["kind"] == "cards-dealt" and e["to"] == "player" for c in e["cards"]
    ] == view["player_cards"]
    assert [c for e in told if e["kind"] == "cards-dealt" and e["to"] == "board" for c in e["cards"]] == view[
        "board"
    ]
    assert [e["cards"] for e in told if e["kind"] == "dealer-revealed"] == [view["dealer_cards"]]
    assert sum(e["amount"] for e in told if e["kind"] == "bet-placed") == view["settlement"]["total_stake"]
    assert [e["settlement"] for e in told if e["kind"] == "round-settled"] == [view["settlement"]]
    assert [e["action"] for e in told if e["kind"] == "player-acted"] == list(state.actions)
