"""A player plays in their account's currency (issue 28, item 2): the lobby offers a yen player only
the live tables in yen, the balance at a table is written in the player's currency, and a table in
another currency is refused at once, before any bet (it used to show a euro balance for a yen
account and refuse only the first bet)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.conftest import ManualClock, live_server, table_entry
from tests.support.browser import laptop_page

pytestmark = pytest.mark.browser

YEN_TABLE = table_entry("texas-yen", "texas-bonus", 'currency = "JPY"')


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("yen") / "web.db"
    with live_server(f"sqlite:///{database}", clock=ManualClock(), betting=600, decision=600, pause=600,
                     extra_tables=YEN_TABLE) as (url, _app):
        yield url


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with laptop_page(browser, timeout_ms=60_000) as opened:
        yield opened


def yen(amount: int, language: str) -> str:
    """A yen amount as the page writes it (no decimals; the language's grouping)."""
    grouped = f"{amount:,}"
    return f"{grouped.replace(',', '.')}\u00a0¥" if language == "de" else f"¥{grouped}"


def test_the_lobby_offers_a_yen_player_only_tables_in_yen(base: str, page: Any) -> None:
    page.goto(f"{base}/?lang=en&currency=JPY#/")
    page.locator('[data-table="live-texas-yen"]').wait_for()
    assert page.locator('[data-table="live-texas-fast"]').count() == 0, "a euro table offered to a yen player"
    assert page.locator('[data-table="live-casino-fast"]').count() == 0
    assert "¥" in page.locator('[data-table="live-texas-yen"]').inner_text()

    page.locator('[data-table="live-texas-yen"]').click()
    page.wait_for_function("window.dealerpokerLive?.el && window.dealerpokerLive.betting()")
    balance = page.evaluate("window.dealerpokerLive.balance")
    assert page.locator("#balance").inner_text() == yen(balance, "en")
    page.locator('.spot[data-field="ante"]').click()  # the tray's first chip: a bet the table takes
    page.wait_for_function("window.dealerpokerLive.seat?.bets?.ante > 0")
    assert page.locator("#message").get_attribute("data-kind") != "error"


def test_a_euro_player_is_not_offered_the_yen_table(base: str, page: Any) -> None:
    page.goto(f"{base}/?lang=en#/")
    page.locator('[data-table="live-texas-fast"]').wait_for()
    assert page.locator('[data-table="live-texas-yen"]').count() == 0


def test_a_yen_player_at_a_euro_table_is_told_at_once_with_a_yen_balance(base: str, page: Any) -> None:
    page.goto(f"{base}/live.html?lang=de&currency=JPY#/texas-fast")
    page.wait_for_function("window.dealerpokerLive?.el && window.dealerpokerLive.state.phase !== 'unknown'")
    message = page.locator("#message")
    # Before any bet: the refusal names both currencies and says where to go.
    assert message.get_attribute("data-kind") == "error"
    assert message.inner_text() == ("Dieser Tisch spielt in EUR; Ihr Guthaben ist in JPY. "
                                    "Wählen Sie in der Lobby einen Tisch in JPY.")
    balance = page.evaluate("window.dealerpokerLive.balance")
    assert page.locator("#balance").inner_text() == yen(balance, "de"), "the balance in the player's yen"
    assert "€" not in page.locator("#balance").inner_text()
    page.wait_for_function("window.dealerpokerLive.betting()")
    page.locator('.spot[data-field="ante"]').click()
    assert page.evaluate("window.dealerpokerLive.seat") is None, "no bet was sent"
    assert message.inner_text().startswith("Dieser Tisch spielt in EUR"), "the refusal stays in view"
