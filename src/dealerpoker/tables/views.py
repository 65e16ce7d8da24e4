"""Who sees what of a live round: everyone at the table, each player, the studio's dealer.

Hidden cards never leave the server before their reveal: the public view and the seat views
show the cards ``LiveRound.shown`` counts (the dealer's two at the showdown, the board of the
current street), never the rest of the deck; only the dealer's own view (a studio table's card
reader and console, who dealt them) lists every card reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dealerpoker.cards.encoding import index_to_card, texts_from_indices
from dealerpoker.games.base import place_of
from dealerpoker.games.settlement import hand_so_far
from dealerpoker.tables import studio
from dealerpoker.tables.config import TableConfig
from dealerpoker.tables.table import LiveGame, LiveRound, Phase, seat_credit


def public_view(rnd: LiveRound, table: TableConfig) -> dict[str, Any]:
    """What everyone at the table may see: never a card before its reveal (``rnd.shown``)."""
    view: dict[str, Any] = {
        "table": table.id,
        "round": rnd.round_id,
        "number": rnd.number,
        "phase": str(rnd.phase),
        "point": rnd.point,
        "deadline": rnd.deadline,
        "seated": len(rnd.seats),
        "decided": len(rnd.at_point()) - rnd.undecided,
        "player_cards": [],
        "board": [],
        "dealer_cards": [],
        "dealing": table.dealing,
    }
    if rnd.deck is not None:
        deck, (player, board, dealer) = rnd.deck, rnd.shown
        view["player_cards"] = texts_from_indices(deck[0:player])
        view["board"] = texts_from_indices(deck[4:4 + board])
        view["dealer_cards"] = texts_from_indices(deck[2:2 + dealer])
        view["player_hand"] = hand_so_far([*deck[0:player], *deck[4:4 + board]])
    if table.dealing == "studio":
        # What is being dealt (a place and a count: never a card), and why a round was cancelled.
        want = studio.expected(rnd)
        view["expect"] = None if want is None else {k: want[k] for k in ("cards", "to", "street")}
        view["misdeal"] = None if rnd.misdeal is None else rnd.misdeal.to_dict()
    return view


def seat_view(rnd: LiveRound, game: LiveGame, player_id: str) -> dict[str, Any] | None:
    """One player's own part of the round (None when not seated); settlement after the reveal."""
    seat = rnd.seats.get(player_id)
    if seat is None:
        return None
    view: dict[str, Any] = {
        "bets": dict(seat.bets),
        # Every field staked so far, the decisions' too (texas: flop, turn, river; casino: raise).
        "fields": dict(seat.state.bets) if seat.state is not None else dict(seat.bets),
        "steps": [step.to_dict() for step in seat.steps],
        "pending": seat.pending,
        "legal_actions": [],
        "action_stakes": {},
        "total_stake": seat.total_stake,
        # texas-bonus: the Bonus result on the hole cards, known (and paid) at the deal; "pending"
        # while the both-A-A line waits for the dealer's cards (it tells nothing about them).
        "bonus": seat.state.bonus.to_dict() if getattr(seat.state, "bonus", None) is not None else None,
        "settlement": None,
        "cancelled": seat.cancelled is not None,
        # A free round: its reward and the ante the operator pays (not in ``total_stake``).
        "free_round": None if seat.free is None else {
            "reward": seat.free["reward"], "campaign": seat.free["campaign"], "free_ante": seat.free_ante},
        # The jackpot side bet: its stake, then (settled with the round) its cards, hand and award.
        "jackpot": None if seat.jackpot is None else dict(seat.jackpot),
    }
    if rnd.phase is Phase.DECISION and seat.state.phase == rnd.point and seat.pending is None:
        actions = game.legal_actions(seat.state)
        view["legal_actions"] = list(actions)
        view["action_stakes"] = {a: game.stake_for(seat.state, a) for a in actions}
    if rnd.phase in (Phase.SHOWDOWN, Phase.PAUSE) and seat.result is not None:
        view["settlement"] = seat.result.to_dict()
        if seat.free is not None:
            view["credited"], view["forfeited"] = seat_credit(seat)
    return view


def seat_views(rnd: LiveRound, game: LiveGame, players: Iterable[str]) -> dict[str, dict[str, Any] | None]:
    """Each player's ``seat_view``, computed once for the seats that played alike: the same
    engine state (``table.SharedStates``), bets, steps and decision make the same view, and
    those seats are given the same dict (read-only). A free round's, a jackpot bet's or a
    cancelled seat's view names what is theirs alone and is computed for the seat."""
    alike: dict[tuple[Any, ...], dict[str, Any] | None] = {}
    views: dict[str, dict[str, Any] | None] = {}
    for player in players:
        seat = rnd.seats.get(player)
        if seat is None or seat.free is not None or seat.jackpot is not None or seat.cancelled is not None:
            views[player] = seat_view(rnd, game, player)
            continue
        # ``id``: the round holds the state throughout; the steps as the view shows them (no time).
        key = (id(seat.state), tuple(seat.bets.items()), seat.pending,
               tuple((step.point, step.action, step.source, step.stake) for step in seat.steps))
        view = alike.get(key)
        if view is None:
            view = alike[key] = seat_view(rnd, game, player)
        views[player] = view
    return views


def dealer_view(rnd: LiveRound | None, table: TableConfig) -> dict[str, Any]:
    """What the dealer's console and card reader see: every card reported this round (the
    dealer's own included), what is expected next, the stakes in play. Never sent to players."""
    view: dict[str, Any] = {"table": table.id, "round": None, "number": None, "phase": "idle", "point": None,
                            "deadline": None, "seated": 0, "stakes": {}, "expect": None, "reports": [],
                            "can_void": False, "can_misdeal": False, "misdeal": None}
    if rnd is None:
        return view
    stakes: dict[str, int] = {}
    for seat in rnd.seats.values():
        fields = dict(seat.state.bets) if seat.state is not None else dict(seat.bets)
        for name, amount in fields.items():
            stakes[name] = stakes.get(name, 0) + int(amount)
    reports = [{"card": str(index_to_card(report.card)), "to": place_of(report.position),
                "position": report.position, "at": report.at, "source": report.source,
                "voided": report.voided_at is not None}
               for report in rnd.reports]
    view.update(round=rnd.round_id, number=rnd.number, phase=str(rnd.phase), point=rnd.point,
                deadline=rnd.deadline, seated=len(rnd.seats), stakes=stakes, expect=studio.expected(rnd),
                reports=reports, can_void=studio.can_void(rnd),
                can_misdeal=rnd.phase in studio.MISDEAL_PHASES,
                misdeal=None if rnd.misdeal is None else rnd.misdeal.to_dict())
    return view


def round_summary(record: Mapping[str, Any]) -> dict[str, Any]:
    """An ended round in the dealer's list of last rounds (from its stored record): how it ended
    and every card dealt in it."""
    deck = texts_from_indices(record.get("deck") or ())
    return {"round": f"{record['table']}/{record['number']}", "number": record["number"],
            "status": "misdeal" if record.get("misdeal") else "settled",
            "player": deck[0:2], "dealer": deck[2:4], "board": deck[4:9]}


def decision_view(rnd: LiveRound | None, table: TableConfig, game: LiveGame,
                  player_id: str) -> dict[str, Any]:
    """A player's open decision as they see it, in the shape of a solo round's view (what the
    strategy hint reads, ``server.hints``): built from the public view and their seat view alone
    (the shared hole cards and the board shown so far, their own bets and steps), so it can hold
    no card before its reveal. ``status`` is "open" only while they have a decision to make."""
    seat = seat_view(rnd, game, player_id) if rnd is not None else None
    public = public_view(rnd, table) if rnd is not None else {}
    actions = seat["legal_actions"] if seat is not None else []
    return {"type": "decision", "round": rnd.round_id if rnd is not None else None, "game": table.game,
            "status": "open" if actions else "closed", "legal_actions": actions,
            "steps": seat["steps"] if seat is not None else [],
            "bets": seat["fields"] if seat is not None else {},
            "player_cards": public.get("player_cards", []), "board": public.get("board", [])}
