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
from dealerpoker.server.jackpot import Jackpot, PoolChange, PoolEvent
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
    pool: PoolChange | None = None
    """What the step does to the jackpot's pool (written in the same unit of work)."""

    def render(self, balance: int) -> ViewJSON:
        """The stored (and answered) view, showing the player's balance after the step."""
        view = dict(self.view)
        view["balance"] = balance
        return json.dumps(view, separators=(",", ":"))


def opening(
    game: AnyGame, *, round_id: str, player_id: str, currency: str, bets: dict[str, int], deal: Deal,
    client_seed: str, nonce: int, idempotency_key: str | None, rules_fingerprint: str, at: str,
    jurisdiction: str | None = None, promo: Mapping[str, Any] | None = None,
    jackpot: Jackpot | None = None, pool: int | None = None,
) -> Planned:
    """A new round from its bets and deal: the opening stakes, and a Bonus the hole cards won
    (``games.payments``). ``promo``: a free round (``server.promotions``), whose ante
    (``free_ante``) the operator pays: the player is debited the rest. With ``jackpot``, a jackpot
    bet too (``pool``: the pool as read, when the deal wins it)."""
    state = game.start(bets, deal.deck)
    stake = payments.opening_stake(bets) - free_ante(promo)
    returned = payments.paid_at_deal(state)
    view = game.view(state)
    steps: list[dict[str, Any]] = [{"step": 0, "action": "deal", "source": "player", "at": at, "stake": stake,
                                    "returned": returned}]
    side: list[Transfer] = []
    change: PoolChange | None = None
    if jackpot is not None:
        taken, contribution, entry = jackpot.opening(round_id, player_id, currency)
        side.append(taken)
        steps[0]["jackpot_stake"] = -taken.amount
        view["jackpot"], paid, change = _settle_jackpot(
            jackpot, state, entry, round_id, player_id, pool=pool, events=(contribution,))
        steps[0]["jackpot"] = view["jackpot"]
        side += paid
        if paid:
            steps[0]["jackpot_returned"] = paid[0].amount
        stake, returned = stake - taken.amount, returned + sum(t.amount for t in paid)
    record = {
        "id": round_id, "player_id": player_id, "game": game.name, "rules_version": game.rules.rules_version,
        "rules_fingerprint": rules_fingerprint, "idempotency_key": idempotency_key, "bets": json.dumps(bets),
        "deck": json.dumps(list(deal.deck)), "server_seed": deal.server_seed, "commitment": deal.commitment,
        "client_seed": client_seed, "nonce": nonce, "algorithm": deal.algorithm, "total_stake": stake,
        "total_returned": returned, "created_at": at, "currency": currency,
    }
    if jurisdiction is not None:  # the profile it is played under (revision 0015)
        record["jurisdiction"] = jurisdiction
    if promo is not None:  # a free round (revision 0023)
        record["promo"] = json.dumps(promo, separators=(",", ":"))
        record["promo_reward"] = promo["reward"]
    columns, full = _progress(state, steps, view, record, at)
    game_stake, game_returned = steps[0]["stake"], steps[0]["returned"]
    transfers = (Transfer(txid(round_id, player_id, BETS), player_id, -game_stake, BETS),
                 Transfer(txid(round_id, player_id, BONUS), player_id, game_returned, BONUS), *side)
    money = Movement(round_id, game.name, currency, transfers, at)
    return Planned(round_id, 1, state, {**record, **columns}, money, full, change)


def _settle_jackpot(
    jackpot: Jackpot, state: RoundState, entry: dict[str, Any], round_id: str, player_id: str, *,
    pool: int | None, events: tuple[PoolEvent, ...] = (),
) -> tuple[dict[str, Any], list[Transfer], PoolChange | None]:
    """The jackpot bet's entry once the player's first five cards are dealt (the flop: at the
    deal in Casino Hold'em, after the first decision in Texas Hold'em Bonus, whatever the player
    decided), its award's transfer and the pool's events (``events``: this step's contribution)."""
    if entry.get("status") != "open" or (state.board_count < 3 and not state.is_settled):
        return entry, [], PoolChange(events) if events else None
    added = sum(event.delta for event in events)
    settled = jackpot.settle(entry, state.deck, round_id, player_id,
                             pool=None if pool is None else pool + added)
    found = list(events) + list(settled.events)
    if settled.wins_pool:
        found.append(jackpot.reseed(round_id))
    paid = [settled.award] if settled.award is not None else []
    return settled.view, paid, PoolChange(tuple(found), expected=pool if settled.wins_pool else None)


def jackpot_of(steps: list[dict[str, Any]]) -> dict[str, Any] | None:
    """A round's jackpot bet as its steps last recorded it (the opening's, then the settling
    step's); None: the round has none."""
    return next((step["jackpot"] for step in reversed(steps) if "jackpot" in step), None)


def open_jackpot(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """A stored round's jackpot bet while it waits for the first five cards (None: none, or settled)."""
    stored = str(row["steps"])
    if '"jackpot"' not in stored:
        return None
    entry = jackpot_of(json.loads(stored))
    return entry if entry is not None and entry.get("status") == "open" else None


def next_step(
    game: AnyGame, row: Mapping[str, Any], action: str, *, source: str, at: str,
    state: RoundState | None = None, jackpot: Jackpot | None = None, pool: int | None = None,
) -> Planned:
    """The next step of an open round (``row``: its columns; ``state``: its engine state if known;
    ``jackpot``: the deployment's, which settles the round's jackpot bet once its first five cards
    are dealt, ``pool`` the pool as read when they win it).

    Raises ``IllegalActionError`` if the round is settled or the action is not allowed.
    """
    round_id, player_id = str(row["id"]), str(row["player_id"])
    if row["status"] != "open":
        raise IllegalActionError(f"{action!r} is not allowed: round {round_id} is settled",
                                 phase=row["phase"], action=str(action))
    steps: list[dict[str, Any]] = json.loads(row["steps"])
    state = state or replay(game, row)
    point = state.phase
    # What the game staked and returned so far: the round's totals less a jackpot bet's (its own).
    game_staked = int(row["total_stake"]) - sum(step.get("jackpot_stake", 0) for step in steps)
    game_returned = int(row["total_returned"]) - sum(step.get("jackpot_returned", 0) for step in steps)
    state, paid = payments.decide(game, state, action, already_returned=game_returned)
    stake, returned = paid.stake, paid.returned
    promo = json.loads(row["promo"]) if row.get("promo") else None
    forfeited = 0
    if promo is not None and state.settlement is not None:
        returned, forfeited = payments.capped(returned, promo.get("cap_left"),
                                              own_stake=game_staked + stake, already_returned=game_returned)
    view = game.view(state)
    transfers = [Transfer(txid(round_id, player_id, point), player_id, -stake, point)]
    if state.settlement is not None:
        transfers.append(Transfer(txid(round_id, player_id, SETTLE), player_id, returned, SETTLE))
    steps.append({"step": len(steps), "action": state.actions[-1], "source": source, "at": at,
                  "stake": stake, "returned": returned})
    if forfeited:
        steps[-1]["forfeited"] = forfeited
    change: PoolChange | None = None
    entry = jackpot_of(steps)
    if entry is not None:
        if jackpot is not None and entry.get("status") == "open":
            entry, awarded, change = _settle_jackpot(jackpot, state, entry, round_id, player_id, pool=pool)
            if entry.get("status") != "open":
                steps[-1]["jackpot"] = entry
            if awarded:
                transfers += awarded
                steps[-1]["jackpot_returned"] = awarded[0].amount
                returned += awarded[0].amount
        view["jackpot"] = entry
    record = {**row, "total_stake": row["total_stake"] + stake,
              "total_returned": row["total_returned"] + returned}
    columns, full = _progress(state, steps, view, record, at)
    columns.update(total_stake=record["total_stake"], total_returned=record["total_returned"])
    wallet_promo = None if promo is None or state.settlement is None else {
        "campaign_id": promo["campaign"], "campaign_external_id": promo.get("campaign_external_id"),
        "reward_id": promo["reward"], "free_ante": promo["free_ante"], "forfeited": forfeited}
    money = Movement(round_id, game.name, str(row["currency"]), tuple(transfers), at,
                     closes_round=state.settlement is not None, promo=wallet_promo)
    return Planned(round_id, len(steps), state, columns, money, full, change)


def free_ante(promo: Mapping[str, Any] | None) -> int:
    """The ante the operator pays in a free round (0: the player pays every stake)."""
    return 0 if promo is None else int(promo["free_ante"])


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
