"""Issue 16, item 17 on the solo and the live table: chips fly to the field, back to the player on a
win and to the dealer on a loss; sounds made in the page (WebAudio) behind a remembered switch;
nothing flies with prefers-reduced-motion. Each flight is counted as its chip is added to the page."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.dealing import player_wins

from .test_web_table import Table
from .web_support import LiveServer

pytestmark = pytest.mark.browser

# Every flying chip the page adds, by kind (to-field, to-player, to-dealer), and every CSS
# transition that starts (on any element).
COUNT_FLIGHTS = """
window.flights = {};
window.transitions = 0;
document.addEventListener('transitionrun', () => { window.transitions += 1; }, true);
new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
  if (n.classList?.contains('chip--flying'))
    window.flights[n.dataset.flight] = (window.flights[n.dataset.flight] ?? 0) + 1;
}).observe(document, { childList: true, subtree: true });
"""


def _context(browser: Any, **options: Any) -> Iterator[Any]:
    errors: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900}, **options)
    context.add_init_script(COUNT_FLIGHTS)
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "15000")))
    yield page
    context.close()
    assert not errors, errors


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    yield from _context(browser)


@pytest.fixture
def still_page(browser: Any) -> Iterator[Any]:
    yield from _context(browser, reduced_motion="reduce")


def _flights(page: Any) -> dict[str, int]:
    flights: dict[str, int] = page.evaluate("window.flights")
    return flights


def test_chips_fly_and_sounds_follow_the_switch(page: Any, live_server: LiveServer) -> None:
    table = Table(page, live_server).open("casino-holdem")
    switch = page.locator("#sound-switch")
    assert switch.inner_text() == "SOUND OFF", "sounds are off until the player switches them on"
    table.select(100)
    table.place("ante")
    assert _flights(page).get("to-field") == 1
    assert page.evaluate("window.dealerpokerSounds ?? 0") == 0
    switch.click()
    assert switch.inner_text() == "SOUND ON" and switch.get_attribute("aria-pressed") == "true"
    sounds = page.evaluate("window.dealerpokerSounds")
    table.place("ante")
    assert page.evaluate("window.dealerpokerSounds") == sounds + 1
    assert _flights(page).get("to-field") == 2
    page.reload()
    table.idle()
    assert page.locator("#sound-switch").inner_text() == "SOUND ON", "the switch is remembered"
    table.select(100)
    table.place("ante")
    # A fold loses the Ante (chips to the dealer); a raise with the better hand wins (back to the player).
    for index, (action, deal, kind) in enumerate([("fold", {}, "to-dealer"),
                                                  ("raise", {"where": player_wins}, "to-player")]):
        live_server.dealer.solo(live_server.url, table.token, **deal)  # type: ignore[arg-type]
        if index:
            page.locator("#rebet").click()
            table.idle()
        else:
            table.deal()
        page.evaluate("window.flights = {}")
        table.act(action)
        page.wait_for_function("k => (window.flights[k] ?? 0) > 0", arg=kind)
        assert page.evaluate("window.dealerpokerTable.round.settlement.net") != 0
    page.locator("#sound-switch").click()
    assert page.evaluate("localStorage.getItem('dealerpoker.sound')") == "off"


def test_reduced_motion_sends_nothing_flying(still_page: Any, live_server: LiveServer) -> None:
    """Nothing flies, and nothing on the page transitions either: a transition on every element
    made each style change a running transition of every property it changed (1.6 s more CPU a
    round), where a player asking for less motion wants less work too."""
    _fold_a_round(still_page, live_server)
    assert _flights(still_page) == {}
    assert still_page.evaluate("window.transitions") == 0


def test_without_reduced_motion_the_page_transitions(page: Any, live_server: LiveServer) -> None:
    """The count above can see a transition: the same steps with motion start some."""
    _fold_a_round(page, live_server)
    assert page.evaluate("window.transitions") > 0


def _fold_a_round(page: Any, live_server: LiveServer) -> None:
    """An ante, the field's tip shown (it fades in, with motion), the deal, a fold."""
    table = Table(page, live_server).open("casino-holdem")
    table.select(100)
    table.place("ante")
    table.spot("ante").hover()
    table.deal()
    table.act("fold")
