"""Debian's Chromium driven by Playwright (never a downloaded browser), for the browser tests of
tests/web and tests/live; without the browser or the package the tests skip and say why."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"


def _wait_for_function(page: Any, expression: str, *, arg: Any = None, timeout: float | None = None,
                       polling: Any = None) -> Any:
    """``Page.wait_for_function`` by polling ``page.evaluate``: Playwright's own evaluates the
    predicate with ``eval`` inside the page, which the server's Content-Security-Policy
    (``script-src 'self'``, no ``'unsafe-eval'``) refuses; ``evaluate`` goes through the
    DevTools protocol, outside the page's policy. So the pages are tested under their real CSP."""
    import time

    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    deadline = time.monotonic() + (30_000 if timeout is None else timeout) / 1000
    while True:
        value = page.evaluate(expression, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise PlaywrightTimeoutError(f"wait_for_function: {expression!r} not true within the timeout")
        page.wait_for_timeout(50)


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium (Playwright ``Browser``), or a skip naming what is missing."""
    if not CHROMIUM.exists():
        pytest.skip(f"browser tests: {CHROMIUM} is missing (make test installs Debian's chromium when root)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests: the playwright package is not installed (pip install -e '.[test]')")
    from playwright.sync_api import Frame, Page

    Page.wait_for_function = _wait_for_function  # type: ignore[method-assign,assignment]
    Frame.wait_for_function = _wait_for_function  # type: ignore[method-assign,assignment]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
