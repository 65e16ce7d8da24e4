"""Solo rounds: load, apply the engine, persist the state with its ledger entries, commit.

Each request is one unit of work (``Database.direct``, locked on the player's account):
the step's stake is debited *before* the engine reveals anything, and the final step credits
the settlement in the same transaction. A round is stored as its record (bets, deck order,
actions with time and source) and replays through the engine; the player's view after the
last step is stored beside it for history.

On PostgreSQL a player's step first tries two round trips instead of six to eight
(``pgsteps``): read the rows (or take them as this process last wrote them, ``KnownRows``),
compute the step, and write it all in one statement that checks the rows are unchanged; if
they are not, or the step would be refused, nothing was written and the locked unit of work
above decides.

Transaction ids: ``{round}:{step}`` debits the stake of step ``step`` (step 0 = the opening
bets), ``{round}:{step}:return`` credits what that step returned (the Texas Bonus at step 0,
the settlement at the final step).
"""

from __future__ import annotations

import json
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import bindparam, insert, select, update

from dealerpoker.errors import DealerPokerError, IllegalActionError, InsufficientFundsError
from dealerpoker.games import AnyGame, RoundState
from dealerpoker.games.currency import house_account
from dealerpoker.games.payments import decide, most_at_stake, opening_stake, paid_at_deal, timer_action
from dealerpoker.server import ledger, pgsteps
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.dealing import Deal, committed_deal, draw_server_seed
from dealerpoker.server.direct import AsyncpgDirect, DirectConnection
from dealerpoker.server.errors import ConflictError, ForbiddenError, NotFoundError
from dealerpoker.server.offer import Offer
from dealerpoker.server.responsible.service import ResponsibleGaming
from dealerpoker.server.schema import accounts, players, rounds

ViewJSON = str
"""A round view as JSON text, exactly as stored with the round and sent to the player."""
DealFunction = Callable[[str, str, int], Deal]
"""(server seed, client seed, nonce) -> the round's deal."""

# The statements of a step, built once and run through ``Database.direct()`` (see ``direct``).
# The SET clauses come from the parameters' keys.
_ROUND = select(rounds).where(rounds.c.id == bindparam("round"))
# Locks the round's row and its player's account (PostgreSQL; SQLite has one writer). Every
# step of a round starts with it, so two steps of one round wait for each other, and after the
# wait PostgreSQL re-reads both rows as committed (a lock on the account alone would leave the
# round's row as it was before the wait).
_ROUND_AND_BALANCE = select(rounds, accounts.c.balance) \
    .join(accounts, accounts.c.id == rounds.c.player_id) \
    .where(rounds.c.id == bindparam("round")).with_for_update()
_UPDATE_ROUND = update(rounds).where(rounds.c.id == bindparam("round"))
_INSERT_ROUND = insert(rounds).inline()  # no RETURNING of the generated seq
_ROUND_BY_KEY = select(rounds).where(rounds.c.player_id == bindparam("player")) \
    .where(rounds.c.idempotency_key == bindparam("idempotency_key"))
_PLAYER_SEEDS = select(players.c.client_seed, players.c.nonce, players.c.next_server_seed,
                       players.c.responsible_gaming) \
    .where(players.c.id == bindparam("player"))
_ACCOUNT = select(accounts.c.balance, accounts.c.currency).where(accounts.c.id == bindparam("player"))
_NEXT_NONCE = update(players).where(players.c.id == bindparam("player"))


@dataclass(frozen=True, slots=True)
class _Opening:
    """A new round, shuffled and dealt, before it is written."""

    round_id: str
    nonce: int
    next_seed: str
    state: RoundState
    view: dict[str, Any]
    movements: list[ledger.Movement]
    steps: list[dict[str, Any]]
    values: dict[str, Any]
    """The round's row but for the columns each step changes."""
    at: str


@dataclass(frozen=True, slots=True)
class _Step:
    """A round's next step as the engine played it, before it is written."""

    game: AnyGame
    round_id: str
    number: int
    state: RoundState
    view: dict[str, Any]
    movements: list[ledger.Movement]
    steps: list[dict[str, Any]]
    at: str
    stake: int
    returned: int


class RoundService:
    """Open, play, show and recover solo rounds."""

    def __init__(
        self,
        database: Database,
        offer: Offer,
        *,
        rng: random.Random,
        clock: Clock,
        abandon_after_seconds: float,
        deal: DealFunction = committed_deal,
        responsible: ResponsibleGaming | None = None,
        id_factory: Callable[[], str] = lambda: "r_" + secrets.token_hex(8),
    ) -> None:
        self.database = database
        self.offer = offer
        self.games = offer.games()
        """The games in the default currency."""
        self.rng = rng
        self.clock = clock
        self.abandon_after = timedelta(seconds=abandon_after_seconds)
        self.deal = deal
        self.responsible = responsible
        self.id_factory = id_factory
        self._states = RecentStates()
        self._known = KnownRows()
        # Each engine's rules fingerprint (a hash of its rules document: worth computing once).
        self._fingerprints = {id(game): game.rules.fingerprint() for game in offer.all_engines()}
        # A player's currency never changes: asked once per process.
        self._currencies: dict[str, str] = {}

    def game(self, name: str, currency: str) -> AnyGame:
        """The engine of game ``name`` in ``currency`` (its limits and chips)."""
        return self.offer.game(name, currency)

    async def currency_of(self, player_id: str) -> str:
        """The currency of the player's account (every round of theirs is played in it)."""
        currency = self._currencies.get(player_id)
        if currency is None:
            currency = (await self.account(player_id))[1]
        return currency

    async def account(self, player_id: str) -> tuple[int, str]:
        """The player's balance and its currency."""
        async with self.database.direct() as connection:
            found = await connection.one(_ACCOUNT, {"player": player_id})
        if found is None:
            raise NotFoundError(f"no player {player_id!r}")
        if len(self._currencies) >= 100_000:
            self._currencies.clear()
        self._currencies[player_id] = str(found["currency"])
        return int(found["balance"]), str(found["currency"])

    # ---- commands ---------------------------------------------------------------------
    async def open_round(
        self, player_id: str, game_name: str, bets: Mapping[str, object], idempotency_key: str | None = None
    ) -> ViewJSON:
        """Validate, debit the opening stakes, shuffle, deal: the round's first view."""
        game = self.game(game_name, await self.currency_of(player_id))
        valid = game.validate_bets(bets)
        stake = opening_stake(valid)
        view = await self._open_unlocked(player_id, game, valid, stake, idempotency_key)
        if view is not None:
            return view
        async with self.database.direct() as connection:
            balance = await self._locked_balance(connection, player_id)
            if idempotency_key is not None:
                existing = await connection.one(
                    _ROUND_BY_KEY, {"player": player_id, "idempotency_key": idempotency_key})
                if existing is not None:
                    if existing["game"] != game.name or json.loads(existing["bets"]) != valid:
                        raise ConflictError(
                            f"idempotency_key {idempotency_key!r} was used for another round "
                            f"({existing['id']}: {existing['game']} {existing['bets']})")
                    return str(existing["view"])
            if stake > balance:
                raise InsufficientFundsError(key="error.funds", balance=balance, needed=stake)
            player = await connection.one(_PLAYER_SEEDS, {"player": player_id})
            if player is None:
                raise NotFoundError(f"no player {player_id!r}")
            if self.responsible is not None:
                await self.responsible.check_opening(connection, player_id, player["responsible_gaming"],
                                                     most_at_stake(game, valid))
            opening = self._opening(player_id, game, valid, stake, idempotency_key, player)
            await connection.run(_NEXT_NONCE, {
                "player": player_id, "nonce": opening.nonce + 1, "next_server_seed": opening.next_seed})
            balance = await ledger.post_player_movements(
                connection, player_id, opening.movements, at=opening.at, round_id=opening.round_id,
                balance=balance, house=house_account(opening.values["currency"]))
            values = self._opened_row(game, opening, balance)
            await connection.run(_INSERT_ROUND, values)
        self._states.remember(opening.round_id, 1, opening.state)
        return str(values["view"])

    async def _open_unlocked(
        self, player_id: str, game: AnyGame, valid: dict[str, int], stake: int, idempotency_key: str | None
    ) -> ViewJSON | None:
        """PostgreSQL: open the round in two round trips (``pgsteps``), or None (nothing changed)
        when the locked path must decide: an unknown player, funds short of the bets, a used
        idempotency key, or rows that changed between the read and the write."""
        async with self.database.autocommit() as connection:
            if connection is None:
                return None
            if idempotency_key is None:
                player = await connection.one(pgsteps.PLAYER, {"player": player_id})
            else:
                player = await connection.one(
                    pgsteps.PLAYER_AND_KEY, {"player": player_id, "idempotency_key": idempotency_key})
            if player is None or player.get("key_round") is not None or stake > int(player["balance"]):
                return None
            if self.responsible is not None and self.responsible.needs_check(player["responsible_gaming"],
                                                                             player_id):
                return None  # checked on the locked path, where the player's rounds cannot change meanwhile
            balance = int(player["balance"])
            opening = self._opening(player_id, game, valid, stake, idempotency_key, player)
            debits, delta, entries = ledger.player_entries(player_id, opening.movements,
                                                           house=house_account(opening.values["currency"]))
            if debits > balance:
                return None
            values = self._opened_row(game, opening, balance + delta)
            written = await pgsteps.write_opening(
                connection, player_id=player_id, balance=balance, nonce=opening.nonce,
                client_seed=str(player["client_seed"]), committed_seed=player["next_server_seed"],
                next_seed=opening.next_seed, delta=delta, at=opening.at, entries=entries, values=values)
            if not written:
                return None
            self._known.wrote(player_id, balance + delta, values)
        self._states.remember(opening.round_id, 1, opening.state)
        return str(values["view"])

    def _opening(
        self, player_id: str, game: AnyGame, valid: dict[str, int], stake: int, idempotency_key: str | None,
        player: Mapping[str, Any],
    ) -> _Opening:
        """Shuffle and deal a new round from the player's seeds (nothing written yet)."""
        nonce = int(player["nonce"])
        # The seed committed to before this bet (GET /api/fairness showed its SHA-256); a
        # player who never asked gets a fresh one, whose commitment the first view shows.
        server_seed = player["next_server_seed"] or draw_server_seed(self.rng)
        deal = self.deal(server_seed, str(player["client_seed"]), nonce)
        next_seed = draw_server_seed(self.rng)
        state = game.start(valid, deal.deck)
        round_id = self.id_factory()
        at = timestamp(self.clock())
        returned = paid_at_deal(state)
        view = game.view(state)
        movements = [ledger.Movement(f"{round_id}:0", -stake, "stake"),
                     ledger.Movement(f"{round_id}:0:return", returned, "bonus")]
        steps = [{"step": 0, "action": "deal", "source": "player", "at": at, "stake": stake,
                  "returned": returned}]
        values = {
            "id": round_id, "player_id": player_id, "game": game.name,
            "rules_version": game.rules.rules_version, "rules_fingerprint": self._fingerprints[id(game)],
            "idempotency_key": idempotency_key, "bets": json.dumps(valid),
            "deck": json.dumps(list(deal.deck)), "server_seed": deal.server_seed,
            "commitment": deal.commitment, "client_seed": str(player["client_seed"]), "nonce": nonce,
            "algorithm": deal.algorithm, "total_stake": stake, "total_returned": returned,
            "created_at": at, "currency": self.offer.currency_code_of(game),
        }
        return _Opening(round_id, nonce, next_seed, state, view, movements, steps, values, at)

    def _opened_row(self, game: AnyGame, opening: _Opening, balance: int) -> dict[str, Any]:
        """The new round's row, its view showing ``balance`` (the player's after the deal)."""
        values = dict(opening.values)
        values.update(self._progress(game, opening.state, opening.steps, opening.view, balance, values,
                                     opening.at))
        return values

    async def act(self, player_id: str, round_id: str, action: str, *, step: int | None = None) -> ViewJSON:
        """The player's decision: debit its stake, apply it, credit the settlement if it ends the round.

        ``step`` (optional) is the step number the client means this action to be; repeating a
        request whose step already happened returns the round unchanged (a safe retry).
        """
        unlocked = await self._act_unlocked(player_id, round_id, action, step)
        if unlocked is not None:
            return unlocked
        async with self.database.direct() as connection:
            row, balance = await self._locked_round(connection, player_id, round_id)
            steps = json.loads(row["steps"])
            if step is not None and step != len(steps):
                aliases = self.game(row["game"], row["currency"]).aliases
                if 0 < step < len(steps) and aliases.get(action, action) == steps[step]["action"]:
                    return str(row["view"])
                raise ConflictError(
                    f"step {step}: the round is at step {len(steps)} "
                    f"({'settled' if row['status'] == 'settled' else 'waiting for step ' + str(len(steps))})")
            view, _ = await self._apply(connection, row, action, source="player", balance=balance)
            return view

    async def _act_unlocked(
        self, player_id: str, round_id: str, action: str, step: int | None
    ) -> ViewJSON | None:
        """PostgreSQL: the step in one round trip (``pgsteps``) when this process wrote the round
        and the player's balance last, else in two (a read first), or None (nothing changed)
        when the locked path must decide: anything but a legal, covered next step of the
        player's open round (its errors and a retry's answer come from there), or a round or
        balance that changed before the write."""
        async with self.database.autocommit() as connection:
            if connection is None:
                return None
            known = self._known.round_and_balance(round_id, player_id)
            if known is not None:
                view = await self._step_unlocked(connection, player_id, known[0], known[1], action, step)
                if view is not None:
                    return view
                self._known.forget(round_id, player_id)
            row = await connection.one(pgsteps.ROUND_AND_BALANCE, {"round": round_id})
            if row is None:
                return None
            return await self._step_unlocked(connection, player_id, row, int(row["balance"]), action, step)

    async def _step_unlocked(
        self, connection: AsyncpgDirect, player_id: str, row: Mapping[str, Any], balance: int, action: str,
        step: int | None,
    ) -> ViewJSON | None:
        """Write the step if ``row`` and ``balance`` are still the round's and the player's."""
        round_id = str(row["id"])
        if row["player_id"] != player_id or row["status"] != "open" or row["game"] not in self.games \
                or row["currency"] not in self.offer.engines:
            return None
        if step is not None and step != len(json.loads(row["steps"])):
            return None
        try:
            planned = self._next_step(row, action, source="player", balance=balance)
        except DealerPokerError:
            return None
        debits, delta, entries = ledger.player_entries(player_id, planned.movements,
                                                       house=house_account(str(row["currency"])))
        if debits > balance:
            return None
        changes = self._step_changes(row, planned, balance + delta)
        written = await pgsteps.write_step(
            connection, round_id=round_id, steps_read=str(row["steps"]), balance=balance, delta=delta,
            at=planned.at, entries=entries, changes=changes)
        if not written:
            return None
        self._known.wrote(player_id, balance + delta, {**row, **changes})
        self._states.remember(round_id, planned.number + 1, planned.state)
        return str(changes["view"])

    async def complete_abandoned(self) -> int:
        """Finish every open round untouched for ``abandon_after`` with the timer's defaults."""
        cutoff = timestamp(self.clock() - self.abandon_after)
        async with self.database.transaction() as connection:
            stale = (await connection.execute(
                select(rounds.c.id, rounds.c.player_id).where(rounds.c.status == "open")
                .where(rounds.c.updated_at < cutoff).order_by(rounds.c.seq).limit(500))).all()
        completed = 0
        for round_id, player_id in stale:
            async with self.database.direct() as connection:
                row, balance = await self._locked_round(connection, str(player_id), str(round_id))
                if row["status"] != "open" or row["updated_at"] >= cutoff:
                    continue  # the player came back meanwhile
                while row["status"] == "open":
                    game = self.game(row["game"], row["currency"])
                    state = self._replay(game, row)
                    action = timer_action(game, state, funds=balance)
                    await self._apply(connection, row, action, source="timer", balance=balance)
                    row, balance = await self._locked_round(connection, str(player_id), str(round_id))
                completed += 1
        return completed

    # ---- queries ----------------------------------------------------------------------
    async def get(self, player_id: str, round_id: str) -> ViewJSON:
        async with self.database.direct() as connection:
            row = await self._owned_round(connection, player_id, round_id)
        return str(row["view"])

    async def history(
        self, player_id: str, *, limit: int = 20, before: str | None = None, status: str | None = None
    ) -> list[ViewJSON]:
        """The player's rounds, newest first, each with every step (their stored views)."""
        async with self.database.transaction() as connection:
            query = select(rounds.c.view).where(rounds.c.player_id == player_id)
            if before is not None:
                anchor = (await connection.execute(_ROUND, {"round": before})).first()
                _check_owner(None if anchor is None else anchor._mapping, player_id, before)
                assert anchor is not None
                query = query.where(rounds.c.seq < anchor.seq)
            if status is not None:
                query = query.where(rounds.c.status == status)
            result = await connection.execute(query.order_by(rounds.c.seq.desc()).limit(limit))
            return [str(view) for (view,) in result]

    async def replay(self, player_id: str, round_id: str) -> dict[str, Any]:
        """Every step of a round again, from its record: the player's view after each step.

        The engine replays the stored bets, deck order and actions; each frame is ``game.view``
        at that point, so it shows only the cards the player could see then.
        """
        async with self.database.direct() as connection:
            row = await self._owned_round(connection, player_id, round_id)
        game = self.game(row["game"], row["currency"])
        steps = json.loads(row["steps"])
        state = game.start(json.loads(row["bets"]), json.loads(row["deck"]))
        frames = [{"step": steps[0], **game.view(state)}]
        for step in steps[1:]:
            state, _ = game.apply(state, step["action"])
            frames.append({"step": step, **game.view(state)})
        return {"id": row["id"], "game": row["game"], "currency": row["currency"], "status": row["status"],
                "frames": frames}

    async def balance(self, player_id: str) -> int:
        return (await self.account(player_id))[0]

    # ---- the shared step --------------------------------------------------------------
    @staticmethod
    async def _locked_round(
        connection: DirectConnection, player_id: str, round_id: str
    ) -> tuple[dict[str, Any], int]:
        """The player's round and their balance, both rows locked (one statement: it is the
        first of every step, and on PostgreSQL each statement is a round trip)."""
        row = await connection.one(_ROUND_AND_BALANCE, {"round": round_id})
        _check_owner(row, player_id, round_id)
        assert row is not None
        return row, int(row["balance"])

    async def _locked_balance(self, connection: DirectConnection, player_id: str) -> int:
        """Lock the player (every write of theirs is serialised) and read their balance."""
        balance = await ledger.balance_for_update(connection, player_id)
        if balance is None:
            raise NotFoundError(f"no player {player_id!r}")
        return balance

    async def _apply(
        self, connection: DirectConnection, row: Mapping[str, Any], action: str, *, source: str,
        balance: int,
    ) -> tuple[ViewJSON, int]:
        """One step of an open round: its view and the player's new balance.

        ``balance`` is the player's, read under their lock in this transaction. The step's stake
        must be covered before the engine deals the next card or reveals the dealer's, and the
        stake, the new state and any settlement commit together (or nothing does).
        """
        planned = self._next_step(row, action, source=source, balance=balance)
        balance = await ledger.post_player_movements(
            connection, str(row["player_id"]), planned.movements, at=planned.at, round_id=planned.round_id,
            balance=balance, house=house_account(str(row["currency"])))
        changes = self._step_changes(row, planned, balance)
        await connection.run(_UPDATE_ROUND, {"round": planned.round_id, **changes})
        self._states.remember(planned.round_id, planned.number + 1, planned.state)
        return str(changes["view"]), balance

    def _next_step(self, row: Mapping[str, Any], action: str, *, source: str, balance: int) -> _Step:
        """The engine's next step of an open round (nothing written yet); raises if the action is
        not allowed or ``balance`` does not cover its stake."""
        game = self.game(row["game"], row["currency"])
        round_id = str(row["id"])
        if row["status"] != "open":
            raise IllegalActionError(f"{action!r} is not allowed: round {round_id} is settled",
                                     phase=row["phase"], action=str(action))
        steps: list[dict[str, Any]] = json.loads(row["steps"])
        number = len(steps)
        state = self._states.recall(round_id, number) or self._replay(game, row)
        state, paid = decide(game, state, action, already_returned=int(row["total_returned"]))
        stake, returned = paid.stake, paid.returned
        if stake > balance:
            raise InsufficientFundsError(key="error.funds", balance=balance, needed=stake)
        at = timestamp(self.clock())
        view = game.view(state)
        movements = [ledger.Movement(f"{round_id}:{number}", -stake, "stake")]
        if state.settlement is not None:
            movements.append(ledger.Movement(f"{round_id}:{number}:return", returned, "settlement"))
        steps.append({"step": number, "action": state.actions[-1], "source": source, "at": at,
                      "stake": stake, "returned": returned})
        return _Step(game, round_id, number, state, view, movements, steps, at, stake, returned)

    def _step_changes(self, row: Mapping[str, Any], planned: _Step, balance: int) -> dict[str, Any]:
        """The round's columns after the step, its view showing ``balance`` (the player's after it)."""
        values = dict(row)
        values.update(total_stake=row["total_stake"] + planned.stake,
                      total_returned=row["total_returned"] + planned.returned)
        changes = self._progress(planned.game, planned.state, planned.steps, planned.view, balance, values,
                                 planned.at)
        changes.update(total_stake=values["total_stake"], total_returned=values["total_returned"])
        return changes

    def _progress(
        self, game: AnyGame, state: RoundState, steps: list[dict[str, Any]], view: dict[str, Any],
        balance: int, record: Mapping[str, Any], at: str,
    ) -> dict[str, Any]:
        """The columns that change with each step, including the stored player view."""
        settled = state.settlement is not None
        full = {
            "id": record["id"],
            "status": "settled" if settled else "open",
            "currency": record["currency"],
            **view,
            "steps": steps,
            "balance": balance,
            "total_stake": record["total_stake"],
            "total_returned": record["total_returned"],
            "created_at": record["created_at"],
            "updated_at": at,
            "fairness": {
                "algorithm": record["algorithm"],
                "commitment": record["commitment"],
                "client_seed": record["client_seed"],
                "nonce": record["nonce"],
                # The seed gives away the whole deck: revealed only once the round is settled.
                "server_seed": record["server_seed"] if settled else None,
            },
        }
        return {
            "status": full["status"], "phase": state.phase, "steps": json.dumps(steps),
            "view": json.dumps(full, separators=(",", ":")), "updated_at": at,
            "settled_at": at if settled else None,
        }

    @staticmethod
    def _replay(game: AnyGame, row: Mapping[str, Any]) -> RoundState:
        state = game.start(json.loads(row["bets"]), json.loads(row["deck"]))
        for step in json.loads(row["steps"])[1:]:
            state, _ = game.apply(state, step["action"])
        return state

    @staticmethod
    async def _owned_round(connection: DirectConnection, player_id: str, round_id: str) -> dict[str, Any]:
        row = await connection.one(_ROUND, {"round": round_id})
        _check_owner(row, player_id, round_id)
        assert row is not None
        return row


def _check_owner(row: Mapping[Any, Any] | None, player_id: str, round_id: str) -> None:
    if row is None:
        raise NotFoundError(f"no round {round_id!r}")
    if row["player_id"] != player_id:
        raise ForbiddenError(f"round {round_id!r} belongs to another player")



class RecentStates:
    """The engine states of recently played open rounds, so a step need not replay the round.

    Keyed by round id and the number of steps the state has seen: a state is used only when the
    stored round has exactly that many steps (another process may have moved the round on, or
    the transaction that made it may have rolled back), else the round is replayed from its
    record. Bounded: the oldest entries go first. Settled rounds are dropped.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._states: dict[str, tuple[int, RoundState]] = {}

    def recall(self, round_id: str, steps: int) -> RoundState | None:
        found = self._states.get(round_id)
        return found[1] if found is not None and found[0] == steps else None

    def remember(self, round_id: str, steps: int, state: RoundState) -> None:
        self._states.pop(round_id, None)
        if state.settlement is not None:
            return
        if len(self._states) >= self.capacity:
            del self._states[next(iter(self._states))]
        self._states[round_id] = (steps, state)


class KnownRows:
    """PostgreSQL: the open rounds and the players' balances as this process last wrote them
    (``_act_unlocked``), so the next step can skip reading them.

    Only a guess: the step's statement writes only if the round's steps and the balance in the
    database are still exactly these (``pgsteps``), else the step reads them and tries again.
    Bounded: the oldest entries go first. Settled rounds are dropped.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self.capacity = capacity
        self._rounds: dict[str, dict[str, Any]] = {}
        self._balances: dict[str, int] = {}

    def round_and_balance(self, round_id: str, player_id: str) -> tuple[dict[str, Any], int] | None:
        row = self._rounds.get(round_id)
        balance = self._balances.get(player_id)
        return None if row is None or balance is None else (row, balance)

    def wrote(self, player_id: str, balance: int, row: dict[str, Any]) -> None:
        """The player's balance and a round of theirs as a committed statement left them."""
        _put(self._balances, player_id, balance, self.capacity)
        if row["status"] == "open":
            # Not the stored view (the largest column, which a step does not read).
            kept = {name: value for name, value in row.items() if name not in ("view", "balance")}
            _put(self._rounds, str(row["id"]), kept, self.capacity)
        else:
            self._rounds.pop(str(row["id"]), None)

    def forget(self, round_id: str, player_id: str) -> None:
        self._rounds.pop(round_id, None)
        self._balances.pop(player_id, None)


def _put(entries: dict[str, Any], key: str, value: Any, capacity: int) -> None:
    entries.pop(key, None)
    if len(entries) >= capacity:
        del entries[next(iter(entries))]
    entries[key] = value
