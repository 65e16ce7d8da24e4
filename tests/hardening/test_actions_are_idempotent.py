"""Defect 7: an action without ``step`` was not idempotent: 50 concurrent identical ``bet``
requests bet three streets. ``step`` is now required on every action, so a retried (or
duplicated) request is the same step and never moves money twice."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx
import pytest

from dealerpoker.server import Settings, create_app

COPIES = 50


@asynccontextmanager
async def _client(database_url: str, fast_path: bool) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(Settings(database_url=database_url,
                              without=frozenset() if fast_path else frozenset({"fast_path"})))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield http


async def _balance(http: httpx.AsyncClient, auth: dict[str, str]) -> int:
    found: int = (await http.get("/api/balance", headers=auth)).json()["balance"]
    return found


@pytest.mark.parametrize("fast_path", [True, False], ids=["fast-path", "fastapi"])
def test_fifty_concurrent_identical_bets_move_money_once(database_url: str, fast_path: bool) -> None:
    async def scenario() -> None:
        async with _client(database_url, fast_path) as http:
            session = (await http.post("/api/session", json={})).json()
            auth = {"Authorization": f"Bearer {session['token']}"}
            opened = await http.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 100}},
                                     headers=auth)
            view: dict[str, Any] = opened.json()
            assert view["legal_actions"] == ["bet", "fold"], view
            before = await _balance(http, auth)
            path = f"/api/rounds/{view['id']}/actions"

            # The defect: the same request without a step, 50 times at once. Each is refused
            # (422 naming ``step``), so nothing moves (it bet three streets).
            missing = await asyncio.gather(*(http.post(path, json={"action": "bet"}, headers=auth)
                                             for _ in range(COPIES)))
            assert {answer.status_code for answer in missing} == {422}, {a.text for a in missing}
            assert all("step" in answer.json()["message"] for answer in missing)
            assert await _balance(http, auth) == before
            unchanged = (await http.get(f"/api/rounds/{view['id']}", headers=auth)).json()
            assert len(unchanged["steps"]) == 1, unchanged["steps"]

            # With its step, the same 50 requests are one action: one moves money, the others
            # are retries of a step that happened and answer the round as it is.
            answers = await asyncio.gather(*(http.post(path, json={"action": "bet", "step": 1}, headers=auth)
                                             for _ in range(COPIES)))
            assert {answer.status_code for answer in answers} == {200}, {a.text for a in answers}
            views = [answer.json() for answer in answers]
            assert {len(v["steps"]) for v in views} == {2}, "every answer shows the one step taken"
            final = (await http.get(f"/api/rounds/{view['id']}", headers=auth)).json()
            assert [step["action"] for step in final["steps"][1:]] == ["bet"], final["steps"]
            stake = view["action_stakes"]["bet"]
            assert final["phase"] == "flop" and final["total_stake"] == 100 + stake, final
            assert await _balance(http, auth) == before - view["action_stakes"]["bet"]

    asyncio.run(scenario())
