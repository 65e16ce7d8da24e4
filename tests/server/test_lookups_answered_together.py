"""Calls answered together (``server.batching.Batcher``), and the sessions' reads that use it: many
table sockets checking their sessions at once cost one read, not one each (SQLite, PostgreSQL)."""

from __future__ import annotations

import asyncio
from collections.abc import Collection, Mapping
from typing import Any

import pytest
from sqlalchemy import update
from tests.server.conftest import FakeClock

from dealerpoker.server.accounts import AuthenticationError, create_player
from dealerpoker.server.batching import Batcher
from dealerpoker.server.clock import timestamp
from dealerpoker.server.db import Database
from dealerpoker.server.errors import NotFoundError
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.server.responsible.policy import Profile, ResponsibleGamingError
from dealerpoker.server.responsible.service import ResponsibleGaming
from dealerpoker.server.schema import sessions
from dealerpoker.server.sessions import USE_WRITE_SECONDS, Policy, Sessions
from dealerpoker.server.wallet import LedgerWallet


class Recorded:
    """A batch function that answers each key with itself doubled and keeps what it was given."""

    def __init__(self) -> None:
        self.batches: list[dict[Any, Any]] = []
        self.release = asyncio.Event()
        self.hold = False

    async def __call__(self, arguments: Mapping[Any, Any]) -> dict[Any, Any]:
        self.batches.append(dict(arguments))
        if self.hold:
            await self.release.wait()
        return {key: key * 2 if key >= 0 else ValueError(f"no answer for {key}") for key in arguments}


def test_calls_within_the_window_share_one_batch_and_merge_their_arguments() -> None:
    async def scenario() -> tuple[list[int], list[dict[Any, Any]]]:
        run = Recorded()
        batch = Batcher(run, window=60, most=3, merge=lambda a, b: a or b)
        answers = await asyncio.gather(batch(1, False), batch(1, True), batch(2, False), batch(3, False))
        return answers, run.batches

    answers, batches = asyncio.run(scenario())
    assert answers == [2, 2, 4, 6]
    # The third key filled the batch (most=3): it went at once, not after the 60 s window.
    assert batches == [{1: True, 2: False, 3: False}]


def test_the_window_sends_a_batch_that_is_not_full() -> None:
    async def scenario() -> list[dict[Any, Any]]:
        run = Recorded()
        batch = Batcher(run, window=0.001, most=100)
        assert await batch(5, None) == 10
        assert await batch(6, None) == 12
        return run.batches

    assert asyncio.run(scenario()) == [{5: None}, {6: None}]


def test_a_key_refused_fails_only_its_own_callers() -> None:
    async def scenario() -> list[Any]:
        batch = Batcher(Recorded(), window=0.001)
        return await asyncio.gather(batch(-1, None), batch(4, None), return_exceptions=True)

    refused, answered = asyncio.run(scenario())
    assert isinstance(refused, ValueError) and str(refused) == "no answer for -1"
    assert answered == 8


def test_a_batch_that_fails_fails_every_caller_with_its_error() -> None:
    async def broken(arguments: Mapping[int, None]) -> dict[int, int]:
        raise ConnectionError("database gone")

    async def scenario() -> list[Any]:
        batch = Batcher(broken, window=0.001)
        return await asyncio.gather(batch(1, None), batch(2, None), return_exceptions=True)

    assert [str(error) for error in asyncio.run(scenario())] == ["database gone", "database gone"]


def test_a_cancelled_caller_leaves_the_others_their_answer() -> None:
    async def scenario() -> tuple[bool, int]:
        run = Recorded()
        run.hold = True
        batch = Batcher(run, window=0.0)
        leaving = asyncio.ensure_future(batch(7, None))
        staying = asyncio.ensure_future(batch(7, None))
        while not run.batches:  # the batch is being answered, both callers waiting on it
            await asyncio.wait([leaving], timeout=0.01)
        leaving.cancel()
        run.release.set()
        answer = await staying
        return leaving.cancelled(), answer

    assert asyncio.run(scenario()) == (True, 14)


def test_settings_a_batch_cannot_keep_are_refused() -> None:
    async def nothing(arguments: Mapping[int, None]) -> dict[int, int]:
        return {}

    with pytest.raises(ValueError, match="window >= 0 s for most >= 1 calls"):
        Batcher(nothing, most=0)
    with pytest.raises(ValueError, match="window >= 0 s"):
        Batcher(nothing, window=-1)


def test_a_key_the_batch_forgot_is_an_error_not_a_hang() -> None:
    async def forgetful(arguments: Mapping[int, None]) -> dict[int, int]:
        return {}

    async def scenario() -> None:
        await Batcher(forgetful, window=0.0)(9, None)

    with pytest.raises(LookupError, match="no answer for 9"):
        asyncio.run(scenario())


class CountedSessions(Sessions):
    """Sessions that keep the size of each batch of tokens they read, and of uses they write."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.batches: list[int] = []
        self.writes: list[int] = []

    async def _refresh_many(self, uses: Mapping[str, bool]) -> Any:
        self.batches.append(len(uses))
        return await super()._refresh_many(uses)

    async def _write_uses(self, uses: Mapping[str, Any]) -> Any:
        self.writes.append(len(uses))
        return await super()._write_uses(uses)


async def _signed_in(database: Database, clock: FakeClock, players: int) -> tuple[CountedSessions, list[Any]]:
    """A migrated database with ``players`` new players, each token read once by new sessions."""
    await database.migrate()
    async with database.transaction() as connection:
        made = [await create_player(connection, starting_balance=0, at=timestamp(clock()))
                for _ in range(players)]
    live = CountedSessions(database, clock, Policy(idle_seconds=1800, max_seconds=43_200), operators=False)
    await asyncio.gather(*(live.authenticate(player.token) for player in made))
    return live, made


def test_many_sockets_checking_their_sessions_read_only_the_ones_that_ended(database_url: str) -> None:
    """200 tokens read together; one of them ended in the database by another process. Ten
    seconds later all 200 are checked at once, half of them used: the process reads which sessions
    ended lately, then the ended token's row alone (refused, naming why); the others stand from
    memory, and the used ones' last uses are written in one statement."""
    clock = FakeClock()

    async def scenario() -> tuple[CountedSessions, list[Any], dict[str, str], str]:
        database = Database(database_url)
        try:
            live, made = await _signed_in(database, clock, 200)
            async with database.transaction() as connection:
                await connection.execute(update(sessions).where(sessions.c.player_id == made[0].player_id)
                                         .values(ended_at=timestamp(clock()), end_reason="revoked"))
            clock.advance(USE_WRITE_SECONDS)  # past REFRESH_SECONDS too: the endings are read again
            answers = await asyncio.gather(*(live.authenticate(player.token, use=index % 2 == 0)
                                             for index, player in enumerate(made)), return_exceptions=True)
            async with database.reading() as connection:
                rows = (await connection.execute(sessions.select())).all()
            return live, answers, {row.player_id: row.last_seen_at for row in rows}, timestamp(clock.now)
        finally:
            await database.dispose()

    live, answers, last_seen, late = asyncio.run(scenario())
    assert live.batches == [200, 1]
    assert live.writes == [99]  # the uses but the ended one's
    assert isinstance(answers[0], AuthenticationError) and "session ended (revoked)" in str(answers[0])
    assert all(isinstance(answer, str) and answer.startswith("p_") for answer in answers[1:])
    a_minute_later = {player for player, seen in last_seen.items() if seen[:19] == late[:19]}
    assert a_minute_later == {answer for index, answer in enumerate(answers) if index % 2 == 0 and index}


def test_callers_that_find_the_endings_stale_resume_together_after_one_read(database_url: str) -> None:
    """A minute on, 150 used tokens are checked at once: one read of the sessions ended lately
    serves every caller, and all of them go on in the same turn of the event loop (the uses'
    batch here takes only the callers of one turn: window 0). A lock handed from caller to caller
    took a turn each, and on a loaded machine the uses fell into several batches."""
    clock = FakeClock()

    async def scenario() -> tuple[CountedSessions, int]:
        database = Database(database_url)
        try:
            live, made = await _signed_in(database, clock, 150)
            live._uses = Batcher(live._write_uses, window=0)
            reads = 0
            original = live._read_endings

            async def counted(*arguments: Any) -> None:
                nonlocal reads
                reads += 1
                await original(*arguments)

            live._read_endings = counted  # type: ignore[method-assign,assignment]
            clock.advance(USE_WRITE_SECONDS)
            await asyncio.gather(*(live.authenticate(player.token) for player in made))
            return live, reads
        finally:
            await database.dispose()

    live, reads = asyncio.run(scenario())
    assert reads == 1
    assert live.writes == [150]


def test_a_session_over_by_what_this_process_knows_is_read_again_before_it_is_refused(
        database_url: str) -> None:
    """Idle here, but used on another process since: the row's later use keeps it alive. Idle
    everywhere: refused as idle."""
    clock = FakeClock()

    async def scenario() -> tuple[str, Any, list[int]]:
        database = Database(database_url)
        try:
            await database.migrate()
            async with database.transaction() as connection:
                player = await create_player(connection, starting_balance=0, at=timestamp(clock()))
            policy = Policy(idle_seconds=60, max_seconds=43_200)
            here = CountedSessions(database, clock, policy, operators=False)
            elsewhere = Sessions(database, clock, policy, operators=False)
            await here.authenticate(player.token)
            clock.advance(50)
            await elsewhere.authenticate(player.token)  # a use on another process
            clock.advance(50)  # idle for 100 s here, 50 s there
            alive = await here.authenticate(player.token, use=False)
            clock.advance(61)
            try:
                await here.authenticate(player.token, use=False)
                refused: Any = None
            except AuthenticationError as error:
                refused = error
            return alive, refused, here.batches
        finally:
            await database.dispose()

    alive, refused, batches = asyncio.run(scenario())
    assert alive.startswith("p_")
    assert isinstance(refused, AuthenticationError) and "idle limit" in str(refused)
    assert batches == [1, 1, 1]  # the first read, then a read each time memory said idle


class CountedResponsibleGaming(ResponsibleGaming):
    """Responsible gaming that keeps the size of each batch of live bets it checked."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.batches: list[int] = []

    async def _check_live_bets(self, bets: Mapping[tuple[str, int], None]) -> Any:
        self.batches.append(len(bets))
        return await super()._check_live_bets(bets)


def test_live_bets_placed_together_are_checked_in_one_unit_of_work(database_url: str) -> None:
    """A crowd's first bets at a live table: one read finds who has anything to check, and one
    transaction (with their locks) checks only those: each player's own limit still refuses only
    that player's bets (the others stand), and an unknown player is refused."""
    clock = FakeClock()

    async def scenario() -> tuple[list[int], list[Any], Any, list[int]]:
        database = Database(database_url)
        try:
            await database.migrate()
            async with database.transaction() as connection:
                made = [(await create_player(connection, starting_balance=10_000,
                                             at=timestamp(clock()))).player_id for _ in range(50)]
            checks = CountedResponsibleGaming(database, clock=clock, profile=Profile())
            await checks.set_limits(made[3], {"stake_session": 500}, source="player", by="player")
            transactions: list[int] = []
            begin = database.transaction

            def counted() -> Any:
                transactions.append(1)
                return begin()

            database.transaction = counted  # type: ignore[method-assign]
            answers = await asyncio.gather(*(checks.check_live_bet(player, 1_000)
                                             for player in [*made, "p_nobody"]), return_exceptions=True)
            in_the_crowd = len(transactions)
            # Players with nothing to check: read, no transaction.
            plain = await asyncio.gather(*(checks.check_live_bet(player, 100) for player in made[10:20]))
            assert plain == [None] * 10
            unchecked = len(transactions)
            # A player under their limit, in a batch of one: the same rule.
            small = await asyncio.gather(checks.check_live_bet(made[3], 400), return_exceptions=True)
            return checks.batches, answers, small[0], [in_the_crowd, unchecked, len(transactions)]
        finally:
            await database.dispose()

    batches, answers, small, transactions = asyncio.run(scenario())
    assert batches == [51, 10, 1]
    refused = [index for index, answer in enumerate(answers) if answer is not None]
    assert refused == [3, 50], answers
    assert isinstance(answers[3], ResponsibleGamingError) and "stake" in str(answers[3])
    assert isinstance(answers[50], NotFoundError)
    assert small is None
    # One for the crowd (the limited and the unknown player), none for the plain ten, one for the last.
    assert transactions == [1, 1, 2]


class CountedWallet(LedgerWallet):
    """The embedded wallet, keeping how many balances each of its reads asked for."""

    def __init__(self, database: Database) -> None:
        super().__init__(database)
        self.reads: list[int] = []

    async def balances(self, player_ids: Collection[str]) -> dict[str, int]:
        self.reads.append(len(player_ids))
        return await super().balances(player_ids)


def test_a_crowds_first_bets_read_their_balances_together(database_url: str) -> None:
    """A live table's store asked for 100 balances at once (the first bets of a crowd, read before
    the table's lock): one read of the wallet; an unknown player is None; a fresh read reads again."""
    clock = FakeClock()

    async def scenario() -> tuple[list[int], list[int | None], int | None]:
        database = Database(database_url)
        try:
            await database.migrate()
            async with database.transaction() as connection:
                made = [(await create_player(connection, starting_balance=100 + number,
                                             at=timestamp(clock()))).player_id for number in range(100)]
            wallet = CountedWallet(database)
            store = SqlStore(database, lambda: timestamp(clock()), wallet=wallet)
            found = await asyncio.gather(*(store.balance(player) for player in [*made, "p_nobody"]))
            cached = await store.balance(made[7])  # kept: no read
            fresh = await store.balance(made[7], fresh=True)
            assert cached == fresh
            return wallet.reads, found, fresh
        finally:
            await database.dispose()

    reads, found, fresh = asyncio.run(scenario())
    assert reads == [101, 1]
    assert found == [*range(100, 200), None]
    assert fresh == 107
