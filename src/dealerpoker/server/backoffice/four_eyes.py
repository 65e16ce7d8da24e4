"""Four eyes: a change one admin asks for is made only when a second approves it.

Every request under four eyes (a paytable version going live, a version's jurisdictions) is a
row with ``game``, ``status`` (``pending``, then ``approved`` or ``rejected``), ``requested_by``,
``decided_by`` and ``decided_at``. :func:`pending_request` reads the one to decide and refuses
what may not be decided (missing, decided already, approved by its own author, who may only
withdraw it); :func:`mark_decided` decides it only if it is still pending, so two admins
deciding at once cannot both win.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import RowMapping, Table, select, update

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.db import Connection
from dealerpoker.server.errors import ConflictError, NotFoundError


class FourEyesError(DealerPokerError, ValueError):
    """The admin who asked for a change tried to approve it too."""

    code = "four_eyes"
    status = 403


async def pending_request(connection: Connection, requests: Table, game: str, request_id: int, *,
                          actor: str, approve: bool, what: str) -> RowMapping:
    """The pending request ``request_id`` of ``game`` in ``requests`` (``what`` it asks for, in
    the refusals' words: "make a texas-bonus version live"), else the refusal naming why."""
    row = (await connection.execute(select(requests).where(
        requests.c.id == request_id, requests.c.game == game))).mappings().first()
    if row is None:
        raise NotFoundError(f"no request {request_id} to {what}")
    if row["status"] != "pending":
        raise ConflictError(f"request {request_id} was already {row['status']} by {row['decided_by']}")
    if row["requested_by"] == actor and approve:
        raise FourEyesError(f"{actor} asked to {what}: another admin must approve it")
    return row


async def mark_decided(connection: Connection, requests: Table, request_id: int, *, approve: bool,
                       actor: str, now: str, **also: Any) -> None:
    """Approve or reject the request, if it is still pending (else :class:`ConflictError`)."""
    changed = await connection.execute(update(requests).where(
        requests.c.id == request_id, requests.c.status == "pending").values(
        status="approved" if approve else "rejected", decided_by=actor, decided_at=now, **also))
    if changed.rowcount != 1:
        raise ConflictError(f"request {request_id} was decided meanwhile")
