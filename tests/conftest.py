"""Shared fixtures. Tests that need PostgreSQL, Redis or Chromium skip with a visible reason."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support import migrated, passwords, tls
from tests.support.browser import WorkerChromium
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database

from dealerpoker.server.garbage import collect_less_often

LONG_TESTS = os.environ.get("DEALERPOKER_LONG_TESTS") == "1"
migrated.install()  # new SQLite databases get the migrations' schema copied (tests/support/migrated.py)
tls.install()  # one TLS context for the process's httpx clients (tests/support/tls.py)
passwords.install()  # staff passwords hashed at argon2's cheapest (tests/support/passwords.py)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test that drives Chromium is a ``browser`` test (so ``make test-quick`` leaves it out);
    ``long`` tests run only when asked for (``DEALERPOKER_LONG_TESTS=1`` or ``-m long``)."""
    asked_for_long = "long" in (config.getoption("markexpr", "") or "")
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        if item.get_closest_marker("long") and not (LONG_TESTS or asked_for_long):
            item.add_marker(pytest.mark.skip(reason="long: DEALERPOKER_LONG_TESTS=1 (or -m long) runs it"))
    items[:] = _in_running_order(items)


def pytest_collection_finish(session: pytest.Session) -> None:
    """A test process collects garbage as a ``serve`` process does (``dealerpoker.server.garbage``):
    what collecting built (the test modules, the package and its tables) is frozen out of every
    collection, and collections come less often. With CPython's defaults the full collections
    walked all of it again and again: tests/server's quick tests in one process spent 7.5 s of
    their 41.7 s of CPU in the collector, 2.6 s of 37.3 s so (benchmarks/RESULTS.md, issue 32)."""
    collect_less_often()


def _in_running_order(items: list[pytest.Item]) -> list[pytest.Item]:
    """Files with slow tests first (the longest work starts first, so the workers end together),
    then the browser files one after the other (one Chromium serves them, ``WORKER_CHROMIUM``),
    then the rest; each file's tests in their order. ``make test`` keeps this order for xdist
    (``--no-loadscope-reorder``)."""
    group: dict[str, int] = {}
    for item in items:
        file = item.nodeid.split("::")[0]
        rank = 0 if item.get_closest_marker("slow") else 1 if uses_browser(item) else 2
        group[file] = min(group.get(file, 2), rank)
    return sorted(items, key=lambda item: group[item.nodeid.split("::")[0]])  # stable: files stay whole


WORKER_CHROMIUM = WorkerChromium()


def uses_browser(item: pytest.Item | None) -> bool:
    return item is not None and "browser" in getattr(item, "fixturenames", ())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Keep the worker's Chromium only if the next test uses it too, or is in the same file (whose
    ``browser`` fixture lives until the file ends)."""
    try:
        return (yield)
    finally:
        same_file = nextitem is not None and nextitem.path == item.path
        WORKER_CHROMIUM.close_unless_next(uses_browser(nextitem) or same_file)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """A headless Chromium for the browser tests of a module (tests/web, tests/live, ...): the
    worker's Chromium, shared with the browser modules run just before and after this one
    (tests/support/browser.py: ``WorkerChromium``); the module's pages are closed at its end."""
    with WORKER_CHROMIUM.for_module() as found:
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
