"""What both games share: round state, bet validation, the verify / can / do cycle, the view.

A game is data (its phases, the actions at each and the field each action places) plus two
settlement functions (showdown and fold). Everything here is pure: no I/O, no clock, no RNG;
the deck order is an input, so a round replays exactly from (bets, deck, actions).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from numbers import Integral
from typing import Any, ClassVar, Generic, Literal, TypeVar

from dealerpoker.cards.encoding import index_to_card, texts_from_indices
from dealerpoker.errors import BetLimitError, IllegalActionError, InvalidCardError, InvalidHandError
from dealerpoker.games.events import (
    BetPlaced,
    CardsDealt,
    DealerDealt,
    DealerRevealed,
    Event,
    PlayerActed,
    RoundSettled,
)
from dealerpoker.games.money import Money, require_amount
from dealerpoker.games.rules import CasinoHoldemRules, TexasBonusRules
from dealerpoker.games.settlement import HandSummary, Settlement, hand_so_far

SETTLED = "settled"
#: The field of the bet settled on the player's two cards at once (``RoundState.bonus``).
BONUS_FIELD = "bonus"
#: Cards a round uses, in dealing order: player 0-1, dealer 2-3, flop 4-6, turn 7, river 8.
CARDS_PER_ROUND = 9
#: Board streets as (name, first, last) slices of the board.
_STREETS: tuple[tuple[Literal["flop", "turn", "river"], int, int], ...] = (
    ("flop", 0, 3), ("turn", 3, 4), ("river", 4, 5),
)

R = TypeVar("R", TexasBonusRules, CasinoHoldemRules)


@dataclass(frozen=True, slots=True)
class BonusResult:
    """Texas Bonus: the Bonus bet's result on the player's two cards.

    ``pending`` is true while the optional "both A-A" line waits for the dealer's cards.
    """

    stake: Money
    hand: str
    line: str | None
    pays: int
    returned: Money
    pending: bool = False

    @property
    def status(self) -> str:
        if self.pending:
            return "pending"
        return "won" if self.returned > 0 else "lost"

    def to_dict(self) -> dict[str, Any]:
        return {"stake": self.stake, "hand": self.hand, "line": self.line, "pays": self.pays,
                "returned": self.returned, "net": self.returned - self.stake, "status": self.status}


@dataclass(frozen=True, slots=True)
class Step:
    """What an action does: the field it places (if any), as a multiple of the ante."""

    places: str | None = None
    ante_multiple: int = 0
    folds: bool = False


@dataclass(frozen=True, slots=True)
class RoundState:
    """One round, immutable. ``deck`` holds the nine cards it uses, in dealing order."""

    game: str
    phase: str
    deck: tuple[int, ...]
    stakes: tuple[tuple[str, Money], ...]
    actions: tuple[str, ...] = ()
    board_count: int = 0
    bonus: BonusResult | None = None
    settlement: Settlement | None = None

    @property
    def bets(self) -> dict[str, Money]:
        """Every staked field and its amount, in the order placed."""
        return dict(self.stakes)

    def stake(self, field: str) -> Money:
        return dict(self.stakes).get(field, 0)

    @property
    def is_settled(self) -> bool:
        return self.phase == SETTLED

    @property
    def player_cards(self) -> tuple[int, ...]:
        return self.deck[0:2]

    @property
    def dealer_cards(self) -> tuple[int, ...]:
        return self.deck[2:4]

    @property
    def board(self) -> tuple[int, ...]:
        """The board cards dealt so far (never the undealt ones)."""
        return self.deck[4:4 + self.board_count]


def validate_deck(deck: Iterable[int]) -> tuple[int, ...]:
    """The first nine cards of ``deck`` after checking every given card is a distinct 0-51 index.

    Any iterable of integers will do (a list, a tuple, a numpy array).
    """
    if isinstance(deck, (str, bytes)) or not isinstance(deck, Iterable):
        raise InvalidHandError(f"deck must be a sequence of card indices, got {type(deck).__name__}")
    cards: list[int] = []
    for position, card in enumerate(deck):
        # `type(...) is int` first: the ABC check is slow and this runs for every round.
        if type(card) is not int and (isinstance(card, bool) or not isinstance(card, Integral)):
            raise InvalidCardError(f"deck[{position}]: {card!r} is not a card index 0..51")
        cards.append(int(card))
    if len(set(cards)) != len(cards) or not all(0 <= card < 52 for card in cards):
        seen: set[int] = set()
        for position, card in enumerate(cards):
            if not 0 <= card < 52:
                raise InvalidCardError(f"deck[{position}]: {card!r} is not a card index 0..51")
            if card in seen:
                raise InvalidHandError(f"deck[{position}]: duplicate card {index_to_card(card)}")
            seen.add(card)
    if len(cards) < CARDS_PER_ROUND:
        raise InvalidHandError(f"deck has {len(cards)} cards; a round needs {CARDS_PER_ROUND}")
    return tuple(cards[:CARDS_PER_ROUND])


#: Who the card at each dealing position goes to (the order of ``RoundState.deck``).
_PLACES = (("player", 0, 2), ("dealer", 2, 4), ("board", 4, CARDS_PER_ROUND))


def place_of(position: int) -> str:
    """Who the card at dealing ``position`` goes to: ``player`` (0-1), ``dealer`` (2-3), ``board`` (4-8)."""
    for place, first, end in _PLACES:
        if first <= position < end:
            return place
    raise ValueError(f"a round deals positions 0..{CARDS_PER_ROUND - 1}, not {position}")


def padded_deck(dealt: Iterable[int]) -> tuple[int, ...]:
    """The nine-card deck the engine takes, from the cards dealt so far (a live studio deals them
    street by street): the positions not dealt yet are filled with the lowest unused cards.

    The filler never counts: the engine shows no undealt card, and a round reaches its showdown
    only with all nine dealt (after a fold no later card decides anything).

    >>> padded_deck([51, 50, 49, 48])
    (51, 50, 49, 48, 0, 1, 2, 3, 4)
    """
    cards = tuple(dealt)[:CARDS_PER_ROUND]
    used = set(cards)
    filler = (card for card in range(52) if card not in used)
    return cards + tuple(next(filler) for _ in range(CARDS_PER_ROUND - len(cards)))


class Game(Generic[R]):
    """The shared engine; subclasses give the data (phases, actions) and the settlement rules."""

    name: str
    #: Fields placed before the deal, required first.
    opening_fields: ClassVar[tuple[str, ...]]
    #: Every field in settlement order.
    fields: ClassVar[tuple[str, ...]]
    #: Decision phases in order, each with its actions.
    steps: ClassVar[Mapping[str, Mapping[str, Step]]]
    #: Accepted spellings of an action (not listed among the legal actions).
    aliases: ClassVar[Mapping[str, str]] = {}
    #: Board cards dealt once the player acts (without folding) in each phase.
    board_after: ClassVar[Mapping[str, int]]
    #: Board cards dealt with the hole cards.
    board_at_start: ClassVar[int] = 0

    def __init__(self, rules: R) -> None:
        self.rules: R = rules

    def __repr__(self) -> str:
        return f"{type(self).__name__}(rules={self.rules.rules_version!r})"

    # ---- bets ---------------------------------------------------------------------------
    def validate_bets(self, bets: Mapping[str, object]) -> dict[str, Money]:
        """The opening bets checked against the table limits, zero optional fields dropped.

        Raises :class:`BetLimitError` naming the field: unknown field, non-integer or negative
        amount, missing ante, side bet without an ante, amount outside the field's min/max.
        """
        if not isinstance(bets, Mapping):
            raise BetLimitError(key="error.bet.not_mapping", type=type(bets).__name__)
        for field in bets:
            if field not in self.opening_fields:
                key = "error.bet.not_opening" if field in self.fields else "error.bet.unknown_field"
                raise BetLimitError(key=key, field=str(field), opening=", ".join(self.opening_fields))
        amounts = {f: require_amount(f, bets[f]) for f in self.opening_fields if f in bets}
        main = self.opening_fields[0]
        if amounts.get(main, 0) == 0:
            side = [f for f in self.opening_fields[1:] if amounts.get(f, 0) > 0]
            if side:
                raise BetLimitError(key="error.bet.needs_main", field=side[0], main=main)
            raise BetLimitError(key="error.bet.main_required", field=main)
        valid: dict[str, Money] = {}
        for field, amount in amounts.items():
            if amount == 0:
                continue
            limit = self.rules.limits[field]
            if not limit.min <= amount <= limit.max:
                raise BetLimitError(key="error.bet.outside_limits", field=field, amount=amount,
                                    min=limit.min, max=limit.max)
            valid[field] = amount
        return valid

    # ---- round --------------------------------------------------------------------------
    def start(self, bets: Mapping[str, object], deck: Iterable[int]) -> RoundState:
        """Place the opening bets and deal: the state of the first decision."""
        state, _ = self.start_with_events(bets, deck)
        return state

    def start_with_events(
        self, bets: Mapping[str, object], deck: Iterable[int]
    ) -> tuple[RoundState, tuple[Event, ...]]:
        stakes = self.validate_bets(bets)
        cards = validate_deck(deck)
        state = RoundState(
            game=self.name,
            phase=next(iter(self.steps)),
            deck=cards,
            stakes=tuple(stakes.items()),
            board_count=self.board_at_start,
        )
        events: list[Event] = [BetPlaced(field, amount) for field, amount in stakes.items()]
        hole = tuple(texts_from_indices(state.player_cards))
        events.append(CardsDealt(to="player", street="hole", cards=hole))
        events.append(DealerDealt(count=2))
        if self.board_at_start:
            events.append(CardsDealt(to="board", street="flop", cards=tuple(texts_from_indices(state.board))))
        after_deal: tuple[Event, ...]
        state, after_deal = self._after_deal(state)
        return state, (*events, *after_deal)

    def replay(
        self, bets: Mapping[str, object], deck: Iterable[int], actions: Iterable[str]
    ) -> tuple[RoundState, tuple[Event, ...]]:
        """Play a round from its record; the same record always gives the same state."""
        state, events = self.start_with_events(bets, deck)
        collected = list(events)
        for action in actions:
            state, more = self.apply(state, action)
            collected.extend(more)
        return state, tuple(collected)

    # ---- verify / can / do ------------------------------------------------------------
    def _step(self, state: RoundState, action: str) -> tuple[str, Step]:
        if not isinstance(state, RoundState) or state.game != self.name:
            raise IllegalActionError(f"not a {self.name} round", action=str(action))
        if state.is_settled:
            raise IllegalActionError(key="error.action.settled", phase=state.phase, action=str(action))
        phase_steps = self.steps[state.phase]
        if not isinstance(action, str):
            raise IllegalActionError(key="error.action.not_a_word", phase=state.phase, action=repr(action),
                                     legal=", ".join(phase_steps))
        canonical = self.aliases.get(action, action)
        if canonical not in phase_steps:
            raise IllegalActionError(key="error.action.not_allowed", phase=state.phase, action=str(action),
                                     legal=", ".join(phase_steps))
        return canonical, phase_steps[canonical]

    def check_action(self, state: RoundState, action: str) -> None:
        """Raise :class:`IllegalActionError` (with ``phase`` and ``action``) unless ``action`` is legal."""
        self._step(state, action)

    def can(self, state: RoundState, action: str) -> bool:
        try:
            self._step(state, action)
        except IllegalActionError:
            return False
        return True

    def legal_actions(self, state: RoundState) -> tuple[str, ...]:
        """The actions allowed now (aliases excluded); ``()`` once settled."""
        if state.is_settled:
            return ()
        return tuple(self.steps[state.phase])

    def stake_for(self, state: RoundState, action: str) -> Money:
        """Minor units to debit for ``action`` (0 for check and fold)."""
        _, step = self._step(state, action)
        return step.ante_multiple * state.stake(self.opening_fields[0])

    def timeout_action(self, state: RoundState) -> str:
        """What the live table's timer does at this decision (rules ``timeout_actions``)."""
        if state.is_settled:
            raise IllegalActionError("the round is settled: no decision to time out", phase=state.phase)
        return self.rules.timeout_actions[state.phase]

    def apply(self, state: RoundState, action: str) -> tuple[RoundState, tuple[Event, ...]]:
        """Do ``action``: the new state and what happened. An illegal action raises and changes nothing."""
        canonical, step = self._step(state, action)
        events: list[Event] = [PlayerActed(phase=state.phase, action=canonical)]
        state = replace(state, actions=(*state.actions, canonical))
        if step.folds:
            return self._settle(state, self._settle_fold(state), events)
        if step.places is not None:
            amount = step.ante_multiple * state.stake(self.opening_fields[0])
            state = replace(state, stakes=(*state.stakes, (step.places, amount)))
            events.append(BetPlaced(step.places, amount))
        before = state.board_count
        state = replace(state, board_count=self.board_after[state.phase])
        for street, first, last in _STREETS:
            if before <= first and last <= state.board_count:
                cards = state.deck[4 + first:4 + last]
                events.append(CardsDealt(to="board", street=street, cards=tuple(texts_from_indices(cards))))
        phases = list(self.steps)
        position = phases.index(state.phase)
        if position + 1 < len(phases):
            return replace(state, phase=phases[position + 1]), tuple(events)
        return self._settle(state, self._settle_showdown(state), events)

    def _settle(
        self, state: RoundState, settlement: Settlement, events: list[Event]
    ) -> tuple[RoundState, tuple[Event, ...]]:
        state = replace(state, phase=SETTLED, settlement=settlement)
        events.append(DealerRevealed(cards=tuple(texts_from_indices(state.dealer_cards))))
        state, more = self._on_settled(state)
        events.extend(more)
        events.append(RoundSettled(settlement))
        return state, tuple(events)

    # ---- what the player sees --------------------------------------------------------
    def view(self, state: RoundState) -> dict[str, Any]:
        """JSON-able round for the player: only the cards they may see now.

        The dealer's hole cards appear only once the round is settled; undealt board cards never.
        """
        visible = (*state.player_cards, *state.board)
        player_hand: HandSummary | None = None
        if state.settlement is not None and state.settlement.player_hand is not None:
            player_hand = state.settlement.player_hand
        named = None if player_hand is not None else hand_so_far(list(visible))
        legal = self.legal_actions(state)
        return {
            "game": self.name,
            "phase": state.phase,
            "bets": state.bets,
            "player_cards": texts_from_indices(state.player_cards),
            "dealer_cards": texts_from_indices(state.dealer_cards) if state.is_settled else [],
            "board": texts_from_indices(state.board),
            "legal_actions": list(legal),
            "action_stakes": {action: self.stake_for(state, action) for action in legal},
            "player_hand": named if player_hand is None else player_hand.to_dict(),
            "bonus": None if state.bonus is None else state.bonus.to_dict(),
            "settlement": None if state.settlement is None else state.settlement.to_dict(),
        }

    # ---- game-specific hooks -----------------------------------------------------------
    def _after_deal(self, state: RoundState) -> tuple[RoundState, tuple[Event, ...]]:
        """Anything settled right after the deal (the Texas Bonus)."""
        return state, ()

    def _on_settled(self, state: RoundState) -> tuple[RoundState, tuple[Event, ...]]:
        """Anything resolved once the dealer's cards are revealed (a pending Texas Bonus)."""
        return state, ()

    def _settle_showdown(self, state: RoundState) -> Settlement:
        raise NotImplementedError

    def _settle_fold(self, state: RoundState) -> Settlement:
        raise NotImplementedError
