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

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.cards import Card, parse_cards
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.errors import InvalidHandError
from dealerpoker.evaluator import tables
from dealerpoker.evaluator.categories import ROYAL_FLUSH_VALUE, HandCategory
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


def _hand_values(totals: I64, board_masks: I64, hole_masks: I64) -> I64:
    """Values of 7-card hands ``[board, hole]`` from their summed card keys, by the evaluator's
    lookup tables (:mod:`dealerpoker.evaluator.tables`); a flush from the rank masks of its
    suit, ``board_masks[suit, board] | hole_masks[suit, hole]``."""
    # "clip": a hole card on the board (the caller drops those hands) must not index out of range
    key = totals + tables.SUIT_BIAS
    slots = np.take(tables.HIGH_BASE_7, key >> tables.LOW_FIELD_BITS & tables.HIGH_FIELD, mode="clip")
    slots += np.take(tables.LOW_INDEX, key & tables.LOW_FIELD, mode="clip")
    values: I64 = np.take(tables.RANK_VALUES_7, slots, mode="clip").astype(np.int64)
    flush = key & tables.FLUSH_CHECK
    for suit in range(4):
        on_board, in_hole = np.nonzero(flush & (1 << (tables.SUIT_SHIFT + 4 * suit + 3)))
        if len(on_board):
            mask = board_masks[suit, on_board] | hole_masks[suit, in_hole]
            values[on_board, in_hole] = np.take(tables.FLUSH_VALUES, mask, mode="clip")
    return values


def completions(player: I64, board: I64, k: int, deck: DeckSpec, qualifier: int) -> I64:
    """Rows ``(turn, river, wins, losses, dealer_not_qualifying, player_value)`` for every
    completion of the ``k``-card board (3: unordered turn/river pairs; 4: rivers, turn -1).

    numpy over the evaluator's lookup tables, no numba (``advise`` starts in a fraction of a
    second): every completed board against every dealer holding at once (a million hands at the
    flop), each hand valued by its summed card keys."""
    n = deck.size
    cards = deck.global_array()
    keys = tables.CARD_KEYS[cards]
    bit = np.int64(1) << (cards >> 2)
    suit_of = cards & 3

    def masks(*chosen: I64) -> I64:
        """Per suit, the rank mask of the cards ``chosen[0][x] + chosen[1][x] + ...``."""
        total = np.zeros((4, len(chosen[0])), dtype=np.int64)
        for c in chosen:
            total += np.where(suit_of[c][None, :] == np.arange(4)[:, None], bit[c][None, :], 0)
        return total

    used = np.zeros(n, dtype=bool)
    used[player] = True
    used[board[:k]] = True
    free = np.flatnonzero(~used).astype(np.int64)
    m = len(free)
    if k == 3:
        ti, ri = np.triu_indices(m, 1)
        completed = [free[ti], free[ri]]
        turn = free[ti]
    else:
        ti = ri = np.arange(m)
        completed = [free]
        turn = np.full(m, -1, dtype=np.int64)
    fixed = np.repeat(board[:k][:, None], len(ri), axis=1)
    board_keys = keys[fixed].sum(axis=0) + sum(keys[c] for c in completed)
    board_masks = masks(*fixed, *completed)
    pv = _hand_values((board_keys + keys[player].sum())[:, None], board_masks,
                      masks(player[:1], player[1:]))[:, 0]
    da, db = np.triu_indices(m, 1)
    dv = _hand_values(board_keys[:, None] + (keys[free[da]] + keys[free[db]])[None, :], board_masks,
                      masks(free[da], free[db]))
    # a dealer holding may not use the turn or the river
    valid = ~((da[None, :] == ti[:, None]) | (da[None, :] == ri[:, None])
              | (db[None, :] == ti[:, None]) | (db[None, :] == ri[:, None]))
    wins = ((dv < pv[:, None]) & valid).sum(axis=1)
    losses = ((dv > pv[:, None]) & valid).sum(axis=1)
    not_q = ((dv < qualifier) & valid).sum(axis=1)
    return np.stack([turn, free[ri], wins, losses, not_q, pv], axis=1).astype(np.int64)


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
    cats[values == ROYAL_FLUSH_VALUE] = 9
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
            rows = completions(hole, _local(board, deck), 3, deck, 0)
            deals = 2 * len(rows) * comb(n - 7, 2)
            actions = {"bet": Fraction(_texas_flop(rows, qualifier, 1), deals),
                       "check": Fraction(_texas_flop(rows, qualifier, 0), deals)}
            return Advice("texas-bonus", "flop", actions, _best(actions), deals)
        if turn_bet is None:
            flop_rows = completions(hole, _local(board[:3], deck), 3, deck, 0)
            turn_bet = _texas_flop(flop_rows, qualifier, 1) > _texas_flop(flop_rows, qualifier, 0)
        rows = completions(hole, _local(board, deck), 4, deck, 0)
        deals = len(rows) * comb(n - 7, 2)
        x = int(turn_bet)
        actions = {"bet": Fraction(_texas_value(rows, qualifier, x, 1), deals),
                   "check": Fraction(_texas_value(rows, qualifier, x, 0), deals)}
        return Advice("texas-bonus", "turn", actions, _best(actions), deals)
    assert isinstance(rules, CasinoHoldemRules)
    _check(player, board, (3,))
    qualifier = (1 << 20) | (int(rules.dealer_qualifier_rank) << 16)
    rows = completions(_local(player, deck), _local(board, deck), 3, deck, qualifier)
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


def starting_hands_of(document: Mapping[str, Any]) -> dict[str, Fraction]:
    """Hand class -> EV of betting pre-flop, from an ``analyze --json`` document (Texas Hold'em
    Bonus): what :func:`advise` needs before the flop."""
    return {name: Fraction(entry["exact"]) for name, entry in document["two_card_ev"].items()}


def situation(view: Mapping[str, Any]) -> tuple[list[Card], list[Card], bool | None]:
    """What :func:`advise` needs, from a player's view of a round alone (the cards they see):
    their hole cards, the board dealt so far and, at the Texas turn, whether they made the turn
    bet (its field holds a stake)."""
    player = parse_cards(" ".join(view["player_cards"]))
    board = parse_cards(" ".join(view["board"])) if view["board"] else []
    turn_bet = None
    if view["game"] == "texas-bonus" and len(board) == 4:
        turn_bet = bool(view["bets"].get("turn"))
    return list(player), list(board), turn_bet


def _best(actions: Mapping[str, Fraction]) -> str:
    """The highest EV; on an exact tie the cheaper action (fold / check), as the solver does."""
    ordered = sorted(actions.items(), key=lambda item: (item[1], item[0] in ("fold", "check")))
    return ordered[-1][0]

