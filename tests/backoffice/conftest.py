"""Fixtures of the back-office tests: the app on in-memory SQLite (and PostgreSQL when
``DEALERPOKER_TEST_POSTGRES_URL`` is set), with a hand-moved clock."""

from tests.server.conftest import client, clock, database_url, postgres_database

__all__ = ["client", "clock", "database_url", "postgres_database"]
