"""Responsible gaming in the server: the players' state on their row, what they staked read from
their rounds, every check made where a round opens (solo) or a bet is placed (live), and every
change logged in ``rg_events``.

Costs: a player with nothing set, under a profile without reality checks or pace, costs
nothing more than before (their state is read with the row opening a round reads anyway).
Anyone else's opening reads their last 24 hours of rounds (two indexed aggregates), under the
lock on their account that opening a round takes, so two of their requests cannot both pass
one limit.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import BigInteger, bindparam, case, func, literal_column, select, update

from dealerpoker.errors import DealerPokerError
from dealerpoker.server.batching import Batcher
from dealerpoker.server.chained_log import append
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Connection, Database
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.jurisdiction import Jurisdictions, responsible_profile
from dealerpoker.server.responsible.policy import (
    DAY,
    LIMIT_KINDS,
    SOURCES,
    PlayerState,
    Profile,
    Usage,
    check_opening,
)
from dealerpoker.server.schema import accounts, live_seats, players, rg_events, rounds


def _sums(table: Any, at: Any, returned: Any) -> Any:
    day: Any = bindparam("day")
    session: Any = bindparam("session")
    # A literal, not a bound value: the precompiled statements bind named parameters only.
    staked, zero = table.c.total_stake, literal_column("0", BigInteger)
    return select(
        func.coalesce(func.sum(case((at >= day, staked), else_=zero)), zero).label("day_staked"),
        func.coalesce(func.sum(case((at >= day, returned), else_=zero)), zero).label("day_returned"),
        func.coalesce(func.sum(case((at >= session, staked), else_=zero)), zero).label("session_staked"),
        func.coalesce(func.sum(case((at >= session, returned), else_=zero)), zero).label("session_returned"),
        func.max(at).label("last"),
    ).where(table.c.player_id == bindparam("player")).where(at >= bindparam("since"))


# Solo rounds count from their start, live seats from their last step (what they stake so far
# is taken at no more bets and at each decision).
_SOLO_USAGE = _sums(rounds, rounds.c.created_at, rounds.c.total_returned)
_LIVE_USAGE = _sums(live_seats, live_seats.c.updated_at,
                    func.coalesce(live_seats.c.total_returned, literal_column("0")))
_STATE_FOR_UPDATE = select(players.c.responsible_gaming, accounts.c.currency) \
    .join(accounts, accounts.c.id == players.c.id).where(players.c.id == bindparam("player")) \
    .with_for_update()
_STATES = select(players.c.id, players.c.responsible_gaming) \
    .where(players.c.id.in_(bindparam("players", expanding=True))).order_by(players.c.id)
_STATES_FOR_UPDATE = _STATES.with_for_update()
_WRITE_STATE = update(players).where(players.c.id == bindparam("player"))


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A player's state and usage as of one moment (what ``GET /api/responsible-gaming`` shows)."""

    state: PlayerState
    usage: Usage
    session_start: datetime
    new_session: bool


def _restrictions(before: PlayerState, after: PlayerState, now: datetime) -> dict[str, Any]:
    """The restriction in force before and after a change (None: none), for its log entry."""
    found = before.restriction(now), after.restriction(now)
    return {"before": None if found[0] is None else dict(found[0]),
            "after": None if found[1] is None else dict(found[1])}


class ResponsibleGaming:
    """The checks and settings of responsible gaming over the database."""

    def __init__(self, database: Database, *, clock: Clock, profile: Profile,
                 profiles: Mapping[str, Profile] | None = None,
                 operator_of: Callable[[str], Awaitable[str | None]] | None = None,
                 jurisdictions: Jurisdictions | None = None) -> None:
        self.database = database
        self.clock = clock
        self.profile = profile
        # An operator's players play under their operator's profile (``serve --operators``):
        # ``profiles`` by operator id, ``operator_of`` tells a player's operator (None: ours).
        self.profiles = dict(profiles or {})
        self.operator_of = operator_of
        # The player's market makes their profile stricter where its regulator requires it.
        self.jurisdictions = jurisdictions
        self._live_bets = Batcher(self._check_live_bets)

    async def profile_of(self, player_id: str) -> Profile:
        """The profile the player plays under: their operator's, else the deployment's, as strict
        as their jurisdiction requires."""
        profile = self.profile
        if self.profiles and self.operator_of is not None:
            operator = await self.operator_of(player_id)
            profile = self.profile if operator is None else self.profiles.get(operator, self.profile)
        if self.jurisdictions is not None:
            profile = responsible_profile(profile, await self.jurisdictions.of(player_id))
        return profile

    @staticmethod
    def needs_check(state_json: str | None, profile: Profile) -> bool:
        """Whether opening a round for a player must be checked (their state or their profile)."""
        return bool(state_json) or profile.checks_every_round

    # ----- the checks -------------------------------------------------------------------------
    async def check_opening(self, connection: Connection, player_id: str, state_json: str | None,
                            at_stake: int, *, now: datetime | None = None,
                            profile: Profile | None = None) -> None:
        """In the unit of work opening a round, holding the player's lock: refuse it (an error
        naming the reason), or note a new play session it starts (``now``: the round's time;
        ``profile``: the player's, when the caller has it)."""
        profile = await self.profile_of(player_id) if profile is None else profile
        if not self.needs_check(state_json, profile):
            return
        now = self.clock() if now is None else now
        state = PlayerState.from_json(state_json)
        snapshot = await self._snapshot(connection, player_id, state, now, profile)
        check_opening(snapshot.state, profile, snapshot.usage, at_stake, now, snapshot.session_start)
        if snapshot.new_session:
            await self._save(connection, player_id, snapshot.state.started_session(now), now, by="server",
                             kind="session", detail={"started_at": timestamp(now)})

    async def check_live_bet(self, player_id: str, at_stake: int) -> None:
        """Before a live table accepts a player's bets (which it debits at no more bets). The bets
        placed within a few milliseconds of each other are checked in one unit of work
        (``batching.Batcher``): thousands of players bet in the first seconds of a window."""
        await self._live_bets((player_id, at_stake), None)

    async def _check_live_bets(self, bets: Mapping[tuple[str, int], None]
                               ) -> dict[tuple[str, int], Exception | None]:
        """(player, stake) -> None (the bets may stand) or the refusal; checked under the players' locks
        where there is something to check."""
        players_in = sorted({player for player, _ in bets})
        # Before the transaction: a profile may need a read of its own.
        profiles = dict(zip(players_in, await asyncio.gather(*map(self.profile_of, players_in)), strict=True))
        answers: dict[tuple[str, int], Exception | None] = {}
        # Most players have nothing to check (no limits of their own, a profile that checks no
        # round): one read, no transaction, for them (a limit set a moment later applies from the
        # next bet, as it would have after a locked check). The players' locks and a transaction
        # only for the others: at 10,000 players, a transaction for every batch of bets was
        # 9-11% of each worker's CPU (py-spy, 2026-12-07).
        async with self.database.reading() as connection:
            found = await connection.execute(_STATES, {"players": players_in})
            unlocked = {str(row.id): row.responsible_gaming for row in found}
        for player, at_stake in bets:
            if player in unlocked and not self.needs_check(unlocked[player], profiles[player]):
                answers[player, at_stake] = None
        checked = [bet for bet in bets if bet not in answers]
        if not checked:
            return answers
        async with self.database.transaction() as connection:
            found = await connection.execute(_STATES_FOR_UPDATE,
                                             {"players": sorted({player for player, _ in checked})})
            states = {str(row.id): row.responsible_gaming for row in found}
            for player, at_stake in checked:
                try:
                    if player not in states:
                        raise NotFoundError(f"no player {player!r}")
                    profile = profiles[player]
                    await self.check_opening(connection, player, states[player], at_stake, profile=profile)
                    answers[player, at_stake] = None
                except DealerPokerError as error:  # this player's refusal: the others' checks stand
                    answers[player, at_stake] = error
                    continue
                if self.needs_check(states[player], profile):  # its check may have begun a session
                    row = await connection.one(_STATE_FOR_UPDATE, {"player": player})
                    states[player] = None if row is None else row["responsible_gaming"]
        return answers

    async def _snapshot(self, connection: Connection, player_id: str, state: PlayerState, now: datetime,
                        profile: Profile) -> Snapshot:
        stored = PlayerState(state.document).document.get("session_started_at")
        session = stored if isinstance(stored, str) else timestamp(now)
        day = timestamp(now - DAY)
        values = {"player": player_id, "day": day, "session": session, "since": min(day, session)}
        solo = await connection.one(_SOLO_USAGE, values) or {}
        live = await connection.one(_LIVE_USAGE, values) or {}
        lasts = [text for text in (solo.get("last"), live.get("last")) if text]
        usage = Usage(
            day_staked=int(solo.get("day_staked") or 0) + int(live.get("day_staked") or 0),
            day_returned=int(solo.get("day_returned") or 0) + int(live.get("day_returned") or 0),
            session_staked=int(solo.get("session_staked") or 0) + int(live.get("session_staked") or 0),
            session_returned=int(solo.get("session_returned") or 0) + int(live.get("session_returned") or 0),
            last_round_at=datetime.fromisoformat(max(lasts).replace("Z", "+00:00")) if lasts else None,
        )
        start, new = state.session_start(usage, now, profile)
        if new:  # nothing of a session that has not started yet counts for it
            usage = Usage(usage.day_staked, usage.day_returned, 0, 0, usage.last_round_at)
        return Snapshot(state, usage, start, new)

    # ----- what the player and the operator see and set ---------------------------------------
    async def status(self, player_id: str) -> dict[str, Any]:
        """The profile, the limits (each source's, what applies, raises waiting), a restriction,
        and the play session so far (its time, stakes, net, the next reality check)."""
        now = self.clock()
        profile = await self.profile_of(player_id)
        async with self.database.transaction() as connection:
            row = await self._row(connection, player_id)
            state = PlayerState.from_json(row["responsible_gaming"])
            snapshot = await self._snapshot(connection, player_id, state, now, profile)
        applied = state.limits(now)
        limits: dict[str, Any] = {}
        for kind in LIMIT_KINDS:
            entry: dict[str, Any] = {"applies": applied.get(kind)}
            for source in SOURCES:
                entry[source] = state.limit_of(kind, source, now)
                pending = state.pending_of(kind, source, now)
                if pending is not None and source == "player":
                    entry["pending"] = {"amount": pending[0], "applies_at": timestamp(pending[1])}
            limits[kind] = entry
        in_session = not snapshot.new_session
        due = state.reality_check_at(snapshot.session_start, profile) if in_session else None
        usage = snapshot.usage
        return {
            "currency": row["currency"],
            "profile": profile.to_dict(),
            "limits": limits,
            "restriction": state.restriction(now),
            "session": {
                "active": in_session,
                "started_at": timestamp(snapshot.session_start) if in_session else None,
                "minutes": int((now - snapshot.session_start).total_seconds() // 60) if in_session else 0,
                "staked": usage.session_staked, "returned": usage.session_returned,
                "net": usage.session_returned - usage.session_staked,
                "reality_check_at": None if due is None else timestamp(due),
                "reality_check_due": due is not None and now >= due,
            },
            "day": {"staked": usage.day_staked, "returned": usage.day_returned,
                    "net": usage.day_returned - usage.day_staked},
            "server_time": timestamp(now),
            **(await self._market(player_id)),
        }

    async def _market(self, player_id: str) -> dict[str, Any]:
        """The player's jurisdiction and its profile (settings, clauses, version, links)."""
        if self.jurisdictions is None:
            return {}
        market = await self.jurisdictions.of(player_id)
        return {"jurisdiction": market.id, "jurisdiction_profile": market.page()}

    async def set_limits(self, player_id: str, changes: Mapping[str, int | None], *, source: str,
                         by: str) -> None:
        """Set several limits at once (each checked first: a bad one changes nothing)."""
        now = self.clock()
        profile = await self.profile_of(player_id)
        async with self.database.transaction() as connection:
            row = await self._row(connection, player_id)
            state = before = PlayerState.from_json(row["responsible_gaming"])
            for kind, amount in changes.items():
                state = state.set_limit(kind, amount, source=source, now=now, profile=profile)
            detail = {"source": source, "limits": dict(changes),
                      "before": {kind: before.limit_view(kind, source, now) for kind in changes},
                      "after": {kind: state.limit_view(kind, source, now) for kind in changes}}
            await self._save(connection, player_id, state, now, by=by, kind="limit", detail=detail)

    async def restrict(self, player_id: str, kind: str, until: datetime | None, *, by: str,
                       reason: str | None = None) -> dict[str, Any] | None:
        """A self-exclusion or cool-off (``kind`` "none" lifts it); the restriction in force."""
        now = self.clock()
        async with self.database.transaction() as connection:
            row = await self._row(connection, player_id)
            before = PlayerState.from_json(row["responsible_gaming"])
            state = before.restrict(kind, until, by=by, now=now, reason=reason)
            await self._save(connection, player_id, state, now, by=by, kind="restriction",
                             detail={"kind": kind, "until": None if until is None else timestamp(until),
                                     "reason": reason, **_restrictions(before, state, now)})
        found = state.restriction(now)
        return None if found is None else dict(found)

    async def take_break(self, player_id: str, hours: int) -> dict[str, Any] | None:
        """The player's own cool-off: a break they cannot shorten (a longer one replaces it)."""
        now = self.clock()
        until = now + timedelta(hours=hours)
        async with self.database.transaction() as connection:
            row = await self._row(connection, player_id)
            state = PlayerState.from_json(row["responsible_gaming"])
            current = state.restriction(now)
            if current is not None and (current.get("until") is None or current["until"] >= timestamp(until)):
                return dict(current)  # already away longer: a shorter break changes nothing
            changed = state.restrict("cool_off", until, by="player", now=now, reason="break")
            await self._save(connection, player_id, changed, now, by="player", kind="restriction",
                             detail={"kind": "cool_off", "until": timestamp(until), "reason": "break",
                                     **_restrictions(state, changed, now)})
            state = changed
        return dict(state.restriction(now) or {})

    async def answer_reality_check(self, player_id: str, choice: str) -> None:
        """The player answered the reality check: "continue" plays on for another period; "leave"
        is only logged (the page takes them to the lobby)."""
        now = self.clock()
        async with self.database.transaction() as connection:
            row = await self._row(connection, player_id)
            state = PlayerState.from_json(row["responsible_gaming"])
            if choice == "continue":
                state = state.answered_reality_check(now)
            await self._save(connection, player_id, state, now, by="player", kind="reality_check",
                             detail={"choice": choice})

    async def events(self, player_id: str, limit: int = 100,
                     kinds: tuple[str, ...] | None = None) -> list[dict[str, Any]]:
        """The player's logged changes, newest first (``kinds``: only these, e.g. the limits and
        restrictions without the sessions; each change's ``before`` and ``after`` are in its
        detail, for the changes logged since they were kept)."""
        query = select(rg_events).where(rg_events.c.player_id == player_id)
        if kinds is not None:
            query = query.where(rg_events.c.kind.in_(kinds))
        async with self.database.transaction() as connection:
            rows = (await connection.execute(query.order_by(rg_events.c.id.desc()).limit(limit))).all()
        return [{"at": r.at, "by": r.by, "kind": r.kind, "detail": json.loads(r.detail)} for r in rows]

    # ----- storage ------------------------------------------------------------------------------
    @staticmethod
    async def _row(connection: Connection, player_id: str) -> dict[str, Any]:
        row = await connection.one(_STATE_FOR_UPDATE, {"player": player_id})
        if row is None:
            raise NotFoundError(f"no player {player_id!r}")
        return row

    @staticmethod
    async def _save(connection: Connection, player_id: str, state: PlayerState, now: datetime, *,
                    by: str, kind: str, detail: Mapping[str, Any]) -> None:
        await connection.run(_WRITE_STATE, {"player": player_id, "responsible_gaming": state.to_json()})
        await append(connection, rg_events, {"player_id": player_id, "at": timestamp(now), "by": by,
                                             "kind": kind, "detail": json.dumps(detail, sort_keys=True)})
