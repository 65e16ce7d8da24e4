"""The layout checks (tests/web/layout_support.py) see what they are for: a control pushed off the
screen is reported at every size although the tests' pages are drawn transparent
(tests/support/browser.py), and the screenshot saved for a person shows the page as drawn, not the
transparent page the checks measured."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import unpainted_screenshot
from tests.web.layout_support import ARTIFACTS, problems_at_every_size

from .web_support import LiveServer

pytestmark = pytest.mark.browser

PHONE = (390, 844)


def _idle_table(page: Any, url: str) -> None:
    page.goto(f"{url}/#/play/casino-holdem")
    page.locator("#deal").wait_for()
    page.wait_for_function("window.dealerpokerTable && !window.dealerpokerTable.busy")


def test_a_control_off_the_screen_is_found_at_every_size(desktop: Any, live_server: LiveServer) -> None:
    _idle_table(desktop, live_server.url)
    assert problems_at_every_size(desktop, "", "idle") == []
    desktop.evaluate("Object.assign(document.querySelector('#deal').style,"
                     " { position: 'fixed', left: '-400px', top: '10px' })")
    problems = problems_at_every_size(desktop, "", "pushed")
    sizes = {problem.split(": ")[0] for problem in problems if "#deal off screen" in problem}
    assert sizes == {f"pushed at {w}x{h}" for w, h in [(1920, 1080), (1366, 768), (1280, 720), (768, 1024),
                                                       (390, 844), (375, 667), (844, 390)]}, problems
    assert desktop.evaluate("getComputedStyle(document.documentElement).opacity") == "0"  # as measured


def test_the_screenshot_of_a_problem_is_the_page_as_drawn(desktop: Any, live_server: LiveServer) -> None:
    _idle_table(desktop, live_server.url)
    desktop.evaluate("document.querySelector('#deal').style.marginLeft = '-2000px'")
    saved = ARTIFACTS / f"fit-check-{PHONE[0]}-pushed-{PHONE[0]}x{PHONE[1]}.png"
    saved.unlink(missing_ok=True)
    assert problems_at_every_size(desktop, f"check-{PHONE[0]}", "pushed", [PHONE])
    transparent = unpainted_screenshot(desktop)
    assert Path(saved).read_bytes() != transparent, "the saved screenshot is the unpainted page"
    assert desktop.screenshot() != transparent  # any screenshot is painted, and after it the page is not
    assert unpainted_screenshot(desktop) == transparent
    saved.unlink()
