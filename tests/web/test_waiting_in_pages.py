"""The tests' wait on a page (tests/support/browser.py: ``_wait_for_function``) outlasts a
navigation, as Playwright's own wait does: a look that meets the page leaving (an operator's
frame going from ``about:blank`` to the game's address) is "not yet", and the wait goes on in the
page that arrives. Any other error in the expression still fails the wait at once. The wait looks
inside the page (one call through Playwright's driver per slice of looks): a function is called
with ``arg``, the first truthy value is the answer, and a deadline passed is Playwright's
TimeoutError."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.browser import _wait_for_function

pytestmark = pytest.mark.browser

ORIGIN = "http://pages.test"  # answered by the page's routes below: no server, no network
# Leaves for the second page and never answers on the first: the look is cut by the navigation.
ARRIVED = ("document.title === 'second' || (location.assign('/second'), new Promise(() => {}))")


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    opened = browser.new_page()
    yield opened
    opened.close()


def test_a_wait_goes_on_in_the_page_that_a_navigation_brings(page: Any) -> None:
    page.route(f"{ORIGIN}/**", lambda route: route.fulfill(
        content_type="text/html", body=f"<title>{route.request.url.rsplit('/', 1)[1]}</title>"))
    page.goto(f"{ORIGIN}/first")
    assert _wait_for_function(page, ARRIVED, timeout=30_000) is True
    assert page.url == f"{ORIGIN}/second"


def test_an_error_in_the_expression_still_fails_the_wait(page: Any) -> None:
    from playwright.sync_api import Error as PlaywrightError

    page.set_content("<title>only</title>")
    with pytest.raises(PlaywrightError, match="no_such_name"):
        _wait_for_function(page, "no_such_name.value", timeout=30_000)


def test_a_function_is_called_with_its_argument_until_it_is_true(page: Any) -> None:
    page.set_content("<title>later</title>")
    page.evaluate("setTimeout(() => { window.ready = 7; }, 300)")
    assert _wait_for_function(page, "n => window.ready === n  // set by the timer", arg=7) is True
    assert _wait_for_function(page, "window.ready") == 7  # the truthy value itself


def test_a_wait_past_its_deadline_is_a_timeout(page: Any) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    page.set_content("<title>never</title>")
    with pytest.raises(PlaywrightTimeoutError, match=r"window\.never"):
        _wait_for_function(page, "window.never", timeout=300)
