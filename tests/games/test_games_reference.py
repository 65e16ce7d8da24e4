"""The engine against a slow, obvious twin written from the seed pages alone.

The twin hard-codes the seed paytables and rules (it reads no rules file and shares no code with
the engine beyond the hand evaluator) and settles random deals with random decisions.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from dealerpoker.cards import Card, Rank
from dealerpoker.cards.encoding import indices_to_cards
from dealerpoker.evaluator import HandCategory as C
from dealerpoker.evaluator import evaluate
from dealerpoker.games import get_game

TEXAS, CASINO = get_game("texas-bonus"), get_game("casino-holdem")


def seed_bonus_pays(first: Card, second: Card) -> int | None:
    high, low = sorted((first.rank, second.rank), reverse=True)
    suited = first.suit == second.suit
    if (high, low) == (Rank.ACE, Rank.ACE):
        return 30
    if (high, low) == (Rank.ACE, Rank.KING):
        return 25 if suited else 15
    if high == Rank.ACE and low in (Rank.QUEEN, Rank.JACK):
        return 20 if suited else 5
    if high == low and high in (Rank.KING, Rank.QUEEN, Rank.JACK):
        return 10
    if high == low:
        return 3
    return None


def pair_rank(best_five: tuple[Card, ...]) -> Rank:
    return Counter(card.rank for card in best_five).most_common(1)[0][0]


def texas_reference(
    bets: dict[str, int], cards: tuple[Card, ...], actions: tuple[str, ...]
) -> dict[str, int]:
    player, dealer, board = cards[0:2], cards[2:4], cards[4:9]
    ante = bets["ante"]
    out: dict[str, int] = {"ante": 0}
    if "bonus" in bets:
        pays = seed_bonus_pays(*player)
        out["bonus"] = 0 if pays is None else bets["bonus"] * (pays + 1)
    if actions[0] == "fold":
        return out
    stakes = {"flop": 2 * ante}
    if actions[1] == "bet":
        stakes["turn"] = ante
    if actions[2] == "bet":
        stakes["river"] = ante
    mine, theirs = evaluate(player + board), evaluate(dealer + board)
    if mine > theirs:
        out["ante"] = 2 * ante if mine.category >= C.FLUSH else ante
        out.update({field: 2 * stake for field, stake in stakes.items()})
    elif mine < theirs:
        out.update({field: 0 for field in stakes})
    else:
        out["ante"] = ante
        out.update(stakes)
    return out


SEED_ANTE = {C.ROYAL_FLUSH: 100, C.STRAIGHT_FLUSH: 20, C.FOUR_OF_A_KIND: 10, C.FULL_HOUSE: 3, C.FLUSH: 2}
SEED_AA = {
    C.ROYAL_FLUSH: 100,
    C.STRAIGHT_FLUSH: 50,
    C.FOUR_OF_A_KIND: 40,
    C.FULL_HOUSE: 30,
    C.FLUSH: 20,
    C.STRAIGHT: 7,
    C.THREE_OF_A_KIND: 7,
    C.TWO_PAIR: 7,
}


def casino_reference(
    bets: dict[str, int], cards: tuple[Card, ...], actions: tuple[str, ...]
) -> dict[str, int]:
    player, dealer, board = cards[0:2], cards[2:4], cards[4:9]
    ante = bets["ante"]
    out: dict[str, int] = {"ante": 0}
    if actions[0] == "fold":
        if "aa" in bets:
            out["aa"] = 0
        return out
    if "aa" in bets:
        first_five = evaluate(player + board[:3])
        pays = SEED_AA.get(first_five.category)
        if first_five.category is C.ONE_PAIR and pair_rank(first_five.best_five) == Rank.ACE:
            pays = 7
        out["aa"] = 0 if pays is None else bets["aa"] * (pays + 1)
    mine, theirs = evaluate(player + board), evaluate(dealer + board)
    qualifies = theirs.category >= C.TWO_PAIR or (
        theirs.category is C.ONE_PAIR and pair_rank(theirs.best_five) >= Rank.FOUR
    )
    ante_win = ante * (SEED_ANTE.get(mine.category, 1) + 1)
    if not qualifies:
        out["ante"], out["raise"] = ante_win, 2 * ante
    elif mine > theirs:
        out["ante"], out["raise"] = ante_win, 4 * ante
    elif mine < theirs:
        out["ante"], out["raise"] = 0, 0
    else:
        out["ante"], out["raise"] = ante, 2 * ante
    return out


@settings(max_examples=400, deadline=None)
@given(
    st.sampled_from(["texas-bonus", "casino-holdem"]),
    st.integers(100, 5000),
    st.one_of(st.none(), st.integers(100, 5000)),
    st.permutations(range(52)),
    st.lists(st.integers(0, 1), min_size=3, max_size=3),
)
def test_engine_matches_the_seed_twin(
    name: str, ante: int, side: int | None, deck: list[int], choices: list[int]
) -> None:
    game = TEXAS if name == "texas-bonus" else CASINO
    bets = {"ante": ante}
    if side is not None:
        bets[game.opening_fields[1]] = side
    state = game.start(bets, deck)
    for choice in choices:
        if not state.is_settled:
            state, _ = game.apply(state, game.legal_actions(state)[choice])
    assert state.settlement is not None
    reference = texas_reference if name == "texas-bonus" else casino_reference
    padded = (*state.actions, "check", "check")
    assert state.settlement.returned_by_field == reference(bets, indices_to_cards(deck[:9]), padded)


def test_twin_agrees_on_a_hand_checked_example() -> None:
    cards = indices_to_cards([51, 45, 42, 40, 0, 21, 30, 39, 7])  # As Kd Qh Qc 2c 7d 9h Js 3s
    assert texas_reference({"ante": 100, "bonus": 100}, cards, ("bet", "check", "bet")) == {
        "ante": 0,
        "bonus": 1600,
        "flop": 0,
        "river": 0,
    }
