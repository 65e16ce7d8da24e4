"""Games and paytables in the back office: the configured rules of each game with each bet's exact
RTP, an admin's draft with its exact house edge before anything is saved, and saved versions.

A draft is a JSON document of changes merged over the game's configured rules (its paytables,
ante rule or qualifier, timeouts, timers; not the limits and chips, which are each currency's).
Saving one stores it as a new version (``game_rules_versions``, audited) and rebuilds the game's
engine in every currency: new rounds are opened under it, while an open round plays on under the
rules it was opened with (``RoundService.engine_of``: by its rules fingerprint, which every round
records). At start the newest version of each game is applied again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from sqlalchemy import func, insert, select

from dealerpoker.analysis.rtp import bet_rtps
from dealerpoker.errors import DealerPokerError, InvalidRulesError
from dealerpoker.games import GAMES, AnyGame
from dealerpoker.games.rules import Rules
from dealerpoker.server.backoffice import audit
from dealerpoker.server.backoffice.analyses import Analyses
from dealerpoker.server.db import Connection
from dealerpoker.server.errors import UnknownGameError
from dealerpoker.server.fairness import store_rules_document
from dealerpoker.server.offer import Offer
from dealerpoker.server.schema import game_rules_versions
from dealerpoker.server.services import Services

FIXED = ("game", "limits", "chips", "rules_version")
"""What a draft may not change (the game; the limits and chips are each currency's; the version
label is the server's)."""


class DraftError(DealerPokerError, ValueError):
    """A draft that is not valid rules (the message names the entry); nothing was saved."""

    code = "invalid_rules"
    status = 422


def draft_rules(services: Services, game: str, changes: Any) -> Rules:
    """The default currency's rules of ``game`` with ``changes`` merged over what is configured now."""
    if game not in GAMES:
        raise UnknownGameError(f"unknown game {game!r} (games: {', '.join(GAMES)})")
    if not isinstance(changes, Mapping):
        raise DraftError('a draft is a JSON object of rules entries, e.g. {"ante_paytable": {"flush": 3}}')
    fixed = sorted(set(changes) & set(FIXED))
    if fixed:
        raise DraftError(f"{fixed[0]}: not changed by a draft (limits and chips are each currency's)")
    currencies = services.offer.currencies
    current = current_changes(services, game)
    try:
        return currencies.tables[currencies.default].rules(game, _merge(current, changes))
    except InvalidRulesError as error:
        raise DraftError(str(error)) from None


def _merge(base: Mapping[str, Any], changes: Mapping[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in changes.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), Mapping):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def current_changes(services: Services, game: str) -> dict[str, Any]:
    """The changes of the version in force (``{}``: the configured rules as started)."""
    return dict(services.rules_versions.get(game, {}))


async def figures(analyses: Analyses, rules: Rules) -> dict[str, Any]:
    """The exact house edge of the main game (per unit of ante) and each bet's RTP, with the time
    the analysis took."""
    started = time.perf_counter()
    document = await analyses.document(rules)
    rtps = bet_rtps(rules, _Known(document))
    exact = document["rules"]["exact"]
    return {"fingerprint": rules.fingerprint(), "rules_version": rules.rules_version,
            "house_edge": exact["house_edge"], "house_edge_float": float(Fraction(exact["house_edge"])),
            "rtps": {field: None if value is None else {"exact": str(value), "float": float(value)}
                     for field, value in rtps.items()},
            "seconds": round(time.perf_counter() - started, 3)}


class _Known:
    """An analysis cache holding one document (so ``bet_rtps`` reads the one just computed)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    def load(self, key: str) -> dict[str, Any] | None:
        return self.document

    def save(self, key: str, document: dict[str, Any], tables: dict[str, Any]) -> None:
        raise AssertionError("nothing to save")


async def versions(connection: Connection, game: str) -> list[dict[str, Any]]:
    rows = (await connection.execute(select(game_rules_versions).where(game_rules_versions.c.game == game)
                                     .order_by(game_rules_versions.c.id.desc()))).mappings().all()
    return [{"version": int(r["id"]), "changes": json.loads(r["overrides"]), "fingerprint": r["fingerprint"],
             "created_at": r["created_at"], "created_by": r["created_by"]} for r in rows]


async def save(services: Services, analyses: Analyses, game: str, changes: Any, *,
               actor: str) -> dict[str, Any]:
    """Store ``changes`` as the game's new version and open new rounds under it."""
    before = services.games[game]
    draft_rules(services, game, changes)  # refused before anything is written
    merged = _merge(current_changes(services, game), changes)
    async with services.database.transaction() as connection:
        number = int(await connection.scalar(select(func.count()).select_from(game_rules_versions))) + 1
        merged["rules_version"] = f"{before.rules.source.get('rules_version', game)}+admin-{number}"
        offer = services.offer.with_rules(game, merged)
        engine = offer.game(game, offer.default_currency)
        await connection.execute(insert(game_rules_versions).values(
            game=game, overrides=json.dumps(merged, sort_keys=True), fingerprint=engine.rules.fingerprint(),
            created_at=services.now(), created_by=actor))
        for each in offer.all_engines():
            await store_rules_document(connection, each, services.now())
        after = await figures(analyses, engine.rules)
        await audit.record(connection, at=services.now(), actor=actor, action="rules.version", target=game,
                           before={"fingerprint": before.rules.fingerprint(),
                                   "changes": current_changes(services, game)},
                           after={"fingerprint": after["fingerprint"], "changes": merged,
                                  "house_edge": after["house_edge"]})
    use(services, offer, game, merged, {field: None if value is None else value["float"]
                                         for field, value in after["rtps"].items()})
    return after


def use(services: Services, offer: Offer, game: str, changes: Mapping[str, Any],
        rtps: Mapping[str, float | None] | None) -> None:
    """Open new rounds with ``offer`` from now on; ``GET /api/games`` shows its rules and ``rtps``
    (None: not known yet), the other games' as they were."""
    from dealerpoker.server.app import games_documents  # the composition root's (no import circle)

    services.rules_versions[game] = dict(changes)
    known = {entry["id"]: entry["rtp"] for entry in services.games_document["games"]}
    known[game] = dict(rtps) if rtps is not None else {field: None for field in known.get(game, {})}
    services.offer = offer
    services.games = offer.games()
    services.rounds.use_offer(offer)
    services.games_documents = games_documents(offer, known)


async def restore(services: Services) -> None:
    """At start: each game's newest saved version applies to new rounds again."""
    async with services.database.transaction() as connection:
        for game in GAMES:
            found = await versions(connection, game)
            if found:
                changes = found[0]["changes"]
                offer = services.offer.with_rules(game, changes)
                for each in offer.all_engines():
                    await store_rules_document(connection, each, services.now())
                use(services, offer, game, changes, None)


def engine_summary(engine: AnyGame) -> dict[str, Any]:
    return {"game": engine.name, "fingerprint": engine.rules.fingerprint(),
            "rules_version": engine.rules.rules_version, "rules": engine.rules.to_dict()}
