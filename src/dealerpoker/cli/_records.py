"""Shared by the commands that read a database (`export`, `report`, `audit-ledger`, `audit-log`):
the database option, opening it, time arguments, reading records."""

from __future__ import annotations

import argparse
import asyncio
import datetime
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from dealerpoker.errors import DealerPokerError

T = TypeVar("T")


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
    """Every round settled in ``[since, until)``: solo rounds and whole live table rounds
    (every seat), in the order they were settled."""
    from dealerpoker.server.app import load_games
    from dealerpoker.server.clock import timestamp
    from dealerpoker.server.fairness import settled_records
    from dealerpoker.server.live.audit import settled_live_records
    from dealerpoker.server.settings import Settings

    settings = Settings.from_env(database_url=database)
    games = load_games(settings)
    start, end = timestamp(since), None if until is None else timestamp(until)
    solo = asyncio.run(settled_records(settings.database_url, games, start, end))
    live = asyncio.run(settled_live_records(settings.database_url, start, end))
    return sorted([*solo, *live], key=lambda record: str(record["settled_at"]))


def time_range(date: str | None, since: str | None, until: str | None) -> tuple[
        datetime.datetime, datetime.datetime | None, str]:
    """``--date DAY`` or ``--since T [--until T]`` as ``(start, end or None, label)``.

    ``--date`` is one UTC day; ``--since`` is inclusive and ``--until`` exclusive, so a bare date
    as ``--until`` ends the day before it (``--since 2026-11-01 --until 2026-12-01`` is November).
    """
    if date is not None:
        if since is not None or until is not None:
            raise TimeArgumentError("--date is one UTC day: give it alone, or --since [--until] instead")
        try:
            day = datetime.date.fromisoformat(date)
        except ValueError:
            raise TimeArgumentError(f"--date {date!r}: expected a date like 2026-11-29") from None
        start = datetime.datetime.combine(day, datetime.time(), tzinfo=datetime.UTC)
        return start, start + datetime.timedelta(days=1), day.isoformat()
    if since is None:
        raise TimeArgumentError("--date DAY or --since TIME [--until TIME] is needed" if until is None
                                else "--until needs --since")
    start = stored_time(since, "--since")
    end = None if until is None else stored_time(until, "--until")
    if end is not None and end <= start:
        raise TimeArgumentError(f"--until {until!r} is not after --since {since!r}: the range is empty")
    return start, end, f"{_label(start)} to {'now' if end is None else _label(end)} (until exclusive)"


def _label(moment: datetime.datetime) -> str:
    if moment.time() == datetime.time():
        return moment.date().isoformat()
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


class UnusableDatabase(Exception):
    """A database a command cannot read (the message says why, in one line)."""


async def on_database(url: str, work: Callable[[Any], Awaitable[T]], *, what: str) -> T:
    """``work(database)`` on the dealerpoker database at ``url``, disposed after; a missing SQLite
    file, an unreachable server or a database that is not dealerpoker's is :class:`UnusableDatabase`
    (``what`` the command could not do: "audit", "check")."""
    from pathlib import Path

    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import SQLAlchemyError

    from dealerpoker.server.db import Database, driver_url, is_sqlite

    shown = make_url(driver_url(url)).render_as_string(hide_password=True)
    if is_sqlite(url):
        file = make_url(url).database
        if file in (None, "", ":memory:") or not Path(file).is_file():
            raise UnusableDatabase(f"{shown}: no such database file")
    database = Database(url)
    try:
        return await work(database)
    except SQLAlchemyError as error:
        reason = str(getattr(error, "orig", None) or error).splitlines()[0]
        raise UnusableDatabase(f"{shown}: cannot {what} ({reason}); is it a dealerpoker database, migrated "
                               "by `dealerpoker serve`?") from None
    except OSError as error:
        raise UnusableDatabase(f"{shown}: cannot connect ({error.strerror or error})") from None
    finally:
        await database.dispose()
