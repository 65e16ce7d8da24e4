"""Browser-test fixtures (see web_support.py): the real server on a free loopback port and
Debian's Chromium driven by Playwright; without Chromium or Playwright the tests skip, saying why."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from .web_support import LiveServer, start_server


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    server = start_server(tmp_path_factory.mktemp("web"))
    yield server
    server.stop()


@pytest.fixture
def server_factory(tmp_path: Path) -> Iterator[Callable[..., LiveServer]]:
    """Extra servers with their own settings (e.g. a small starting balance)."""
    started: list[LiveServer] = []

    def make(**settings: Any) -> LiveServer:
        started.append(start_server(tmp_path, **settings))
        return started[-1]

    yield make
    for server in started:
        server.stop()


@pytest.fixture
def page_errors() -> list[str]:
    return []


ROUTED_ORIGIN = "http://127.0.0.1:9"  # never contacted: the router answers; 127.0.0.1 is a secure context


@pytest.fixture
def routed_page(browser: Any, page_errors: list[str]) -> Iterator[Any]:
    """An empty page (``<main id=app>``) whose ``/js/*`` and ``/i18n/*`` are the package's, served by
    Playwright's router (no server, no network): for tests of the page's pure modules."""
    import dealerpoker

    scripts = Path(dealerpoker.__file__).parent / "web" / "js"
    catalogues = scripts.parent / "i18n"  # the modules' texts (js/i18n.js fetches /i18n/{language}.json)
    context = browser.new_context()
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(str(error)))

    def serve(route: Any) -> None:
        path = route.request.url.removeprefix(ROUTED_ORIGIN)
        if path == "/":
            route.fulfill(status=200, content_type="text/html", body="<!doctype html><main id=app></main>")
        elif path.startswith("/js/") and (scripts / path[4:]).is_file():
            route.fulfill(status=200, content_type="text/javascript", body=(scripts / path[4:]).read_text())
        elif path.startswith("/i18n/") and (catalogues / path[6:]).is_file():
            text = (catalogues / path[6:]).read_text()
            route.fulfill(status=200, content_type="application/json", body=text)
        else:
            route.fulfill(status=404, body="not found")

    page.route(f"{ROUTED_ORIGIN}/**", serve)
    page.goto(f"{ROUTED_ORIGIN}/")
    yield page
    context.close()
    assert not page_errors, page_errors


@pytest.fixture
def desktop(browser: Any, page_errors: list[str]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "10000")))
    yield page
    context.close()
    assert not page_errors, f"JavaScript errors on the page: {page_errors}"
