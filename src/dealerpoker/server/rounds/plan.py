"""A solo round's opening and next step, computed from what was read (no I/O).

The engine plays the step in memory; the result says what the store writes (the round's
columns), what money moves (ledger transfers, txids ``{round}:{player}:{moment}``) and the
player's view, rendered once the balance after the step is known. Nothing of it is shown to
anyone before the store committed it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealerpoker.errors import IllegalActionError
from dealerpoker.games import AnyGame, RoundState, payments
from dealerpoker.server.dealing import Deal
from dealerpoker.server.ledger import BETS, BONUS, SETTLE, Transfer, txid
from dealerpoker.server.wallet import Movement

ViewJSON = str
"""A round view as JSON text, exactly as stored with the round and sent to the player."""


@dataclass(frozen=True, slots=True)
class Planned:
    """A round's opening or next step as the engine played it, before it is written."""

    round_id: str
    steps: int
    """How many steps the round has after this one."""
    state: RoundState
    columns: dict[str, Any]
    """The round's columns this writes (all of them for an opening), but its view."""
    money: Movement
    view: dict[str, Any]
    """The player's view after the step, but the balance."""

    def render(self, balance: int) -> ViewJSON:
        """The stored (and answered) view, showing the player's balance after the step."""
        view = dict(self.view)
        view["balance"] = balance
        return json.dumps(view, separators=(",", ":"))


def opening(
    game: AnyGame, *, round_id: str, player_id: str, currency: str, bets: dict[str, int], deal: Deal,
    client_seed: str, nonce: int, idempotency_key: str | None, rules_fingerprint: str, at: str,
) -> Planned:
    """A new round from its bets and deal: the opening stakes, and a Bonus the hole cards won
    (``games.payments``)."""
    state = game.start(bets, deal.deck)
    stake, returned = payments.opening_stake(bets), payments.paid_at_deal(state)
    view = game.view(state)
    steps = [{"step": 0, "action": "deal", "source": "player", "at": at, "stake": stake,
              "returned": returned}]
    record = {
        "id": round_id, "player_id": player_id, "game": game.name, "rules_version": game.rules.rules_version,
        "rules_fingerprint": rules_fingerprint, "idempotency_key": idempotency_key, "bets": json.dumps(bets),
        "deck": json.dumps(list(deal.deck)), "server_seed": deal.server_seed, "commitment": deal.commitment,
        "client_seed": client_seed, "nonce": nonce, "algorithm": deal.algorithm, "total_stake": stake,
        "total_returned": returned, "created_at": at, "currency": currency,
    }
    columns, full = _progress(state, steps, view, record, at)
    transfers = (Transfer(txid(round_id, player_id, BETS), player_id, -stake, BETS),
                 Transfer(txid(round_id, player_id, BONUS), player_id, returned, BONUS))
    money = Movement(round_id, game.name, currency, transfers, at)
    return Planned(round_id, 1, state, {**record, **columns}, money, full)


def next_step(
    game: AnyGame, row: Mapping[str, Any], action: str, *, source: str, at: str,
    state: RoundState | None = None,
) -> Planned:
    """The next step of an open round (``row``: its columns; ``state``: its engine state if known).

    Raises ``IllegalActionError`` if the round is settled or the action is not allowed.
    """
    round_id, player_id = str(row["id"]), str(row["player_id"])
    if row["status"] != "open":
        raise IllegalActionError(f"{action!r} is not allowed: round {round_id} is settled",
                                 phase=row["phase"], action=str(action))
    steps: list[dict[str, Any]] = json.loads(row["steps"])
    state = state or replay(game, row)
    point = state.phase
    state, paid = payments.decide(game, state, action, already_returned=int(row["total_returned"]))
    stake, returned = paid.stake, paid.returned
    view = game.view(state)
    transfers = [Transfer(txid(round_id, player_id, point), player_id, -stake, point)]
    if state.settlement is not None:
        transfers.append(Transfer(txid(round_id, player_id, SETTLE), player_id, returned, SETTLE))
    steps.append({"step": len(steps), "action": state.actions[-1], "source": source, "at": at,
                  "stake": stake, "returned": returned})
    record = {**row, "total_stake": row["total_stake"] + stake,
              "total_returned": row["total_returned"] + returned}
    columns, full = _progress(state, steps, view, record, at)
    columns.update(total_stake=record["total_stake"], total_returned=record["total_returned"])
    money = Movement(round_id, game.name, str(row["currency"]), tuple(transfers), at,
                     closes_round=state.settlement is not None)
    return Planned(round_id, len(steps), state, columns, money, full)


def replay(game: AnyGame, row: Mapping[str, Any]) -> RoundState:
    """The round's engine state from its record: the bets, the deck order and every action."""
    state = game.start(json.loads(row["bets"]), json.loads(row["deck"]))
    for step in json.loads(row["steps"])[1:]:
        state, _ = game.apply(state, step["action"])
    return state


def decision_point(game: AnyGame, step: int) -> str:
    """The phase at which a round's ``step``-th step (1 = the first decision) was decided: each
    decision phase takes one action, in order (so its stake's txid is known from the record)."""
    return list(game.steps)[step - 1]


def _progress(
    state: RoundState, steps: list[dict[str, Any]], view: dict[str, Any], record: Mapping[str, Any], at: str,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The columns that change with each step, and the stored view but its balance."""
    settled = state.settlement is not None
    full = {
        "id": record["id"],
        "status": "settled" if settled else "open",
        "currency": record["currency"],
        **view,
        "steps": steps,
        "balance": None,
        "total_stake": record["total_stake"],
        "total_returned": record["total_returned"],
        "created_at": record["created_at"],
        "updated_at": at,
        "fairness": {
            "algorithm": record["algorithm"],
            "commitment": record["commitment"],
            "client_seed": record["client_seed"],
            "nonce": record["nonce"],
            # The seed gives away the whole deck: revealed only once the round is settled.
            "server_seed": record["server_seed"] if settled else None,
        },
    }
    columns = {"status": full["status"], "phase": state.phase, "steps": json.dumps(steps), "updated_at": at,
               "settled_at": at if settled else None}
    return columns, full
