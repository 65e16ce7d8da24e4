"""Solo rounds as use cases: open, act, get, history, replay, and the timer's completion of
abandoned rounds, over a ``RoundStore`` and a ``Wallet``.

Every step (the opening or an action) is the same five moves:

1. read what it needs (``store.player`` / ``store.round_to_step``; no lock);
2. compute it with the engine (``plan``: nothing written, nothing shown);
3. take its stakes (``wallet.debit``; the embedded wallet checks them against the balance read);
4. write it, with its transfers, only if nothing it was computed from changed
   (``store.open`` / ``store.step``: one unit of work; the stakes are checked again there);
5. if something changed, give the stakes back (``wallet.rollback``) and start again at 1.

So a stake is covered before the engine's next card or the dealer's hand is shown, and the
stake, the new state and any settlement commit together or not at all. A round is stored as
its record (bets, deck order, actions with time and source) and replays through the engine; the
player's view after the last step is stored beside it and is the response.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from cachetools import LRUCache

from dealerpoker.errors import DealerPokerError, InsufficientFundsError
from dealerpoker.games import AnyGame, RoundState, payments
from dealerpoker.games.rules import Rules
from dealerpoker.server.clock import Clock, timestamp
from dealerpoker.server.db import Connection
from dealerpoker.server.dealing import Deal, committed_deal, draw_server_seed
from dealerpoker.server.errors import ConflictError, ForbiddenError, NotFoundError
from dealerpoker.server.jackpot import Jackpot, JackpotNotOfferedError, JackpotRefusedError
from dealerpoker.server.jurisdiction import Jurisdictions
from dealerpoker.server.ledger import BETS, Transfer, txid
from dealerpoker.server.menu import Menu
from dealerpoker.server.observability.metrics import count_round
from dealerpoker.server.operators.limits import OperatorOf, no_operator
from dealerpoker.server.promotions import (
    ANTE_FIELD,
    FreeRound,
    FreeRoundError,
    Promotions,
    claim,
    with_free_ante,
)
from dealerpoker.server.responsible.policy import Profile
from dealerpoker.server.responsible.service import ResponsibleGaming
from dealerpoker.server.rounds import plan
from dealerpoker.server.rounds.plan import Planned, ViewJSON
from dealerpoker.server.rounds.store import Check, PlayerRead, RoundRead, RoundStore
from dealerpoker.server.wallet import Debit, Movement, Wallet

DealFunction = Callable[[str, str, int], Deal]
"""(server seed, client seed, nonce) -> the round's deal."""
ATTEMPTS = 100
"""Writes of one request refused because a concurrent one changed the rows first (each refusal
means another request of the player went through), before it answers 409."""


class RoundService:
    """Open, play, show and recover solo rounds."""

    def __init__(
        self, store: RoundStore, wallet: Wallet, menu: Menu, *, rng: random.Random, clock: Clock,
        abandon_after_seconds: float, deal: DealFunction = committed_deal,
        responsible: ResponsibleGaming | None = None,
        id_factory: Callable[[], str] | None = None,
        operator_of: OperatorOf = no_operator,
        jurisdictions: Jurisdictions | None = None,
        before_open: Callable[[], None] = lambda: None,
        promotions: Promotions | None = None,
        jackpot: Jackpot | None = None,
    ) -> None:
        #: Operators' free rounds (None: this server has none).
        self.promotions = promotions
        #: The deployment's progressive jackpot (None: no jackpot bet is offered).
        self.jackpot = jackpot
        #: Raises when no round may open now (the software verification halted play).
        self.before_open = before_open
        self.store = store
        self.wallet = wallet
        self.menu = menu
        """The games offered now (new rounds open with them; open rounds keep their engines)."""
        self.rng = rng
        self.clock = clock
        self.abandon_after = timedelta(seconds=abandon_after_seconds)
        self.deal = deal
        self.responsible = responsible
        #: A new round's id: by default 64 bits of the injected generator (like every seed, so a
        #: test's seeded generator repeats whole rounds, ids included).
        self.id_factory = id_factory or (lambda: f"r_{self.rng.getrandbits(64):016x}")
        self.operator_of = operator_of
        """Player id -> their operator's id (None: the server's own player)."""
        self.jurisdictions = jurisdictions
        """Each player's jurisdiction profile, checked before a round opens and kept with it."""
        self._states = RecentStates()
        # A player's currency never changes: asked once per process.
        self._currencies: LRUCache[str, str] = LRUCache(100_000)

    def engine_of(self, row: Mapping[str, Any]) -> AnyGame:
        """The engine a stored round was opened with (by its rules fingerprint)."""
        found = self.menu.engine(str(row.get("rules_fingerprint")))
        return found if found is not None else self.game(row["game"], row["currency"])

    def game(self, name: str, currency: str) -> AnyGame:
        """The engine of game ``name`` in ``currency`` (its limits and chips)."""
        return self.menu.offer.game(name, currency)

    async def games_of(self, player_id: str) -> tuple[str, str | None]:
        """Which games the player is offered: their currency and their operator (None: this
        server's player), whose limits and chips narrow the currency's (``Offer.game``)."""
        return await self.currency_of(player_id), await self.operator_of(player_id)

    async def currency_of(self, player_id: str) -> str:
        """The currency of the player's account (every round of theirs is played in it)."""
        currency = self._currencies.get(player_id)
        if currency is None:
            read = await self.store.player(player_id)
            if read is None:
                raise NotFoundError(f"no player {player_id!r}")
            currency = self._currencies[player_id] = read.currency
        return currency

    async def account(self, player_id: str) -> tuple[int, str]:
        """The player's balance and its currency."""
        return await self.balance(player_id), await self.currency_of(player_id)

    # ---- commands ---------------------------------------------------------------------
    async def open_round(
        self, player_id: str, game_name: str, bets: Mapping[str, object], idempotency_key: str | None = None,
        free_round: str | None = None, *, jackpot: bool = False,
    ) -> ViewJSON:
        """Validate, debit the opening stakes, shuffle, deal: the round's first view. ``free_round``:
        a reward of the player's (``GET /api/free-rounds``) whose ante the operator pays.
        ``jackpot``: the player adds the progressive jackpot bet (its stake in their currency)."""
        self.before_open()
        game = self.menu.offer.game(game_name, *await self.games_of(player_id))
        free = None
        if free_round is not None:
            repeated = await self._repeated_free_round(player_id, game, bets, idempotency_key, free_round)
            if repeated is not None:
                return repeated
            free, bets = await self._free_round(player_id, free_round, game, bets)
        valid = game.validate_bets(bets)
        stake = payments.opening_stake(valid) - (0 if free is None else free.ante)
        offered = await self._jackpot_for(player_id, jackpot, await self.currency_of(player_id))
        profile = None if self.responsible is None else await self.responsible.profile_of(player_id)
        market = await self._market(player_id, game, valid)
        for _ in range(ATTEMPTS):
            player = await self.store.player(player_id, idempotency_key)
            if player is None:
                raise NotFoundError(f"no player {player_id!r}")
            if player.key_round is not None:
                return await self._repeated(player_id, game, valid, str(idempotency_key), player.key_round)
            round_id, now = self.id_factory(), self.clock()
            at = timestamp(now)
            # The seed committed to before this bet (GET /api/fairness showed its SHA-256); a
            # player who never asked gets a fresh one, whose commitment the first view shows.
            server_seed = player.next_server_seed or draw_server_seed(self.rng)
            deal = self.deal(server_seed, player.client_seed, player.nonce)
            pool = await self._pool_if_won(offered, deal.deck, game.board_at_start >= 3)
            taken = [Transfer(txid(round_id, player_id, BETS), player_id, -stake, BETS)]
            if offered is not None:  # the jackpot bet: a transaction of its own
                taken.append(offered.opening(round_id, player_id, player.currency)[0])
            stakes = Movement(round_id, game.name, player.currency, tuple(taken), at)
            debit = await self._debit(player_id, stakes, {player_id: player.balance})
            try:
                opening = plan.opening(
                    game, round_id=round_id, player_id=player_id, currency=player.currency, bets=valid,
                    deal=deal, client_seed=player.client_seed, nonce=player.nonce,
                    idempotency_key=idempotency_key,
                    rules_fingerprint=self.menu.fingerprint(game), at=at, jurisdiction=market,
                    promo=None if free is None else free.promo, jackpot=offered, pool=pool)
                side = 0 if offered is None else offered.stake_in(player.currency)  # the jackpot bet's
                check = self._responsible_check(player, game, valid, now, profile, side)
                if free is not None:
                    check = _claiming(free, now, check)
                view = await self.store.open(player, opening, draw_server_seed(self.rng), debit, check)
            except BaseException:
                await self.wallet.rollback(debit)
                raise
            if await self._done(debit, opening, view):
                assert view is not None
                return view
        raise _busy(f"player {player_id}")

    async def _jackpot_for(self, player_id: str, wanted: bool, currency: str) -> Jackpot | None:
        """The jackpot a round's bet goes to (None: the player placed none); refused where none
        is offered, or where the player's jurisdiction profile does not allow it (``jackpots``)."""
        if not wanted:
            return None
        return await self.check_jackpot(player_id, currency)

    async def check_jackpot(self, player_id: str, currency: str) -> Jackpot:
        """The jackpot a bet of ``player_id``'s goes to (solo or live), or the refusal naming why:
        none offered, none in their currency, or their jurisdiction does not allow it."""
        if self.jackpot is None:
            raise JackpotNotOfferedError("this server offers no jackpot bet (serve --jackpot FILE)")
        self.jackpot.stake_in(currency)  # refuses a currency without a rate
        if self.jurisdictions is not None:
            market = await self.jurisdictions.of(player_id)
            if not market.value("jackpots"):
                raise JackpotRefusedError(
                    f"the jackpot bet is not allowed in jurisdiction {market.id} (profile setting jackpots)")
        return self.jackpot

    async def _pool_if_won(self, jackpot: Jackpot | None, deck: Sequence[int], dealt: bool) -> int | None:
        """The pool as read now, when a jackpot bet settled now wins it (else None: not needed)."""
        if jackpot is None or not dealt or not jackpot.wins_pool(deck):
            return None
        return await jackpot.amount()

    async def _free_round(self, player_id: str, reward_id: str, game: AnyGame,
                          bets: Mapping[str, object]) -> tuple[FreeRound, Mapping[str, object]]:
        """The free round the player asked for, and the bets with its ante (the operator's)."""
        if self.promotions is None:
            raise FreeRoundError("this server has no free rounds (no operators)")
        free = await self.promotions.prepare(player_id, reward_id, game.name)
        return free, with_free_ante(free, bets)

    async def _repeated_free_round(self, player_id: str, game: AnyGame, bets: Mapping[str, object],
                                   key: str | None, reward_id: str) -> ViewJSON | None:
        """The answer to a free round's opening sent again (its idempotency key opened a round
        already: the free round it claimed), or None."""
        if key is None:
            return None
        player = await self.store.player(player_id, key)
        if player is None or player.key_round is None:
            return None
        existing = await self._owned(player_id, player.key_round)
        ante = json.loads(existing["bets"]).get(ANTE_FIELD)
        if existing["promo_reward"] != reward_id:
            raise ConflictError(f"idempotency_key {key!r} was used for another round ({existing['id']})")
        return await self._repeated(player_id, game, game.validate_bets({ANTE_FIELD: ante, **bets}), key,
                                    player.key_round)

    async def _market(self, player_id: str, game: AnyGame, bets: dict[str, int]) -> str | None:
        """The player's jurisdiction profile checked for this round (a refusal names the rule),
        as the round keeps it (None: the server has no jurisdictions)."""
        if self.jurisdictions is None:
            return None
        market = await self.jurisdictions.of(player_id)
        self.jurisdictions.check(market, game=game.name, mode="solo",
                                 rules_fingerprint=self.menu.fingerprint(game),
                                 stake=payments.most_at_stake(game, bets),
                                 currency=await self.currency_of(player_id))
        return self.jurisdictions.stored(market)

    def _responsible_check(self, player: PlayerRead, game: AnyGame, bets: dict[str, int],
                           now: datetime, profile: Profile | None, side: int = 0) -> Check | None:
        """Responsible gaming's check of an opening at ``now``, where the player's state or their
        ``profile`` asks for one (made in the opening's unit of work, the player's rows locked);
        ``side``: a side bet's stake beside the game's (the jackpot bet), counted too."""
        responsible = self.responsible
        if responsible is None or profile is None or not responsible.needs_check(
                player.responsible_gaming, profile):
            return None

        async def check(connection: Connection) -> None:
            await responsible.check_opening(connection, player.player_id, player.responsible_gaming,
                                            payments.most_at_stake(game, bets) + side, now=now,
                                            profile=profile)

        return check

    async def _repeated(self, player_id: str, game: AnyGame, valid: dict[str, int], key: str,
                        round_id: str) -> ViewJSON:
        """The answer to an opening whose idempotency key already opened a round."""
        existing = await self._owned(player_id, round_id)
        if existing["game"] != game.name or json.loads(existing["bets"]) != valid:
            raise ConflictError(f"idempotency_key {key!r} was used for another round "
                                f"({existing['id']}: {existing['game']} {existing['bets']})")
        return str(existing["view"])

    async def act(self, player_id: str, round_id: str, action: str, *, step: int) -> ViewJSON:
        """The player's decision: debit its stake, apply it, credit the settlement if it ends the round.

        ``step`` is the step number the client means this action to be (the round's len(steps));
        repeating a request whose step already happened returns the round unchanged (a safe
        retry), so the same request never moves money twice. The write is taken only if the
        round's steps are still as read, so of identical requests racing only one is a step.
        """
        read = await self.store.round_to_step(round_id)
        for _ in range(ATTEMPTS):
            try:
                row = _owned_row(read, player_id, round_id)
                steps = json.loads(row["steps"])
                if step != len(steps):
                    aliases = self.engine_of(row).aliases
                    if 0 < step < len(steps) and aliases.get(action, action) == steps[step]["action"]:
                        return await self.get(player_id, round_id)
                    where = "settled" if row["status"] == "settled" else f"waiting for step {len(steps)}"
                    raise ConflictError(f"step {step}: the round is at step {len(steps)} ({where})")
                assert read is not None
                view = await self._step(read, action, source="player")
            except DealerPokerError:
                if read is None or not read.cached:
                    raise
                view = None  # decided on rows taken from memory: decide again on what is stored
            if view is not None:
                return view
            read = await self.store.round(round_id)
        raise _busy(f"round {round_id}")

    async def _step(self, read: RoundRead, action: str, *, source: str) -> ViewJSON | None:
        """One step of an open round from ``read``: its view, or None when the round or balance
        changed since (nothing written). Raises the engine's and the wallet's refusals."""
        row = read.row
        round_id, player_id = str(row["id"]), str(row["player_id"])
        game = self.engine_of(row)
        state = self._states.recall(round_id, len(json.loads(row["steps"])))
        jackpot = self.jackpot if plan.open_jackpot(row) is not None else None
        # The first five cards come with the first decision (Texas Hold'em Bonus's flop, or its fold).
        pool = await self._pool_if_won(jackpot, json.loads(row["deck"]), True)
        planned = plan.next_step(game, row, action, source=source, at=timestamp(self.clock()), state=state,
                                 jackpot=jackpot, pool=pool)
        debit = await self._debit(player_id, planned.money, {player_id: read.balance})
        try:
            view = await self.store.step(read, planned, debit)
        except BaseException:
            await self.wallet.rollback(debit)
            raise
        return view if await self._done(debit, planned, view) else None

    async def _debit(self, player_id: str, movement: Movement, balances: Mapping[str, int]) -> Debit:
        """The wallet takes the stakes, or the player's refusal is raised (nothing taken)."""
        debit = await self.wallet.debit(movement, balances)
        if player_id in debit.refused:
            await self.wallet.rollback(debit)
            raise debit.refused[player_id]
        return debit

    async def _done(self, debit: Debit, planned: Planned, view: ViewJSON | None) -> bool:
        """After the store's write of ``planned``: whether it wrote (else the stakes go back)."""
        if view is None:
            await self.wallet.rollback(debit)
            return False
        await self.wallet.committed(planned.money)
        self._states.remember(planned.round_id, planned.steps, planned.state)
        settlement = planned.view.get("settlement")
        if settlement is not None:
            count_round(str(planned.view.get("game")), settlement.get("outcome"), "solo")
        return True

    async def complete_abandoned(self) -> int:
        """Finish every open round untouched for ``abandon_after`` with the timer's defaults."""
        cutoff = timestamp(self.clock() - self.abandon_after)
        completed = 0
        for round_id, _player in await self.store.stale(cutoff, 500):
            completed += await self._complete(round_id, cutoff)
        return completed

    async def _complete(self, round_id: str, cutoff: str) -> bool:
        """Play an abandoned round to its end with the timer's defaults (False: the player came
        back, or another process finished it)."""
        left: int | None = None  # the number of steps the timer's last step left
        for _ in range(ATTEMPTS):
            read = await self.store.round(round_id)
            if read is None:
                return False
            row = read.row
            count = len(json.loads(row["steps"]))
            if (row["updated_at"] >= cutoff) if left is None else (count != left):
                return False  # the player came back meanwhile
            if row["status"] != "open":
                return left is not None
            game = self.engine_of(row)
            state = plan.replay(game, row)
            try:
                view = await self._step(read, payments.timer_action(game, state), source="timer")
            except InsufficientFundsError:  # the funds fell short of the rules' default
                view = await self._step(read, payments.timer_action(game, state, stake_refused=True),
                                        source="timer")
            if view is not None:
                left = count + 1
        return False

    # ---- queries ----------------------------------------------------------------------
    async def get(self, player_id: str, round_id: str) -> ViewJSON:
        return str((await self._owned(player_id, round_id))["view"])

    async def decision(self, player_id: str, round_id: str) -> tuple[dict[str, Any], Rules]:
        """The player's own view of their round (only the cards they see) and the rules it plays
        under: all the strategy hint may use (``server.hints``)."""
        row = await self._owned(player_id, round_id)
        return json.loads(row["view"]), self.engine_of(row).rules

    async def history(
        self, player_id: str, *, limit: int = 20, before: str | None = None, status: str | None = None
    ) -> list[ViewJSON]:
        """The player's rounds, newest first, each with every step (their stored views)."""
        before_seq = None if before is None else int((await self._owned(player_id, before))["seq"])
        return await self.store.history(player_id, limit=limit, before_seq=before_seq, status=status)

    async def replay(self, player_id: str, round_id: str) -> dict[str, Any]:
        """Every step of a round again, from its record: the player's view after each step.

        The engine replays the stored bets, deck order and actions; each frame is ``game.view``
        at that point, so it shows only the cards the player could see then.
        """
        row = await self._owned(player_id, round_id)
        game = self.engine_of(row)
        steps = json.loads(row["steps"])
        state = game.start(json.loads(row["bets"]), json.loads(row["deck"]))
        frames = [{"step": steps[0], **game.view(state)}]
        for step in steps[1:]:
            state, _ = game.apply(state, step["action"])
            frames.append({"step": step, **game.view(state)})
        return {"id": row["id"], "game": row["game"], "currency": row["currency"], "status": row["status"],
                "frames": frames}

    async def balance(self, player_id: str) -> int:
        balance = await self.wallet.balance(player_id)
        if balance is None:
            raise NotFoundError(f"no player {player_id!r}")
        return balance

    async def _owned(self, player_id: str, round_id: str) -> Mapping[str, Any]:
        return _owned_row(await self.store.round(round_id), player_id, round_id)


def _claiming(free: FreeRound, now: datetime, check: Check | None) -> Check:
    """The opening's checks in its unit of work, and the claim of its free round."""

    async def claiming(connection: Connection) -> None:
        if check is not None:
            await check(connection)
        await claim(connection, free, now)

    return claiming


def _owned_row(read: RoundRead | None, player_id: str, round_id: str) -> Mapping[str, Any]:
    if read is None:
        raise NotFoundError(f"no round {round_id!r}")
    if read.row["player_id"] != player_id:
        raise ForbiddenError(f"round {round_id!r} belongs to another player")
    return read.row


def _busy(what: str) -> ConflictError:
    return ConflictError(f"{what} changed {ATTEMPTS} times while this request was written: send it again")


class RecentStates:
    """The engine states of recently played open rounds, so a step need not replay the round.

    Keyed by round id and the number of steps the state has seen: a state is used only when the
    stored round has exactly that many steps (another process may have moved the round on, or
    the transaction that made it may have rolled back), else the round is replayed from its
    record. Bounded: the least recently used go first. Settled rounds are dropped.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self._states: LRUCache[str, tuple[int, RoundState]] = LRUCache(capacity)

    def recall(self, round_id: str, steps: int) -> RoundState | None:
        found = self._states.get(round_id)
        return found[1] if found is not None and found[0] == steps else None

    def remember(self, round_id: str, steps: int, state: RoundState) -> None:
        if state.settlement is not None:
            self._states.pop(round_id, None)
        else:
            self._states[round_id] = (steps, state)
