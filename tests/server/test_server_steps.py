"""A round step's writes: all or nothing, never on rows that changed since they were read.

A step is written only if the round (and the balance, where the store read it) are still as
the server read (or last wrote) them, else it is read and computed again (``rounds.service``).
These tests change the rows behind a server's back (a second server on the same database) and
check that every answer and the ledger stay exact, on SQLite and PostgreSQL. A write from stale
reads is tested store by store in ``test_round_stores.py``.
"""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from conftest import Player, TestClient, audit, make_client
from dealerpoker.server import Settings, create_app, ledger
from dealerpoker.server.schema import ledger_entries


@pytest.fixture
def shared_url(database_url: str, tmp_path: Path) -> str:
    """A database two servers can share (a file for SQLite)."""
    return f"sqlite:///{tmp_path / 'casino.db'}" if database_url == "sqlite://" else database_url


class SamePlayer(Player):
    """A player already created, through another server."""

    def __init__(self, client: TestClient, other: Player) -> None:
        self.client, self.id, self.token = client, other.id, other.token
        self.start_balance, self.headers = other.start_balance, other.headers


def on_loop(client: TestClient, body: Any) -> Any:
    """Run ``body(services)`` on the app's own event loop."""
    services = client.app.state.services

    async def run() -> Any:
        return await body(services)

    assert client.portal is not None
    return client.portal.call(run)


def entries_of(client: TestClient, round_id: str) -> list[tuple[str, str, int]]:
    async def body(services: Any) -> list[tuple[str, str, int]]:
        async with services.database.transaction() as connection:
            rows = await connection.execute(
                select(ledger_entries.c.txid, ledger_entries.c.account_id, ledger_entries.c.amount)
                .where(ledger_entries.c.round_id == round_id).order_by(ledger_entries.c.id))
            return [(str(txid), str(account), int(amount)) for txid, account, amount in rows]

    result: list[tuple[str, str, int]] = on_loop(client, body)
    return result


def check_view(player: Player, view: dict[str, Any], steps: int) -> None:
    assert len(view["steps"]) == steps
    assert view["balance"] == player.balance()
    assert player.get(f"/api/rounds/{view['id']}").json() == view


def test_two_servers_acting_for_one_player_stay_exact(shared_url: str) -> None:
    with make_client(shared_url, seed=1) as one, make_client(shared_url, seed=2) as two:
        alice = Player(one)
        same = SamePlayer(two, alice)
        view = alice.open("texas-bonus", ante=100, bonus=100)
        check_view(alice, view, 1)
        # The other server moves the balance and then the round on: the first server's idea of
        # both is stale for its next step, which must still be right.
        other = same.open("casino-holdem", ante=100)
        check_view(same, other, 1)
        view = alice.act(view["id"], "bet")
        check_view(alice, view, 2)
        view = same.act(view["id"], "check")
        check_view(same, view, 3)
        view = alice.act(view["id"], "check")
        check_view(alice, view, 4)
        assert view["status"] == "settled"
        other = alice.act(other["id"], "raise")
        check_view(alice, other, 2)
        # A new client seed set through the other server is the one the next deal uses.
        assert same.client.request("PUT", "/api/fairness/client-seed", json={"client_seed": "fresh"},
                                   headers=same.headers).status_code == 200
        third = alice.open("casino-holdem", ante=100)
        assert third["fairness"]["client_seed"] == "fresh"
        assert third["fairness"]["nonce"] == 2
        check_view(alice, third, 1)
        third = same.act(third["id"], "fold")
        check_view(same, third, 2)
        for round_id in (view["id"], other["id"], third["id"]):
            entries = entries_of(one, round_id)
            txids = [txid for txid, _, _ in entries]
            assert all(txids.count(txid) == 2 for txid in txids)
            final = alice.get(f"/api/rounds/{round_id}").json()
            assert sum(amount for _, account, amount in entries if account == alice.id) \
                == final["total_returned"] - final["total_stake"]
        assert alice.balance() == alice.start_balance - sum(
            r["total_stake"] - r["total_returned"] for r in alice.get("/api/rounds").json()["rounds"])
        assert audit(one).ok


def test_a_step_short_of_funds_mid_round_changes_nothing(database_url: str) -> None:
    with make_client(database_url, starting_balance=250) as client:
        player = Player(client)
        view = player.open("texas-bonus", ante=100)  # 150 left; the flop bet needs 200
        before = entries_of(client, view["id"])
        for _read in range(2):  # again once the server has read the round afresh
            refused = player.post(f"/api/rounds/{view['id']}/actions", {"action": "bet", "step": 1})
            assert refused.status_code == 409, refused.text
            assert refused.json()["error"] == "insufficient_funds" and refused.json()["balance"] == 150
            assert player.get(f"/api/rounds/{view['id']}").json() == view
            assert entries_of(client, view["id"]) == before
            assert player.balance() == 150
        folded = player.post(f"/api/rounds/{view['id']}/actions", {"action": "fold", "step": 1})
        assert folded.status_code == 200, folded.text
        check_view(player, folded.json(), 2)
        # A retry of the step answers the same and posts nothing.
        entries = entries_of(client, view["id"])
        retry = player.post(f"/api/rounds/{view['id']}/actions", {"action": "fold", "step": 1})
        assert retry.status_code == 200 and retry.json() == folded.json()
        assert entries_of(client, view["id"]) == entries
        assert player.balance() == 150
        assert audit(client).ok


async def _storm_two_servers(database_url: str) -> None:
    apps = [create_app(Settings(database_url=database_url, starting_balance=1_000), rng=random.Random(seed))
            for seed in (3, 4)]
    async with apps[0].router.lifespan_context(apps[0]), apps[1].router.lifespan_context(apps[1]):
        clients = [httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test")
                   for app in apps]
        try:
            session = (await clients[0].post("/api/session")).json()
            headers = {"Authorization": f"Bearer {session['token']}"}
            # Two antes of 300 fit in 1,000 after a first round: of 20 parallel deals through
            # two servers exactly three open.
            deal = {"game": "casino-holdem", "bets": {"ante": 300}}
            first = await clients[1].post("/api/rounds", json=deal, headers=headers)
            assert first.status_code == 200
            responses = await asyncio.gather(*(
                clients[i % 2].post("/api/rounds", json=deal, headers=headers) for i in range(20)))
            assert sorted(r.status_code for r in responses) == [200] * 2 + [409] * 18
            opened = [first.json()["id"]] + [r.json()["id"] for r in responses if r.status_code == 200]
            acts = await asyncio.gather(*(
                clients[i % 2].post(f"/api/rounds/{round_id}/actions", json={"action": "fold", "step": 1},
                                    headers=headers)
                for round_id in opened for i in range(10)))
            assert [r.status_code for r in acts] == [200] * len(acts), [r.text for r in acts]
            assert {len(r.json()["steps"]) for r in acts} == {2}  # one step each, whichever server
            balance = (await clients[0].get("/api/balance", headers=headers)).json()["balance"]
            assert balance == 1_000 - 900
        finally:
            for client in clients:
                await client.aclose()
        async with apps[0].state.services.database.transaction() as connection:
            report = await ledger.audit(connection)
            assert report.ok, report


def test_parallel_requests_through_two_servers_are_serialised(shared_url: str) -> None:
    asyncio.run(_storm_two_servers(shared_url))
