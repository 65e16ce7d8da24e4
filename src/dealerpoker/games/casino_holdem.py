"""Casino Hold'em: the player's hand against the dealer's, who must qualify with 4-4 or better.

Fields: ``ante`` (required), ``aa`` (optional side bet, needs an ante), ``raise`` (2 x ante,
placed by the ``raise`` action; ``call`` is accepted as an alias).

>>> from dealerpoker.cards.encoding import indices_from_text
>>> game = CasinoHoldem()
>>> deck = indices_from_text("Ah Ad 3c 2d As Kh 7c 9s Jd")   # player, dealer, flop, turn, river
>>> state = game.start({"ante": 100, "aa": 100}, deck)
>>> state.phase, game.legal_actions(state), game.stake_for(state, "call")
('flop', ('raise', 'fold'), 200)
>>> state, events = game.apply(state, "call")
>>> s = state.settlement
>>> s.outcome, s.dealer_qualifies, s.player_hand.name, s.dealer_hand.name
('win', False, 'Three of a Kind, Aces', 'High Card, Ace')
>>> [(line.field, line.stake, line.returned) for line in s.lines]    # ante 1:1, raise back, AA 7:1
[('ante', 100, 200), ('aa', 100, 800), ('raise', 200, 200)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from dealerpoker.evaluator import HandCategory
from dealerpoker.evaluator.categories import ranks_of
from dealerpoker.games.base import Game, RoundState, Step
from dealerpoker.games.money import Money, returned_on_loss, returned_on_push, returned_on_win
from dealerpoker.games.rules import CasinoHoldemRules, load_rules
from dealerpoker.games.settlement import HandSummary, Outcome, Settlement, SettlementLine


class CasinoHoldem(Game[CasinoHoldemRules]):
    name = "casino-holdem"
    opening_fields = ("ante", "aa")
    fields = ("ante", "aa", "raise")
    steps: ClassVar[Mapping[str, Mapping[str, Step]]] = {
        "flop": {"raise": Step("raise", 2), "fold": Step(folds=True)},
    }
    aliases: ClassVar[Mapping[str, str]] = {"call": "raise"}
    board_at_start = 3
    board_after: ClassVar[Mapping[str, int]] = {"flop": 5}

    def __init__(self, rules: CasinoHoldemRules | None = None) -> None:
        if rules is None:
            loaded = load_rules(self.name)
            assert isinstance(loaded, CasinoHoldemRules)
            rules = loaded
        super().__init__(rules)

    def dealer_qualifies(self, dealer: HandSummary) -> bool:
        """A pair of the qualifier rank (4s) or better; any two pair or better qualifies."""
        if dealer.category >= HandCategory.TWO_PAIR:
            return True
        pair_rank = ranks_of(dealer.value)[0]
        return dealer.category is HandCategory.ONE_PAIR and pair_rank >= self.rules.dealer_qualifier_rank

    def aa_pays(self, first_five: HandSummary) -> int | None:
        """What the AA bet pays (N to 1) on the player's first five cards, None when it loses."""
        pays = self.rules.aa_paytable.get(first_five.category)
        if pays is None:
            return None
        pair_rank = ranks_of(first_five.value)[0]
        if first_five.category is HandCategory.ONE_PAIR and pair_rank < self.rules.aa_min_pair_rank:
            return None
        return pays

    def _aa_returned(self, state: RoundState) -> Money:
        stake = state.stake("aa")
        pays = self.aa_pays(HandSummary.of_indices((*state.player_cards, *state.deck[4:7])))
        return returned_on_loss(stake) if pays is None else returned_on_win(stake, pays)

    def _lines(self, state: RoundState, main: dict[str, Money], *, aa: Money) -> tuple[SettlementLine, ...]:
        lines = []
        for field in self.fields:
            stake = state.stake(field)
            if stake:
                lines.append(SettlementLine(field, stake, aa if field == "aa" else main[field]))
        return tuple(lines)

    def _settle_fold(self, state: RoundState) -> Settlement:
        aa = returned_on_loss(state.stake("aa"))
        if self.rules.aa_settles_on_fold:
            aa = self._aa_returned(state)
        player = HandSummary.of_indices((*state.player_cards, *state.board))
        lines = self._lines(state, {"ante": returned_on_loss(state.stake("ante"))}, aa=aa)
        return Settlement(self.name, "fold", None, player, None, lines)

    def _settle_showdown(self, state: RoundState) -> Settlement:
        player = HandSummary.of_indices((*state.player_cards, *state.board))
        dealer = HandSummary.of_indices((*state.dealer_cards, *state.board))
        ante, raised = state.stake("ante"), state.stake("raise")
        ante_pays = self.rules.ante_paytable[player.category]
        qualifies = self.dealer_qualifies(dealer)
        outcome: Outcome
        if not qualifies:  # the player wins: ante by the paytable, raise back
            outcome, main = "win", {"ante": returned_on_win(ante, ante_pays),
                                    "raise": returned_on_push(raised)}
        elif player.value > dealer.value:
            outcome, main = "win", {"ante": returned_on_win(ante, ante_pays),
                                    "raise": returned_on_win(raised, 1)}
        elif player.value < dealer.value:
            outcome, main = "lose", {"ante": returned_on_loss(ante), "raise": returned_on_loss(raised)}
        else:
            outcome, main = "tie", {"ante": returned_on_push(ante), "raise": returned_on_push(raised)}
        lines = self._lines(state, main, aa=self._aa_returned(state))
        return Settlement(self.name, outcome, qualifies, player, dealer, lines)
