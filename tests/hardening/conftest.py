"""Fixtures of the hardening tests: a database URL per test, in-memory SQLite and then (with
``DEALERPOKER_TEST_POSTGRES_URL``) a PostgreSQL database of the test's own."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "sqlite":
        yield "sqlite://"
        return
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("hardening") as url:
        yield url
