"""Many parallel requests from one player: never an overdraft, never a double debit."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import httpx

from dealerpoker.server import Settings, create_app, ledger


async def _storm(database_url: str) -> None:
    app = create_app(Settings(database_url=database_url, starting_balance=1_000), rng=random.Random(3))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            session = (await client.post("/api/session")).json()
            headers = {"Authorization": f"Bearer {session['token']}"}

            async def open_round(key: str | None, ante: int = 300) -> httpx.Response:
                body: dict[str, Any] = {"game": "casino-holdem", "bets": {"ante": ante}}
                if key is not None:
                    body["idempotency_key"] = key
                return await client.post("/api/rounds", json=body, headers=headers)

            # 1,000 covers three antes of 300: of 20 parallel rounds exactly 3 may open.
            responses = await asyncio.gather(*(open_round(None) for _ in range(20)))
            statuses = sorted(r.status_code for r in responses)
            assert statuses == [200] * 3 + [409] * 17, statuses
            assert all(r.json()["error"] == "insufficient_funds" for r in responses if r.status_code == 409)
            balance = (await client.get("/api/balance", headers=headers)).json()["balance"]
            assert balance == 100

            # The same action (the same step) sent 10 times at once on each open round: one step,
            # one debit at most; the copies answer the round as that step left it.
            opened = [r.json()["id"] for r in responses if r.status_code == 200]
            acts = await asyncio.gather(*(
                client.post(f"/api/rounds/{round_id}/actions", json={"action": "fold", "step": 1},
                            headers=headers)
                for round_id in opened for _ in range(10)))
            assert [r.status_code for r in acts] == [200] * len(acts), [r.text for r in acts]
            assert {len(r.json()["steps"]) for r in acts} == {2}

            # Parallel retries of one idempotency key make one round (the 100 left covers one ante).
            repeats = await asyncio.gather(*(open_round("same-key", 100) for _ in range(10)))
            assert [r.status_code for r in repeats] == [200] * 10
            ids = {r.json()["id"] for r in repeats}
            assert len(ids) == 1
            listing = await client.get("/api/rounds", params={"limit": 100}, headers=headers)
            rounds = listing.json()["rounds"]
            assert len(rounds) == len(opened) + len(ids)
            balance = (await client.get("/api/balance", headers=headers)).json()["balance"]
            assert balance >= 0
            assert balance == 1_000 - sum(r["total_stake"] for r in rounds) + sum(
                r["total_returned"] for r in rounds)

        report = await ledger.audit_database(app.state.services.database)
        assert report.ok, report


def test_parallel_requests_of_one_player_are_serialised(database_url: str) -> None:
    asyncio.run(_storm(database_url))
