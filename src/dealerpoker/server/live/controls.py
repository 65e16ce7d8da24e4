"""The back office's controls of a live table, kept in the database so every process and every
restart sees them: whether new rounds may open (``open``, ``paused``, ``closed``: the round in
play always finishes) and the timers of the next rounds. The table's runner reads them before it
opens each round (``TableRunner.controls``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.live.runner import TableControl
from dealerpoker.server.schema import live_table_controls

STATUSES = ("open", "paused", "closed")
TIMERS = ("betting_seconds", "decision_seconds", "pause_seconds")
LONGEST = 3600.0


class ControlError(DealerPokerError, ValueError):
    """A status or timer the table cannot take (the message names it); nothing changed."""

    code = "invalid_request"
    status = 422


def checked_timers(timers: Mapping[str, Any]) -> dict[str, float]:
    """The timers as seconds in (0, 3600], each named (as the tables file's are)."""
    unknown = sorted(set(timers) - set(TIMERS))
    if unknown:
        raise ControlError(f"timers: unknown {unknown[0]!r} (known: {', '.join(TIMERS)})")
    found: dict[str, float] = {}
    for name, value in timers.items():
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= LONGEST:
            raise ControlError(f"{name}: expected seconds in (0, {LONGEST:g}], got {value!r}")
        found[name] = float(value)
    return found


async def read(connection: Connection, table_id: str) -> TableControl | None:
    row = (await connection.execute(select(live_table_controls)
                                    .where(live_table_controls.c.table_id == table_id))).mappings().first()
    if row is None:
        return None
    return TableControl(str(row["status"]), None if row["timers"] is None else json.loads(row["timers"]))


async def write(connection: Connection, table_id: str, control: TableControl, *, at: str) -> None:
    if control.status not in STATUSES:
        raise ControlError(f"status: expected one of {', '.join(STATUSES)}, got {control.status!r}")
    dialect: Any = postgresql if connection.dialect.name == "postgresql" else sqlite
    values = {"status": control.status, "updated_at": at,
              "timers": None if control.timers is None else json.dumps(dict(control.timers), sort_keys=True)}
    await connection.execute(dialect.insert(live_table_controls).values(table_id=table_id, **values)
                             .on_conflict_do_update(index_elements=["table_id"], set_=values))


def reader(database: Database) -> Any:
    """``TableRunner.controls`` reading ``database``."""

    async def control(table_id: str) -> TableControl | None:
        async with database.reading() as connection:
            return await read(connection, table_id)

    return control
