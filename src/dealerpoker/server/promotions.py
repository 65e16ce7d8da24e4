"""Free bets: an operator's campaigns, the rewards it grants its players, and the claim of a free
round (docs/operators.md#free-bets).

A **campaign** is created once per operator idempotency id (``external_id``): the same id with
the same body answers the first campaign, with another body it is refused (409). It names its
games, the free ante per currency, how many free rounds each player gets, when they may be played
(``valid_from`` <= now < ``valid_until``) and, optionally, a cap per currency on what a player may
win with them. A **reward** is one player's grant of a campaign (granting again answers the same
reward). Each free round is **claimed** in the unit of work that opens its round
(:meth:`Promotions.claim`): the reward's ``rounds_used`` moves on only if it is still as read, so
no free round is played twice, by two requests, two processes or a restart between them.

A free round is an ordinary round whose ante the operator pays: the player's Bonus or AA bet and
every later bet are real money; the round's return is the player's, credited with ``promo`` set
(campaign and reward) so the operator books it as promotional. Its *winnings* are what it
returned beyond the player's own stakes; with a cap, the settlement returns at most the player's
stakes plus what is left of the cap (the rest is forfeited, and the round's record says so).
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.errors import ConflictError, NotFoundError
from dealerpoker.server.jurisdiction import Jurisdictions
from dealerpoker.server.live.ports import FreeRoundClaim
from dealerpoker.server.schema import (
    live_rounds,
    live_seats,
    operator_players,
    promo_campaigns,
    promo_rewards,
    rounds,
)

ANTE_FIELD = "ante"
MAX_ROUNDS = 1000
"""The most free rounds one campaign gives a player."""


class FreeRoundError(DealerPokerError, ValueError):
    """A free round that cannot be played (none left, out of its window, another game...)."""

    code = "free_round"
    status = 409


class FreeBetsRefusedError(DealerPokerError, ValueError):
    """The player's jurisdiction does not allow free bets."""

    code = "jurisdiction"
    status = 403

    def details(self) -> dict[str, Any]:
        return {"rule": "free_bets"}


@dataclass(frozen=True, slots=True)
class CampaignIn:
    """A campaign as the operator asked for it (checked by the API's model)."""

    external_id: str
    games: tuple[str, ...]
    ante: Mapping[str, int]
    rounds: int
    valid_from: str
    valid_until: str
    max_win: Mapping[str, int] | None = None
    name: str | None = None


@dataclass(frozen=True, slots=True)
class FreeRound:
    """A free round about to open: what its round keeps (``promo``) and how its claim is checked."""

    reward_id: str
    rounds_used: int
    """The reward's ``rounds_used`` as read (the claim moves it on only from this)."""
    ante: int
    promo: dict[str, Any]


def body_fingerprint(body: bytes) -> str:
    """The SHA-256 of a request's canonical JSON: the same campaign sent with other spacing or
    key order is the same body."""
    canonical = json.dumps(json.loads(body or b"{}"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def campaign_view(row: Mapping[str, Any], *, granted: int | None = None,
                  used: int | None = None) -> dict[str, Any]:
    """A campaign as the API and the back office show it."""
    found = {
        "id": row["id"],
        "operator": row["operator_id"],
        "external_id": row["external_id"],
        "name": row["name"],
        "games": json.loads(row["games"]),
        "ante": json.loads(row["ante"]),
        "max_win": None if row["max_win"] is None else json.loads(row["max_win"]),
        "rounds": row["rounds"],
        "valid_from": row["valid_from"],
        "valid_until": row["valid_until"],
        "status": row["status"],
        "created_at": row["created_at"],
        "cancelled_at": row["cancelled_at"],
    }
    if granted is not None:
        found["players"] = granted
    if used is not None:
        found["rounds_used"] = used
    return found


def reward_view(row: Mapping[str, Any]) -> dict[str, Any]:
    return {"id": row["id"], "campaign": row["campaign_id"], "player": row["player"],
            "rounds": row["rounds"], "rounds_used": row["rounds_used"],
            "rounds_left": row["rounds"] - row["rounds_used"], "created_at": row["created_at"]}


def cap_left(cap: int | None, played: Sequence[tuple[int, int]]) -> int | None:
    """What is left of a reward's cap on winnings after its settled rounds ``played`` (each
    (player's own stake, returned)): a round's winnings are its return beyond the player's stake.

    >>> cap_left(1000, [(0, 300), (200, 100), (200, 900)])
    0
    >>> cap_left(None, [(0, 300)]), cap_left(1000, [(0, 300)])
    (None, 700)
    """
    if cap is None:
        return None
    return max(0, cap - sum(max(0, returned - stake) for stake, returned in played))


class Promotions:
    """Campaigns, rewards and the claim of free rounds, in the server's database."""

    def __init__(self, database: Database, clock: Clock, jurisdictions: Jurisdictions | None = None) -> None:
        self.database = database
        self.clock = clock
        self.jurisdictions = jurisdictions

    # ---- the operator's side ----------------------------------------------------------------
    async def create(self, operator_id: str, campaign: CampaignIn,
                     body: bytes) -> tuple[dict[str, Any], bool]:
        """The campaign of ``campaign.external_id`` (created now: True), or the one created before
        with the same body (False); another body with the same id is refused (409)."""
        fingerprint = body_fingerprint(body)
        existing = await self._by_external(operator_id, campaign.external_id)
        if existing is None:
            row = {
                "id": "c_" + secrets.token_hex(8), "operator_id": operator_id,
                "external_id": campaign.external_id, "body_sha256": fingerprint, "name": campaign.name,
                "games": json.dumps(list(campaign.games)), "ante": json.dumps(dict(campaign.ante)),
                "max_win": None if campaign.max_win is None else json.dumps(dict(campaign.max_win)),
                "rounds": campaign.rounds, "valid_from": campaign.valid_from,
                "valid_until": campaign.valid_until, "status": "active",
                "created_at": timestamp(self.clock()), "cancelled_at": None,
            }
            try:
                async with self.database.transaction() as connection:
                    await connection.execute(insert(promo_campaigns).values(row))
                return campaign_view(row), True
            except IntegrityError:  # the same id created meanwhile: answered as a repeat
                existing = await self._by_external(operator_id, campaign.external_id)
                assert existing is not None
        if existing["body_sha256"] != fingerprint:
            raise ConflictError(f"campaign id {campaign.external_id!r} was used for another campaign "
                                f"({existing['id']}): a new campaign needs a new id")
        return campaign_view(existing), False

    async def _by_external(self, operator_id: str, external_id: str) -> Mapping[str, Any] | None:
        async with self.database.reading() as connection:
            found = await connection.execute(select(promo_campaigns).where(
                promo_campaigns.c.operator_id == operator_id, promo_campaigns.c.external_id == external_id))
            row = found.mappings().first()
        return None if row is None else dict(row)

    async def campaign(self, operator_id: str | None, campaign_id: str) -> dict[str, Any]:
        """A campaign with its grants and use (``operator_id`` None: staff, any operator's)."""
        found = await self.campaigns(operator_id, campaign_id=campaign_id)
        if not found:
            raise NotFoundError(f"no campaign {campaign_id!r}")
        return found[0]

    async def campaigns(self, operator_id: str | None, *, campaign_id: str | None = None,
                        status: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Campaigns, newest first, each with how many players were granted it and how many of
        their free rounds were opened."""
        granted = (select(promo_rewards.c.campaign_id, func.count().label("players"),
                          func.coalesce(func.sum(promo_rewards.c.rounds_used), 0).label("used"))
                   .group_by(promo_rewards.c.campaign_id).subquery())
        query = (select(promo_campaigns, granted.c.players, granted.c.used)
                 .select_from(promo_campaigns.outerjoin(
                     granted, granted.c.campaign_id == promo_campaigns.c.id)))
        if operator_id is not None:
            query = query.where(promo_campaigns.c.operator_id == operator_id)
        if campaign_id is not None:
            query = query.where(promo_campaigns.c.id == campaign_id)
        if status is not None:
            query = query.where(promo_campaigns.c.status == status)
        async with self.database.reading() as connection:
            found = await connection.execute(query.order_by(promo_campaigns.c.created_at.desc()).limit(limit))
            rows = [dict(row) for row in found.mappings()]
        return [campaign_view(row, granted=int(row["players"] or 0), used=int(row["used"] or 0))
                for row in rows]

    async def cancel(self, operator_id: str, campaign_id: str) -> dict[str, Any]:
        """Cancel a campaign: no free round of it opens from now on (a round open is played out).
        Cancelling again answers the campaign as it is."""
        await self.campaign(operator_id, campaign_id)
        async with self.database.transaction() as connection:
            await connection.execute(
                update(promo_campaigns)
                .where(promo_campaigns.c.id == campaign_id, promo_campaigns.c.status == "active")
                .values(status="cancelled", cancelled_at=timestamp(self.clock())))
        return await self.campaign(operator_id, campaign_id)

    async def grant(self, operator_id: str, campaign_id: str, players: Sequence[str]) -> list[dict[str, Any]]:
        """Each player's reward of the campaign (granted now, or the one granted before)."""
        campaign = await self.campaign(operator_id, campaign_id)
        if campaign["status"] != "active":
            raise FreeRoundError(f"campaign {campaign_id!r} is {campaign['status']}: nothing granted")
        if campaign["valid_until"] <= timestamp(self.clock()):
            raise FreeRoundError(
                f"campaign {campaign_id!r} ended at {campaign['valid_until']}: nothing granted")
        at = timestamp(self.clock())
        for player in dict.fromkeys(players):
            try:
                async with self.database.transaction() as connection:
                    await connection.execute(insert(promo_rewards).values(
                        id="fr_" + secrets.token_hex(8), campaign_id=campaign_id, operator_id=operator_id,
                        player=player, rounds=campaign["rounds"], rounds_used=0, created_at=at))
            except IntegrityError:
                pass  # granted before: the same reward
        async with self.database.reading() as connection:
            found = await connection.execute(select(promo_rewards).where(
                promo_rewards.c.campaign_id == campaign_id, promo_rewards.c.player.in_(list(players))))
            by_player = {row["player"]: reward_view(dict(row)) for row in found.mappings()}
        return [by_player[player] for player in dict.fromkeys(players)]

    async def rewards(self, operator_id: str | None, campaign_id: str) -> list[dict[str, Any]]:
        await self.campaign(operator_id, campaign_id)
        async with self.database.reading() as connection:
            found = await connection.execute(select(promo_rewards).where(
                promo_rewards.c.campaign_id == campaign_id).order_by(promo_rewards.c.created_at))
            return [reward_view(dict(row)) for row in found.mappings()]

    # ---- the player's side ------------------------------------------------------------------
    async def offers(self, player_id: str, game: str | None = None) -> list[dict[str, Any]]:
        """The free rounds ``player_id`` can play now, in their currency (``game``: of that game):
        each reward with rounds left, its campaign's ante in that currency and games (none where
        the player's jurisdiction allows no free bets)."""
        account = await self._account(player_id)
        if account is None or not await self._allowed(player_id):
            return []
        operator_id, external_id, currency = account
        now = timestamp(self.clock())
        async with self.database.reading() as connection:
            found = await connection.execute(
                select(promo_rewards, promo_campaigns.c.games, promo_campaigns.c.ante,
                       promo_campaigns.c.max_win, promo_campaigns.c.valid_until,
                       promo_campaigns.c.name, promo_campaigns.c.external_id)
                .select_from(promo_rewards.join(
                    promo_campaigns, promo_campaigns.c.id == promo_rewards.c.campaign_id))
                .where(promo_rewards.c.operator_id == operator_id, promo_rewards.c.player == external_id,
                       promo_rewards.c.rounds_used < promo_rewards.c.rounds,
                       promo_campaigns.c.status == "active", promo_campaigns.c.valid_from <= now,
                       promo_campaigns.c.valid_until > now)
                .order_by(promo_campaigns.c.valid_until, promo_rewards.c.id))
            rows = [dict(row) for row in found.mappings()]
        offered = []
        for row in rows:
            ante = json.loads(row["ante"]).get(currency)
            games = json.loads(row["games"])
            if ante is None or (game is not None and game not in games):
                continue
            cap = json.loads(row["max_win"] or "{}").get(currency) if row["max_win"] else None
            offered.append({"reward": row["id"], "campaign": row["campaign_id"], "name": row["name"],
                            "games": games, "currency": currency, "ante": ante,
                            "rounds_left": row["rounds"] - row["rounds_used"], "rounds": row["rounds"],
                            "max_win": cap, "valid_until": row["valid_until"]})
        return offered

    async def prepare(self, player_id: str, reward_id: str, game: str) -> FreeRound:
        """A free round of ``reward_id`` for ``player_id`` in ``game``, as it would open now (else
        :class:`FreeRoundError` naming why, or 403 where the player's market allows no free bets)."""
        if not await self._allowed(player_id):
            assert self.jurisdictions is not None
            market = await self.jurisdictions.of(player_id)
            raise FreeBetsRefusedError(
                f"free bets are not allowed in jurisdiction {market.id} (profile setting free_bets)")
        offer = next((o for o in await self.offers(player_id) if o["reward"] == reward_id), None)
        if offer is None:
            raise FreeRoundError(f"free round {reward_id!r}: none left for this player now (used up, not "
                                 "granted to them, cancelled, outside its validity or not in their currency)")
        if game not in offer["games"]:
            raise FreeRoundError(f"free round {reward_id!r}: for {', '.join(offer['games'])}, not {game}")
        async with self.database.reading() as connection:
            used = await connection.scalar(
                select(promo_rewards.c.rounds_used).where(promo_rewards.c.id == reward_id))
            found = await connection.execute(
                select(rounds.c.status, rounds.c.total_stake, rounds.c.total_returned)
                .where(rounds.c.promo_reward == reward_id))
            played = [(row["status"], int(row["total_stake"]), int(row["total_returned"]))
                      for row in found.mappings()]
            at_tables = await connection.execute(  # its free rounds at live tables (their own stakes)
                select(live_seats.c.total_stake, live_seats.c.total_returned)
                .where(live_seats.c.promo_reward == reward_id))
            played += [("open" if back is None else "settled", int(stake), int(back or 0))
                       for stake, back in at_tables]
        if any(status == "open" for status, _, _ in played):
            raise FreeRoundError(f"free round {reward_id!r}: finish the free round already open first")
        promo = {"campaign": offer["campaign"], "reward": reward_id, "free_ante": offer["ante"],
                 "cap_left": cap_left(offer["max_win"], [(stake, back) for _, stake, back in played])}
        external = await self._external_campaign(offer["campaign"])
        promo["campaign_external_id"] = external
        return FreeRound(reward_id, int(used or 0), int(offer["ante"]), promo)

    async def _allowed(self, player_id: str) -> bool:
        """Whether the player's jurisdiction profile allows free bets (its ``free_bets``)."""
        if self.jurisdictions is None:
            return True
        return bool((await self.jurisdictions.of(player_id)).value("free_bets"))

    async def _external_campaign(self, campaign_id: str) -> str:
        async with self.database.reading() as connection:
            return str(await connection.scalar(
                select(promo_campaigns.c.external_id).where(promo_campaigns.c.id == campaign_id)))

    async def _account(self, player_id: str) -> tuple[str, str, str] | None:
        async with self.database.reading() as connection:
            found = await connection.execute(
                select(operator_players.c.operator_id, operator_players.c.external_id,
                       operator_players.c.currency)
                .where(operator_players.c.player_id == player_id))
            row = found.first()
        return None if row is None else (str(row[0]), str(row[1]), str(row[2]))


def with_free_ante(free: FreeRound, bets: Mapping[str, object]) -> dict[str, object]:
    """The opening bets of a free round: the player's, with the ante the reward gives (the
    operator's). An ante sent must be that one (else :class:`FreeRoundError`, naming both).

    >>> free = FreeRound("fr_1", 0, 100, {})
    >>> with_free_ante(free, {"bonus": 50})
    {'bonus': 50, 'ante': 100}
    """
    ante = bets.get(ANTE_FIELD, free.ante)
    if ante != free.ante:
        raise FreeRoundError(f"free round {free.reward_id!r}: its ante is {free.ante}, not {ante!r} "
                             "(send the ante it gives, or none)")
    return {**bets, ANTE_FIELD: free.ante}


async def claim(connection: Connection, free: FreeRound, at: datetime) -> None:
    """Claim ``free`` in the unit of work that opens its round: the reward's ``rounds_used``
    moves on by one only if it is still as read, rounds are left and its campaign is active and
    valid now; else :class:`FreeRoundError` and nothing is written."""
    if not await _claimed(connection, free.reward_id, timestamp(at), free.rounds_used):
        raise FreeRoundError(f"free round {free.reward_id!r}: taken by another round meanwhile, used up "
                             "or no longer valid (ask GET /api/free-rounds again)")


async def claim_at_table(connection: Connection, seat: FreeRoundClaim, at: str) -> bool:
    """Claim one free round of ``seat.reward`` in the unit of work of a live table's deal (the
    commit that debits the seats' stakes): whether it was claimed (rounds left, campaign active
    and valid at ``at``, and no other round of the reward claimed since the bet was accepted,
    here, at another table or solo: the cap left the seat was given still holds). The deal
    commits once per round (a retry after a refusal rolled the claim back with everything else;
    a resumed table is past its deal), so no seat claims twice."""
    return await _claimed(connection, seat.reward, at, seat.rounds_used)


async def release_at_table(connection: Connection, reward_id: str) -> None:
    """Give back the free round of ``reward_id`` a studio misdeal cancelled, in the unit of work
    that settles the cancellation (it returned every stake: the player played nothing with it)."""
    await connection.execute(
        update(promo_rewards).where(promo_rewards.c.id == reward_id, promo_rewards.c.rounds_used > 0)
        .values(rounds_used=promo_rewards.c.rounds_used - 1))


async def _claimed(connection: Connection, reward_id: str, now: str, rounds_used: int | None) -> bool:
    active = (select(promo_campaigns.c.id)
              .where(promo_campaigns.c.id == promo_rewards.c.campaign_id,
                     promo_campaigns.c.status == "active",
                     promo_campaigns.c.valid_from <= now, promo_campaigns.c.valid_until > now)
              .exists())
    condition = and_(promo_rewards.c.id == reward_id, promo_rewards.c.rounds_used < promo_rewards.c.rounds,
                     active)
    if rounds_used is not None:
        condition = and_(condition, promo_rewards.c.rounds_used == rounds_used)
    claimed = await connection.execute(
        update(promo_rewards).where(condition).values(rounds_used=promo_rewards.c.rounds_used + 1))
    return bool(claimed.rowcount == 1)


async def use_of(database: Database, *, since: str | None = None,
                 until: str | None = None) -> dict[str, dict[str, dict[str, int]]]:
    """Each campaign's settled free rounds per currency, solo and at live tables (settled in
    [since, until) when given):
    ``rounds``, ``free_ante`` (the antes the operator paid), ``staked`` (the players' own stakes),
    ``returned``, and ``net``: what moved to the players, returned less their own stakes (the
    campaign's cost so far)."""
    query = (select(promo_rewards.c.campaign_id, rounds.c.currency, rounds.c.bets, rounds.c.total_stake,
                    rounds.c.total_returned)
             .select_from(rounds.join(promo_rewards, promo_rewards.c.id == rounds.c.promo_reward))
             .where(rounds.c.status == "settled"))
    if since is not None:
        query = query.where(rounds.c.settled_at >= since)
    if until is not None:
        query = query.where(rounds.c.settled_at < until)
    at_tables = (select(promo_rewards.c.campaign_id, operator_players.c.currency, live_seats.c.bets,
                        live_seats.c.total_stake, live_seats.c.total_returned)
                 .select_from(live_seats.join(promo_rewards, promo_rewards.c.id == live_seats.c.promo_reward)
                              .join(operator_players, operator_players.c.player_id == live_seats.c.player_id)
                              .join(live_rounds, and_(live_rounds.c.table_id == live_seats.c.table_id,
                                                      live_rounds.c.number == live_seats.c.number)))
                 .where(live_seats.c.total_returned.is_not(None)))
    if since is not None:
        at_tables = at_tables.where(live_rounds.c.settled_at >= since)
    if until is not None:
        at_tables = at_tables.where(live_rounds.c.settled_at < until)
    found: dict[str, dict[str, dict[str, int]]] = {}
    async with database.reading() as connection:
        rows = [*(await connection.execute(query)).all(), *(await connection.execute(at_tables)).all()]
    for campaign_id, currency, bets, staked, returned in rows:
        sums = found.setdefault(str(campaign_id), {}).setdefault(
            str(currency), {"rounds": 0, "free_ante": 0, "staked": 0, "returned": 0, "net": 0})
        sums["rounds"] += 1
        sums["free_ante"] += int(json.loads(bets).get(ANTE_FIELD, 0))
        sums["staked"] += int(staked)
        sums["returned"] += int(returned)
        sums["net"] += int(returned) - int(staked)
    return found


def expected_cost(ante: int, house_edge: Fraction) -> Fraction:
    """The expected cost to the operator of one free round of ``ante``: what the free ante is
    worth to a player under optimal play, ``ante x (1 - house edge per ante)`` (the player's later
    bets in the round are theirs, at the game's usual edge; the ante costs them nothing).

    >>> expected_cost(100, Fraction(1, 50))
    Fraction(98, 1)
    """
    return ante * (1 - house_edge)
