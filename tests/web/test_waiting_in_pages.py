"""The tests' wait on a page (tests/support/browser.py: ``_wait_for_function``) outlasts a
navigation, as Playwright's own wait does: a look that meets the page leaving (an operator's
frame going from ``about:blank`` to the game's address) is "not yet", and the wait goes on in the
page that arrives. Any other error in the expression still fails the wait at once."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.browser import _wait_for_function

pytestmark = pytest.mark.browser

ORIGIN = "http://pages.test"  # answered by the page's routes below: no server, no network
# Leaves for the second page and never answers on the first: the look is cut by the navigation.
ARRIVED = ("document.title === 'second' || (location.assign('/second'), new Promise(() => {}))")


def test_a_wait_goes_on_in_the_page_that_a_navigation_brings(browser: Any) -> None:
    page = browser.new_page()
    try:
        page.route(f"{ORIGIN}/**", lambda route: route.fulfill(
            content_type="text/html", body=f"<title>{route.request.url.rsplit('/', 1)[1]}</title>"))
        page.goto(f"{ORIGIN}/first")
        assert _wait_for_function(page, ARRIVED, timeout=30_000) is True
        assert page.url == f"{ORIGIN}/second"
    finally:
        page.close()


def test_an_error_in_the_expression_still_fails_the_wait(browser: Any) -> None:
    from playwright.sync_api import Error as PlaywrightError

    page = browser.new_page()
    try:
        page.set_content("<title>only</title>")
        with pytest.raises(PlaywrightError, match="no_such_name"):
            _wait_for_function(page, "no_such_name.value", timeout=30_000)
    finally:
        page.close()
