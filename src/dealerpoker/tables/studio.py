"""A studio table's dealing as pure transitions: card reports, voids, misdeals, the deal timer.

At a studio table (``dealing = "studio"``) a human dealer deals physical cards and a card reader
in the shoe (or the dealer, on the dealer console) reports each one. The round is the same
state machine as at an RNG table (``dealerpoker.tables.table``) with one more phase, DEALING:

    CLOSED --stakes debited--> DEALING(preflop) --cards in--> DECISION(preflop) --> DEALING(flop) ...
                                   |  deal timer ran out, or the dealer's MISDEAL
                                   +---------------------------------------------------> PAUSE (misdeal)

- The round expects the cards of one street at a time, in dealing order (player, dealer, then
  the board). A decision point opens (its timer starts) once its cards are in; the dealer's
  two cards come with the player's and stay hidden until the showdown.
- ``report_card`` refuses (``LiveTableError``, nothing changes) a card that is not a card, a card
  already in this round, and any card when none is expected (or the deal timer ran out).
- ``void_card`` takes back the last card of the street being dealt (a misread); a street's
  cards are shown to the players the moment its last card is in, and are final from then on.
- ``misdeal`` cancels the round: every seat's settlement is ``games.payments.cancellation`` (every stake
  returned, except a Bonus already settled on the hole cards, which stands).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from dealerpoker.cards import parse_card
from dealerpoker.cards.encoding import card_to_index, index_to_card
from dealerpoker.errors import InvalidCardError
from dealerpoker.games.base import place_of
from dealerpoker.games.payments import cancellation
from dealerpoker.tables.config import StudioConfig, TableConfig
from dealerpoker.tables.dealing import (
    CardReport,
    Misdeal,
    cards_before,
    dealt_cards,
    street_of,
)
from dealerpoker.tables.table import (
    LiveGame,
    LiveRound,
    LiveTableError,
    Phase,
    SharedStates,
    enter,
    expired,
    rebuilt,
)

#: Phases in which a round can be cancelled: cards are being dealt or players decide on them.
MISDEAL_PHASES = (Phase.DEALING, Phase.DECISION)


def _studio(table: TableConfig) -> StudioConfig:
    if table.studio is None:
        raise LiveTableError(f"table {table.id} deals from the RNG: it has no dealer", code="not_studio")
    return table.studio


def begin_dealing(rnd: LiveRound, table: TableConfig, paid: set[str] | frozenset[str], *,
                  now: float) -> LiveRound:
    """The stakes are debited: wait for the hole cards (or pause when nobody paid)."""
    studio = _studio(table)
    if rnd.phase is not Phase.CLOSED:
        raise LiveTableError(f"cannot deal in phase {rnd.phase}", code="wrong_phase")
    seats = {player: seat for player, seat in rnd.seats.items() if player in paid}
    if not seats:
        return replace(rnd, phase=Phase.PAUSE, seats={}, deadline=now + table.pause_seconds)
    return replace(rnd, seats=seats, deck=(), phase=Phase.DEALING, point=table.decision_points[0],
                   deadline=now + studio.deal_seconds, street_start=0)


def expected(rnd: LiveRound) -> dict[str, Any] | None:
    """What the dealer must deal next: ``{"cards", "to", "street", "position"}``, or None.

    ``cards`` counts the cards still due to the same place (player, dealer, board) in this street.
    """
    if rnd.phase is not Phase.DEALING or rnd.point is None:
        return None
    position = len(rnd.deck or ())
    target = cards_before(rnd.point)
    if position >= target:
        return None
    place = place_of(position)
    due = sum(1 for p in range(position, target) if place_of(p) == place)
    return {"cards": due, "to": place, "street": street_of(position), "position": position}


def parse_reported(card: Any) -> int:
    """A reported card as its index: text such as ``"Ah"``, ``"10d"``, ``"K♠"``."""
    if not isinstance(card, str):
        raise InvalidCardError(f"a card is text such as 'Ah' or 'Td', got {card!r}")
    return card_to_index(parse_card(card))


def report_card(rnd: LiveRound, game: LiveGame, table: TableConfig, card: Any, *, source: str,
                now: float) -> LiveRound:
    """The next card of the street being dealt; its last card opens the next decision point
    (or the showdown) with the cards shown."""
    _studio(table)
    want = expected(rnd)
    if want is None:
        raise LiveTableError(f"no card is expected now (phase {rnd.phase})", code="not_expected")
    if expired(rnd, now):
        raise LiveTableError(key="error.studio.too_late", code="not_expected")
    try:
        index = parse_reported(card)
    except InvalidCardError as error:
        raise LiveTableError(str(error), code="invalid_card") from None
    if index in (rnd.deck or ()):
        raise LiveTableError(key="error.studio.duplicate_card", code="duplicate_card",
                             card=str(index_to_card(index)))
    reports = (*rnd.reports, CardReport(index, want["position"], now, source))
    reported = replace(rnd, reports=reports, deck=dealt_cards(reports))
    assert rnd.point is not None
    if len(reported.deck or ()) < cards_before(rnd.point):
        return reported
    return _street_in(reported, game, table, now)


def _street_in(rnd: LiveRound, game: LiveGame, table: TableConfig, now: float) -> LiveRound:
    """Every card of the street is in: each seat's engine state started (hole cards) or replayed
    on the cards now known, then the point the cards were for opens with them shown."""
    deck = rnd.deck or ()
    states = SharedStates(game, deck)
    seats = {player: rebuilt(seat, states) for player, seat in rnd.seats.items()}
    assert rnd.point is not None
    return enter(replace(rnd, seats=seats), table, rnd.point, now)


def can_void(rnd: LiveRound) -> bool:
    """A card of the street being dealt is in (not shown to the players yet)."""
    return rnd.phase is Phase.DEALING and len(rnd.deck or ()) > rnd.street_start


def void_card(rnd: LiveRound, *, now: float) -> LiveRound:
    """Take back the last card of the street being dealt (a misread): it leaves the round."""
    if not can_void(rnd):
        raise LiveTableError("no card to void: every card dealt was already shown to the players",
                             code="nothing_to_void")
    last = max(k for k, report in enumerate(rnd.reports) if report.voided_at is None)
    reports = list(rnd.reports)
    reports[last] = replace(reports[last], voided_at=now)
    return replace(rnd, reports=tuple(reports), deck=dealt_cards(reports))


def deal_overdue(rnd: LiveRound, now: float) -> bool:
    """The dealer did not report the street's cards in time: the round is to be cancelled."""
    return rnd.phase is Phase.DEALING and expired(rnd, now)


def misdeal(rnd: LiveRound, game: LiveGame, table: TableConfig, *, by: str, reason: str,
            now: float) -> LiveRound:
    """Cancel the round: each seat settled by ``games.payments.cancellation`` (credited with
    ``table.returns``), then the pause.

    Decisions not yet closed are dropped (nothing of them was debited)."""
    _studio(table)
    if rnd.phase not in MISDEAL_PHASES:
        raise LiveTableError(f"no round in play to cancel (phase {rnd.phase})", code="no_round")
    seats = {player: replace(seat, pending=None, pending_at=None,
                             cancelled=cancellation(game, seat.bets, seat.state))
             for player, seat in rnd.seats.items()}
    cancelled = replace(rnd, seats=seats, phase=Phase.PAUSE, deadline=now + table.pause_seconds,
                        undecided=0, misdeal=Misdeal(now, by, reason))
    return cancelled.at("misdeal", now).at("settled", now)
