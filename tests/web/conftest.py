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


@pytest.fixture
def desktop(browser: Any, page_errors: list[str]) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "10000")))
    yield page
    context.close()
    assert not page_errors, f"JavaScript errors on the page: {page_errors}"
