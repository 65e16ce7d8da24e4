"""Provably fair solo play and audit records, on top of the round service's tables.

* Each player always has a committed *next* server seed: ``GET /api/fairness`` shows its
  SHA-256 before they bet; their next round uses it and a new one is drawn (rotation).
* ``PUT /api/fairness/client-seed`` sets the player's client seed for their next rounds.
* A settled round's audit record (``GET /api/rounds/{id}/record``, ``dealerpoker export``) is
  built from what was stored -- deck, dealt cards, steps, ledger entries, settlement -- never
  from recomputed values, so ``dealerpoker verify`` can catch any difference.
"""

from __future__ import annotations

import json
import random
from collections.abc import AsyncIterator, Iterable, Mapping
from typing import Any

from sqlalchemy import Row, select, update
from sqlalchemy.dialects import postgresql, sqlite

from dealerpoker.fairness import ALGORITHM_VERSION, commitment, validate_client_seed
from dealerpoker.fairness.record import build_record
from dealerpoker.fairness.signature import rules_sha256
from dealerpoker.games import AnyGame
from dealerpoker.server.accounts import REMOTE_PREFIX
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.dealing import draw_server_seed
from dealerpoker.server.errors import ConflictError, ForbiddenError, NotFoundError
from dealerpoker.server.jackpot import AWARD as JACKPOT_AWARD
from dealerpoker.server.jackpot import STAKE as JACKPOT_STAKE
from dealerpoker.server.ledger import txid
from dealerpoker.server.operators.reconcile import wallet_ledger
from dealerpoker.server.rounds.plan import decision_point
from dealerpoker.server.schema import ledger_entries, players, rounds, rules_documents

__all__ = ["FairnessService", "approved_rules", "published_rules", "published_rules_document", "round_record"]


class FairnessService:
    """The player's seeds and the rounds' audit records."""

    def __init__(
        self, database: Database, games: Mapping[str, AnyGame], *, rng: random.Random, clock: Clock,
        engines: Iterable[AnyGame] | None = None,
    ) -> None:
        """``engines``: every engine rounds are played with (each game in each currency), whose
        rules documents ``store_rules`` keeps; default: ``games``."""
        self.database = database
        self.games = dict(games)
        self.engines = tuple(self.games.values() if engines is None else engines)
        self.rng = rng
        self.clock = clock

    async def store_rules(self) -> None:
        """Keep every rules document rounds are played under (by fingerprint), once."""
        async with self.database.transaction() as connection:
            for game in self.engines:
                await store_rules_document(connection, game, timestamp(self.clock()))

    async def info(self, player_id: str) -> dict[str, Any]:
        """What the player's next round will use: its commitment, the client seed, the nonce."""
        async with self.database.transaction(lock_account=player_id) as connection:
            return await self._info(connection, player_id)

    async def set_client_seed(self, player_id: str, client_seed: str) -> dict[str, Any]:
        validate_client_seed(client_seed)
        async with self.database.transaction(lock_account=player_id) as connection:
            await connection.execute(
                update(players).where(players.c.id == player_id).values(client_seed=client_seed))
            return await self._info(connection, player_id)

    async def _info(self, connection: Connection, player_id: str) -> dict[str, Any]:
        player = (await connection.execute(
            select(players.c.client_seed, players.c.nonce, players.c.next_server_seed)
            .where(players.c.id == player_id))).first()
        if player is None:
            raise NotFoundError(f"no player {player_id!r}")
        seed = player.next_server_seed
        if seed is None:
            seed = draw_server_seed(self.rng)
            await connection.execute(
                update(players).where(players.c.id == player_id).values(next_server_seed=seed))
        return {
            "algorithm": ALGORITHM_VERSION,
            "next_commitment": commitment(seed),
            "client_seed": str(player.client_seed),
            "next_nonce": int(player.nonce),
        }

    async def record(self, player_id: str, round_id: str) -> dict[str, Any]:
        """The audit record of one of the player's settled rounds."""
        async with self.database.transaction() as connection:
            row = (await connection.execute(select(rounds).where(rounds.c.id == round_id))).first()
            if row is None:
                raise NotFoundError(f"no round {round_id!r}")
            if row.player_id != player_id:
                raise ForbiddenError(f"round {round_id!r} belongs to another player")
            if row.status != "settled":
                raise ConflictError(f"round {round_id!r} is not settled yet: its record (with the "
                                    "revealed server seed) exists once it is")
            return await round_record(connection, row, self.games)

    async def records_between(self, since: str, until: str | None = None) -> AsyncIterator[dict[str, Any]]:
        """Every settled round's record with ``since <= settled_at < until``, oldest first."""
        query = select(rounds).where(rounds.c.status == "settled").where(rounds.c.settled_at >= since)
        if until is not None:
            query = query.where(rounds.c.settled_at < until)
        async with self.database.transaction() as connection:
            rows = (await connection.execute(query.order_by(rounds.c.settled_at, rounds.c.seq))).all()
            for row in rows:
                yield await round_record(connection, row, self.games)


async def store_rules_document(connection: Connection, game: AnyGame, at: str) -> None:
    """Store the game's rules document under its fingerprint, once: a document already there
    (written by another process starting at the same moment, say) is left as it is."""
    dialect: Any = postgresql if connection.dialect.name == "postgresql" else sqlite
    await connection.execute(dialect.insert(rules_documents).values(
        fingerprint=game.rules.fingerprint(), game=game.name, rules_version=game.rules.rules_version,
        document=json.dumps(game.rules.to_dict()), created_at=at).on_conflict_do_nothing(
        index_elements=["fingerprint"]))


async def published_rules(connection: Connection) -> list[dict[str, Any]]:
    """Every rules document rounds were played under (``GET /api/rules``), oldest first: the
    shipped rules, ``--rules`` files, tables' rules and each paytable version an admin saved."""
    rows = (await connection.execute(
        select(rules_documents.c.fingerprint, rules_documents.c.game, rules_documents.c.rules_version,
               rules_documents.c.created_at)
        .order_by(rules_documents.c.created_at, rules_documents.c.fingerprint))).all()
    return [{"fingerprint": row.fingerprint, "game": row.game, "rules_version": row.rules_version,
             "published_at": row.created_at} for row in rows]


async def published_rules_document(connection: Connection, fingerprint: str) -> dict[str, Any]:
    """One published rules document by its fingerprint (``GET /api/rules/{fingerprint}``): the
    full SHA-256, or the 64-bit one records cite that were made before issue 15."""
    row = (await connection.execute(select(rules_documents).where(
        rules_documents.c.fingerprint == fingerprint))).first()
    if row is None:
        raise NotFoundError(f"no published rules document {fingerprint!r}")
    return {"fingerprint": row.fingerprint, "game": row.game, "rules_version": row.rules_version,
            "published_at": row.created_at, "document": json.loads(row.document)}


async def approved_rules(connection: Connection, fingerprint: str) -> list[str]:
    """The full SHA-256 of the published document stored under ``fingerprint`` (none if none):
    what ``verify_record``'s ``approved_rules`` takes for a record citing it."""
    stored = await connection.scalar(
        select(rules_documents.c.document).where(rules_documents.c.fingerprint == fingerprint))
    return [] if stored is None else [rules_sha256(json.loads(stored))]


async def _rules_document(
    connection: Connection, row: Row[Any], games: Mapping[str, AnyGame]
) -> dict[str, Any]:
    stored = await connection.scalar(
        select(rules_documents.c.document).where(rules_documents.c.fingerprint == row.rules_fingerprint))
    if stored is not None:
        document: dict[str, Any] = json.loads(stored)
        return document
    current = games.get(row.game)
    if current is not None and current.rules.fingerprint() == row.rules_fingerprint:
        return current.rules.to_dict()
    raise ConflictError(f"round {row.id}: the rules it was played under ({row.rules_fingerprint}) "
                        "are not stored on this server")


async def round_record(
    connection: Connection, row: Row[Any], games: Mapping[str, AnyGame]
) -> dict[str, Any]:
    """Build a settled round's record (``dealerpoker.fairness.verify``, version 1) from its row."""
    view = json.loads(row.view)
    steps = json.loads(row.steps)
    query = select(ledger_entries).where(ledger_entries.c.round_id == row.id).order_by(ledger_entries.c.id)
    entries = [{"txid": e.txid, "account": e.account_id, "amount": int(e.amount), "memo": e.memo,
                "at": e.created_at} for e in (await connection.execute(query)).all()]
    if not entries and str(row.player_id).startswith(REMOTE_PREFIX):
        entries = await wallet_ledger(connection, str(row.id), str(row.currency))
    # The jackpot bet's transfers are its own (not the game's settlement): kept beside its result.
    side = [entry for entry in entries if entry["memo"] in (JACKPOT_STAKE, JACKPOT_AWARD)]
    entries = [entry for entry in entries if entry["memo"] not in (JACKPOT_STAKE, JACKPOT_AWARD)]
    bet = view.get("jackpot")
    return build_record(
        round_id=row.id,
        game=row.game,
        rules_version=row.rules_version,
        rules_fingerprint=row.rules_fingerprint,
        rules=await _rules_document(connection, row, games),
        mode="solo",
        table_id=None,
        player_id=row.player_id,
        status=row.status,
        opened_at=row.created_at,
        settled_at=row.settled_at,
        fairness={"algorithm": row.algorithm, "commitment": row.commitment, "server_seed": row.server_seed,
                  "client_seed": row.client_seed, "nonce": row.nonce},
        deck=json.loads(row.deck),
        bets=json.loads(row.bets),
        dealt={"player": view["player_cards"], "dealer": view["dealer_cards"], "board": view["board"]},
        actions=_actions(row.id, row.player_id, games.get(row.game), steps[1:]),
        ledger=entries,
        settlement=view["settlement"],
        currency=row.currency,
        jurisdiction=None if row.jurisdiction is None else json.loads(row.jurisdiction),
        promo=_promo(row.promo, steps),
        jackpot=None if bet is None else {"bet": bet, "ledger": side},
    )


def _promo(stored: str | None, steps: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """A free round's part of its record: its campaign and reward, the ante the operator paid and
    what the cap on winnings forfeited (``server.promotions``)."""
    if stored is None:
        return None
    promo = json.loads(stored)
    return {"campaign": promo["campaign"], "reward": promo["reward"], "free_ante": promo["free_ante"],
            "forfeited": sum(int(step.get("forfeited", 0)) for step in steps)}


def _actions(round_id: str, player_id: str, game: AnyGame | None,
             steps: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The player's decisions (step 0, the deal, is the opening bets) with their ledger txids."""
    return [{"step": s["step"], "action": s["action"], "source": s["source"], "at": s["at"],
             "stake": s["stake"],
             "txid": None if game is None else txid(round_id, player_id, decision_point(game, s["step"]))}
            for s in steps]


async def settled_records(
    database_url: str, games: Mapping[str, AnyGame], since: str, until: str | None = None
) -> list[dict[str, Any]]:
    """Records of the rounds settled in ``[since, until)`` of the database at ``database_url``."""
    database = Database(database_url)
    try:
        await database.migrate()
        service = FairnessService(database, games, rng=random.Random(0), clock=_no_clock)
        return [record async for record in service.records_between(since, until)]
    finally:
        await database.dispose()


def _no_clock() -> Any:
    raise AssertionError("reading records needs no clock")
