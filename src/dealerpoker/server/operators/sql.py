"""Statements built per call (their values bound in them) run through SQLAlchemy's own
``execute``: ``Connection.run``/``rows`` compile and keep each statement object, for the few
constant statements of the hot paths."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from dealerpoker.server.db import Connection


async def run(connection: Connection, statement: Any, values: Mapping[str, Any] | None = None) -> int:
    """Execute an INSERT, UPDATE or DELETE (with ``values``, if given); the rows it changed."""
    result: Any = await connection.execute(statement if not values else statement.values(dict(values)))
    return int(result.rowcount)


async def one(connection: Connection, statement: Any) -> dict[str, Any] | None:
    """The first row of a query, as column -> value (None: no row)."""
    found = (await connection.execute(statement)).mappings().first()
    return None if found is None else dict(found)
