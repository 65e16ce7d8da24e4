"""What a player's hands can do at the solo table (issue 28): the Min/Max paytable sign (item 6),
touch gestures (item 4, with Playwright's touch emulation) and the on-page help that names them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.touch import hold
from tests.web.layout_support import problems_at_every_size

from .web_support import LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture
def touch(browser: Any, page_errors: list[str]) -> Iterator[Any]:
    """A phone: 390x844, touch events (``has_touch``), no mouse hover."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    page.set_default_timeout(30_000)
    yield page
    context.close()


def open_table(page: Any, server: LiveServer, game: str = "texas-bonus") -> None:
    page.goto(f"{server.url}/?lang=en#/play/{game}")
    page.locator("#deal").wait_for()
    page.wait_for_function("window.dealerpokerTable && !window.dealerpokerTable.busy"
                           " && window.dealerpokerTable.balance !== null")


def amount(page: Any, field: str) -> int:
    value: int = page.evaluate(f"window.dealerpokerTable.pending['{field}'] ?? 0")
    return value


def test_the_paytable_sign_opens_on_a_click_closes_on_esc_and_never_takes_a_fields_click(
        desktop: Any, live_server: LiveServer) -> None:
    open_table(desktop, live_server)
    sign = desktop.locator("[data-minmax='bonus']")
    pop = sign.locator(".minmax__pop")
    sign.click()
    desktop.mouse.move(1, 1)  # the pointer leaves: a sign opened by a click stays open...
    assert pop.is_visible() and sign.get_attribute("aria-expanded") == "true"
    desktop.keyboard.press("Escape")  # ...until Esc
    pop.wait_for(state="hidden")
    assert sign.get_attribute("aria-expanded") == "false"

    # Open over the fields, it takes no click: a click on the Ante under it places a chip there.
    sign.click()
    assert pop.is_visible()
    ante = desktop.locator(".spot[data-field='ante']").bounding_box()
    under = pop.bounding_box()
    assert ante and under
    desktop.mouse.click(ante["x"] + ante["width"] / 2, ante["y"] + ante["height"] * 0.8)
    assert amount(desktop, "ante") > 0, "the click went to the field"
    pop.wait_for(state="hidden")  # and a click elsewhere closed the sign
    sign.click()
    sign.click()  # a second click closes it again (once the pointer no longer rests on it)
    desktop.mouse.move(1, 1)
    pop.wait_for(state="hidden")


def test_a_finger_taps_chips_on_never_lifts_a_stack_and_takes_chips_back(touch: Any,
                                                                         live_server: LiveServer) -> None:
    open_table(touch, live_server)
    assert "Tap a betting field" in touch.locator("#table-help").inner_text(), "the help speaks of fingers"
    assert "right-click" not in touch.locator("#table-help").inner_text()
    spot = touch.locator(".spot[data-field='ante']")
    spot.tap()
    assert amount(touch, "ante") == 100
    # A tap on the chips of a field adds one more (on a mouse table it would lift the stack)...
    touch.locator(".spot[data-field='ante'] .stack .chip").first.tap()
    assert amount(touch, "ante") == 200
    assert touch.locator(".lifted-stack").is_hidden()
    spot.tap()  # ...and the next tap is not swallowed
    assert amount(touch, "ante") == 300
    touch.locator("#chip-tray .chip[data-chip='500']").tap()
    spot.tap()
    assert amount(touch, "ante") == 800
    touch.locator("[data-remove='ante']").tap()  # "−": the chip placed last comes back
    assert amount(touch, "ante") == 300
    hold(touch, spot, "!window.dealerpokerTable.pending.ante")  # touch and hold: every chip off
    assert amount(touch, "ante") == 0
    assert touch.locator("#message").inner_text() == "Ante: every chip taken off"
    assert touch.locator("[data-remove='ante']").evaluate("b => getComputedStyle(b).visibility") == "hidden"


def test_a_mouse_table_says_what_a_mouse_does(desktop: Any, live_server: LiveServer) -> None:
    open_table(desktop, live_server)
    help_text = desktop.locator("#table-help").inner_text()
    assert "right-click" in help_text and "Tap" not in help_text
    assert desktop.locator("[data-remove='ante']").is_hidden(), "no touch buttons for a mouse"


PHONES = [(390, 844), (375, 667), (844, 390)]


@pytest.mark.parametrize("game", ["texas-bonus", "casino-holdem"])
def test_a_touch_table_fits_a_phone_with_its_touch_buttons(touch: Any, live_server: LiveServer,
                                                           game: str) -> None:
    """The layout test's checks (on screen, no overlap, no cut text) on a touch phone, where each
    field has its "−" button, upright and on its side, betting to the result."""
    open_table(touch, live_server, game)
    touch.locator(".spot[data-field='ante']").tap()
    assert touch.locator("[data-remove='ante']").is_visible()
    problems = problems_at_every_size(touch, f"touch-{game}", "bets placed", PHONES)
    touch.locator("#deal").tap()
    # Every deal opens a decision: wait for it, or the loop below may look before the deal's answer.
    touch.locator("#controls [data-action]").first.wait_for()
    idle = "window.dealerpokerTable && !window.dealerpokerTable.busy"
    while touch.locator("#controls [data-action]").count():
        touch.wait_for_function(idle)
        problems += problems_at_every_size(touch, f"touch-{game}", "a decision", PHONES)
        actions = touch.locator("#controls [data-action]").evaluate_all("bs => bs.map(b => b.dataset.action)")
        action = next(a for a in ("raise", "check", "bet") if a in actions)
        touch.locator(f"#controls [data-action='{action}']").tap()
        touch.wait_for_function(idle)
    touch.locator("#result").wait_for()
    problems += problems_at_every_size(touch, f"touch-{game}", "result", PHONES)
    assert not problems, "\n".join(problems)
