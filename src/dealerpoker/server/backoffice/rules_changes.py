"""Change control on the games' rules: a paytable version goes live only with two people's names on it.

An admin saves a draft as a version (``game_rules_versions``: the changes, the fingerprint, the
exact figures) and asks for it to go live, at once or from a scheduled time; or asks for an
earlier version to go live again, as itself (the same stored changes, so the same fingerprint).
Either way the request (``rules_activations``) waits for a *second* admin's approval (four
eyes: the one who asked may not approve); the figures are checked against the deployment's RTP
bounds when it is saved and again when it is approved. Every step is in the audit log with both
names and the exact figures.

The version in force is the approved request with the latest time of going live not in the
future. Each process applies it at start, after an approval, and every
``Settings.rules_poll_seconds`` (a scheduled version, another process's approval): new rounds
are opened under it, while an open round plays on under the rules it was opened with
(``RoundService.engine_of``: by its rules fingerprint, which every round records).

The first time a game's rules are changed, the rules configured at start are stored as its
version 1 (live since the start, by ``(configured)``), so they can be restored like any other.

Each version carries the jurisdictions it is approved for (changed under four eyes too:
``paytable_approvals``; none set: not restricted). A player whose jurisdiction a version in
force is not approved for is refused its rounds, naming the rule ``paytables``
(``server.jurisdiction``: the approvals by rules fingerprint, read again at every poll, so
every process enforces a change within ``rules_poll_seconds``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import RowMapping, insert, select, update

from dealerpoker.errors import DealerPokerError
from dealerpoker.games import GAMES
from dealerpoker.server.backoffice import audit, paytables
from dealerpoker.server.backoffice.analyses import Analyses
from dealerpoker.server.backoffice.four_eyes import mark_decided, pending_request
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Connection
from dealerpoker.server.errors import ConflictError, NotFoundError
from dealerpoker.server.fairness import store_rules_document
from dealerpoker.server.offer import Offer
from dealerpoker.server.schema import game_rules_versions, rules_activations
from dealerpoker.server.services import Services

_log = logging.getLogger(__name__)

CONFIGURED = "(configured)"
"""The name recorded for the rules a game was started with, stored as its first version."""


class BadScheduleError(DealerPokerError, ValueError):
    code = "invalid_live_from"
    status = 422


def parse_live_from(text: str | None, now: str) -> str | None:
    """An ISO-8601 time with a zone -> the stored form (None: at approval); a past time is refused."""
    if text is None or text == "":
        return None
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise BadScheduleError(f"live_from: expected an ISO-8601 time, got {text!r}") from None
    if moment.tzinfo is None:
        raise BadScheduleError(f"live_from: give the time zone, e.g. {text}Z for UTC")
    found = timestamp(moment.astimezone(UTC))
    if found <= now:
        raise BadScheduleError(f"live_from: {text} is not in the future (leave it empty for: at approval)")
    return found


async def versions(connection: Connection, game: str) -> list[dict[str, Any]]:
    """The game's saved versions, newest first, each with its way to going live."""
    rows = (await connection.execute(select(game_rules_versions).where(game_rules_versions.c.game == game)
                                     .order_by(game_rules_versions.c.id.desc()))).mappings().all()
    requests = (await connection.execute(select(rules_activations).where(rules_activations.c.game == game)
                                         .order_by(rules_activations.c.id))).mappings().all()
    by_version: dict[int, list[dict[str, Any]]] = {}
    for request in requests:
        by_version.setdefault(int(request["version_id"]), []).append(_request(request))
    return [{"version": int(r["id"]), "changes": json.loads(r["overrides"]), "fingerprint": r["fingerprint"],
             "rules_version": json.loads(r["overrides"]).get("rules_version"),
             "created_at": r["created_at"], "created_by": r["created_by"],
             "figures": None if r["figures"] is None else json.loads(r["figures"]),
             "jurisdictions": None if r["jurisdictions"] is None else json.loads(r["jurisdictions"]),
             "requests": by_version.get(int(r["id"]), [])} for r in rows]


def _request(row: RowMapping) -> dict[str, Any]:
    return {"id": int(row["id"]), "version": int(row["version_id"]), "status": row["status"],
            "requested_by": row["requested_by"], "requested_at": row["requested_at"],
            "live_from": row["live_from"], "decided_by": row["decided_by"], "decided_at": row["decided_at"],
            "effective_at": row["effective_at"]}


async def pending(connection: Connection, game: str) -> list[dict[str, Any]]:
    rows = (await connection.execute(select(rules_activations).where(
        rules_activations.c.game == game, rules_activations.c.status == "pending")
        .order_by(rules_activations.c.id))).mappings().all()
    return [_request(row) for row in rows]


async def in_force(connection: Connection, game: str, now: str) -> dict[str, Any] | None:
    """The version in force at ``now`` (its row and its approved request), or None: the rules
    configured at start."""
    query = (select(game_rules_versions, rules_activations.c.id.label("request_id"),
                    rules_activations.c.effective_at)
             .join(rules_activations, rules_activations.c.version_id == game_rules_versions.c.id)
             .where(rules_activations.c.game == game, rules_activations.c.status == "approved",
                    rules_activations.c.effective_at <= now)
             .order_by(rules_activations.c.effective_at.desc(), rules_activations.c.id.desc()).limit(1))
    row = (await connection.execute(query)).mappings().first()
    return None if row is None else dict(row)


async def propose(services: Services, analyses: Analyses, game: str, changes: Any, *, actor: str,
                  live_from: str | None = None) -> dict[str, Any]:
    """Save ``changes`` as the game's new version and ask for it to go live (pending a second
    admin's approval): refused (nothing written) if an entry is unknown, the rules invalid or an
    RTP outside the bounds."""
    rules = paytables.draft_rules(services, game, changes)
    found = await paytables.figures(analyses, rules)
    paytables.check_bounds(found, services.settings.rtp_bounds)
    merged = paytables.merge(paytables.current_changes(services, game), changes)
    now = services.now()
    scheduled = parse_live_from(live_from, now)
    configured = services.offer.currencies.tables[services.offer.default_currency].rules(game)
    async with services.database.transaction() as connection:
        await store_configured(services, analyses, connection, game)
        number = int(await connection.scalar(insert(game_rules_versions).values(
            game=game, overrides="{}", fingerprint="", created_at=now, created_by=actor)
            .returning(game_rules_versions.c.id)))
        merged["rules_version"] = f"{configured.rules_version}+admin-{number}"
        offer = services.offer.with_rules(game, merged)
        engine = offer.game(game, offer.default_currency)
        found = {**await paytables.figures(analyses, engine.rules), "seconds": found["seconds"]}
        await connection.execute(update(game_rules_versions).where(game_rules_versions.c.id == number).values(
            overrides=json.dumps(merged, sort_keys=True), fingerprint=engine.rules.fingerprint(),
            figures=json.dumps(_kept(found), sort_keys=True)))
        for each in offer.all_engines():
            await store_rules_document(connection, each, now)
        await audit.record(connection, at=now, actor=actor, action="rules.version", target=game,
                           before={"fingerprint": services.games[game].rules.fingerprint(),
                                   "changes": paytables.current_changes(services, game)},
                           after={"version": number, "fingerprint": found["fingerprint"], "changes": merged,
                                  **_kept(found)})
        request = await _ask(connection, game, number, actor=actor, now=now, live_from=scheduled,
                             found=found)
    return {**found, "version": number, "request": request}


async def request_restore(services: Services, analyses: Analyses, game: str, version: int, *, actor: str,
                          live_from: str | None = None) -> dict[str, Any]:
    """Ask for an earlier version to go live again as itself (pending a second admin's approval)."""
    now = services.now()
    scheduled = parse_live_from(live_from, now)
    async with services.database.transaction() as connection:
        row = await version_row(connection, game, version)
        found = await _checked_figures(services, analyses, game, row)
        request = await _ask(connection, game, version, actor=actor, now=now, live_from=scheduled,
                             found=found, restore=True)
    return {**found, "version": version, "request": request}


async def decide(services: Services, analyses: Analyses, game: str, request_id: int, *, actor: str,
                 approve: bool) -> dict[str, Any]:
    """A second admin approves (or rejects) a request; approved, the version goes live at once or
    at its scheduled time."""
    now = services.now()
    async with services.database.transaction() as connection:
        row = await pending_request(connection, rules_activations, game, request_id, actor=actor,
                                    approve=approve, what=f"make a {game} version live")
        version = await version_row(connection, game, int(row["version_id"]))
        found = await _checked_figures(services, analyses, game, version) if approve else None
        effective = max(now, row["live_from"] or now) if approve else None
        await mark_decided(connection, rules_activations, request_id, approve=approve, actor=actor, now=now,
                           effective_at=effective)
        await audit.record(connection, at=now, actor=actor, target=game,
                           action="rules_change.approve" if approve else "rules_change.reject",
                           before={"request": request_id, "status": "pending"},
                           after={"request": request_id, "version": int(row["version_id"]),
                                  "fingerprint": version["fingerprint"], "requested_by": row["requested_by"],
                                  "approved_by" if approve else "rejected_by": actor,
                                  "live_from": effective, **(_kept(found) if found else {})})
    await apply_due(services)
    async with services.database.reading() as connection:
        done = (await connection.execute(select(rules_activations)
                                         .where(rules_activations.c.id == request_id))).mappings().one()
    return {"request": _request(done), "fingerprint": version["fingerprint"],
            "live": services.games[game].rules.fingerprint() == version["fingerprint"]}


async def version_row(connection: Connection, game: str, version: int) -> RowMapping:
    row = (await connection.execute(select(game_rules_versions).where(
        game_rules_versions.c.id == version, game_rules_versions.c.game == game))).mappings().first()
    if row is None:
        raise NotFoundError(f"{game} has no version {version}")
    return row


async def _checked_figures(services: Services, analyses: Analyses, game: str,
                           row: RowMapping) -> dict[str, Any]:
    """A stored version's exact figures, computed again from its changes (the bounds may have
    changed since it was saved), refused if outside them."""
    offer = services.offer.with_rules(game, json.loads(row["overrides"]))
    rules = offer.game(game, offer.default_currency).rules
    if rules.fingerprint() != row["fingerprint"]:
        raise ConflictError(f"version {row['id']} no longer gives its fingerprint {row['fingerprint']} "
                            f"(the configured rules changed under it): save it again as a new version")
    found = await paytables.figures(analyses, rules)
    paytables.check_bounds(found, services.settings.rtp_bounds)
    return found


async def _ask(connection: Connection, game: str, version: int, *, actor: str, now: str,
               live_from: str | None, found: Mapping[str, Any], restore: bool = False) -> dict[str, Any]:
    request_id = int(await connection.scalar(insert(rules_activations).values(
        game=game, version_id=version, requested_by=actor, requested_at=now, live_from=live_from,
        status="pending").returning(rules_activations.c.id)))
    await audit.record(connection, at=now, actor=actor, action="rules_change.request", target=game,
                       after={"request": request_id, "version": version, "restore": restore,
                              "fingerprint": found["fingerprint"], "live_from": live_from, **_kept(found)})
    row = (await connection.execute(select(rules_activations)
                                    .where(rules_activations.c.id == request_id))).mappings().one()
    return _request(row)


def _kept(found: Mapping[str, Any]) -> dict[str, Any]:
    """The exact figures recorded with a version and its approval."""
    return {"house_edge": found["house_edge"], "total_rtp": found["total_rtp"]["exact"],
            "rtps": {name: value["exact"] for name, value in found["rtps"].items() if value is not None}}


async def store_configured(services: Services, analyses: Analyses, connection: Connection,
                            game: str) -> None:
    """Before a game's first version: the rules configured at start as its version 1, live since then."""
    if await connection.scalar(select(game_rules_versions.c.id)
                               .where(game_rules_versions.c.game == game).limit(1)):
        return
    configured = services.offer.currencies.tables[services.offer.default_currency].rules(game)
    found = await paytables.figures(analyses, configured)
    now = services.now()
    number = int(await connection.scalar(insert(game_rules_versions).values(
        game=game, overrides="{}", fingerprint=configured.fingerprint(), created_at=now,
        created_by=CONFIGURED, figures=json.dumps(_kept(found), sort_keys=True))
        .returning(game_rules_versions.c.id)))
    await connection.execute(insert(rules_activations).values(
        game=game, version_id=number, requested_by=CONFIGURED, requested_at=now,
        status="approved", decided_by=CONFIGURED, decided_at=now,
        effective_at=now))


async def approvals(connection: Connection) -> dict[str, frozenset[str]]:
    """Each rules fingerprint with approvals set -> the jurisdictions its versions are approved for."""
    versions = game_rules_versions.c
    rows = await connection.execute(select(versions.fingerprint, versions.jurisdictions)
                                    .where(game_rules_versions.c.jurisdictions.is_not(None)))
    found: dict[str, frozenset[str]] = {}
    for fingerprint, codes in rows:
        found[str(fingerprint)] = found.get(str(fingerprint), frozenset()) | frozenset(json.loads(codes))
    return found


class UnknownJurisdictionError(DealerPokerError, ValueError):
    """A jurisdiction no profile of this deployment names (``paytable_approvals``)."""

    code = "unknown_jurisdiction"
    status = 422


async def apply_due(services: Services) -> None:
    """Open new rounds under each game's version in force, if it is not the one in use; take the
    versions' jurisdiction approvals as they are now."""
    now = services.now()
    async with services.database.reading() as connection:
        wanted = {game: await in_force(connection, game, now) for game in GAMES if game in services.games}
        if services.jurisdictions is not None:
            services.jurisdictions.approvals = await approvals(connection)
    for game, row in wanted.items():
        if row is None or services.games[game].rules.fingerprint() == row["fingerprint"]:
            continue
        changes = json.loads(row["overrides"])
        offer = services.offer.with_rules(game, changes)
        async with services.database.transaction() as connection:
            for each in offer.all_engines():
                await store_rules_document(connection, each, now)
        figures = None if row["figures"] is None else json.loads(row["figures"])
        use(services, offer, game, changes, None if figures is None else {
            name: float(Fraction(value)) for name, value in figures["rtps"].items()})


def use(services: Services, offer: Offer, game: str, changes: Mapping[str, Any],
        rtps: Mapping[str, float | None] | None) -> None:
    """Open new rounds with ``offer`` from now on; ``GET /api/games`` shows its rules and ``rtps``
    (None: not known yet), the other games' as they were."""
    services.menu.use(offer, game, changes, rtps)


async def keep_applying(services: Services) -> None:
    """The background task: apply each version as it goes live (scheduled, or approved elsewhere)."""
    while True:
        await asyncio.sleep(services.settings.rules_poll_seconds)
        try:
            await apply_due(services)
        except Exception:
            _log.exception("applying the paytable version in force failed")
