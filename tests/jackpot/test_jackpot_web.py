"""The jackpot in the browser: the lobby's and the table's ticker show the pool in the player's
currency and follow it over /ws/jackpot as bets contribute and a win reseeds it; the table's
JACKPOT switch adds the bet to the deal, and the status line says what it won."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from tests.jackpot.support import first_five_is, jackpot_file, rules_of
from tests.support.browser import chromium
from tests.support.dealing import Dealer
from tests.support.servers import serving

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.server import Settings, create_app

pytestmark = pytest.mark.browser


def pool_shown(page: Any, text: str) -> None:
    """Wait until the ticker shows ``text`` (e.g. "1,000.20"), whatever currency sign beside it."""
    page.wait_for_function("(text) => (document.querySelector('#jackpot-pool')?.textContent ?? '')"
                           ".includes(text) && !document.querySelector('#jackpot-meter').hidden", arg=text)


def test_the_ticker_follows_the_pool_and_the_switch_places_the_bet(tmp_path: Path) -> None:
    """Its own Chromium, ended with the test: a module's browser keeps Playwright's event loop
    running into the teardown of the session's fixtures (a PostgreSQL database dropped with
    ``asyncio.run``) when this test is a worker's last."""
    path = jackpot_file(tmp_path)  # seed 1,000.00 EUR; a four of a kind wins the pool
    rules, dealer = rules_of(path), Dealer()
    app = create_app(Settings(database_url=f"sqlite:///{tmp_path}/web.db", jackpot_file=path),
                     rng=dealer)
    errors: list[str] = []
    with chromium() as browser, serving(app) as server:
        context = browser.new_context(viewport={"width": 1366, "height": 768})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(30_000)
        page.goto(server.url + "/")
        pool_shown(page, "1,000.00")  # the lobby's ticker

        page.goto(f"{server.url}/#/play/texas-bonus")
        page.wait_for_selector(".chip-tray .chip")
        page.wait_for_function("window.dealerpokerTable && !window.dealerpokerTable.busy")
        switch = page.locator("#jackpot-switch")
        switch.wait_for(state="visible")
        assert re.search(r"1\.00", switch.inner_text())  # the stake in the player's currency
        switch.click()
        assert switch.get_attribute("aria-pressed") == "true"
        token = page.evaluate("sessionStorage.getItem('dealerpoker.token')")
        dealer.solo(server.url, token, where=first_five_is(rules, HandCategory.FOUR_OF_A_KIND).where)
        page.locator(".chip-tray .chip").first.click()
        spot = page.locator(".spot[data-field='ante']")
        box = spot.bounding_box()
        assert box
        spot.click(position={"x": box["width"] / 2, "y": box["height"] * 0.12})
        page.locator("#deal").click()
        page.wait_for_selector("#controls [data-action='fold']:not([disabled])")
        pool_shown(page, "1,000.20")  # the bet's contribution, ticked over the WebSocket
        page.locator("#controls [data-action='fold']").click()
        page.wait_for_function("document.querySelector('#message').textContent.includes('JACKPOT')")
        assert "1,000.20" in page.locator("#message").inner_text()
        pool_shown(page, "1,000.00")  # won, and seeded again
        context.close()
    assert errors == []
