"""Texas Hold'em Bonus (VueTec Live Poker): the player's hand against the dealer's.

Fields: ``ante`` (required), ``bonus`` (optional, needs an ante), then ``flop`` (2 x ante, the
pre-flop ``bet``), ``turn`` and ``river`` (1 x ante, ``bet`` on the flop and on the turn).

>>> from dealerpoker.cards.encoding import indices_from_text
>>> game = TexasBonus()
>>> deck = indices_from_text("As Kd Qh Qc 2c 7d 9h Js 3s")   # player, dealer, flop, turn, river
>>> state = game.start({"ante": 100, "bonus": 100}, deck)
>>> state.phase, game.legal_actions(state), game.stake_for(state, "bet")
('preflop', ('bet', 'fold'), 200)
>>> state.bonus.line, state.bonus.returned        # A-K unsuited pays 15 to 1 at once
('Ace - King (un-suited)', 1600)
>>> for action in ("bet", "check", "bet"):
...     state, events = game.apply(state, action)
>>> settlement = state.settlement
>>> settlement.outcome, settlement.player_hand.name, settlement.dealer_hand.name
('lose', 'High Card, Ace', 'Pair of Queens')
>>> [(line.field, line.stake, line.returned) for line in settlement.lines]
[('ante', 100, 0), ('bonus', 100, 1600), ('flop', 200, 0), ('river', 100, 0)]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import ClassVar

from dealerpoker.cards import Rank
from dealerpoker.cards.encoding import index_to_card
from dealerpoker.evaluator import HandCategory
from dealerpoker.games.base import BonusResult, Game, RoundState, Step
from dealerpoker.games.events import BonusSettled, Event
from dealerpoker.games.money import returned_on_loss, returned_on_push, returned_on_win
from dealerpoker.games.rules import TexasBonusRules, load_rules, starting_hand_class
from dealerpoker.games.settlement import HandSummary, Outcome, Settlement, SettlementLine

#: The name of the optional Bonus line "player and dealer both hold A-A".
BOTH_ACES_LINE = "Player and dealer both A-A"
#: The bets decided by the showdown (the Bonus is not one of them).
MAIN_FIELDS = ("ante", "flop", "turn", "river")


class TexasBonus(Game[TexasBonusRules]):
    name = "texas-bonus"
    opening_fields = ("ante", "bonus")
    fields = ("ante", "bonus", "flop", "turn", "river")
    steps: ClassVar[Mapping[str, Mapping[str, Step]]] = {
        "preflop": {"bet": Step("flop", 2), "fold": Step(folds=True)},
        "flop": {"bet": Step("turn", 1), "check": Step()},
        "turn": {"bet": Step("river", 1), "check": Step()},
    }
    board_after: ClassVar[Mapping[str, int]] = {"preflop": 3, "flop": 4, "turn": 5}

    def __init__(self, rules: TexasBonusRules | None = None) -> None:
        if rules is None:
            loaded = load_rules(self.name)
            assert isinstance(loaded, TexasBonusRules)
            rules = loaded
        super().__init__(rules)

    # ---- the Bonus ---------------------------------------------------------------------
    def bonus_hand(self, state: RoundState) -> str:
        """The player's two cards as a starting-hand class: ``"AA"``, ``"AKs"``, ``"AKo"``."""
        first, second = (index_to_card(i) for i in state.player_cards)
        return starting_hand_class(first.rank, second.rank, first.suit == second.suit)

    def settle_bonus(self, state: RoundState, *, dealer_known: bool) -> BonusResult | None:
        """The Bonus on the player's two cards by the rules' paytable.

        With the optional "both A-A" line enabled and the player holding A-A, the result needs
        the dealer's cards: until ``dealer_known`` it is ``pending`` (and reveals nothing).
        """
        stake = state.stake("bonus")
        if stake == 0:
            return None
        hand = self.bonus_hand(state)
        line: str | None = None
        pays = 0
        for row in self.rules.bonus_paytable:
            if hand in row.hands:
                line, pays = row.name, row.pays
                break
        if hand == "AA" and self.rules.both_aces_pays > 0:
            if not dealer_known:
                return BonusResult(stake, hand, None, 0, 0, pending=True)
            dealer = [index_to_card(i) for i in state.dealer_cards]
            if all(card.rank is Rank.ACE for card in dealer) and self.rules.both_aces_pays > pays:
                line, pays = BOTH_ACES_LINE, self.rules.both_aces_pays
        if line is None:
            return BonusResult(stake, hand, None, 0, returned_on_loss(stake))
        return BonusResult(stake, hand, line, pays, returned_on_win(stake, pays))

    def _after_deal(self, state: RoundState) -> tuple[RoundState, tuple[Event, ...]]:
        bonus = self.settle_bonus(state, dealer_known=False)
        if bonus is None:
            return state, ()
        event = BonusSettled(bonus.stake, bonus.hand, bonus.line, bonus.pays, bonus.returned, bonus.pending)
        return replace(state, bonus=bonus), (event,)

    def _on_settled(self, state: RoundState) -> tuple[RoundState, tuple[Event, ...]]:
        """A Bonus pending on the dealer's cards is settled once they are revealed."""
        if state.bonus is None or not state.bonus.pending:
            return state, ()
        bonus = self.settle_bonus(state, dealer_known=True)
        assert bonus is not None
        event = BonusSettled(bonus.stake, bonus.hand, bonus.line, bonus.pays, bonus.returned, bonus.pending)
        return replace(state, bonus=bonus), (event,)

    # ---- settlement --------------------------------------------------------------------
    def _lines(self, state: RoundState, main: dict[str, int]) -> tuple[SettlementLine, ...]:
        """One line per staked field in settlement order; ``main`` gives each main bet's return."""
        bonus = self.settle_bonus(state, dealer_known=True)
        lines = []
        for field in self.fields:
            stake = state.stake(field)
            if stake == 0:
                continue
            returned = bonus.returned if field == "bonus" and bonus is not None else main[field]
            lines.append(SettlementLine(field, stake, returned))
        return tuple(lines)

    def _settle_fold(self, state: RoundState) -> Settlement:
        ante = state.stake("ante")
        lines = self._lines(state, {"ante": returned_on_loss(ante)})
        return Settlement(self.name, "fold", None, None, None, lines)

    def _settle_showdown(self, state: RoundState) -> Settlement:
        player = HandSummary.of_indices((*state.player_cards, *state.board))
        dealer = HandSummary.of_indices((*state.dealer_cards, *state.board))
        main: dict[str, int] = {}
        outcome: Outcome
        if player.value > dealer.value:
            outcome = "win"
            for field in ("flop", "turn", "river"):
                main[field] = returned_on_win(state.stake(field), 1)
            ante = state.stake("ante")
            main["ante"] = (returned_on_win(ante, 1) if player.category >= self.rules.ante_qualifier
                            else returned_on_push(ante))
        elif player.value < dealer.value:
            outcome = "lose"
            main = {field: returned_on_loss(state.stake(field)) for field in MAIN_FIELDS}
        else:
            outcome = "tie"
            main = {field: returned_on_push(state.stake(field)) for field in MAIN_FIELDS}
        return Settlement(self.name, outcome, None, player, dealer, self._lines(state, main))

    @property
    def ante_qualifier(self) -> HandCategory:
        return self.rules.ante_qualifier

