"""Issue 16, item 13 in Chromium: the minimum shown on each field can be made with the table's chips,
and no chip below the table's minimum is offered, for both games, solo and live, in euros and in
yen (whose chips and limits are their own, see ``server/currencies.toml``).

The minimum is read as the player reads it (the field's Min sign) and the chips as the tray offers
them; the minimum is then placed with those chips, click by click, and the field must hold it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from tests.live.conftest import ManualClock, live_server, table_entry
from tests.live.studio_pages import page_maker

pytestmark = pytest.mark.browser

# The yen tables as an operator may write them: one with the currency's own limits, one that
# raises the Ante's minimum above the smallest chip.
YEN_TABLES = (table_entry("texas-yen", "texas-bonus", 'currency = "JPY"')
              + table_entry("casino-yen", "casino-holdem",
                            'currency = "JPY"\n[tables.limits]\nante = {{ min = 500, max = 50000 }}'))
LIVE_TABLE = {("texas-bonus", "EUR"): "texas-fast", ("casino-holdem", "EUR"): "casino-fast",
              ("texas-bonus", "JPY"): "texas-yen", ("casino-holdem", "JPY"): "casino-yen"}
CASES = [pytest.param(mode, game, currency, id=f"{mode}-{game}-{currency}")
         for mode in ("solo", "live") for game in ("texas-bonus", "casino-holdem")
         for currency in ("EUR", "JPY")]


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = tmp_path_factory.mktemp("item13") / "web.db"
    with live_server(f"sqlite:///{database}", clock=ManualClock(), betting=600, decision=600, pause=600,
                     extra_tables=YEN_TABLES) as (url, _app):
        yield url


@pytest.fixture
def pages(browser: Any) -> Iterator[Any]:
    with page_maker(browser) as make:
        yield make


def fewest_chips(amount: int, chips: list[int]) -> list[int] | None:
    """The fewest chips that add up to ``amount`` (None: no sum of the chips makes it); written
    here again, apart from the page's and the server's own."""
    best: list[list[int] | None] = [[]] + [None] * amount
    for total in range(1, amount + 1):
        for chip in chips:
            rest = best[total - chip] if chip <= total else None
            if rest is not None and (best[total] is None or len(rest) + 1 < len(best[total] or [])):
                best[total] = [*rest, chip]
    return best[amount]


def minor_units(text: str) -> int:
    """'Min 1.00 €' -> 100, 'Min ¥500' -> 500: every decimal of EUR and JPY is written."""
    return int(re.sub(r"\D", "", text))


def shown_minimums(page: Any) -> dict[str, int]:
    rows = page.locator("#spots [data-minmax]").evaluate_all(
        "signs => signs.map(s => [s.dataset.minmax, s.querySelector('.minmax__row').textContent])")
    return {name: minor_units(text) for name, text in rows}


def offered_chips(page: Any) -> list[int]:
    chips: list[int] = page.locator("#chip-tray .chip").evaluate_all(
        "cs => cs.map(c => Number(c.dataset.chip))")
    return chips


@pytest.mark.parametrize(("mode", "game", "currency"), CASES)
def test_the_minimum_shown_on_each_field_can_be_made_with_the_chips(
        base: str, pages: Any, mode: str, game: str, currency: str) -> None:
    (page,) = pages()
    if mode == "solo":
        page.goto(f"{base}/?currency={currency}#/play/{game}")
        page.wait_for_function("window.dealerpokerTable && !window.dealerpokerTable.busy"
                               " && document.querySelector('#balance').textContent !== '—'")
        token = page.evaluate("sessionStorage.getItem('dealerpoker.token')")
        games = httpx.get(f"{base}/api/games", params={"currency": currency},
                          headers={"Authorization": f"Bearer {token}"}, timeout=60).json()["games"]
        described = next(g for g in games if g["id"] == game)
        limits = {f["name"]: f["min"] for f in described["fields"]}
        chips = described["chips"]
    else:
        table = LIVE_TABLE[game, currency]
        page.goto(f"{base}/live.html?currency={currency}#/{table}")
        page.wait_for_function("window.dealerpokerLive?.el && window.dealerpokerLive.betting()")
        config = page.evaluate("window.dealerpokerLive.config")
        assert (config["currency"] or "EUR") == currency  # None: the server's default currency
        limits = {name: limit["min"] for name, limit in config["limits"].items()}
        chips = config["chips"]
    symbol = "€" if currency == "EUR" else "¥"
    assert symbol in page.locator("#balance").inner_text(), "the player plays in the table's currency"

    shown = shown_minimums(page)
    offered = offered_chips(page)
    assert shown == limits, "each field shows its minimum in the player's currency"
    assert offered == chips, "the tray offers the table's chips"
    assert min(offered) >= min(shown.values()), f"a chip below the table minimum: {offered} vs {shown}"
    if currency == "JPY":
        assert offered != [100, 500, 1000, 2500, 10000, 50000], "yen tables have the yen chips"

    for name, minimum in shown.items():  # in the page's order: a field that needs another follows it
        stack = fewest_chips(minimum, offered)
        assert stack is not None, f"{name}: the minimum {minimum} is no sum of the chips {offered}"
        for chip in stack:
            page.locator(f"#chip-tray .chip[data-chip='{chip}']").click()
            spot = page.locator(f".spot[data-field='{name}']")
            box = spot.bounding_box()
            assert box, name
            spot.click(position={"x": box["width"] / 2, "y": box["height"] * 0.12})  # not on the stack
        held = ("window.dealerpokerTable.pending[f]" if mode == "solo"
                else "window.dealerpokerLive.seat?.bets?.[f]")  # live: as the server took it
        page.wait_for_function(f"([f, a]) => {held} === a", arg=[name, minimum])
        drawn = page.locator(f"#spots [data-spot='{name}'] .stack").get_attribute("data-amount")
        assert drawn == str(minimum)
    message = page.locator("#message")
    assert message.get_attribute("data-kind") != "error", message.inner_text()
