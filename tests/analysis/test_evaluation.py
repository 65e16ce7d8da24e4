"""The solver's board-centric evaluator against the reference ``evaluate``."""

from __future__ import annotations

import random

import numpy as np

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec, pair_index
from dealerpoker.analysis.evaluation import board_holding_values, cards_value
from dealerpoker.analysis.symmetry import build_symmetry
from dealerpoker.cards.encoding import index_to_card
from dealerpoker.evaluator import evaluate

RANK, SUIT = FULL_DECK.rank_array(), FULL_DECK.suit_array()


def reference(cards: list[int]) -> int:
    return evaluate([index_to_card(c) for c in cards]).value


def test_cards_value_matches_reference_on_random_hands() -> None:
    rng = random.Random(7)
    scratch = np.zeros(13, dtype=np.int64)
    for size in (5, 6, 7):
        for _sample in range(400):
            cards = rng.sample(range(52), size)
            assert cards_value(np.array(cards, dtype=np.int64), size, RANK, SUIT, scratch) == reference(cards)


def test_every_holding_on_random_boards_matches_reference() -> None:
    rng = random.Random(11)
    values = np.empty(FULL_DECK.pairs, dtype=np.int64)
    scratch, memo = np.zeros(13, dtype=np.int64), np.empty(169, dtype=np.int64)
    boards = [rng.sample(range(52), 5) for _ in range(3)]
    boards.append([48, 44, 40, 36, 32])  # a royal flush on the board (As Ks Qs Js Ts - spades)
    for board in boards:
        board_holding_values(np.array(board, dtype=np.int64), 52, RANK, SUIT, values, scratch, memo)
        for b in range(52):
            for a in range(b):
                if a in board or b in board:
                    assert values[pair_index(a, b)] == -1
                else:
                    assert values[pair_index(a, b)] == reference([*board, a, b])


def test_suit_symmetry_counts_the_known_board_classes() -> None:
    sym = build_symmetry(FULL_DECK)
    assert (len(sym.flops.cards), len(sym.turns.cards), len(sym.rivers.cards)) == (1755, 16432, 134459)
    weights = (sym.flops.weight.sum(), sym.turns.weight.sum(), sym.rivers.weight.sum())
    assert weights == (22100, 270725, 2598960)


def test_suit_permutation_maps_every_board_to_its_canonical_board() -> None:
    deck = DeckSpec(ranks=(0, 1, 2, 3, 12), suits=4)
    sym = build_symmetry(deck)
    combos = sym.turns
    rng = random.Random(3)
    for _sample in range(200):
        board = sorted(rng.sample(range(deck.size), 4))
        index = sum(sym.binom[c, i + 1] for i, c in enumerate(board))
        perm = sym.card_perm[combos.perm_of[index]]
        assert sorted(perm[c] for c in board) == list(combos.cards[combos.id_of[index]])
