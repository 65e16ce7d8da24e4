"""The jackpot at a live table in the browser (issue 30): the table's JACKPOT switch (its stake in
the table's currency) is on screen and pressable in the betting window at laptop, desktop and
phone sizes (a finger on the phones); pressed, the player's bets carry the jackpot bet, the seat
says it is placed, the balance pays its stake at the deal, and the round's result line says what
it won (the cards are dealt: a full house, a fixed award); REBET repeats it the next round; nothing
overlaps, is cut or is off screen (tests/web/layout_support.py). Where the player's jurisdiction profile
says ``jackpots = false`` (an operator's own Malta profile) nothing of the jackpot shows: not in the
lobby, not at a solo table, not at a live table; the same operator's British player sees it. Each
at the five player screens (tests/support/browser.py PLAYER_SCREENS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.jackpot.support import first_five_is, jackpot_file, rules_of
from tests.live.conftest import CASINO_ALONE, LivePlayer, ManualClock, is_table, live_server
from tests.live.test_live_recall_web import inside
from tests.live.test_promotions_by_jurisdiction import OPERATORS, session
from tests.support.browser import PLAYER_SCREEN_IDS, PLAYER_SCREENS, press
from tests.support.dealing import Dealer
from tests.web.layout_support import layout_problems

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.server.operators.config import parse_operators

pytestmark = pytest.mark.browser

def open_page(browser: Any, url: str, token: str, size: tuple[int, int],
              touch: bool) -> tuple[Any, Any, list[str]]:
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch,
                                  is_mobile=touch)
    context.add_init_script(f"sessionStorage.setItem('dealerpoker.token', '{token}')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(20_000)
    page.goto(url)
    return context, page, errors


@pytest.mark.parametrize(("size", "touch"), PLAYER_SCREENS, ids=PLAYER_SCREEN_IDS)
def test_the_jackpot_switch_places_the_bet_at_a_live_table(browser: Any, tmp_path: Path,
                                                           size: tuple[int, int], touch: bool) -> None:
    clock, dealer, path = ManualClock(), Dealer(), jackpot_file(tmp_path)  # 1.00 EUR; full house 50.00
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock, rng=dealer, tables=CASINO_ALONE,
                     jackpot_file=path) as (base, _app):
        watcher = LivePlayer(base, "casino-fast", currency="EUR")  # the test's eye (the page's player)
        try:
            chip = watcher.until(lambda m: m["type"] == "welcome")["table"]["chips"][0]
            empty = watcher.until(is_table("betting_open"))
            # The next round deals a full house in the first five if the page's one chip is its bet.
            dealer.live("casino-fast", empty["number"] + 1, {watcher.id: {"ante": chip}},
                        where=first_five_is(rules_of(path), HandCategory.FULL_HOUSE).where)
            clock.reach(empty)
            pause = watcher.until(lambda m: m["type"] == "table" and m.get("round") == empty["round"]
                                  and m.get("event") == "no_bets")
            context, page, errors = open_page(browser, f"{base}/live.html#/casino-fast", watcher.token,
                                              size, touch)
            try:
                page.wait_for_selector("#chip-tray .chip")
                clock.reach(pause)
                window = watcher.until(lambda m: m["type"] == "table" and m.get("event") == "betting_open"
                                       and m.get("round") != empty["round"])
                page.wait_for_function("r => document.querySelector('.table')?.dataset.round === r"
                                       " && document.querySelector('.table').dataset.phase === 'betting'",
                                       arg=window["round"])
                switch = page.locator("#jackpot-switch")
                switch.wait_for(state="visible")
                assert switch.inner_text() == "JACKPOT €1.00"  # the stake in the table's currency
                # The pool's ticker: its own socket (/ws/jackpot), which may answer after the switch shows.
                page.wait_for_function("document.querySelector('#jackpot-pool').textContent !== '—'")
                assert page.locator("#jackpot-pool").inner_text() == "€1,000.00"
                inside(page, "#jackpot-switch")
                assert layout_problems(page) == [], size  # nothing overlaps it, no text cut
                before = watcher.balance()
                press(switch, touch)
                assert switch.get_attribute("aria-pressed") == "true"
                press(page.locator("#chip-tray .chip").first, touch)
                press(page.locator('.spot[data-field="ante"]'), touch)
                seat = page.locator("#jackpot-seat")
                seat.wait_for(state="visible")
                assert seat.inner_text() == "Jackpot bet €1.00 placed"
                assert page.evaluate("window.dealerpokerLive.seat.jackpot.status") == "open"
                assert layout_problems(page) == [], size  # with the bet on the seat too
                clock.reach(window)  # the deal: the ante and the jackpot bet's stake are debited
                decision = watcher.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                                         and m.get("event") == "decision")
                assert watcher.balance() == before - chip - 100
                clock.reach(decision)  # the timer folds: the jackpot bet stands on the first five
                page.wait_for_function(
                    "document.querySelector('#message').textContent.includes('Jackpot bet')")
                assert page.locator("#message").inner_text().endswith("Jackpot bet: Full House wins €50.00")
                assert seat.inner_text() == "Jackpot bet: Full House wins €50.00"
                assert watcher.balance() == before - chip - 100 + 5000
                settled = watcher.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                                        and m.get("event") == "settled")
                clock.reach(settled)
                page.wait_for_function("r => document.querySelector('.table')?.dataset.phase === 'betting'"
                                       " && document.querySelector('.table').dataset.round !== r",
                                       arg=window["round"])
                assert switch.get_attribute("aria-pressed") == "true"  # kept for the next rounds
                press(switch, touch)  # off: REBET alone brings it back with the last round's bets
                assert switch.get_attribute("aria-pressed") == "false"
                press(page.locator("#rebet"), touch)
                page.wait_for_function("window.dealerpokerLive.seat?.jackpot?.status === 'open'")
                assert page.evaluate("window.dealerpokerLive.seat.bets") == {"ante": chip}
                assert switch.get_attribute("aria-pressed") == "true"
                assert seat.inner_text() == "Jackpot bet €1.00 placed"
            finally:
                context.close()
        finally:
            watcher.close()
    assert errors == []


@pytest.mark.parametrize(("size", "touch"), PLAYER_SCREENS, ids=PLAYER_SCREEN_IDS)
def test_nothing_of_the_jackpot_shows_where_the_profile_forbids_it(
    browser: Any, tmp_path: Path, size: tuple[int, int], touch: bool
) -> None:
    """The shipped jackpot (offered in EUR and GBP): Malta's player sees no ticker and no switch
    in the lobby, at a solo table and at a live table; Britain's sees them."""
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock(),
                     operators=parse_operators(OPERATORS)) as (base, app):
        for market, currency, shown in (("MT", "EUR", False), ("GB", "GBP", True)):
            found = session(base, app, f"player-{market}", currency=currency, game="casino-holdem",
                            jurisdiction=market)
            context, page, errors = open_page(browser, f"{base}/", found.token, size, touch)
            try:
                verdict = "on" if shown else "off"
                for url, ready in (
                    (f"{base}/", "#balance"),
                    (f"{base}/#/play/casino-holdem", "#chip-tray .chip"),
                    (f"{base}/live.html#/casino-fast", "#chip-tray .chip"),
                ):
                    page.goto(url)
                    page.wait_for_selector(ready)
                    page.wait_for_function("v => document.body.dataset.jackpots === v", arg=verdict)
                    # Offered and read (the pool, the stake): only the profile decides what shows.
                    page.wait_for_function(
                        "(document.querySelector('#jackpot-pool')?.textContent ?? '—') !== '—'")
                    at_table = url != f"{base}/"
                    if at_table:
                        page.wait_for_function("document.querySelector('#jackpot-switch')?.hidden === false")
                    assert page.locator("#jackpot-meter").is_visible() is shown, (market, url)
                    if at_table:
                        assert page.locator("#jackpot-switch").is_visible() is shown, (market, url)
            finally:
                context.close()
            assert errors == [], market
