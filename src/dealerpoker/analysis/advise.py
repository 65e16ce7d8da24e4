"""Exact EV of every legal action at one decision, by enumerating the unseen cards.

The flop and turn decisions are answered by direct enumeration (every turn/river and every
dealer holding: about a million deals, a few tens of milliseconds); the pre-flop decision of
Texas Hold'em Bonus needs the full analysis' starting-hand table (``starting_hands``).

>>> from dealerpoker.games.rules import load_rules
>>> from dealerpoker.cards.encoding import cards_to_indices
>>> from dealerpoker.cards import parse_cards
>>> advice = advise(load_rules("casino-holdem"), parse_cards("As Ad"), parse_cards("2c 7d 9h"))
>>> advice.best, round(float(advice.actions["raise"]), 4)
('raise', 1.5192)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.evaluation import ROYAL, board_holding_values
from dealerpoker.cards import Card
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.errors import InvalidHandError
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import CasinoHoldemRules, Rules, TexasBonusRules, starting_hand_class

I64 = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Advice:
    game: str
    phase: str                       # "preflop" | "flop" | "turn"
    actions: Mapping[str, Fraction]  # EV per unit ante of the whole round, each action
    best: str
    deals: int                       # deals enumerated (0 when read from the starting-hand table)

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "phase": self.phase, "best": self.best,
                "actions": {a: {"ev": float(ev), "exact": str(ev)} for a, ev in self.actions.items()},
                "deals": self.deals}


@njit(cache=True)
def completions(player: I64, board: I64, k: int, n: int, rank: I64, suit: I64,
                qualifier: int) -> I64:
    """Rows ``(turn, river, wins, losses, dealer_not_qualifying, player_value)`` for every
    completion of the ``k``-card board (3: unordered turn/river pairs; 4: rivers, turn -1)."""
    used = np.zeros(n, dtype=np.bool_)
    used[player[0]] = used[player[1]] = True
    for i in range(k):
        used[board[i]] = True
    free = np.empty(n, dtype=np.int64)
    m = 0
    for c in range(n):
        if not used[c]:
            free[m] = c
            m += 1
    rows = m * (m - 1) // 2 if k == 3 else m
    out = np.empty((rows, 6), dtype=np.int64)
    values = np.empty(n * (n - 1) // 2, dtype=np.int64)
    counts = np.zeros(13, dtype=np.int64)
    memo = np.empty(169, dtype=np.int64)
    five = np.empty(5, dtype=np.int64)
    for i in range(k):
        five[i] = board[i]
    a, b = min(player[0], player[1]), max(player[0], player[1])
    row = 0
    for i in range(m):
        for j in range(i + 1, m) if k == 3 else range(i, i + 1):
            if k == 3:
                five[3], five[4] = free[i], free[j]
            else:
                five[4] = free[i]
            board_holding_values(five, n, rank, suit, values, counts, memo)
            pv = values[b * (b - 1) // 2 + a]
            wins = losses = not_q = 0
            for d1 in range(n):
                if used[d1] or d1 == five[3] or d1 == five[4]:
                    continue
                for d0 in range(d1):
                    if used[d0] or d0 == five[3] or d0 == five[4]:
                        continue
                    dv = values[d1 * (d1 - 1) // 2 + d0]
                    if dv < pv:
                        wins += 1
                    elif dv > pv:
                        losses += 1
                    if dv < qualifier:
                        not_q += 1
            out[row, 0] = free[i] if k == 3 else -1
            out[row, 1] = free[j] if k == 3 else free[i]
            out[row, 2], out[row, 3], out[row, 4], out[row, 5] = wins, losses, not_q, pv
            row += 1
    return out


def _local(cards: Sequence[Card], deck: DeckSpec) -> I64:
    return np.array([deck.local_index(card_to_index(c)) for c in cards], dtype=np.int64)


def _check(player: Sequence[Card], board: Sequence[Card], allowed: tuple[int, ...]) -> None:
    if len(player) != 2:
        raise InvalidHandError(f"--player needs 2 cards, got {len(player)}")
    if len(board) not in allowed:
        raise InvalidHandError(f"--board needs {' or '.join(map(str, allowed))} cards, got {len(board)}")
    seen = [str(c) for c in (*player, *board)]
    duplicates = sorted({c for c in seen if seen.count(c) > 1})
    if duplicates:
        raise InvalidHandError(f"card {duplicates[0]} appears twice")


def _texas_value(rows: I64, qualifier: int, x: int, y: int) -> int:
    wins, losses = rows[:, 2], rows[:, 3]
    ante = (_categories(rows[:, 5]) >= qualifier).astype(np.int64)
    return int((wins * (2 + ante + x + y) - losses * (3 + x + y)).sum())


def _categories(values: I64) -> I64:
    cats: I64 = values >> 20
    cats[values == ROYAL] = 9
    return cats


def _texas_flop(rows: I64, qualifier: int, x: int) -> int:
    """Sum of net over (turn, river, dealer) for turn bet ``x``, river bet played optimally."""
    cats = _categories(rows[:, 5])
    ante = (cats >= qualifier).astype(np.int64)
    base = rows[:, 2] * (2 + ante + x) - rows[:, 3] * (3 + x)
    margin = rows[:, 2] - rows[:, 3]
    total = 0
    for t in np.unique(np.concatenate([rows[:, 0], rows[:, 1]])):
        mine = (rows[:, 0] == t) | (rows[:, 1] == t)
        total += int(base[mine].sum()) + max(0, int(margin[mine].sum()))
    return total


def advise(rules: Rules, player: Sequence[Card], board: Sequence[Card] = (), *,
           deck: DeckSpec = FULL_DECK,
           starting_hands: Mapping[str, Fraction] | None = None,
           turn_bet: bool | None = None) -> Advice:
    """The EV (per unit ante, whole round) of each legal action and the best one.

    Texas pre-flop needs ``starting_hands`` (hand class -> EV of betting, from the analysis).
    At the Texas turn, ``turn_bet`` says whether the turn bet was made (default: as optimal
    play on that flop would have done); it changes the EVs, not the best action.
    """
    n = deck.size
    rank, suit = deck.rank_array(), deck.suit_array()
    if isinstance(rules, TexasBonusRules):
        _check(player, board, (0, 3, 4))
        qualifier = int(rules.ante_qualifier)
        if not board:
            if starting_hands is None:
                raise InvalidHandError("pre-flop advice needs the starting-hand table (run analyze)")
            name = starting_hand_class(player[0].rank, player[1].rank, player[0].suit == player[1].suit)
            actions = {"bet": starting_hands[name], "fold": Fraction(-1)}
            return Advice("texas-bonus", "preflop", actions, _best(actions), 0)
        hole = _local(player, deck)
        if len(board) == 3:
            rows = completions(hole, _local(board, deck), 3, n, rank, suit, 0)
            deals = 2 * len(rows) * comb(n - 7, 2)
            actions = {"bet": Fraction(_texas_flop(rows, qualifier, 1), deals),
                       "check": Fraction(_texas_flop(rows, qualifier, 0), deals)}
            return Advice("texas-bonus", "flop", actions, _best(actions), deals)
        if turn_bet is None:
            flop_rows = completions(hole, _local(board[:3], deck), 3, n, rank, suit, 0)
            turn_bet = _texas_flop(flop_rows, qualifier, 1) > _texas_flop(flop_rows, qualifier, 0)
        rows = completions(hole, _local(board, deck), 4, n, rank, suit, 0)
        deals = len(rows) * comb(n - 7, 2)
        x = int(turn_bet)
        actions = {"bet": Fraction(_texas_value(rows, qualifier, x, 1), deals),
                   "check": Fraction(_texas_value(rows, qualifier, x, 0), deals)}
        return Advice("texas-bonus", "turn", actions, _best(actions), deals)
    assert isinstance(rules, CasinoHoldemRules)
    _check(player, board, (3,))
    qualifier = (1 << 20) | (int(rules.dealer_qualifier_rank) << 16)
    rows = completions(_local(player, deck), _local(board, deck), 3, n, rank, suit, qualifier)
    dealers = comb(n - 7, 2)
    deals = len(rows) * dealers
    ante = np.array([rules.ante_paytable[HandCategory(c)] for c in range(10)], dtype=np.int64)
    pays = ante[_categories(rows[:, 5])]
    qualifies = rows[:, 5] >= qualifier
    not_q = rows[:, 4]
    won_q = np.where(qualifies, rows[:, 2] - not_q, 0)
    lost = np.where(qualifies, rows[:, 3], dealers - not_q)
    net = int((not_q * pays + won_q * (pays + 2) - 3 * lost).sum())
    actions = {"raise": Fraction(net, deals), "fold": Fraction(-1)}
    return Advice("casino-holdem", "flop", actions, _best(actions), deals)


def _best(actions: Mapping[str, Fraction]) -> str:
    """The highest EV; on an exact tie the cheaper action (fold / check), as the solver does."""
    ordered = sorted(actions.items(), key=lambda item: (item[1], item[0] in ("fold", "check")))
    return ordered[-1][0]

