"""What a live table's clients ask, and the reply each gets: a player's messages (``bet``,
``decide``, ``decision``, ``hello``, ``ping``) and a studio dealer's (``card``, ``void``,
``misdeal``, ``hello``, ``ping``), handled by the process that owns the table's clock
(``LiveTables._handle_local``), a bet checked first where the player is connected
(``check_before_forwarding``). A refusal is an ``error`` reply whose code names it, and changes
nothing. The messages are described in docs/api.md: change both together.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from dealerpoker.errors import DealerPokerError
from dealerpoker.fairness.live_record import CARD_SOURCE
from dealerpoker.server.errors import error_fields
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.runner import TableRunner

BetCheck = Callable[[str, Mapping[str, Any], str | None, bool],
                   Awaitable[tuple[Mapping[str, Any], Mapping[str, Any] | None]]]
"""Checks a player's non-empty bets before the table sees them (currency, limits, responsible
gaming; a free round's reward when one is named: ``free_round``; the jackpot bet when asked
for: ``jackpot``); raises a ``DealerPokerError``
to refuse them. Returns the bets as placed (a free round's with its ante) and the free round's
promo (None: none)."""


def error_message(code: str, message: str, **extra: Any) -> dict[str, Any]:
    """An ``error`` reply with the wire ``code`` and a message for people."""
    return {"type": "error", "error": code, "message": message, **extra}


def error_reply(error: DealerPokerError) -> dict[str, Any]:
    """The ``error`` reply of a refusal: its code, message and details (``error_fields``)."""
    return {"type": "error", **error_fields(error)}


class BetIntent(NamedTuple):
    """A ``bet`` message's parts, their types checked."""
    bets: Mapping[str, Any]
    free_round: str | None
    jackpot: bool


def read_bet(message: Mapping[str, Any]) -> BetIntent | dict[str, Any]:
    """A ``bet`` message's parts, or the ``bad_request`` reply naming what is wrong."""
    bets = message.get("bets")
    if not isinstance(bets, Mapping) or not all(isinstance(k, str) for k in bets):
        return error_message("bad_request", 'bet: expected "bets": {field: amount}')
    free_round = message.get("free_round")
    if free_round is not None and not isinstance(free_round, str):
        return error_message("bad_request", 'bet: "free_round" is a reward id from "free_rounds"')
    jackpot = message.get("jackpot", False)
    if not isinstance(jackpot, bool):
        return error_message("bad_request", 'bet: "jackpot" is true (add the jackpot bet) or false')
    return BetIntent(bets, free_round, jackpot)


async def check_before_forwarding(client_id: str, message: Any, check_bet: BetCheck
                                  ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """On a process that does not own the table: a player's bet checked here, where the player's
    socket is, so that the owner (which every bet of the table reaches) does not do every check.
    -> (the refusal to send the player, None), or (None, what the owner is given as checked:
    ``{"bets", "free"}``), or (None, None) where there is nothing to check (not a bet, no bets,
    not a player's message: the owner answers it)."""
    if client_id == DEALER or not isinstance(message, Mapping) or message.get("type") != "bet":
        return None, None
    bet = read_bet(message)
    if not isinstance(bet, BetIntent):
        return bet, None
    if not bet.bets:
        return None, None
    try:
        bets, free = await check_bet(client_id, bet.bets, bet.free_round, bet.jackpot)
    except DealerPokerError as error:
        return error_reply(error), None
    return None, {"bets": dict(bets), "free": free}


def already_checked(checked: Mapping[str, Any]) -> BetCheck:
    """The owner's ``BetCheck`` for a bet the forwarding process checked: what it found."""
    async def check_bet(*_bet: Any) -> tuple[Mapping[str, Any], Mapping[str, Any] | None]:
        return checked["bets"], checked["free"]

    return check_bet


async def handle(runner: TableRunner, client_id: str, message: Any, check_bet: BetCheck) -> dict[str, Any]:
    """One client message -> the reply for that client (a studio's dealer: ``DEALER``)."""
    if not isinstance(message, Mapping) or not isinstance(message.get("type"), str):
        return error_message("bad_request", 'expected a JSON object with a "type"')
    if client_id == DEALER:
        return await _dealer_intent(runner, message)
    return await _player_intent(runner, client_id, message, check_bet)


async def _player_intent(runner: TableRunner, player_id: str, message: Mapping[str, Any],
                         check_bet: BetCheck) -> dict[str, Any]:
    kind = message["type"]
    try:
        if kind == "ping":
            return {"type": "pong"}
        if kind == "hello":
            return runner.seat_message(player_id)
        if kind == "state":  # the table as everyone sees it (a newcomer's first view, from the owner)
            return runner.table_message("state")
        if kind == "decision":  # the player's own view of their open decision (the hint's input)
            return runner.decision_message(player_id)
        if kind == "bet":
            bet = read_bet(message)
            if not isinstance(bet, BetIntent):
                return bet
            bets, free = bet.bets, None
            if bets:
                bets, free = await check_bet(player_id, bets, bet.free_round, bet.jackpot)
            return await runner.bet(player_id, bets, free, bet.jackpot)
        if kind == "decide":
            action = message.get("action")
            if not isinstance(action, str):
                return error_message("bad_request", 'decide: expected "action": "bet", "check", "fold"...')
            return await runner.decide(player_id, action)
    except DealerPokerError as error:  # the table's refusals and the rules' (bet limits, funds...)
        return error_reply(error)
    return error_message("bad_request",
                         f"unknown message type {kind!r} (bet, decide, decision, hello, ping, state)")


async def _dealer_intent(runner: TableRunner, message: Mapping[str, Any]) -> dict[str, Any]:
    """One message of a studio's dealer -> the reply (``accepted``, the dealer's view, or an error).

    A refused card, void or misdeal changes nothing; its error names the problem.
    """
    kind = message["type"]
    try:
        if kind == "ping":
            return {"type": "pong"}
        if kind == "hello":
            return runner.dealer_message("state")
        if kind == "card":
            source = message.get("source", "reader")
            if not isinstance(source, str) or not CARD_SOURCE.match(source):
                return error_message("bad_request", 'card: "source" is 1-24 lowercase letters, digits or "-"')
            return await runner.report_card(message.get("card"), source)
        if kind == "void":
            return await runner.void_card()
        if kind == "misdeal":
            reason = message.get("reason", "called by the dealer")
            if not isinstance(reason, str) or not 0 < len(reason) <= 200:
                return error_message("bad_request", 'misdeal: "reason" is a text of 1-200 characters')
            return await runner.misdeal(reason)
    except DealerPokerError as error:  # the table's refusals (not expected, a duplicate card...)
        return error_reply(error)
    return error_message("bad_request", f"unknown message type {kind!r} (card, void, misdeal, hello, ping)")
