"""Exact figures for any paytable from counts that depend only on the cards.

An analysis splits in two. The **card counts** depend on the deck and on the rules that change
which hands win or pay at all (Texas: the ante qualifier; Casino: the dealer qualifier): they
are the expensive enumeration (:class:`dealerpoker.analysis.exact.Solver`, seconds) and are kept
by a :class:`CountsStore`. The **payout pass** (:func:`figures`, this module: numpy and integers,
no numba) turns counts and payouts into the optimal decisions and every figure, exactly, in a
fraction of a second:

- Casino Hold'em: per flop situation (canonical flop x holding) the deals over every turn, river
  and dealer holding by the player's final category, split into "dealer does not qualify",
  "dealer qualifies and is beaten", and lost. A raise's EV is linear in the Ante paytable, so
  the raise decision of each of the 1.9 million situations is re-taken for the paytable at
  hand; the AA bet is settled on the situation's five-card class.
- Texas Hold'em Bonus: no main-game payout is configurable (the ante's qualifier is a card
  rule), so the counts hold the whole main-game analysis; the Bonus paytable is settled on the
  1,326 two-card hands.

>>> from dealerpoker.games.rules import load_rules
>>> counts_key(load_rules("casino-holdem"))
'counts-casino-holdem-23456789TJQKAx4-dealer_qualifier=44-a2-c2'
>>> card_rules(load_rules("texas-bonus", overrides={"ante_qualifier": "straight"}))
{'ante_qualifier': 'straight'}
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from dealerpoker.analysis.deck import FULL_DECK, DeckSpec
from dealerpoker.analysis.figures import (
    ALGORITHM_VERSION,
    GameAnalysis,
    OutcomeRow,
    StartingHand,
    StrategyClass,
    _add,
    _class_combos,
    _hand_order,
    _preflop_table,
    _present_classes,
    _strategy_name,
    class_names,
)
from dealerpoker.analysis.sidebets import aa_edge_from_counts, bonus_side_bet
from dealerpoker.cards import RANK_CHARS
from dealerpoker.errors import InvalidRulesError
from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.games.rules import CasinoHoldemRules, Rules, TexasBonusRules, rules_from_document

Arrays = dict[str, npt.NDArray[Any]]
Progress = Callable[[str, int, int], None]
STRATEGY_CLASSES = 40  # flop hand category (0..9) x draw (none, flush, straight, both)
AA_CLASSES = 23        # five-card category 0..9, one pair as 10 + the pair's rank
#: The layout of the card counts' arrays, part of their cache key (with ALGORITHM_VERSION, which
#: also names the figures): a cached file of another layout is not read. 2: Casino's
#: ``situations`` by flop, holding, then its 21 counts (they were count-major).
COUNTS_LAYOUT = 2


@runtime_checkable
class CountsStore(Protocol):
    """Where card counts are kept between runs (the command line's is a directory on disk)."""

    def load_counts(self, key: str) -> Arrays | None: ...

    def save_counts(self, key: str, arrays: Arrays) -> None: ...


def counting(store: CountsStore | None, key: str) -> AbstractContextManager[object]:
    """Held while ``key``'s counts are counted and stored: where the store can lock (the disk
    cache: across processes), another counter of the same counts waits, then reads them."""
    hold = getattr(store, "counting", None)
    return hold(key) if hold is not None else nullcontext()


@dataclass(frozen=True)
class CardCounts:
    """The card-only part of one game's analysis on one deck (see the module doc)."""

    game: str
    deck: DeckSpec
    arrays: Arrays


def card_rules(rules: Rules) -> dict[str, str]:
    """The rules entries that change the card counts (the rest are payouts or table settings)."""
    if isinstance(rules, TexasBonusRules):
        return {"ante_qualifier": rules.ante_qualifier.slug}
    return {"dealer_qualifier": RANK_CHARS[int(rules.dealer_qualifier_rank)] * 2}


def counts_key(rules: Rules, deck: DeckSpec = FULL_DECK) -> str:
    entries = "-".join(f"{name}={value}" for name, value in card_rules(rules).items())
    return f"counts-{rules.game}-{deck.key()}-{entries}-a{ALGORITHM_VERSION}-c{COUNTS_LAYOUT}"


def figures(rules: Rules, counts: CardCounts) -> GameAnalysis:
    """The payout pass: every figure of ``rules`` from its card counts, exactly."""
    if counts.game != rules.game:
        raise InvalidRulesError(f"card counts are for {counts.game!r}, not {rules.game!r}")
    if isinstance(rules, TexasBonusRules):
        return _texas(rules, counts)
    return _casino(rules, counts)


def with_entry(rules: Rules, path: str, value: Any) -> Rules:
    """``rules`` with one entry of its document replaced: ``path`` is dotted (``ante_paytable.flush``,
    ``bonus_paytable.0.pays``, list positions from 0); the result is validated like a rules file."""
    document: Any = rules.to_dict()
    node = document
    parts = path.split(".")
    for depth, part in enumerate(parts):
        last = depth == len(parts) - 1
        if isinstance(node, list):
            if not part.isdigit() or int(part) >= len(node):
                raise InvalidRulesError(f"{path}: {part!r} is not a position 0..{len(node) - 1}")
            key: Any = int(part)
        elif isinstance(node, dict) and (part in node or last):
            key = part
        else:
            raise InvalidRulesError(f"{path}: no entry {part!r} in {rules.game} rules")
        if last:
            node[key] = value
        else:
            node = node[key]
    return rules_from_document(document, where=f"{rules.game} rules with {path} = {value!r}")


# --------------------------------------------------------------------------------------------
def _texas(rules: TexasBonusRules, counts: CardCounts) -> GameAnalysis:
    deck, arrays = counts.deck, counts.arrays
    sums: list[list[int]] = arrays["class_sums"].tolist()
    n = deck.size
    dealers = comb(n - 7, 2)
    per_situation = (n - 5) * (n - 6) * dealers
    flops_total = comb(n - 2, 3)
    names = class_names()
    hands: list[StartingHand] = []
    qualifier = rules.ante_qualifier.title
    rows: dict[str, list[int]] = {}
    folded = played = turn_bets = river_bets = situations = 0
    second = 0
    for c in _present_classes(deck):
        combos = _class_combos(names[c], deck.suits)
        deals = combos * flops_total * per_situation
        s = sums[c]
        hand = StartingHand(names[c], combos, Fraction(s[0], deals),
                            Fraction(s[3], s[2]), Fraction(s[4], s[2] * (n - 5)))
        hands.append(hand)
        if hand.action == "fold":
            folded += deals
            second += deals
            continue
        played += deals
        second += s[1]
        situations += s[2]
        turn_bets += s[3]
        river_bets += s[4]
        for x in (0, 1):
            for y in (0, 1):
                base = 5 + 8 * x + 4 * y
                wq, wn, lost, turns = s[base:base + 4]
                label = "ante+flop" + ("+turn" if x else "") + ("+river" if y else "")
                deals_here = turns * (n - 6) * dealers
                bets = 3 + x + y
                _add(rows, f"win with {qualifier} or better, {label}", wq, bets)
                _add(rows, f"win below {qualifier} (ante pushes), {label}", wn, bets - 1)
                _add(rows, f"tie, {label}", deals_here - wq - wn - lost, 0)
                _add(rows, f"loss, {label}", lost, -bets)
    outcomes = [OutcomeRow("fold before the flop", folded, -1)]
    outcomes += [OutcomeRow(name, v[0], v[1]) for name, v in rows.items()]
    total = folded + played
    hands.sort(key=_hand_order)
    tables = {name: arrays[name] for name in ("flop_bet", "river_bet", "flop_ev", *_SIMULATE_MAPS)}
    return GameAnalysis(
        "texas-bonus", rules, deck, tuple(outcomes), Fraction(second, total),
        Fraction(played, total), bonus_side_bet(rules, deck), tuple(hands),
        Fraction(turn_bets, situations) if situations else Fraction(0),
        Fraction(river_bets, situations * (n - 5)) if situations else Fraction(0),
        tables={**tables, "preflop_bet": _preflop_table(hands)},
    )


#: The suit-symmetry maps ``simulate`` needs to look the decision tables up.
_SIMULATE_MAPS = ("binom", "pair_perm", "flop_id", "flop_perm", "turn_id", "turn_perm")


def _by_class(classes: npt.NDArray[Any], weights: npt.NDArray[np.int64], size: int) -> list[int]:
    """Sum of ``weights`` per class number, in integers (weights are small and not negative: the
    flop weights)."""
    top = int(weights.max(initial=0)) + 1
    # How often each (class, weight) occurs, then weighted: one pass, no search for the weights.
    seen = np.bincount(classes.astype(np.int64) * top + weights, minlength=size * top)
    return [int(v) for v in seen.reshape(size, top) @ np.arange(top, dtype=np.int64)]


def _casino(rules: CasinoHoldemRules, counts: CardCounts) -> GameAnalysis:
    deck, arrays = counts.deck, counts.arrays
    n = deck.size
    by_situation = arrays["situations"]  # (flops, holdings, 21) int32
    flops, holdings = by_situation.shape[:2]
    deals_per = comb(n - 5, 2) * comb(n - 7, 2)
    ante = [rules.ante_paytable[HandCategory(c)] for c in range(10)]
    net = np.array([*ante, *(a + 2 for a in ante), -3], dtype=np.int64)  # per count, in antes
    ev = np.einsum("fhx,x->fh", by_situation, net, dtype=np.int64)
    raising = ev > -deals_per
    weight = np.broadcast_to(arrays["flop_weight"][:, None], (flops, holdings))
    raised_w = np.where(raising, weight, 0).astype(np.int64)
    folded_w = np.where(raising, 0, weight).astype(np.int64)
    raised, folded_situations = int(raised_w.sum()), int(folded_w.sum())
    situations = raised + folded_situations
    sums = [int(v) for v in np.einsum("fhx,fh->x", by_situation, raised_w, dtype=np.int64)]
    not_qualified, beaten, lost = sums[0:10], sums[10:20], sums[20]
    rows = [OutcomeRow("fold at the flop", folded_situations * deals_per, -1)]
    rows += [OutcomeRow(f"dealer does not qualify, {HandCategory(c).title}", not_qualified[c], ante[c])
             for c in range(10)]
    rows += [OutcomeRow(f"dealer qualifies, player wins with {HandCategory(c).title}", beaten[c],
                        ante[c] + 2) for c in range(10)]
    rows.append(OutcomeRow("tie", raised * deals_per - sum(not_qualified) - sum(beaten) - lost, 0))
    rows.append(OutcomeRow("loss", lost, -3))
    rows = [r for r in rows if r.combinations or r.name in ("tie", "loss")]
    square = (sum(not_qualified[c] * ante[c] ** 2 + beaten[c] * (ante[c] + 2) ** 2 for c in range(10))
              + 9 * lost + folded_situations * deals_per)
    strategy_of = arrays["strategy_class"].ravel()
    by_class = _by_class(strategy_of, weight.ravel(), STRATEGY_CLASSES)
    raised_by_class = _by_class(strategy_of, raised_w.ravel(), STRATEGY_CLASSES)
    strategy = tuple(StrategyClass(_strategy_name(i), by_class[i], raised_by_class[i])
                     for i in range(STRATEGY_CLASSES) if by_class[i])
    aa_of = arrays["aa_class"].ravel()
    aa_net = _aa_net_by_class(rules)
    aa_raised = _by_class(aa_of, raised_w.ravel(), AA_CLASSES)
    aa_folded = _by_class(aa_of, folded_w.ravel(), AA_CLASSES)
    aa_all = sum(aa_net[k] * (aa_raised[k] + aa_folded[k]) for k in range(AA_CLASSES))
    aa_lost_on_fold = sum(aa_net[k] * aa_raised[k] for k in range(AA_CLASSES)) - folded_situations
    folded_winners = sum(aa_folded[k] for k in range(AA_CLASSES) if aa_net[k] > 0)
    settled = -Fraction(aa_all, situations)
    lost_on_fold = -Fraction(aa_lost_on_fold, situations)
    side_bets = {
        "aa": {
            "paytable": {c.slug: p for c, p in rules.aa_paytable.items()},
            "min_pair": RANK_CHARS[int(rules.aa_min_pair_rank)],
            "settles_on_fold": rules.aa_settles_on_fold,
            "house_edge_settled_on_fold": float(settled),
            "house_edge_lost_on_fold": float(lost_on_fold),
            "exact_settled_on_fold": str(settled),
            "exact_lost_on_fold": str(lost_on_fold),
            "winning_hands_folded": folded_winners,
            "hand_countable_settled_on_fold": str(aa_edge_from_counts(rules, arrays["five_card"], deck)),
        }
    }
    side_bets["aa"]["house_edge"] = float(settled if rules.aa_settles_on_fold else lost_on_fold)
    raise_table = np.zeros((flops, deck.pairs), dtype=np.int8)
    raise_ev = np.zeros((flops, deck.pairs), dtype=np.int64)
    rows_index = np.arange(flops)[:, None]
    pair_of = _pairs_off_flops(arrays["flop_cards"], deck)
    raise_table[rows_index, pair_of] = raising
    raise_ev[rows_index, pair_of] = ev
    total = situations * deals_per
    return GameAnalysis(
        "casino-holdem", rules, deck, tuple(rows), Fraction(square, total),
        Fraction(raised, situations), side_bets, strategy=strategy,
        tables={"raise": raise_table, "raise_ev": raise_ev,
                **{name: arrays[name] for name in _SIMULATE_MAPS if name in arrays}},
    )


def _aa_net_by_class(rules: CasinoHoldemRules) -> list[int]:
    """What the AA bet nets (per unit) for each five-card class; -1 where nothing pays."""
    net = [rules.aa_paytable.get(HandCategory(c), -1) for c in range(10)] + [-1] * 13
    pair = rules.aa_paytable.get(HandCategory.ONE_PAIR, -1)
    for rank in range(13):
        net[10 + rank] = pair if rank >= int(rules.aa_min_pair_rank) else -1
    net[1] = -1  # one pair is always classed by its rank
    return net


def _pairs_off_flops(flop_cards: npt.NDArray[np.int64], deck: DeckSpec) -> npt.NDArray[np.int64]:
    """``[f, h]``: the pair number of the ``h``-th pair (ascending) sharing no card with flop ``f``."""
    b, a = np.triu_indices(deck.size, 1)[1], np.triu_indices(deck.size, 1)[0]
    order = np.argsort(b * (b - 1) // 2 + a)
    a, b = a[order], b[order]
    on_flop = np.zeros((len(flop_cards), deck.size), dtype=bool)
    on_flop[np.arange(len(flop_cards))[:, None], flop_cards] = True
    free = ~(on_flop[:, a] | on_flop[:, b])
    holdings = comb(deck.size - 3, 2)
    return np.nonzero(free)[1].reshape(len(flop_cards), holdings).astype(np.int64)

