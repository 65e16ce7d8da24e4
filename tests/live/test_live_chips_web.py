"""The live table has the rule pages' chip behaviour the solo table has (issue 28, item 5): every
click adds a chip, however fast; Ctrl+click takes back the last chip; the Texas Hold'em Bonus stack
is picked up and follows the mouse, a right click removes it; the selected chip follows the
pointer over the felt; REBET repeats the last round's bets; the keyboard selects chips, decides
and repeats (1-9, F/B/C/R, R). A finger's gestures (item 4) at a live table: a tap adds, "−" takes
back, touch and hold clears the field."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.studio_pages import Studio, studio_tables
from tests.live.studio_pages import pages as pages  # the test's pages, no console error
from tests.support.touch import hold

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    with studio_tables(tmp_path_factory) as tables:
        yield tables


def confirmed(page: Any, field: str, amount: int) -> None:
    """The server's seat holds ``amount`` on ``field`` (0: none) and nothing sent is unanswered."""
    page.wait_for_function("([f, a]) => (window.dealerpokerLive.seat?.bets?.[f] ?? 0) === a"
                           " && window.dealerpokerLive.unanswered === 0", arg=[field, amount])


def choose_chip(page: Any, amount: int) -> None:
    page.locator(f"#chip-tray .chip[data-chip='{amount}']").click()


def test_fast_clicks_on_a_live_field_lose_no_chip(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-casino")
    choose_chip(page, 100)
    spot = page.locator('.spot[data-field="ante"]')
    for _click in range(6):  # as fast as Playwright clicks: each click sent before the last is answered
        spot.click(delay=0)
    confirmed(page, "ante", 600)
    spot.dblclick()  # a double click is two clicks: two chips
    confirmed(page, "ante", 800)
    assert page.locator("#total-bet").inner_text() == "€8.00"
    page.locator("#clear").click()
    confirmed(page, "ante", 0)


def test_ctrl_click_takes_back_the_last_chip_at_a_live_table(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-casino")
    spot = page.locator('.spot[data-field="ante"]')
    choose_chip(page, 100)
    spot.click()
    choose_chip(page, 500)
    spot.click()
    confirmed(page, "ante", 600)
    spot.click(modifiers=["Control"])  # the 5 placed last comes back, not the lowest chip
    confirmed(page, "ante", 100)
    spot.click(modifiers=["Control"])
    confirmed(page, "ante", 0)


def test_a_live_stack_is_picked_up_follows_the_mouse_and_a_right_click_removes_it(
        studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-texas")
    choose_chip(page, 500)
    spot = page.locator('.spot[data-field="ante"]')
    box = spot.bounding_box()
    assert box
    page.mouse.move(box["x"] + 10, box["y"] + box["height"] / 2)
    follower = page.locator(".pointer-chip")
    follower.wait_for(state="visible")  # the selected chip follows the pointer over the felt
    assert follower.get_attribute("data-chip") == "500"
    spot.click(position={"x": 12, "y": box["height"] / 2})
    spot.click(position={"x": 12, "y": box["height"] / 2})
    confirmed(page, "ante", 1000)
    page.locator('.spot[data-field="ante"] .stack .chip').first.click()  # the chips: lift the stack
    lifted = page.locator(".lifted-stack")
    lifted.wait_for(state="visible")
    page.mouse.move(200, 300)
    assert (lifted.get_attribute("data-x"), lifted.get_attribute("data-y")) == ("200", "300")
    page.mouse.click(200, 300, button="right")  # off the table: every chip of the stack goes
    confirmed(page, "ante", 0)
    lifted.wait_for(state="hidden")


def test_a_stack_clicked_while_the_page_renders_is_lifted_not_added_to(studio: Studio, pages: Any) -> None:
    """A message between the press and the release of a click renders the page: the stack keeps
    its chips' elements, so the click still lifts the stack (it used to land on the field and add
    a chip: the page had replaced the chip pressed)."""
    (page,) = pages()
    studio.open(page, "studio-texas")
    choose_chip(page, 500)
    page.locator('.spot[data-field="ante"]').click()
    confirmed(page, "ante", 500)
    box = page.locator('.spot[data-field="ante"] .stack .chip').first.bounding_box()
    assert box
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("window.dealerpokerLive.render()")  # a message arrives mid-click
    page.mouse.up()
    page.locator(".lifted-stack").wait_for(state="visible")
    assert page.evaluate("window.dealerpokerLive.bets.ante") == 500  # no chip added


def test_rebet_and_the_keyboard_at_a_live_table(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-casino")
    assert page.locator("#rebet").is_hidden(), "no last round to repeat yet"
    page.keyboard.press("2")  # the second chip of the tray
    assert page.locator("#chip-tray .chip").nth(1).get_attribute("aria-checked") == "true"
    page.locator('.spot[data-field="ante"]').click()
    page.keyboard.press("1")
    page.locator('.spot[data-field="aa"]').click()
    confirmed(page, "aa", 100)
    bets = page.evaluate("window.dealerpokerLive.seat.bets")
    studio.end_timer(page)
    studio.deal("studio-casino", "Ah Ad Kc 2d Ac 9s 9d")
    page.locator('#decisions [data-action="fold"]').wait_for()
    page.keyboard.press("f")  # F folds
    page.wait_for_function("(window.dealerpokerLive.seat?.steps ?? []).some(s => s.action === 'fold')")
    page.locator("#result").wait_for(state="visible")
    studio.open(page, "studio-casino")  # the next round's betting window
    page.locator("#rebet").wait_for(state="visible")
    page.keyboard.press("r")  # R repeats the last round's bets
    page.wait_for_function("b => JSON.stringify(window.dealerpokerLive.seat?.bets) === JSON.stringify(b)",
                           arg=bets)


def test_a_finger_at_a_live_table_taps_takes_back_and_holds(studio: Studio, browser: Any) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    page = context.new_page()
    page.set_default_timeout(60_000)
    try:
        studio.open(page, "studio-texas")
        page.locator("#chip-tray .chip[data-chip='100']").tap()
        spot = page.locator('.spot[data-field="ante"]')
        spot.tap()
        confirmed(page, "ante", 100)
        page.locator('.spot[data-field="ante"] .stack .chip').first.tap()  # on the chips: adds, lifts nothing
        confirmed(page, "ante", 200)
        assert page.locator(".lifted-stack").is_hidden()
        assert "Tap a betting field" in page.locator("#table-help").inner_text()
        page.locator('[data-remove="ante"]').tap()  # "−": the last chip back
        confirmed(page, "ante", 100)
        hold(page, spot, "!window.dealerpokerLive.bets.ante")  # touch and hold: every chip off
        confirmed(page, "ante", 0)
    finally:
        context.close()

