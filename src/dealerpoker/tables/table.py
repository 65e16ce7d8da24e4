"""The live table's round as a pure state machine, driven by an injected clock.

One shuffle per round: every seated player plays the same shared player hand against the same
dealer hand and community cards, each with their own bets and decisions (the game engine of
``dealerpoker.games`` on the same deck order). The same bets and the same decisions on that one
deck make the same engine state, an immutable value: the transitions compute it once and the
seats share it (``SharedStates``), so a table's engine work grows with the distinct ways its
players played, not with its thousands of players. Time enters only as the
``now`` argument (seconds of the injected clock); money is only computed here, never moved:
the shell debits ``opening_stakes`` and each ``DecisionPlan``'s stakes and credits the
``bonus_payouts`` and the settlement ``returns`` through the ledger, then calls the next
transition. What each step moves is the rule of ``dealerpoker.games.payments``, the same for
solo rounds and the verifier.

The loop::

    BETTING --(deadline)--> CLOSED --deal--> DECISION(point) ... --> SHOWDOWN --settled--> PAUSE
       ^                      |  nobody paid                                                 |
       |                      +---------------------------------------------------------> PAUSE
       +-------------------------------------(deadline)-----------------------------------------+

At a studio table (``dealing = "studio"``, :mod:`dealerpoker.tables.studio`) the dealer reports
the cards: the round waits in DEALING(point) until the cards ``point`` shows are in.

A decision point is an engine phase at which players decide (texas-bonus: preflop, flop, turn;
casino-holdem: flop). It ends at its deadline, or as soon as every player at it has decided;
whoever has not decided gets the timer's action (``games.payments.timer_action``: the rules'
timeout action, or the free check/fold for a player whose stake cannot be debited). A decision
is final once accepted. Bets can be placed, changed and withdrawn until the betting deadline.

>>> from dealerpoker.tables.config import parse_tables
>>> from dealerpoker.tables.table import open_round
>>> table = parse_tables('[[tables]]\\nid = "t"\\ngame = "casino-holdem"')[0]
>>> rnd = open_round(table, number=1, now=100.0)
>>> str(rnd.phase), rnd.deadline, rnd.round_id
('betting', 115.0, 't/1')
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Protocol

from dealerpoker.errors import DealerPokerError
from dealerpoker.games.base import padded_deck
from dealerpoker.games.payments import (
    capped,
    credit,
    opening_stake,
    paid_at_deal,
    timer_action,
)
from dealerpoker.identity import ByIdentity
from dealerpoker.tables.config import TableConfig
from dealerpoker.tables.dealing import BOARD_AT, SHOWDOWN, CardReport, Misdeal, cards_before
from dealerpoker.tables.seatmap import SeatMap


class LiveGame(Protocol):
    """What the table needs of a game engine (docs/CONTRACTS.md §4)."""

    name: str

    @property
    def aliases(self) -> Mapping[str, str]: ...
    def validate_bets(self, bets: Mapping[str, int]) -> Any: ...
    def start(self, bets: Any, deck: Any) -> Any: ...
    def legal_actions(self, state: Any) -> tuple[str, ...]: ...
    def stake_for(self, state: Any, action: str) -> int: ...
    def check_action(self, state: Any, action: str) -> None: ...
    def apply(self, state: Any, action: str) -> tuple[Any, Any]: ...
    def timeout_action(self, state: Any) -> str: ...


class LiveTableError(DealerPokerError, ValueError):
    """An intent the table cannot take now (wrong phase, timer over, not seated...); ``code``
    names which (``no_more_bets``, ``no_decision_open``, ``already_decided``...)."""

    status = 409

    def __init__(self, message: str | None = None, *, code: str, **params: Any) -> None:
        super().__init__(message, **params)
        self.code = code


class Phase(StrEnum):
    BETTING = "betting"      # bets may be placed, changed, withdrawn until the deadline
    CLOSED = "closed"        # "no more bets": stakes being debited, cards about to be dealt
    DEALING = "dealing"      # studio: the dealer reports the cards ``point`` needs until the deadline
    DECISION = "decision"    # players at ``point`` decide until the deadline
    SHOWDOWN = "showdown"    # every card revealed; settlement being committed
    PAUSE = "pause"          # settled; the next betting window opens at the deadline



@dataclass(frozen=True, slots=True)
class Step:
    """One decision of one player: what, who chose it, and its stake (minor units)."""

    point: str
    action: str
    source: str  # "player" | "timeout" | "unpaid" (the stake could not be debited)
    stake: int
    #: When it was chosen (the player's message accepted) or defaulted (the point closed).
    at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"point": self.point, "action": self.action, "source": self.source, "stake": self.stake}


@dataclass(frozen=True, slots=True)
class Seat:
    """A player's part in one round."""

    player_id: str
    bets: Mapping[str, int]
    state: Any = None          # the engine's round state once dealt
    pending: str | None = None  # the decision accepted at the current point
    steps: tuple[Step, ...] = ()
    #: The Bonus return credited at the deal (texas-bonus; 0 when lost, pending or not staked):
    #: the rules pay the Bonus on the two hole cards at once, the settlement credits the rest.
    bonus_paid: int = 0
    pending_at: float | None = None  # when ``pending`` was accepted
    #: A studio round cancelled (misdeal): the seat's settlement, ``games.payments.cancellation``'s.
    cancelled: Any = None
    #: A free round (``server.promotions``): its campaign, reward, ``free_ante`` (the operator's,
    #: never debited from the player) and ``cap_left`` (None: no cap on its winnings).
    free: Mapping[str, Any] | None = None
    #: The progressive jackpot side bet (``server.jackpot``): its entry (stake, currency, status;
    #: once settled the first five cards, the hand, the award); None: no jackpot bet.
    jackpot: Mapping[str, Any] | None = None

    @property
    def result(self) -> Any:
        """The seat's settlement: the engine's, or the cancelled round's (None while in play)."""
        if self.cancelled is not None:
            return self.cancelled
        return None if self.state is None else self.state.settlement

    @property
    def free_ante(self) -> int:
        """The ante the operator pays (a free round), else 0."""
        return 0 if self.free is None else int(self.free["free_ante"])

    @property
    def opening_stake(self) -> int:
        """What the deal debits the player: every opening bet but a free round's ante."""
        return opening_stake(self.bets) - self.free_ante

    @property
    def total_stake(self) -> int:
        return self.opening_stake + sum(step.stake for step in self.steps)


@dataclass(frozen=True, slots=True)
class DecisionPlan:
    """The actions closing a decision point: each player's own or the timeout default."""

    point: str
    steps: Mapping[str, Step]

    def stakes(self) -> dict[str, int]:
        return {player: step.stake for player, step in self.steps.items() if step.stake > 0}


@dataclass(frozen=True, slots=True)
class LiveRound:
    table_id: str
    number: int
    phase: Phase
    deadline: float | None
    seats: Mapping[str, Seat] = field(default_factory=dict)
    point: str | None = None
    deck: tuple[int, ...] | None = None
    #: Seats at the current decision point without a decision yet (kept by the transitions, so
    #: "has everyone decided?" costs nothing with thousands of players).
    undecided: int = 0
    #: The rules the round is played under (``Rules.fingerprint()``), for its audit record.
    rules_fingerprint: str | None = None
    #: What happened when, for the audit record: ``opened``, ``betting_closed``, ``reveal:<point>``
    #: (the cards visible at that decision point were shown), ``reveal:showdown``, ``misdeal``,
    #: ``settled``.
    times: tuple[tuple[str, float], ...] = ()
    #: The cards shown to the players so far: (player cards, board cards, dealer cards).
    shown: tuple[int, int, int] = (0, 0, 0)
    #: Studio: every card the dealer reported this round, voided ones included (``deck`` is the
    #: reported cards not voided); ``street_start``: how many of them were in when the street
    #: being dealt began (those are shown and final); ``misdeal``: why the round was cancelled.
    reports: tuple[CardReport, ...] = ()
    street_start: int = 0
    misdeal: Misdeal | None = None

    def at(self, event: str, now: float) -> LiveRound:
        """The round with ``event`` noted at ``now``."""
        return replace(self, times=(*self.times, (event, now)))

    @property
    def round_id(self) -> str:
        """Unique per table and round; the ledger's txids begin with it."""
        return f"{self.table_id}/{self.number}"

    def at_point(self) -> list[Seat]:
        """Seats whose engine state waits for a decision at the current point."""
        if self.phase is not Phase.DECISION:
            return []
        return [s for s in self.seats.values() if s.state is not None and s.state.phase == self.point]

    def all_decided(self) -> bool:
        return self.undecided == 0

    def decision_due(self, now: float) -> bool:
        """The current decision point may close: its timer ran out or everyone decided."""
        return self.phase is Phase.DECISION and (self.all_decided() or expired(self, now))


def expired(rnd: LiveRound, now: float) -> bool:
    """The current phase's deadline has passed."""
    return rnd.deadline is not None and now >= rnd.deadline


def open_round(table: TableConfig, *, number: int, now: float) -> LiveRound:
    """A new round with its betting window open until ``now + betting_seconds``."""
    if number < 1:
        raise ValueError(f"round number must be >= 1, got {number}")
    return LiveRound(table.id, number, Phase.BETTING, now + table.betting_seconds,
                     rules_fingerprint=table.rules.fingerprint(), times=(("opened", now),))


def place_bets(rnd: LiveRound, game: LiveGame, player_id: str, bets: Mapping[str, int],
               *, now: float, free: Mapping[str, Any] | None = None,
               jackpot: Mapping[str, Any] | None = None) -> LiveRound:
    """Place or replace a player's opening bets; ``{}`` withdraws them. ``free``: the bets are a
    free round's (its ante the operator's; the shell checked the reward).

    Refused after "no more bets" (the deadline, even before the table closed the window).
    Limits are checked by the engine (``BetLimitError`` naming the field); the balance is the
    shell's to check, as the stakes are debited when the window closes.
    """
    if rnd.phase is not Phase.BETTING or expired(rnd, now):
        raise LiveTableError(code="no_more_bets", key="error.live.no_more_bets")
    if not bets:
        if player_id not in rnd.seats:
            return rnd
        return replace(rnd, seats=SeatMap.of(rnd.seats).without(player_id))
    seat = Seat(player_id, _valid_bets(game, bets), free=free, jackpot=jackpot)
    return replace(rnd, seats=SeatMap.of(rnd.seats).set(player_id, seat))


def _valid_bets(game: LiveGame, bets: Mapping[str, int]) -> dict[str, int]:
    validated = game.validate_bets(bets)
    return {name: int(amount) for name, amount in dict(validated).items() if int(amount) > 0}


def restore_bets(rnd: LiveRound, game: LiveGame, bets: Mapping[str, Mapping[str, int]],
                 free: Mapping[str, Mapping[str, Any]] | None = None,
                 jackpots: Mapping[str, Mapping[str, Any]] | None = None) -> tuple[LiveRound, list[str]]:
    """Put the bets accepted in this window before a restart back (they were in time, whatever
    the clock says now), with the free rounds they were placed as (``free``: player -> promo).
    Returns the round and the players whose stored bets the table's limits no longer allow
    (left out)."""
    if rnd.phase is not Phase.BETTING:
        return rnd, []
    seats, invalid = dict(rnd.seats), []
    for player, placed in bets.items():
        try:
            valid = _valid_bets(game, placed) if placed else {}
        except DealerPokerError:
            invalid.append(player)
            continue
        if valid:
            seats[player] = Seat(player, valid, free=(free or {}).get(player),
                                 jackpot=(jackpots or {}).get(player))
        else:
            seats.pop(player, None)  # withdrawn
    return replace(rnd, seats=seats), invalid


def restore_decisions(rnd: LiveRound, game: LiveGame,
                      decisions: Mapping[str, tuple[str, float | None]]) -> tuple[LiveRound, list[str]]:
    """Put the decisions accepted at the current point before a restart back (final once
    accepted), each ``(action, accepted at)``. Returns the round and the players whose stored
    decision is not legal here."""
    if rnd.phase is not Phase.DECISION:
        return rnd, []
    seats, invalid, undecided = dict(rnd.seats), [], rnd.undecided
    for player, (action, accepted_at) in decisions.items():
        seat = seats.get(player)
        if seat is None or seat.state is None or seat.state.phase != rnd.point or seat.pending is not None:
            continue
        try:
            game.check_action(seat.state, action)
        except DealerPokerError:
            invalid.append(player)
            continue
        seats[player] = replace(seat, pending=action, pending_at=accepted_at)
        undecided -= 1
    return replace(rnd, seats=seats, undecided=undecided), invalid


#: Why a decision window was opened again after a restart (the audit record's ``restarts``).
RESTART_REASON = ("the server was down when the decision deadline passed:"
                  " the players got a fresh decision window")


def reopen_missed_decision(rnd: LiveRound, table: TableConfig, *, now: float) -> LiveRound:
    """After a restart: a decision point whose deadline passed while the server was down gets a
    fresh window (the table's decision time from ``now``) for whoever has not decided, rather than
    the timer deciding for them at once; the round notes when the missed deadline was and when
    the window opened again (``deadline_missed:<point>``, ``reopened:<point>``).

    >>> from dealerpoker.tables.config import parse_tables
    >>> table = parse_tables('[[tables]]\\nid = "t"\\ngame = "casino-holdem"\\ndecision_seconds = 10')[0]
    >>> rnd = replace(open_round(table, number=1, now=0.0), phase=Phase.DECISION, point="flop",
    ...               deadline=50.0, undecided=1)
    >>> again = reopen_missed_decision(rnd, table, now=80.0)
    >>> again.deadline, again.times[-2:]
    (90.0, (('deadline_missed:flop', 50.0), ('reopened:flop', 80.0)))
    >>> reopen_missed_decision(rnd, table, now=40.0) is rnd  # not passed yet: the stored deadline holds
    True
    """
    if rnd.phase is not Phase.DECISION or rnd.undecided == 0 or not expired(rnd, now):
        return rnd
    assert rnd.deadline is not None
    missed = rnd.at(f"deadline_missed:{rnd.point}", rnd.deadline)
    return replace(missed, deadline=now + table.decision_seconds).at(f"reopened:{rnd.point}", now)


def start_decision_timer(rnd: LiveRound, *, at: float, deadline: float) -> LiveRound:
    """A decision point's timer runs from when its players are told (``at``, until ``deadline``),
    not from when the point was computed: the commit between (the deal's or the last point's, up
    to a second at thousands of seats) is not taken out of the players' time. The round notes
    the start (``timer:<point>``) where it moved the deadline on; a restart puts the same start
    back (``runner``).

    >>> from dealerpoker.tables.config import parse_tables
    >>> table = parse_tables('[[tables]]\\nid = "t"\\ngame = "casino-holdem"\\ndecision_seconds = 10')[0]
    >>> rnd = replace(open_round(table, number=1, now=0.0), phase=Phase.DECISION, point="flop",
    ...               deadline=50.0, undecided=1)
    >>> told = start_decision_timer(rnd, at=40.8, deadline=50.8)
    >>> told.deadline, told.times[-1]
    (50.8, ('timer:flop', 40.8))
    >>> start_decision_timer(rnd, at=40.0, deadline=50.0) is rnd  # told at once: the deadline stands
    True
    """
    if rnd.phase is not Phase.DECISION or rnd.deadline is None or deadline <= rnd.deadline:
        return rnd
    return replace(rnd, deadline=deadline).at(f"timer:{rnd.point}", at)


def close_betting(rnd: LiveRound, *, now: float) -> LiveRound:
    """No more bets: the window's deadline has passed."""
    if rnd.phase is not Phase.BETTING:
        raise LiveTableError(f"cannot close betting in phase {rnd.phase}", code="wrong_phase")
    if not expired(rnd, now):
        raise LiveTableError("the betting window is still open", code="too_early")
    return replace(rnd, phase=Phase.CLOSED, deadline=None).at("betting_closed", now)


def opening_stakes(rnd: LiveRound) -> dict[str, int]:
    """Each seated player's opening stake, to debit before the deal."""
    return {player: seat.opening_stake for player, seat in rnd.seats.items()}


def deal(rnd: LiveRound, game: LiveGame, table: TableConfig, deck: tuple[int, ...],
         paid: Collection[str], *, now: float) -> LiveRound:
    """One shuffle for everyone: each paid seat starts the engine on the same ``deck``.

    Seats whose opening stake could not be debited leave the round. With nobody left the
    round goes straight to the pause (nothing is dealt).
    """
    if rnd.phase is not Phase.CLOSED:
        raise LiveTableError(f"cannot deal in phase {rnd.phase}", code="wrong_phase")
    if len(set(deck)) != len(deck) or len(deck) < 9:
        raise ValueError("deck must hold at least 9 distinct card indices")
    states = SharedStates(game, deck)
    seats = {player: started(seat, states) for player, seat in rnd.seats.items() if player in paid}
    if not seats:
        return replace(rnd, phase=Phase.PAUSE, seats={}, deadline=now + table.pause_seconds)
    dealt = replace(rnd, seats=seats, deck=tuple(deck))
    return _next_point(dealt, table, now, after=None)


class SharedStates:
    """The engine's states of one transition of a round on its ``deck``, each computed once for
    the seats that reach it: the same bets start the same state, and the same action on the same
    state gives the same state. States are immutable values, so seats may hold the same one; a
    state is known here by its identity (``identity.ByIdentity``).

    ``deck`` may hold fewer than the nine cards a round uses (a studio deals street by street):
    the engine gets the positions not dealt yet filled (``games.base.padded_deck``), never shown.
    """

    def __init__(self, game: LiveGame, deck: tuple[int, ...]) -> None:
        self.game = game
        self._deck = padded_deck(deck)
        self._started: dict[tuple[tuple[str, int], ...], Any] = {}
        #: A state -> the states after it, by action.
        self._applied: ByIdentity[Any, dict[str, Any]] = ByIdentity(lambda _state: {})

    def start(self, bets: Mapping[str, int]) -> Any:
        key = tuple(sorted(bets.items()))
        state = self._started.get(key)
        if state is None:
            state = self._started[key] = self.game.start(self.game.validate_bets(bets), self._deck)
        return state

    def apply(self, state: Any, action: str) -> Any:
        after_state = self._applied(state)
        after = after_state.get(action)
        if after is None:
            after = after_state[action] = self.game.apply(state, action)[0]
        return after


def started(seat: Seat, states: SharedStates) -> Seat:
    """The seat with its engine state at the deal, and what its Bonus pays at once."""
    state = states.start(seat.bets)
    return replace(seat, state=state, bonus_paid=paid_at_deal(state))


def rebuilt(seat: Seat, states: SharedStates) -> Seat:
    """The seat replayed on the states' deck (a studio street came in, or a stored round read
    back): started, then every step again."""
    seat = started(seat, states)
    state = seat.state
    for step in seat.steps:
        state = states.apply(state, step.action)
    return replace(seat, state=state)


def jackpot_stakes(rnd: LiveRound) -> dict[str, int]:
    """Each jackpot bet's stake, debited with the deal as a transfer of its own."""
    return {player: int(seat.jackpot["stake"]) for player, seat in rnd.seats.items() if seat.jackpot}


def bonus_payouts(rnd: LiveRound) -> dict[str, int]:
    """What the deal credits at once: each won Bonus (txid ``{round}:{player}:bonus``)."""
    return {player: seat.bonus_paid for player, seat in rnd.seats.items() if seat.bonus_paid > 0}


def _next_point(rnd: LiveRound, table: TableConfig, now: float, *, after: str | None) -> LiveRound:
    """The next decision point someone waits at (or the showdown): opened now, or at a studio
    table first dealt (DEALING) when its cards are not all in."""
    target = _target(rnd, table, after)
    if len(rnd.deck or ()) < cards_needed(rnd, target):
        assert table.studio is not None, "an RNG round holds the whole deck"
        return replace(rnd, phase=Phase.DEALING, point=target, deadline=now + table.studio.deal_seconds,
                       undecided=0, street_start=len(rnd.deck or ()))
    return enter(rnd, table, target, now)


def _target(rnd: LiveRound, table: TableConfig, after: str | None) -> str:
    points = table.decision_points
    start = 0 if after is None else points.index(after) + 1
    for point in points[start:]:
        if any(s.state is None or s.state.phase == point for s in rnd.seats.values()):
            return point
    return SHOWDOWN


def cards_needed(rnd: LiveRound, target: str) -> int:
    """Cards the round must hold to open ``target``: the showdown needs the river only when a
    hand is still in (after everyone folded, no more cards are dealt)."""
    if target != SHOWDOWN:
        return cards_before(target)
    still_in = any(s.state is None or s.state.settlement is None or s.state.settlement.outcome != "fold"
                   for s in rnd.seats.values())
    return cards_before(SHOWDOWN) if still_in else 0


def enter(rnd: LiveRound, table: TableConfig, target: str, now: float) -> LiveRound:
    """Open ``target`` with its cards shown: a decision point (its timer starts) or the showdown."""
    if target == SHOWDOWN:
        board = min(BOARD_AT[SHOWDOWN], max(0, len(rnd.deck or ()) - 4))
        showdown = replace(rnd, phase=Phase.SHOWDOWN, point=None, deadline=None, undecided=0,
                           shown=(2, board, 2))
        return showdown.at("reveal:showdown", now)
    waiting = sum(1 for s in rnd.seats.values() if s.state.phase == target)
    return replace(rnd, phase=Phase.DECISION, point=target, deadline=now + table.decision_seconds,
                   undecided=waiting, shown=(2, BOARD_AT[target], 0)).at(f"reveal:{target}", now)


def decide(rnd: LiveRound, game: LiveGame, player_id: str, action: str, *, now: float) -> LiveRound:
    """Accept a player's decision at the current point (final once accepted)."""
    if rnd.phase is not Phase.DECISION or expired(rnd, now):
        raise LiveTableError(code="no_decision_open", key="error.live.no_decision_open")
    seat = rnd.seats.get(player_id)
    if seat is None:
        raise LiveTableError(code="not_seated", key="error.live.not_seated")
    if seat.state.phase != rnd.point:
        raise LiveTableError(code="no_decision_open", key="error.live.hand_settled")
    if seat.pending is not None:
        raise LiveTableError(code="already_decided", key="error.live.already_decided", action=seat.pending,
                             point=rnd.point)
    game.check_action(seat.state, action)
    decided = replace(seat, pending=action, pending_at=now)
    return replace(rnd, seats=SeatMap.of(rnd.seats).set(player_id, decided), undecided=rnd.undecided - 1)


def decision_plan(rnd: LiveRound, game: LiveGame, *, now: float) -> DecisionPlan:
    """Close the current point: every player's decision, or the timeout action, with stakes."""
    if not rnd.decision_due(now):
        raise LiveTableError("the decision timer is still running", code="too_early")
    assert rnd.point is not None
    steps = {}
    for seat in rnd.at_point():
        if seat.pending is not None:
            action, source, at = seat.pending, "player", seat.pending_at
        else:
            action, source, at = timer_action(game, seat.state), "timeout", now
        steps[seat.player_id] = Step(rnd.point, action, source, game.stake_for(seat.state, action), at)
    return DecisionPlan(rnd.point, steps)


def apply_decisions(rnd: LiveRound, game: LiveGame, table: TableConfig, plan: DecisionPlan,
                    unpaid: Collection[str], *, now: float) -> LiveRound:
    """Apply the plan once its stakes are debited; ``unpaid`` players (their stake refused) get the
    timer's funds-short action (``games.payments.timer_action``)."""
    if rnd.phase is not Phase.DECISION or plan.point != rnd.point:
        raise LiveTableError("the plan is not for the current decision point", code="wrong_phase")
    assert rnd.deck is not None
    seats, states = dict(rnd.seats), SharedStates(game, rnd.deck)
    for player, step in plan.steps.items():
        seat = seats[player]
        if player in unpaid:
            step = Step(step.point, timer_action(game, seat.state, stake_refused=True), "unpaid", 0, now)
        state = states.apply(seat.state, step.action)
        seats[player] = replace(seat, state=state, pending=None, pending_at=None, steps=(*seat.steps, step))
    return _next_point(replace(rnd, seats=seats), table, now, after=plan.point)


def settlements(rnd: LiveRound) -> dict[str, Any]:
    """Each player's ``Settlement`` (the round must be at the showdown or later; a cancelled
    round's are ``games.payments.cancellation``'s)."""
    if rnd.phase not in (Phase.SHOWDOWN, Phase.PAUSE):
        raise LiveTableError(f"nothing to settle in phase {rnd.phase}", code="wrong_phase")
    return {player: seat.result for player, seat in rnd.seats.items()}


def returns(rnd: LiveRound) -> dict[str, int]:
    """What the settlement credits each player (minor units, 0 for a loss): every line's return
    but the Bonus already paid at the deal (the settlement's lines still show the Bonus line),
    a free round's capped (``seat_credit``)."""
    settlements(rnd)  # refuses a round not settled yet
    return {player: seat_credit(seat)[0] for player, seat in rnd.seats.items()}


def seat_credit(seat: Seat) -> tuple[int, int]:
    """What the seat's settlement credits and what it forfeits: a free round returns at most the
    player's own stakes plus what is left of its reward's cap (``games.payments.capped``)."""
    owed = credit(seat.result, seat.bonus_paid)
    if seat.free is None:
        return owed, 0
    if seat.cancelled is not None:  # a misdeal gives back the player's own stakes, not the free ante
        return owed - seat.free_ante, seat.free_ante
    return capped(owed, seat.free.get("cap_left"), own_stake=seat.total_stake,
                  already_returned=seat.bonus_paid)


def finish(rnd: LiveRound, table: TableConfig, *, now: float) -> LiveRound:
    """The settlement is committed: pause until the next betting window."""
    if rnd.phase is not Phase.SHOWDOWN:
        raise LiveTableError(f"cannot finish in phase {rnd.phase}", code="wrong_phase")
    return replace(rnd, phase=Phase.PAUSE, deadline=now + table.pause_seconds).at("settled", now)
