"""The admin audit log: every change made in the back office (who, when, what, before, after).

Rows are only ever inserted: this module has no update or delete, and the database refuses them
(migrations 0009 and 0018: UPDATE, DELETE, INSERT OR REPLACE, TRUNCATE), so the log a regulator
reads is the log as written; each row holds the hash of the one before (``server.chained_log``),
so a row changed behind the database's back is found. A change and its audit row are written in
the same unit of work: both commit or neither does.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from dealerpoker.server.chained_log import append
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import admin_audit


async def record(connection: Connection, *, at: str, actor: str, action: str, target: str,
                 before: Any = None, after: Any = None) -> None:
    """Append one change (``before``/``after``: JSON-able values, None when there is none)."""
    await append(connection, admin_audit, {
        "at": at, "actor": actor, "action": action, "target": target[:120],
        "before": None if before is None else json.dumps(before, sort_keys=True),
        "after": None if after is None else json.dumps(after, sort_keys=True)})


async def read(connection: Connection, *, limit: int = 100, before_id: int | None = None,
               action: str | None = None, actor: str | None = None) -> list[dict[str, Any]]:
    """The newest entries first (``before_id``: older than that entry)."""
    query = select(admin_audit).order_by(admin_audit.c.id.desc()).limit(limit)
    if before_id is not None:
        query = query.where(admin_audit.c.id < before_id)
    if action:
        query = query.where(admin_audit.c.action == action)
    if actor:
        query = query.where(admin_audit.c.actor == actor)
    rows = (await connection.execute(query)).mappings().all()
    return [{"id": int(row["id"]), "at": row["at"], "actor": row["actor"], "action": row["action"],
             "target": row["target"],
             "before": None if row["before"] is None else json.loads(row["before"]),
             "after": None if row["after"] is None else json.loads(row["after"])} for row in rows]
