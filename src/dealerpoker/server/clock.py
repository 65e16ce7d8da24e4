"""Time for the server: an injected clock, and the one text form timestamps are stored in."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

Clock = Callable[[], datetime]


def system_clock() -> datetime:
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """ISO-8601 UTC with microseconds; sorts as text.

    >>> timestamp(datetime(2026, 11, 29, 12, 0, tzinfo=UTC))
    '2026-11-29T12:00:00.000000Z'
    >>> timestamp(datetime(999, 1, 2, tzinfo=UTC))
    '0999-01-02T00:00:00.000000Z'
    """
    # isoformat, not strftime: glibc's %Y writes year 999 as "999", which would sort after "2026"
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
