"""Shared by `export` and `report`: the database option, time arguments, reading records."""

from __future__ import annotations

import argparse
import asyncio
import datetime
from typing import Any

from dealerpoker.errors import DealerPokerError


class TimeArgumentError(DealerPokerError, ValueError):
    """A --since/--until/--date value that is not an ISO-8601 date or time."""


def add_database_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--database", metavar="URL", default=None,
                        help="sqlite:///FILE or postgresql://USER@HOST:PORT/DB (default: "
                             "$DEALERPOKER_DATABASE_URL, else the server's default SQLite file)")


def stored_time(text: str, option: str) -> datetime.datetime:
    """``2026-11-29`` or ``2026-11-29T12:00:00[Z|+01:00]`` (no zone = UTC) as an aware UTC time."""
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        raise TimeArgumentError(f"{option} {text!r}: expected a date (2026-11-29) or an ISO-8601 time "
                                "(2026-11-29T12:00:00Z)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone(datetime.UTC)


def read_records(
    database: str | None, since: datetime.datetime, until: datetime.datetime | None
) -> list[Any]:
    from dealerpoker.server.app import load_games
    from dealerpoker.server.clock import timestamp
    from dealerpoker.server.fairness import settled_records
    from dealerpoker.server.settings import Settings

    settings = Settings.from_env(database_url=database)
    games = load_games(settings)
    return asyncio.run(settled_records(settings.database_url, games, timestamp(since),
                                       None if until is None else timestamp(until)))
