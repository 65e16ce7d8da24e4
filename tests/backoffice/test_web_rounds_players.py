"""The rounds and players pages in the browser (issue 18): search, a round's replay and its
one-click verification, a player's page, an admin's adjustment with its reason, and a support
member's refusal (no form, and 403 from the server when the page is bypassed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .web_support import BackOffice, back_office, fetch, signed_in

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    with back_office(tmp_path_factory, {"ann": "admin", "sam": "support", "aud": "auditor"}) as started:
        yield started


def test_the_search_finds_a_players_rounds_and_a_round_verifies(browser: Any, office: BackOffice) -> None:
    player, rounds = office.play(3)
    with signed_in(browser, office, "aud") as page:
        page.click("nav a[href='#rounds']")
        page.fill("input[name=player]", player)
        page.click("#page-rounds form.filters button[type=submit]")
        page.wait_for_function("document.querySelectorAll('#page-rounds tbody tr').length === 3")
        page.click(f"a[href='#round/{rounds[0]}']")
        page.wait_for_selector("#page-round h3")
        assert page.locator("#page-round table.grid").first.locator("tbody tr").count() >= 2  # the replay
        page.click("#page-round .actions button")
        page.wait_for_selector("#page-round p.result.ok")


def test_an_admin_adjusts_a_balance_with_a_reason(browser: Any, office: BackOffice) -> None:
    player, _ = office.play(1)
    with signed_in(browser, office, "ann") as page:
        page.goto(f"{office.url}/admin/#player/{player}")
        page.wait_for_selector("form.adjust")
        page.fill("form.adjust input[name=amount]", "2500")
        page.fill("form.adjust input[name=reason]", "goodwill")
        page.click("form.adjust button[type=submit]")
        page.wait_for_selector(f"#page-player td:has-text('adjustment:{player}:')")
        page.click("nav a[href='#audit']")
        page.wait_for_selector("#page-audit td:has-text('player.adjust')")


def test_a_support_member_gets_no_adjustment_form_and_the_server_says_403(browser: Any,
                                                                         office: BackOffice) -> None:
    player, _ = office.play(1)
    with signed_in(browser, office, "sam") as page:
        page.goto(f"{office.url}/admin/#player/{player}")
        page.wait_for_selector("#page-player p.balance")
        assert page.locator("form.adjust").count() == 0
        adjustment = {"amount": 100, "reason": "sneaky"}
        assert fetch(page, "POST", f"/admin/api/players/{player}/adjustments", adjustment)[0] == 403


def test_a_support_agent_reads_a_players_totals_in_their_currency(browser: Any, office: BackOffice) -> None:
    player, _rounds = office.play(3)  # 3 rounds of 1.00 EUR antes, today
    with signed_in(browser, office, "sam") as page:
        page_of = "(id) => fetch(`/admin/api/players/${id}`).then((r) => r.json())"
        totals = page.evaluate(page_of, player)["totals"]
        page.goto(f"{office.url}/admin/#player/{player}")
        page.wait_for_selector("#page-player table.player-totals")
        for period in ("today", "lifetime"):
            row = page.locator(f"table.player-totals tr[data-period='{period}']").inner_text()
            figures = totals["periods"][period]
            assert figures["rounds"] == 3 and f"\t3\t{figures['staked'] / 100:,.2f} EUR" in row, row
            assert f"{figures['net'] / 100:,.2f} EUR".replace("-", "") in row.replace("-", "")
        assert "Lifetime" in page.locator("table.player-totals").inner_text()
