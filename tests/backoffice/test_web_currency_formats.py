"""Every back-office page writes amounts with the exponent of the server's currency formats (the
sign-in's ``currencies``), not a list of its own: a server whose currencies file makes BTC, a
code ISO 4217 does not list, its default currency with 8 decimals shows 100 minor units as
0.00000100 BTC on the rounds search, a round's page, a player's page and adjustments, the
reports and the live monitor."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from dealerpoker.cli._analysis_cache import DiskCache

from .web_support import BackOffice, back_office, signed_in

pytestmark = pytest.mark.browser

CURRENCIES = """
default = "BTC"
[currencies.BTC]
exponent = 8
symbol = "BTC"
[currencies.EUR]
"""
BTC = re.compile(r"^-?\d[\d,]*\.\d{8} BTC$")  # 8 decimals, as the currencies file says


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    currencies = tmp_path_factory.mktemp("bofmt") / "currencies.toml"
    currencies.write_text(CURRENCIES, "utf-8")
    with back_office(tmp_path_factory, {"fmt-admin": "admin"}, live=True, currencies_file=str(currencies),
                     analysis_cache=DiskCache()) as started:
        yield started


def amounts(page: Any, selector: str) -> list[str]:
    """The texts of the page's amounts under ``selector`` (every one written in BTC)."""
    texts = (text.strip() for text in page.locator(selector).all_inner_texts())
    found = [text for text in texts if text.endswith(" BTC")]
    assert found, f"no amount under {selector}"
    return found


def test_every_page_writes_a_configured_currencys_decimals(browser: Any, office: BackOffice) -> None:
    player, rounds = office.play(2)
    with office.api("fmt-admin") as http:
        me = http.get("/admin/api/session").json()
        round_row = http.get("/admin/api/rounds", params={"player": player}).json()["rounds"][-1]
    assert {"code": "BTC", "exponent": 8, "symbol": "BTC"} in me["currencies"]
    with signed_in(browser, office, "fmt-admin") as page:
        page.wait_for_selector("#page-monitor article[data-table='texas-fast'] p.stakes")
        assert page.locator("article[data-table='texas-fast'] p.stakes").inner_text() \
            == "Stakes this round: 0.00000000 BTC"

        page.goto(f"{office.url}/admin/#rounds")
        page.fill("input[name=player]", player)
        page.click("#page-rounds form.filters button[type=submit]")
        page.wait_for_function("document.querySelectorAll('#page-rounds tbody tr').length === 2")
        shown = amounts(page, "#page-rounds td.num")
        assert all(BTC.match(text) for text in shown), shown
        staked = f"0.{round_row['total_stake']:08d} BTC"
        assert staked in shown, (staked, shown)

        page.click(f"a[href='#round/{rounds[0]}']")
        page.wait_for_selector("#page-round h3")
        shown = amounts(page, "#page-round td.num")
        assert all(BTC.match(text) for text in shown) and "-0.00000100 BTC" in shown, shown

        page.goto(f"{office.url}/admin/#player/{player}")
        page.wait_for_selector("form.adjust")
        page.fill("form.adjust input[name=amount]", "2500")
        page.fill("form.adjust input[name=reason]", "goodwill")
        page.click("form.adjust button[type=submit]")
        page.wait_for_selector("#page-player td.num:has-text('0.00002500 BTC')")
        balance = page.locator("#page-player p.balance").inner_text()
        assert re.search(r"\d\.\d{8} BTC", balance), balance
        shown = amounts(page, "#page-player td.num")
        assert all(BTC.match(text) for text in shown), shown

        page.click("nav a[href='#reports']")
        page.wait_for_selector("#page-reports table.grid tbody tr")
        shown = amounts(page, "#page-reports td.num")
        assert all(BTC.match(text) for text in shown), shown
