"""A support agent's tasks in the browser, without training (issue 33): a casino calls about its
player by the casino's own id alone; the agent finds the round and reads who won, with what, and
what each bet returned, with the cards shown as cards."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest
from sqlalchemy import insert
from tests.support.dealing import Dealer

from dealerpoker.server.db import Database
from dealerpoker.server.schema import operator_players

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser

CASINO_ID = "casino-player-7"


def belongs_to_casino(office: BackOffice, player_id: str) -> None:
    """The account is the casino 'acme''s player CASINO_ID (a demo-mode launch: play money here)."""

    async def write() -> None:
        database = Database(office.database_url)
        try:
            async with database.transaction() as connection:
                at = "2026-01-01T00:00:00.000000Z"
                await connection.execute(insert(operator_players).values(
                    operator_id="acme", external_id=CASINO_ID, currency="EUR", mode="demo",
                    player_id=player_id, token=None, created_at=at, updated_at=at))
        finally:
            await database.dispose()

    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, write()).result()


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[BackOffice, dict[str, Any]]]:
    dealer = Dealer()
    with back_office(tmp_path_factory, {"sup-agent": "support"}, rng=dealer) as started:
        with httpx.Client(base_url=started.url, timeout=60) as http:
            session = http.post("/api/session", json={}).json()
            headers = {"Authorization": f"Bearer {session['token']}"}
            belongs_to_casino(started, session["player_id"])
            dealer.solo(http, session["token"], player="As Ad", board="A?")  # three aces at least
            view = http.post("/api/rounds", headers=headers,
                             json={"game": "casino-holdem", "bets": {"ante": 500, "aa": 200}}).json()
            view = http.post(f"/api/rounds/{view['id']}/actions", headers=headers,
                             json={"action": "raise", "step": len(view["steps"])}).json()
            assert view["status"] == "settled", view
            record = http.get(f"/api/rounds/{view['id']}/record", headers=headers).json()
        yield started, record


def test_a_support_agent_finds_a_casino_players_round_by_the_casinos_id_and_reads_it(
        browser: Any, office: tuple[BackOffice, dict[str, Any]]) -> None:
    started, record = office
    settlement = record["settlement"]
    with signed_in(browser, started, "sup-agent") as page:
        page.click("nav a[href='#rounds']")
        page.fill("input[name=q]", CASINO_ID)  # the casino's id alone: no operator filled in
        page.click("form.search button[type=submit]")
        page.wait_for_selector(f".matches td:has-text('{CASINO_ID}')")
        page.click(f"a[href='#round/{record['round_id']}']")
        page.wait_for_selector(".outcome")
        outcome = page.locator(".outcome").inner_text()
        assert "The player won" in outcome and settlement["outcome"] == "win"
        assert settlement["player_hand"]["name"] in outcome and "Aces" in settlement["player_hand"]["name"]
        assert settlement["dealer_hand"]["name"] in outcome
        shown = [page.locator(".outcome .player-hand .playing-card").nth(i).get_attribute("data-card")
                 for i in range(2)]
        assert shown == ["As", "Ad"]  # the cards as cards
        for line in settlement["lines"]:  # each bet's stake, result and return, in euros
            row = page.locator(f"tr.bet[data-field='{line['field']}']").inner_text()
            assert f"{line['stake'] / 100:,.2f}" in row and f"{line['returned'] / 100:,.2f}" in row
            assert ("won" if line["net"] > 0 else "lost" if line["net"] < 0 else "returned") in row
        total = page.locator("tr.total").first.inner_text()
        assert f"{settlement['total_returned'] / 100:,.2f}" in total
        assert "null" not in page.locator("#app").inner_text()
