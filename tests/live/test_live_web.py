"""The live table in a real browser: two pages, two players, one table, the same hand on the clock.

Debian's Chromium driven by Playwright (never a downloaded browser); skips, saying why, without it.
The table clock is a ``ManualClock`` with long timers: a timer ends when the test moves the clock
to the deadline an observer's WebSocket reports (the pages show the countdown meanwhile).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server
from tests.support.browser import ARTIFACTS

pytestmark = pytest.mark.browser


def _player_page(browser: Any, errors: list[str], balance_reads: list[str] | None = None) -> Any:
    context = browser.new_context(viewport={"width": 1280, "height": 900})  # its own session
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    if balance_reads is not None:
        page.on("request", lambda request: balance_reads.append(request.url)
                if request.url.endswith("/api/balance") else None)
    page.set_default_timeout(60_000)  # generous: the machine may be heavily loaded
    return page


def _balance(base: str, page: Any) -> int:
    token = page.evaluate("sessionStorage.getItem('dealerpoker.token')")
    response = httpx.get(f"{base}/api/balance", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    value: int = response.json()["balance"]
    return value


def _shows_ledger_balance(base: str, page: Any) -> None:
    """The page's BALANCE meter comes to show the ledger's balance (read now, with nothing moving)."""
    ledger = f"{_balance(base, page) / 100:.2f}"
    shown = "document.querySelector('#balance').textContent.replace(/[,€]/g, '')"
    page.wait_for_function(f"ledger => {shown} === ledger", arg=ledger)


def _shows_label(page: Any, label: str) -> None:
    page.wait_for_function("label => document.querySelector('#live-phase').textContent === label", arg=label)


def test_two_browser_players_play_the_same_hand_on_the_clock(browser: Any, tmp_path: Path) -> None:
    errors: list[str] = []
    clock = ManualClock()
    url = f"sqlite:///{tmp_path}/web.db"
    with live_server(url, clock=clock, betting=600, decision=600, pause=600) as (base, _app):
        balance_reads: list[str] = []  # the pages' own GET /api/balance
        one, two = _player_page(browser, errors, balance_reads), _player_page(browser, errors, balance_reads)
        # The lobby lists the live tables with their player counts.
        one.goto(f"{base}/#/")
        entry = one.locator('[data-table="live-texas-fast"]')
        entry.wait_for()
        assert "players" in entry.inner_text()
        entry.click()
        one.wait_for_url("**/live.html#/texas-fast")
        two.goto(f"{base}/live.html#/texas-fast")
        observer = LivePlayer(base, "texas-fast")  # sees the deadlines the test moves the clock to
        try:
            # The pages may have opened the window before the observer came: the welcome state or the
            # window's opening, whichever comes first, has its deadline.
            window = observer.until(lambda m: m["type"] == "table" and m["phase"] == "betting")
            for page in (one, two):
                page.wait_for_function("document.querySelector('.table')?.dataset.phase === 'betting'"
                                       " && window.dealerpokerLive.deadlineLeft() > 0", timeout=60_000)
            assert one.locator("#countdown").inner_text().strip().isdigit()
            start = {"one": _balance(base, one), "two": _balance(base, two)}
            reads_before_round = len(balance_reads)
            for page, chip in ((one, 0), (two, 1)):
                page.locator("#chip-tray .chip").nth(chip).click()
                page.locator('.spot[data-field="ante"]').click()
            one.locator('.spot[data-field="bonus"]').click()
            one.wait_for_function("window.dealerpokerLive.seat?.bets?.bonus === 100")
            two.wait_for_function("window.dealerpokerLive.seat?.bets?.ante === 500")
            clock.reach(window)
            for page in (one, two):
                page.locator("#no-more-bets").wait_for(state="visible", timeout=60_000)
            # Same shared hand in both pages; the dealer's cards face down.
            one.locator('#decisions [data-action="bet"]').wait_for()
            cards_one = one.locator("#player-cards .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
            cards_two = two.locator("#player-cards .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
            assert cards_one == cards_two and "back" not in cards_one
            hidden = one.locator("#dealer-cards .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
            assert hidden == ["back"] * 2
            # The Bonus is settled on the hole cards at the deal: one sees its result before deciding.
            assert one.locator("#bonus-result").inner_text().startswith("Bonus")
            assert two.locator("#bonus-result").is_hidden()
            # The stakes were debited (and a won Bonus paid) at the deal: the meters follow the ledger.
            for page in (one, two):
                _shows_ledger_balance(base, page)
                _shows_label(page, "Decide: Flop bet")  # named by the bet decided, not the street
            assert _balance(base, two) == start["two"] - 500
            assert one.locator("#clear").is_hidden()  # bets are closed: nothing to clear
            one.locator('#decisions [data-action="bet"]').click()  # two lets the timer decide: fold
            one.wait_for_function("window.dealerpokerLive.seat?.pending === 'bet'")
            # one lets the timer check on the flop and turn; each decision is labelled by its bet.
            for point, next_bet in (("preflop", "Turn bet"), ("flop", "River bet"), ("turn", None)):
                clock.reach(observer.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p))
                if next_bet is not None:
                    _shows_label(one, f"Decide: {next_bet}")
                    _shows_ledger_balance(base, one)  # the Flop bet was debited as the flop was shown
            for page in (one, two):
                page.locator("#result").wait_for(state="visible", timeout=60_000)
        finally:
            observer.close()
        assert two.locator("#result-headline").inner_text() == "You folded"
        assert two.locator("#result-net").get_attribute("data-net") == "-500"
        net_one = int(one.locator("#result-net").get_attribute("data-net") or "0")
        dealer = one.locator("#dealer-cards .card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        assert "back" not in dealer
        assert two.locator("#dealer-cards .card").evaluate_all("cs => cs.map(c => c.dataset.card)") == dealer
        # The balance shown is the ledger's.
        one.wait_for_function(f"document.querySelector('#balance').textContent.replace(/[,€]/g, '') == "
                              f"'{(start['one'] + net_one) / 100:.2f}'")
        assert _balance(base, one) == start["one"] + net_one
        assert _balance(base, two) == start["two"] - 500
        _shows_ledger_balance(base, two)
        # Every balance shown since the bets came with the seat messages: no page asked for it.
        assert balance_reads[reads_before_round:] == []
        ARTIFACTS.mkdir(exist_ok=True)
        one.screenshot(path=str(ARTIFACTS / "live-texas-settled.png"), full_page=True)
        for page in (one, two):
            page.context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
