"""Shared fixtures. Tests that need PostgreSQL, Redis or Chromium skip with a visible reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import chromium
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for the browser tests of a module (tests/web, tests/live).

    Per module, not per session: while Playwright's synchronous API runs, this thread has a
    running event loop, so other tests' ``asyncio.run`` would fail.
    """
    with chromium() as found:
        yield found


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def served_database(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database URL for a `dealerpoker serve` process: a SQLite file, then a PostgreSQL database
    of the test's own (skipped, saying why, without ``DEALERPOKER_TEST_POSTGRES_URL``)."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/casino.db"
        return
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("serve") as url:
        yield url
