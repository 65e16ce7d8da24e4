"""Solo rounds, live tables and the verifier move the same money for the same round (hypothesis).

Each example plays a solo round through the API (in-memory SQLite): random bets, a deal drawn
from the player's seeds (a client seed searched so that some deals hold a Bonus hand or aces),
a few of the player's own decisions, then the player walks away and the server completes the
round with the timer's actions (``complete_abandoned``, funds as the balance then stands). The
same bets, deck and decisions then go through the live table's state machine
(``dealerpoker.tables.table``, debits refused where the funds fall short, as the runner's are),
and the round's audit record through the verifier. All three must agree step by step: each
step's action, who chose it, its stake and what it paid. Run with the shipped rules and with
rules whose timer defaults cost a stake and whose Bonus has the both-A-A line.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from tests.server.conftest import FakeClock, Player, TestClient, make_client
from tests.support.dealing import Dealer

from dealerpoker.cards.encoding import rank_of
from dealerpoker.fairness import commitment, deck_order
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games import GAMES, get_game
from dealerpoker.tables import table as core
from dealerpoker.tables.config import TableConfig, parse_tables

START = 2_500  # small enough that the timer's costly defaults are often out of reach
ABANDON_AFTER = 600
COSTLY_RULES = {
    "texas-bonus": '[timeout_actions]\npreflop = "bet"\nflop = "bet"\nturn = "bet"\n'
                   '[bonus_both_aces]\npays = 1000\n',
    "casino-holdem": '[timeout_actions]\nflop = "raise"\n',
}
ACE = 12
DEALS: dict[str, Callable[[Sequence[int]], bool]] = {
    "any": lambda deck: True,
    "a Bonus hand": lambda deck: rank_of(deck[0]) == rank_of(deck[1])
    or {rank_of(deck[0]), rank_of(deck[1])} in ({ACE, 11}, {ACE, 10}, {ACE, 9}),
    "aces": lambda deck: rank_of(deck[0]) == rank_of(deck[1]) == ACE,
}

Server = tuple[TestClient, FakeClock, dict[str, TableConfig], Dealer]


@pytest.fixture(scope="module", params=["shipped rules", "costly timer defaults"])
def server(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    rules_files: dict[str, str] = {}
    if request.param == "costly timer defaults":
        folder: Path = tmp_path_factory.mktemp("rules")
        for game, text in COSTLY_RULES.items():
            (folder / f"{game}.toml").write_text(f'game = "{game}"\n{text}')
            rules_files[game] = str(folder / f"{game}.toml")
    tables = parse_tables("".join(
        f'[[tables]]\nid = "{game}"\ngame = "{game}"\n'
        + (f'rules_file = "{rules_files[game]}"\n' if game in rules_files else "") for game in GAMES))
    clock, dealer = FakeClock(), Dealer()
    with make_client("sqlite://", clock, rng=dealer, starting_balance=START, rules_files=rules_files,
                     abandon_after_seconds=ABANDON_AFTER) as client:
        yield client, clock, {table.game: table for table in tables}, dealer


def rig_the_deal(client: TestClient, player: Player, dealer: Dealer, server_seed: str,
                 wanted: Callable[[Sequence[int]], bool]) -> None:
    """Make the player's next deal one that ``wanted`` accepts, from ``server_seed`` (drawn by the
    example, so that hypothesis replays the same cards: the example's later draws depend on them)
    and a client seed found for it, as a player may choose one."""
    dealer.queue(server_seed)
    fairness = player.get("/api/fairness")  # commits the next server seed: the queued one
    assert fairness.status_code == 200 and fairness.json()["next_commitment"] == commitment(server_seed)
    seeds = (f"agree-{k}" for k in range(100_000))
    client_seed = next(seed for seed in seeds if wanted(deck_order(server_seed, seed, 0)))
    response = client.request("PUT", "/api/fairness/client-seed", json={"client_seed": client_seed},
                              headers=player.headers)
    assert response.status_code == 200, response.text


def live_steps(table: TableConfig, bets: dict[str, int], deck: Sequence[int], decisions: Sequence[str],
               funds: int) -> list[tuple[str, str, int, int]]:
    """The round on a live table, the player deciding ``decisions`` then leaving it to the timer:
    each step's (action, source, stake, returned) as solo rounds store them."""
    game = get_game(table.game, table.rules)
    rnd = core.open_round(table, number=1, now=0.0)
    rnd = core.place_bets(rnd, game, "p", bets, now=1.0)
    rnd = core.close_betting(rnd, now=table.betting_seconds)
    opening = core.opening_stakes(rnd)["p"]
    rnd = core.deal(rnd, game, table, tuple(deck), {"p"}, now=20.0)
    bonus = core.bonus_payouts(rnd).get("p", 0)
    funds += bonus - opening
    steps = [("deal", "player", opening, bonus)]
    pending = list(decisions)
    while rnd.phase is core.Phase.DECISION:
        assert rnd.deadline is not None
        if pending:
            rnd = core.decide(rnd, game, "p", pending.pop(0), now=rnd.deadline - 1)
        plan = core.decision_plan(rnd, game, now=rnd.deadline)
        unpaid = {"p"} if plan.steps["p"].stake > funds else set()  # the runner's debit is refused
        rnd = core.apply_decisions(rnd, game, table, plan, unpaid, now=rnd.deadline)
        step = rnd.seats["p"].steps[-1]
        funds -= step.stake
        steps.append((step.action, "player" if step.source == "player" else "timer", step.stake, 0))
    action, source, stake, _ = steps[-1]
    steps[-1] = (action, source, stake, core.returns(rnd)["p"])
    return steps


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_solo_live_and_the_verifier_move_the_same_money(server: Server, data: st.DataObject) -> None:
    client, clock, tables, dealer = server
    table = tables[data.draw(st.sampled_from(GAMES), label="game")]
    side = "bonus" if table.game == "texas-bonus" else "aa"
    bets = {"ante": data.draw(st.integers(100, 1000) | st.sampled_from([500, 1000]), label="ante")}
    if data.draw(st.booleans(), label="side bet"):
        bets[side] = data.draw(st.integers(100, 1000), label=side)
    player = Player(client)
    deal = data.draw(st.sampled_from(list(DEALS)), label="deal")
    server_seed = f"{data.draw(st.integers(0, 2**64 - 1), label='server seed'):064x}"
    rig_the_deal(client, player, dealer, server_seed, DEALS[deal])
    event(f"{table.game}: {deal}")
    view = player.open(table.game, **bets)
    decisions: list[str] = []
    for _ in range(data.draw(st.integers(0, 3), label="decisions before walking away")):
        affordable = [a for a in view["legal_actions"] if view["action_stakes"][a] <= view["balance"]]
        if view["status"] != "open" or not affordable:
            break
        decisions.append(data.draw(st.sampled_from(affordable), label="decision"))
        view = player.act(view["id"], decisions[-1])
    if view["status"] == "open":
        clock.advance(ABANDON_AFTER + 1)
        assert client.portal is not None
        client.portal.call(client.app.state.services.rounds.complete_abandoned)
        view = player.get(f"/api/rounds/{view['id']}").json()
    assert view["status"] == "settled"
    solo = [(s["action"], s["source"], s["stake"], s["returned"]) for s in view["steps"]]
    event(f"{table.game}: {'a Bonus paid at the deal' if solo[0][3] else 'nothing paid at the deal'}")
    timer = [action for action, source, _, _ in solo if source == "timer"]
    event(f"{table.game}: the timer played {'/'.join(timer) or 'nothing'}")

    record: dict[str, Any] = player.get(f"/api/rounds/{view['id']}/record").json()
    assert [str(f) for f in verify_record(record) if not f.ok] == []
    assert live_steps(table, bets, record["deck"], decisions, START) == solo
    moved = [entry["amount"] for entry in record["ledger"] if entry["account"] == player.id]
    assert sum(moved) == sum(returned - stake for _, _, stake, returned in solo) == view["balance"] - START
