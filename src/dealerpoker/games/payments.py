"""What each step of a round takes and pays, and what the timer plays: the money rules, once.

Solo rounds (``dealerpoker.server.rounds``), live tables (``dealerpoker.tables.table``) and the
verifier (``dealerpoker.fairness.checks``) all call these, so a rule changes here and in
``tests/games/test_payments.py`` only.

* **The deal** takes every opening bet and pays the Texas Bonus at once when the two hole
  cards decide it (nothing while the optional both-A-A line waits for the dealer's cards).
* **A decision** takes the stake of the action (``game.stake_for``: the Flop/Turn/River bet or
  the Raise; nothing for a check or a fold).
* **The settlement** pays every line's return less what the round already paid (the Bonus
  paid at the deal): the settlement's lines still show the Bonus, it is not paid twice.
* **The timer** plays the rules' ``timeout_actions`` for the decision (by default fold
  pre-flop, check on the flop and turn; fold in Casino Hold'em), or, when the wallet refused
  that action's stake (the player's funds fell short), the free action (check, else fold).
* **A cancelled round** (a live studio's misdeal) returns every stake of the round, the Bonus's
  too (issue 20: "every stake of that round is returned"); a Bonus the hole cards already won
  keeps what it paid at the deal (its stake is in that payment, and a paid win is never taken
  back). Like the settlement, it pays every line's return less what the round already paid.

>>> from dealerpoker.games import get_game
>>> game = get_game("texas-bonus")
>>> deck = [51, 50, 0, 4, 49, 10, 20, 30, 40]  # As Ah | 2c 3c | Ad 4d 7c 9d Jc
>>> state = game.start({"ante": 100, "bonus": 100}, deck)
>>> at_deal(state)  # A-A wins the Bonus on the hole cards: paid at once (30 to 1)
Payment(stake=200, returned=3100)
>>> timer_action(game, state), timer_action(game, state, stake_refused=True)
('fold', 'fold')
>>> state, payment = decide(game, state, "bet", already_returned=3100)
>>> payment  # the Flop bet is twice the ante; nothing returned before the settlement
Payment(stake=200, returned=0)
>>> cancelled = cancellation(game, {}, state)   # a misdeal now: the Bonus paid at the deal stands
>>> [(line.field, line.stake, line.returned) for line in cancelled.lines], credit(cancelled, 3100)
([('ante', 100, 100), ('bonus', 100, 3100), ('flop', 200, 200)], 300)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dealerpoker.games.base import BONUS_FIELD, RoundState, Step
from dealerpoker.games.money import Money
from dealerpoker.games.settlement import Settlement, SettlementLine

__all__ = [
    "FREE_ACTIONS",
    "Engine",
    "Payment",
    "at_deal",
    "cancellation",
    "credit",
    "decide",
    "free_action",
    "most_at_stake",
    "opening_stake",
    "paid_at_deal",
    "settlement_credit",
    "timer_action",
    "timer_may_play",
]

#: The actions that cost nothing, in the order the timer prefers them when the rules' default
#: costs more than the player has (a check keeps the hand, a fold gives it up).
FREE_ACTIONS = ("check", "fold")


class Engine(Protocol):
    """What these rules need of a game engine (both games; a live table's ``LiveGame``)."""

    @property
    def aliases(self) -> Mapping[str, str]: ...
    def legal_actions(self, state: Any) -> tuple[str, ...]: ...
    def stake_for(self, state: Any, action: str) -> int: ...
    def timeout_action(self, state: Any) -> str: ...
    def apply(self, state: Any, action: str) -> tuple[Any, Any]: ...


@dataclass(frozen=True, slots=True)
class Payment:
    """What one step moves: ``stake`` taken from the player before the step is played (so no card
    is revealed on credit), ``returned`` paid to the player by it (minor units)."""

    stake: Money
    returned: Money


def opening_stake(bets: Mapping[str, Money]) -> Money:
    """What the deal takes: every opening bet (a live table debits it before it deals)."""
    return sum(bets.values())


class Stepped(Protocol):
    """A game's decision steps (``Game.steps``) and its opening fields, main bet first."""

    @property
    def steps(self) -> Mapping[str, Mapping[str, Step]]: ...
    @property
    def opening_fields(self) -> tuple[str, ...]: ...


def most_at_stake(game: Stepped, bets: Mapping[str, Money]) -> Money:
    """The most a round opened with ``bets`` can take in all: the opening bets and, at every
    decision, its dearest action (responsible-gaming limits count a round at this, so a round
    once opened can always be played out).

    >>> from dealerpoker.games import get_game
    >>> most_at_stake(get_game("texas-bonus"), {"ante": 100, "bonus": 50})  # + Flop 2x, Turn, River
    550
    >>> most_at_stake(get_game("casino-holdem"), {"ante": 100})  # + Raise 2x
    300
    """
    ante = bets.get(game.opening_fields[0], 0)
    dearest = sum(max(step.ante_multiple for step in actions.values()) for actions in game.steps.values())
    return opening_stake(bets) + dearest * ante


def paid_at_deal(state: RoundState) -> Money:
    """The Bonus return known at the deal: 0 when lost, not staked, or pending (both-A-A)."""
    bonus = state.bonus
    if bonus is None or bonus.pending:
        return 0
    return bonus.returned


def at_deal(state: RoundState) -> Payment:
    """The deal's payment, from the state the engine started (``game.start``)."""
    return Payment(opening_stake(state.bets), paid_at_deal(state))


def settlement_credit(state: RoundState, already_returned: Money) -> Money:
    """What the settlement pays once the round is settled (0 before): every line's return less
    ``already_returned``, what earlier steps paid (the Bonus at the deal)."""
    return credit(state.settlement, already_returned)


def credit(settlement: Settlement | None, already_returned: Money) -> Money:
    """What a settlement (the engine's, or a cancellation's) pays: every line's return less
    ``already_returned``; 0 while there is none."""
    if settlement is None:
        return 0
    return settlement.total_returned - already_returned


def capped(credit: Money, cap_left: Money | None, *, own_stake: Money,
           already_returned: Money) -> tuple[Money, Money]:
    """A free round's settlement credit under what is left of its reward's cap on winnings
    (``server.promotions``; solo and live): the round returns at most the player's own stakes
    plus ``cap_left``: (what is paid, what is forfeited).

    >>> capped(900, 300, own_stake=200, already_returned=0)   # 500 may come back: 400 forfeited
    (500, 400)
    >>> capped(900, None, own_stake=200, already_returned=0)
    (900, 0)
    """
    if cap_left is None:
        return credit, 0
    paid = max(0, min(credit, own_stake + cap_left - already_returned))
    return paid, credit - paid


class _Cancelled(Protocol):
    name: str

    def validate_bets(self, bets: Mapping[str, Any]) -> Mapping[str, Money]: ...


def cancellation(game: _Cancelled, bets: Mapping[str, Any], state: RoundState | None) -> Settlement:
    """The settlement of a round cancelled where ``state`` stands (None: before the deal; then
    ``bets`` are the opening bets): every stake returned, a Bonus the hole cards won at its
    payout."""
    stakes = state.stakes if state is not None else tuple(game.validate_bets(bets).items())
    stands: dict[str, Money] = {}
    if state is not None and state.bonus is not None and not state.bonus.pending:
        stands[BONUS_FIELD] = max(state.bonus.returned, state.bonus.stake)
    lines = tuple(SettlementLine(field, amount, stands.get(field, amount)) for field, amount in stakes)
    return Settlement(game.name, "misdeal", None, None, None, lines)


def decide(
    game: Engine, state: RoundState, action: str, *, already_returned: Money
) -> tuple[RoundState, Payment]:
    """Play ``action`` (an illegal one raises and changes nothing): the new state and what the step
    moves, its stake and, when it settles the round, the settlement's credit."""
    stake = game.stake_for(state, action)
    after, _events = game.apply(state, action)
    return after, Payment(stake, settlement_credit(after, already_returned))


def free_action(game: Engine, state: RoundState) -> str:
    """The decision's action that costs nothing: the rules' timeout action when it is free, else a
    check, else a fold (every decision of both games has one of them)."""
    legal = game.legal_actions(state)
    candidates = (game.timeout_action(state), *FREE_ACTIONS)
    return next(a for a in candidates if a in legal and game.stake_for(state, a) == 0)


def timer_action(game: Engine, state: RoundState, *, stake_refused: bool = False) -> str:
    """What the timer plays at this decision: the rules' timeout action, or, once the wallet has
    refused that action's stake (the player's funds fell short of it), the free action.

    The one funds-short rule: a solo round's timer (``server/rounds/service.py``) and a live
    decision point (``tables.table.apply_decisions``, for every player whose stake the commit
    refused) both ask it again with ``stake_refused=True``. The funds are known only to the
    wallet, so the rule is asked after its answer, never guessed from a balance read before."""
    return free_action(game, state) if stake_refused else game.timeout_action(state)


def timer_may_play(game: Engine, state: RoundState, action: str) -> bool:
    """Whether the timer could have played ``action`` here (the verifier's check of a recorded
    timer choice): the rules' timeout action, or the free action when funds were short."""
    canonical = game.aliases.get(action, action)
    return canonical in (game.timeout_action(state), free_action(game, state))
