"""Live tables in the server: ``LiveTables``, every table's runner in this process, the clocks it
owns and the fan-out.

``live/extension.py`` installs it into ``create_app``: on startup every configured table's
runner resumes its last round and its clock starts; players
connect to ``/ws/tables/{id}`` (``live/routes.py``), whose messages ``live/intents.py`` answers.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dealerpoker.games import AnyGame, get_game
from dealerpoker.games.payments import most_at_stake
from dealerpoker.games.rules import Rules
from dealerpoker.server.dealing import draw_server_seed
from dealerpoker.server.errors import WrongCurrencyError
from dealerpoker.server.jurisdiction import check_table
from dealerpoker.server.live import controls, intents
from dealerpoker.server.live.cluster import Cluster, LocalCluster, RedisCluster
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.hub import LocalHub, serialise
from dealerpoker.server.live.player_limits import PlayerLimits, table_for
from dealerpoker.server.live.ports import StaleLeaseError
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.server.menu import describe_game
from dealerpoker.server.promotions import FreeRoundError, claim_at_table, release_at_table, with_free_ante
from dealerpoker.server.services import Services
from dealerpoker.tables.config import TableConfig

log = logging.getLogger("dealerpoker.live")
PRESENCE_INTERVAL = 1.0
HAND_OVER_RECHECK = 0.1  # seconds between looks at a draining table's round


@dataclass(frozen=True, slots=True)
class LiveSettings:
    tables: tuple[TableConfig, ...]
    redis_url: str | None = None
    redis_prefix: str = "dealerpoker:"


class LiveTables:
    """Every table's runner in this process, the clocks it owns, and the fan-out hub."""

    def __init__(self, settings: LiveSettings, services: Services) -> None:
        self.settings = settings
        self.services = services
        self.hub = LocalHub(self.now)
        self.cluster: Cluster = (RedisCluster(settings.redis_url, self.hub, prefix=settings.redis_prefix)
                                 if settings.redis_url else LocalCluster(self.hub))
        jurisdictions = services.jurisdictions
        self.store = SqlStore(services.database, services.now, wallet=services.wallet,
                              seat_jurisdictions=None if jurisdictions is None else jurisdictions.stored_of,
                              claim_free_round=claim_at_table, give_back_free_round=release_at_table)
        self.engines: dict[str, AnyGame] = {}
        self.runners = {table.id: self._runner(table) for table in settings.tables}
        self.limits = PlayerLimits(((r.table, r.currency) for r in self.runners.values()), services.offer,
                                   services.rounds.operator_of)
        self._clocks: dict[str, tuple[asyncio.Task[None], asyncio.Event]] = {}
        self._stop = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self.draining = False
        services.drain.hooks.append(self.drain)

    def _runner(self, table: TableConfig) -> TableRunner:
        def watchers() -> int:
            return self.cluster.watchers(table.id)

        currency = table.currency or self.services.offer.default_currency
        engine = get_game(table.game, table.rules)
        self.engines[table.id] = engine
        # Server seeds from the injected generator (a CSPRNG in production; seeded in tests).
        rng = self.services.rng
        return TableRunner(table, engine, self.store, self.cluster, clock=self.now, watchers=watchers,
                           currency=currency, controls=controls.reader(self.services.database),
                           halted=self._halted, handing_over=lambda: self.draining,
                           new_seed=lambda: draw_server_seed(rng), jackpot=self.services.jackpot)

    def now(self) -> float:
        return self.services.clock().timestamp()

    def _halted(self) -> str | None:
        integrity = self.services.integrity
        return None if integrity is None else integrity.halt_reason()

    async def start(self) -> None:
        self._stop.clear()
        await self.cluster.start(tuple(self.runners), self._acquire, self._release, self._handle_local)
        self._tasks.append(asyncio.create_task(self._presence(), name="presence"))

    async def stop(self) -> None:
        self._stop.set()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        await self.cluster.stop()

    async def drain(self) -> None:
        """This process is stopping: it takes no table, opens no round, and hands each table whose
        clock it runs to another process once the round in play is settled (with one process,
        the tables' rounds are finished and the clocks stop with it)."""
        self.draining = True
        await self.cluster.hold()
        await asyncio.gather(*(self._hand_over(table_id) for table_id in tuple(self._clocks)))

    async def _hand_over(self, table_id: str) -> None:
        runner = self.runners[table_id]
        while not await runner.between_rounds():
            await asyncio.sleep(HAND_OVER_RECHECK)
        await self.cluster.hand_over(table_id)

    async def _acquire(self, table_id: str, lease: int | None) -> None:
        """This process now owns the table's clock (lease token ``lease``): resume its round, run it."""
        await self._release(table_id)
        stop = asyncio.Event()
        task = asyncio.create_task(self._guard(self.runners[table_id], stop, lease), name=f"table {table_id}")
        self._clocks[table_id] = (task, stop)

    async def _release(self, table_id: str) -> None:
        clock = self._clocks.pop(table_id, None)
        if clock is not None:
            task, stop = clock
            stop.set()
            await self.runners[table_id].writer.drain()  # acknowledged bets are written first
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _guard(self, runner: TableRunner, stop: asyncio.Event, lease: int | None) -> None:
        """Run a table's loop; after an unexpected error, resume it from its last commit; once a
        newer lease token claimed the table, stop driving it."""
        while not stop.is_set():
            try:
                await runner.run(stop, lease=lease)
            except asyncio.CancelledError:
                raise
            except StaleLeaseError as error:
                await self.cluster.stale(runner.table.id, error.epoch)
                return
            except Exception:
                log.exception("table %s: the loop failed; resuming from the last commit", runner.table.id)
                await asyncio.sleep(1.0)

    async def _presence(self) -> None:
        last: dict[str, int] = {}
        while not self._stop.is_set():
            for table_id in self.runners:
                count = self.cluster.watchers(table_id)
                if self.cluster.owns(table_id) and last.get(table_id) != count:
                    last[table_id] = count
                    message = {"type": "presence", "table": table_id, "players": count}
                    await self.cluster.to_table(table_id, message)
            await asyncio.sleep(PRESENCE_INTERVAL)

    async def player_summary(self, table_id: str, player_id: str) -> dict[str, Any]:
        """The table's summary with the limits and chips ``player_id`` bets under there."""
        table = self.runners[table_id].table
        return {**self.summary(table_id), **table_for(table, await self.limits.rules_for(table, player_id))}

    def summary(self, table_id: str) -> dict[str, Any]:
        runner = self.runners[table_id]
        state: dict[str, Any] = {"phase": "unknown", "round": None, "deadline": None}
        if self.cluster.owns(table_id):
            state = runner.table_message("state")
        elif table_id in self.hub.last_table_text:
            state = json.loads(self.hub.last_table_text[table_id])
        return {**runner.table.to_dict(), "currency_format": self.currency_format(runner),
                "players": self.cluster.watchers(table_id),
                "phase": state.get("phase", "unknown"), "round": state.get("round"),
                "deadline": state.get("deadline")}

    def game_document(self, table: TableConfig, rules: Rules | None = None) -> dict[str, Any]:
        """The table's game as ``GET /api/games`` describes one, under its rules (``rules``: a player's
        limits and chips there), for the page's rules panel and Min/Max signs; RTPs as the server's."""
        document = describe_game(get_game(table.game, table.rules if rules is None else rules))
        shipped = next((g for g in self.services.games_document["games"] if g["id"] == table.game), None)
        if shipped is not None and _payouts(shipped["rules"]) == _payouts(document["rules"]):
            document["rtp"] = shipped["rtp"]  # limits, chips and timers change no bet's return
        return document

    def currency_format(self, runner: TableRunner) -> dict[str, object]:
        """The table's currency as ``GET /api/games`` gives it ({code, exponent, symbol}): pages write
        amounts with its exponent (a configured mBTC has 5 decimals, which no browser knows)."""
        return self.services.offer.currency(runner.currency).to_dict()

    async def welcome(self, table_id: str, player_id: str) -> list[str]:
        """What a newcomer is sent first: who they are, the table's state and their own part."""
        runner = self.runners[table_id]
        balance = await self.store.balance(player_id)
        rules = await self.limits.rules_for(runner.table, player_id)
        # The player's own currency too: their balance is in it, and a table in another currency
        # is refused at once (the page says so before any bet), not at the first bet.
        currency = await self.services.rounds.currency_of(player_id)
        greeting: dict[str, Any] = {"type": "welcome", "player_id": player_id,
                                    "table": table_for(runner.table, rules), "balance": balance,
                                    "game": self.game_document(runner.table, rules),
                                    "currency": runner.currency,
                                    "currency_format": self.currency_format(runner),
                                    "player_currency": currency,
                                    "player_currency_format": self.services.offer.currency(
                                        currency).to_dict(),
                                    "process": self.cluster.process_id,
                                    # the jackpot bet this table offers (its stake), for the page's switch
                                    "jackpot": _jackpot_offer(runner),
                                    # "N free rounds of X ante": the player chooses one for a round
                                    "free_rounds": await self.free_rounds(table_id, player_id)}
        if self.cluster.owns(table_id):
            return [serialise(m, self.now()) for m in
                    (greeting, runner.table_message("state"), runner.seat_message(player_id))]
        texts = [serialise(greeting, self.now())]
        state = self.hub.state_text(table_id, self.now())
        if state is None:  # no table event delivered here yet (an idle table, a process just started)
            state = serialise(await self.intent(table_id, player_id, {"type": "state"}), self.now())
        texts.append(state)
        texts.append(serialise(await self.intent(table_id, player_id, {"type": "hello"}), self.now()))
        return texts

    async def intent(self, table_id: str, player_id: str, message: Any) -> dict[str, Any]:
        """A client message, handled here if this process owns the table, else by its owner
        (a bet checked here first: ``intents.check_before_forwarding``)."""
        if self.cluster.owns(table_id):
            return await self._handle_local(table_id, player_id, message)
        refusal, checked = await intents.check_before_forwarding(
            player_id, message, self._bet_check(self.runners[table_id]))
        if refusal is not None:
            return refusal
        return await self.cluster.forward(table_id, player_id, message, checked)

    async def dealer_welcome(self, table_id: str) -> list[str]:
        """What a studio's dealer is sent first: the table, then its view and what is expected."""
        runner = self.runners[table_id]
        greeting = {"type": "welcome", "role": "dealer", "table": runner.table.to_dict(),
                    "currency": runner.currency, "currency_format": self.currency_format(runner),
                    "process": self.cluster.process_id}
        texts = [serialise(greeting, self.now())]
        if self.cluster.owns(table_id):
            expect = runner.expect_message()
            return texts + [serialise(m, self.now()) for m in (runner.dealer_message("state"), expect) if m]
        texts.append(serialise(await self.intent(table_id, DEALER, {"type": "hello"}), self.now()))
        return texts

    async def _handle_local(self, table_id: str, client_id: str, message: Any,
                            checked: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """One client message -> the reply for that client (a studio's dealer: ``DEALER``); a bet
        another process ``checked`` (``intent``) is not checked again."""
        runner = self.runners[table_id]
        check_bet = self._bet_check(runner) if checked is None else intents.already_checked(checked)
        return await intents.handle(runner, client_id, message, check_bet)

    def _bet_check(self, runner: TableRunner) -> intents.BetCheck:
        """The checks of a player's bets at ``runner``'s table (``intents.BetCheck``)."""
        async def check_bet(player_id: str, bets: Mapping[str, Any], free_round: str | None,
                            jackpot: bool) -> tuple[Mapping[str, Any], Mapping[str, Any] | None]:
            await self._check_currency(runner, player_id)
            if jackpot:
                await self.services.rounds.check_jackpot(player_id, runner.currency)
            free = None
            if free_round is not None:
                free, bets = await self._free_round(runner, player_id, free_round, bets)
            engine = await self.limits.engine_for(runner.table, self.engines[runner.table.id], player_id)
            at_stake = most_at_stake(engine, engine.validate_bets(bets))
            await self.check_jurisdiction(runner, player_id, at_stake)
            await self.services.responsible.check_live_bet(player_id, at_stake)
            return bets, free

        return check_bet

    async def _free_round(self, runner: TableRunner, player_id: str, reward_id: str,
                          bets: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """The free round ``reward_id`` of the player's, as a seat at this table plays it: its
        promo and the bets with its ante (refused, naming why, where it cannot be played: none
        left, another game, a market without free bets...)."""
        promotions = self.services.promotions
        if promotions is None:
            raise FreeRoundError("this server has no free rounds (no operators)")
        free = await promotions.prepare(player_id, reward_id, runner.table.game)
        # rounds_used as read: the deal claims the round only if no other was claimed since
        return {**free.promo, "rounds_used": free.rounds_used}, with_free_ante(free, bets)

    async def free_rounds(self, table_id: str, player_id: str) -> list[dict[str, Any]]:
        """The free rounds the player can use at this table now (its game, their currency)."""
        promotions = self.services.promotions
        if promotions is None:
            return []
        return await promotions.offers(player_id, self.runners[table_id].table.game)

    async def check_jurisdiction(self, runner: TableRunner, player_id: str, at_stake: int = 0) -> None:
        """Refuse a seat (and its bets) the player's jurisdiction does not allow at this table:
        the markets the table serves, its game, its mode, its paytable, the most one round of
        these bets can take (``server.jurisdiction``; the refusal names the rule)."""
        jurisdictions = self.services.jurisdictions
        if jurisdictions is None:
            return
        market = await jurisdictions.of(player_id)
        check_table(market, runner.table)
        table = runner.table
        jurisdictions.check(market, game=table.game, mode="studio" if table.dealing == "studio" else "live",
                            rules_fingerprint=table.rules.fingerprint(), stake=at_stake,
                            currency=runner.currency)

    async def _check_currency(self, runner: TableRunner, player_id: str) -> None:
        currency = await self.services.rounds.currency_of(player_id)
        if currency != runner.currency:
            raise WrongCurrencyError(key="error.wrong_currency", table_currency=runner.currency,
                                     currency=currency)


def _payouts(rules: Mapping[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in rules.items()
            if key not in {"limits", "chips", "timeout_actions", "title", "rules_version"}}


def _jackpot_offer(runner: TableRunner) -> dict[str, Any] | None:
    """The welcome's ``jackpot``: the bet's stake at this table and the hand that wins the pool
    (None: the table offers no jackpot bet)."""
    stake = runner.jackpot_stake()
    if stake is None or runner.jackpot is None:
        return None
    return {"stake": stake, "currency": runner.currency,
            "pool_category": runner.jackpot.rules.pool_category.slug}
