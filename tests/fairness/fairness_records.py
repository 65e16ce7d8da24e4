"""Round records made the way the server makes them: play with the engine, record what happened."""

from __future__ import annotations

import datetime
from collections.abc import Sequence
from typing import Any

from dealerpoker.cards.encoding import index_to_card
from dealerpoker.fairness import ALGORITHM_VERSION, commitment, deck_order
from dealerpoker.fairness.record import build_record
from dealerpoker.games import get_game

SERVER_SEED = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
T0 = datetime.datetime(2026, 11, 29, 12, 0, 0, tzinfo=datetime.UTC)


def at(seconds: int) -> str:
    return (T0 + datetime.timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def play_record(
    game_name: str = "texas-bonus",
    bets: dict[str, int] | None = None,
    actions: Sequence[str] = ("bet", "bet", "check"),
    *,
    server_seed: str = SERVER_SEED,
    client_seed: str = "player-chosen",
    nonce: int = 3,
    sources: Sequence[str] | None = None,
    round_id: str = "r-1",
    player_id: str = "p-1",
) -> dict[str, Any]:
    game = get_game(game_name)
    bets = bets if bets is not None else {"ante": 100, game.opening_fields[1]: 100}
    deck = deck_order(server_seed, client_seed, nonce)
    state = game.start(bets, deck)
    opening = sum(state.bets.values())
    ledger = [
        {"txid": f"{round_id}:0", "account": player_id, "amount": -opening, "memo": "stake", "at": at(0)},
        {"txid": f"{round_id}:0", "account": "house", "amount": opening, "memo": "stake", "at": at(0)},
    ]
    steps = []
    for k, action in enumerate(actions, start=1):
        stake = game.stake_for(state, action)
        txid = f"{round_id}:{k}"
        steps.append(
            {
                "step": k,
                "action": action,
                "source": (sources or ["player"] * len(actions))[k - 1],
                "at": at(10 * k),
                "stake": stake,
                "txid": txid,
            }
        )
        if stake:
            ledger += [
                {"txid": txid, "account": player_id, "amount": -stake, "memo": action, "at": at(10 * k)},
                {"txid": txid, "account": "house", "amount": stake, "memo": action, "at": at(10 * k)},
            ]
        state, _ = game.apply(state, action)
    assert state.settlement is not None
    returned = state.settlement.total_returned
    end = 10 * len(actions) + 1
    if returned:
        ledger += [
            {
                "txid": f"{round_id}:settle",
                "account": "house",
                "amount": -returned,
                "memo": "return",
                "at": at(end),
            },
            {
                "txid": f"{round_id}:settle",
                "account": player_id,
                "amount": returned,
                "memo": "return",
                "at": at(end),
            },
        ]
    return build_record(
        round_id=round_id,
        game=game_name,
        rules_version=game.rules.rules_version,
        rules_fingerprint=game.rules.fingerprint(),
        rules=game.rules.to_dict(),
        mode="solo",
        table_id=None,
        player_id=player_id,
        status="settled",
        opened_at=at(0),
        settled_at=at(end),
        fairness={
            "algorithm": ALGORITHM_VERSION,
            "commitment": commitment(server_seed),
            "server_seed": server_seed,
            "client_seed": client_seed,
            "nonce": nonce,
        },
        deck=deck,
        bets=bets,
        dealt={
            "player": [str(index_to_card(c)) for c in state.player_cards],
            "dealer": [str(index_to_card(c)) for c in state.dealer_cards],
            "board": [str(index_to_card(c)) for c in state.board],
        },
        actions=steps,
        ledger=ledger,
        settlement=state.settlement.to_dict(),
    )
