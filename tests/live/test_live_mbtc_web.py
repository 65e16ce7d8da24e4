"""Issue 17: a live table in a configured currency ISO does not list (mBTC, 5 decimals in the
shipped ``server/currencies.toml``) shows its amounts with that currency's decimals. The welcome
carries the currency as ``GET /api/games`` gives it ({code, exponent, symbol}); browsers know only
ISO exponents, so without it the page wrote mBTC with 2 decimals.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import ManualClock, live_server, table_entry

pytestmark = pytest.mark.browser

MBTC_TABLE = table_entry("texas-mbtc", "texas-bonus", 'currency = "mBTC"')


def test_an_mbtc_live_table_writes_five_decimals(browser: Any, tmp_path: Path) -> None:
    errors: list[str] = []
    welcomes: list[dict[str, Any]] = []

    def frame(payload: str | bytes) -> None:
        message = json.loads(payload)
        if message.get("type") == "welcome":
            welcomes.append(message)

    with live_server(f"sqlite:///{tmp_path}/web.db", clock=ManualClock(), betting=600, decision=600,
                     pause=600, extra_tables=MBTC_TABLE) as (base, _app):
        games = httpx.get(f"{base}/api/games", params={"currency": "mBTC"}, timeout=60).json()
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("websocket", lambda ws: ws.on("framereceived", frame))
        page.set_default_timeout(60_000)
        page.goto(f"{base}/live.html?lang=en&currency=mBTC#/texas-mbtc")
        page.wait_for_function("window.dealerpokerLive?.el && window.dealerpokerLive.betting()")

        # The same currency object the solo page formats with, from the one place that builds it.
        assert welcomes and welcomes[0]["currency"] == "mBTC"
        assert welcomes[0]["currency_format"] == games["currency"] == {
            "code": "mBTC", "exponent": 5, "symbol": "mBTC"}
        # 10,000,000 minor units = 100 mBTC; the Ante's minimum 10,000 = 0.1 mBTC: five decimals.
        balance = page.evaluate("window.dealerpokerLive.balance")
        assert balance == 10_000_000
        assert page.locator("#balance").inner_text() == "100.00000\u00a0mBTC"
        ante = page.locator("[data-minmax='ante']").inner_text()
        assert "0.10000\u00a0mBTC" in ante, ante
        context.close()
    assert not errors, errors


def test_the_lobby_writes_an_mbtc_tables_stakes_with_five_decimals(browser: Any, tmp_path: Path) -> None:
    """The lobby offers a player the live tables in their currency (issue 28, item 2): an mBTC player
    sees the mBTC table, its stakes written with ``GET /api/tables``'s ``currency_format`` (the
    browser alone would write mBTC, a code ISO does not list, with 2 decimals), and no euro table."""
    errors: list[str] = []
    with live_server(f"sqlite:///{tmp_path}/web.db", clock=ManualClock(), betting=600, decision=600,
                     pause=600, extra_tables=MBTC_TABLE) as (base, _app):
        token = httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
        tables = httpx.get(f"{base}/api/tables", headers={"Authorization": f"Bearer {token}"}, timeout=60)
        formats = {table["id"]: table["currency_format"] for table in tables.json()["tables"]}
        assert formats["texas-mbtc"] == {"code": "mBTC", "exponent": 5, "symbol": "mBTC"}
        assert formats["texas-fast"] == {"code": "EUR", "exponent": 2, "symbol": None}
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.set_default_timeout(60_000)
        page.goto(f"{base}/?lang=en&currency=mBTC#/")
        mbtc = page.locator('[data-table="live-texas-mbtc"]')
        mbtc.wait_for()
        assert "0.10000\u00a0mBTC" in mbtc.inner_text(), mbtc.inner_text()  # the Ante's minimum, 10,000
        assert page.locator('[data-table="live-texas-fast"]').count() == 0, "a euro table for an mBTC player"
        context.close()
    assert not errors, errors
