"""One Chromium serves the browser modules that follow one another in a worker (tests/conftest.py,
tests/support/browser.py: ``WorkerChromium``): each module finds it without the last module's pages,
and once it is closed before a test that is not a browser test, ``asyncio.run`` works again."""

from __future__ import annotations

import asyncio

import pytest
from tests.support.browser import WorkerChromium


@pytest.mark.browser
def test_consecutive_modules_share_one_chromium_and_asyncio_runs_after_it() -> None:
    worker = WorkerChromium()
    try:
        with worker.for_module() as first:
            first.new_page().set_content("<p>the first module's page</p>")
            nothing = _nothing()
            with pytest.raises(RuntimeError, match="running event loop"):
                asyncio.run(nothing)  # why the Chromium cannot stay open for other tests
            nothing.close()
        worker.close_unless_next(True)  # the next test is a browser test: kept
        with worker.for_module() as second:
            assert second is first and second.contexts == []  # the last module's pages are gone
        assert worker.starts == 1
    finally:
        worker.close_unless_next(False)  # the next test is not: closed
    assert asyncio.run(_nothing()) == "ran"


async def _nothing() -> str:
    return "ran"
