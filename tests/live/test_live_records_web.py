"""A live round's audit record in the browser: the live page's MY ROUNDS list, and the VERIFY THIS
ROUND button under a settled round's result, open the player's part of the round as a replay,
and its VERIFY THIS DEAL check (WebCrypto) confirms it.

Debian's Chromium driven by Playwright (the ``browser`` fixture of tests/conftest.py); skips,
saying why, without it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import LONG_SESSIONS, LivePlayer, ManualClock, live_server
from tests.live.records_support import play_players

pytestmark = pytest.mark.browser


def test_my_rounds_replays_a_live_round_and_verifies_it_in_the_browser(
        browser: Any, tmp_path: Path) -> None:
    # Playwright's sync API runs an event loop in this thread: play the round in another one.
    with ThreadPoolExecutor(1) as pool:
        url, players, _clock, _table = pool.submit(play_players, tmp_path).result()
    errors: list[str] = []
    with live_server(url, **LONG_SESSIONS) as (base, _app):  # the players' tokens were made days ago
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(f"sessionStorage.setItem('dealerpoker.token', '{players['alice'].token}')")
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(15_000)
        page.goto(f"{base}/live.html#/texas-fast")
        page.locator("#live-history-button").click()
        panel = page.locator("#live-history-panel")
        panel.locator("[data-live-round='audit-t/1']").click()
        replay = panel.locator(".replay")
        replay.wait_for()
        assert "Your cards" in replay.inner_text() and "(timer: timeout" in replay.inner_text()
        replay.locator("[data-verify='audit-t/1']").click()
        page.wait_for_function(
            "document.querySelector(\"[data-verify-result='audit-t/1']\")?.dataset.ok !== undefined")
        result = replay.locator("[data-verify-result='audit-t/1']")
        assert result.get_attribute("data-ok") == "true", result.inner_text()
        assert "showdown reveal" in result.inner_text()
        assert "signature: signed by the server's key" in result.inner_text()  # issue 15 defect 9
        assert "published rules: the rules are the ones the server publishes" in result.inner_text()
        context.close()
    assert errors == []


def test_a_round_played_in_the_page_verifies_from_its_result(browser: Any, tmp_path: Path) -> None:
    """Casino Hold'em on the table's clock (a ``ManualClock``): bet, raise, then VERIFY THIS ROUND
    under the result opens the round's record and the browser check confirms it."""
    errors: list[str] = []
    clock = ManualClock()
    with live_server(f"sqlite:///{tmp_path}/web.db", clock=clock, betting=600, decision=600,
                     pause=600) as (base, _app):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(60_000)  # generous: the machine may be heavily loaded
        page.goto(f"{base}/live.html#/casino-fast")
        observer = LivePlayer(base, "casino-fast")  # sees the deadlines the test moves the clock to
        try:
            window = observer.until(lambda m: m["type"] == "table" and m["phase"] == "betting")
            page.wait_for_function("document.querySelector('.table')?.dataset.phase === 'betting'")
            page.locator("#chip-tray .chip").nth(0).click()
            page.locator('.spot[data-field="ante"]').click()
            page.wait_for_function("window.dealerpokerLive.seat?.bets?.ante > 0")
            clock.reach(window)
            page.locator('#decisions [data-action="raise"]').click()  # the only seat: the point closes
            page.locator("#result").wait_for(state="visible")
        finally:
            observer.close()
        round_id = page.evaluate("window.dealerpokerLive.state.round")
        page.locator("#verify-round").click()
        replay = page.locator("#live-history-panel .replay")
        replay.wait_for()
        assert "(you, " in replay.inner_text()  # the raise, with its time
        replay.locator(f"[data-verify='{round_id}']").click()
        page.wait_for_function(
            f"document.querySelector(\"[data-verify-result='{round_id}']\")?.dataset.ok !== undefined")
        result = replay.locator(f"[data-verify-result='{round_id}']")
        assert result.get_attribute("data-ok") == "true", result.inner_text()
        # MY ROUNDS lists it too.
        page.locator("#live-history-panel").get_by_text("◀ ALL ROUNDS").click()
        page.locator(f"[data-live-round='{round_id}']").wait_for()
        context.close()
    assert errors == []
