"""A live round's audit record in the browser: the live page's MY ROUNDS list opens the player's
part of the round as a replay, and its VERIFY THIS DEAL check (WebCrypto) confirms it.

Debian's Chromium driven by Playwright (the ``browser`` fixture of tests/conftest.py); skips,
saying why, without it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import live_server
from tests.live.test_records import _play_players

pytestmark = pytest.mark.browser


def test_my_rounds_replays_a_live_round_and_verifies_it_in_the_browser(
        browser: Any, tmp_path: Path) -> None:
    # Playwright's sync API runs an event loop in this thread: play the round in another one.
    with ThreadPoolExecutor(1) as pool:
        url, players, _clock, _table = pool.submit(_play_players, tmp_path).result()
    errors: list[str] = []
    with live_server(url) as (base, _app):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(f"localStorage.setItem('dealerpoker.token', '{players['alice'].token}')")
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
        context.close()
    assert errors == []
