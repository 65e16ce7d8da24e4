"""The jurisdictions a paytable version is approved for, changed with two people's names on it.

An admin asks for a version's approvals to change (``request``: the jurisdictions, or none set:
not restricted); nothing changes until a *second* admin approves (``decide``; the one who asked
may not approve, as for a version going live in ``rules_changes``), or either rejects it. Each
step is in the audit log (``rules_jurisdictions.request``, ``.approve``, ``.reject``): what (the
game, version, fingerprint and the jurisdictions before and after), who (who asked, who
decided) and when. An approval takes effect in this process at once and in every other within
``Settings.rules_poll_seconds`` (``rules_changes.apply_due`` reads the approvals at each poll).
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import RowMapping, insert, select, update

from dealerpoker.server.backoffice import audit
from dealerpoker.server.backoffice.analyses import Analyses
from dealerpoker.server.backoffice.four_eyes import mark_decided, pending_request
from dealerpoker.server.backoffice.rules_changes import (
    UnknownJurisdictionError,
    approvals,
    in_force,
    store_configured,
    version_row,
)
from dealerpoker.server.db import Connection
from dealerpoker.server.schema import game_rules_versions, jurisdiction_requests
from dealerpoker.server.services import Services

ACTION = "rules_jurisdictions"
"""The audit log's family of these changes (not ``rules.``: that is a catalogue family)."""


def _shown(row: RowMapping) -> dict[str, Any]:
    return {"id": int(row["id"]), "version": int(row["version_id"]),
            "jurisdictions": json.loads(row["jurisdictions"]),
            "status": row["status"], "requested_by": row["requested_by"], "requested_at": row["requested_at"],
            "decided_by": row["decided_by"], "decided_at": row["decided_at"]}


async def pending(connection: Connection, game: str) -> list[dict[str, Any]]:
    """The game's requests waiting for a second admin, oldest first."""
    rows = (await connection.execute(select(jurisdiction_requests).where(
        jurisdiction_requests.c.game == game, jurisdiction_requests.c.status == "pending")
        .order_by(jurisdiction_requests.c.id))).mappings().all()
    return [_shown(row) for row in rows]


def _checked(services: Services, codes: list[str] | None) -> list[str] | None:
    """Each code a profile this deployment has (sorted, once each); refused naming the unknown."""
    if codes is None:
        return None
    markets = services.jurisdictions
    known = markets.known() if markets is not None else []
    unknown = sorted(set(codes) - set(known))
    if unknown:
        raise UnknownJurisdictionError(f"jurisdictions: no profile {', '.join(unknown)} "
                                       f"(profiles: {', '.join(known)}); nothing was changed")
    return sorted(set(codes))


async def request(services: Services, analyses: Analyses, game: str, version: int | None,
                  codes: list[str] | None, *, actor: str) -> dict[str, Any]:
    """Ask for the jurisdictions ``version`` (None: the one in force) is approved for to become
    ``codes`` (None: not restricted), pending a second admin's approval; nothing else changes."""
    codes = _checked(services, codes)
    now = services.now()
    async with services.database.transaction() as connection:
        await store_configured(services, analyses, connection, game)
        if version is None:
            current = await in_force(connection, game, services.now())  # since the store above
            assert current is not None  # the configured rules are stored as a version just above
            version = int(current["id"])
        row = await version_row(connection, game, version)
        request_id = int(await connection.scalar(insert(jurisdiction_requests).values(
            game=game, version_id=version, jurisdictions=json.dumps(codes), requested_by=actor,
            requested_at=now, status="pending").returning(jurisdiction_requests.c.id)))
        await audit.record(connection, at=now, actor=actor, action=f"{ACTION}.request", target=game,
                           before={"version": version, "fingerprint": row["fingerprint"],
                                   "jurisdictions": _approved(row)},
                           after={"request": request_id, "version": version,
                                  "fingerprint": row["fingerprint"], "jurisdictions": codes})
        made = (await connection.execute(select(jurisdiction_requests)
                                         .where(jurisdiction_requests.c.id == request_id))).mappings().one()
    return {"request": _shown(made), "version": version, "fingerprint": row["fingerprint"],
            "jurisdictions": codes}


def _approved(row: RowMapping) -> list[str] | None:
    return None if row["jurisdictions"] is None else list(json.loads(row["jurisdictions"]))


async def decide(services: Services, game: str, request_id: int, *, actor: str,
                 approve: bool) -> dict[str, Any]:
    """A second admin approves (the version's approvals change now) or rejects a request; its
    author may withdraw (reject) their own but not approve it."""
    now = services.now()
    async with services.database.transaction() as connection:
        row = await pending_request(connection, jurisdiction_requests, game, request_id, actor=actor,
                                    approve=approve, what=f"change the jurisdictions of a {game} version")
        version = await version_row(connection, game, int(row["version_id"]))
        codes = json.loads(row["jurisdictions"])
        await mark_decided(connection, jurisdiction_requests, request_id, approve=approve, actor=actor,
                           now=now)
        before = _approved(version)
        if approve:
            await connection.execute(update(game_rules_versions)
                                     .where(game_rules_versions.c.id == int(row["version_id"]))
                                     .values(jurisdictions=None if codes is None else json.dumps(codes)))
        await audit.record(connection, at=now, actor=actor, target=game,
                           action=f"{ACTION}.approve" if approve else f"{ACTION}.reject",
                           before={"request": request_id, "version": int(row["version_id"]),
                                   "fingerprint": version["fingerprint"], "jurisdictions": before},
                           after={"request": request_id, "version": int(row["version_id"]),
                                  "fingerprint": version["fingerprint"],
                                  "jurisdictions": codes if approve else before,
                                  "requested_by": row["requested_by"], "requested_at": row["requested_at"],
                                  "approved_by" if approve else "rejected_by": actor})
        found = await approvals(connection)
        done = (await connection.execute(select(jurisdiction_requests)
                                         .where(jurisdiction_requests.c.id == request_id))).mappings().one()
    if approve and services.jurisdictions is not None:
        services.jurisdictions.approvals = found  # this process at once; the others at their next poll
    return {"request": _shown(done), "version": int(row["version_id"]), "fingerprint": version["fingerprint"],
            "jurisdictions": codes if approve else before}
