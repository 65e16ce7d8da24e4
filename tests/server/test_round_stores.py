"""The RoundStore contract (``server/rounds/store.py``), one suite for every implementation:
``SqlRoundStore`` on SQLite and on PostgreSQL, ``PostgresRoundStore`` on PostgreSQL, and with
operators' seamless wallets (``SeamlessWallet`` to a real ``dealerpoker operator-demo`` process)
``SqlRoundStore`` on SQLite and ``SeamlessPostgresRoundStore`` on PostgreSQL.

A write applies only if what the step was computed from is unchanged, else it writes nothing
and answers None; a write records the step's transfers in the ledger with the round, or
nothing; a stake the balance does not cover writes nothing. Every store passes every test with
the server's own players; the seamless stores also with an operator's real-money player, whose
money is the operator's: the bets taken by its wallet are confirmed with the round, or rolled
back there, and a win is owed to it through the outbox.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import pytest
from sqlalchemy import func, select
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database
from tests.support.operator import OperatorDemo
from tests.support.operators_file import demo_entry
from tests.support.waiting import until_async

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.games import get_game
from dealerpoker.games.currency import house_account
from dealerpoker.server import ledger
from dealerpoker.server.accounts import create_player
from dealerpoker.server.clock import system_clock
from dealerpoker.server.db import Database
from dealerpoker.server.dealing import committed_deal
from dealerpoker.server.operators.config import Operator, parse_operators
from dealerpoker.server.operators.launch import Launch, create_launch_token, redeem
from dealerpoker.server.operators.outbox import seamless_wallet
from dealerpoker.server.operators.wallet import SeamlessWallet
from dealerpoker.server.rounds import plan
from dealerpoker.server.rounds.postgres import PostgresRoundStore, SeamlessPostgresRoundStore
from dealerpoker.server.rounds.sql import SqlRoundStore
from dealerpoker.server.rounds.store import PlayerRead, RoundStore
from dealerpoker.server.schema import ledger_entries, players, rounds, wallet_transactions
from dealerpoker.server.wallet import Debit, LedgerWallet, Wallet

AT = "2026-01-01T00:00:00.000000Z"
LATER = "2026-01-01T00:00:01.000000Z"
SEED = "ab" * 32
HOUSE = house_account("EUR")
TAKEN = Debit()  # what the embedded wallet's debit gives the store
Kind = tuple[str, str, Sequence[Operator]]
"""A store to test: its name, its database's URL, the operators of its seamless wallet."""


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    if not POSTGRES_URL:
        pytest.skip(NO_POSTGRES)
    with fresh_database("stores") as url:
        yield url


@pytest.fixture(scope="module")
def operators(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[OperatorDemo, Sequence[Operator]]]:
    """The reference operator as a real process, and the operators file naming it."""
    with OperatorDemo(tmp_path_factory.mktemp("operator"), secret="store-contract-secret") as demo:
        yield demo, parse_operators(demo_entry(demo, wallet_timeout_seconds=5.0))


SEAMLESS = ["seamless-sqlite", pytest.param("seamless-postgres", marks=pytest.mark.postgres)]


def _kind(request: pytest.FixtureRequest) -> Kind:
    name: str = request.param
    url = "sqlite://" if name.endswith("sqlite") else request.getfixturevalue("postgres_url")
    return name, url, request.getfixturevalue("operators")[1] if name.startswith("seamless") else ()


@pytest.fixture(params=["sql-sqlite", pytest.param("sql-postgres", marks=pytest.mark.postgres),
                        pytest.param("postgres", marks=pytest.mark.postgres), *SEAMLESS])
def kind(request: pytest.FixtureRequest) -> Kind:
    return _kind(request)


@pytest.fixture(params=SEAMLESS)
def seamless_kind(request: pytest.FixtureRequest) -> Kind:
    return _kind(request)


def run(kind: Kind, body: Callable[[RoundStore, Database, str], Awaitable[Any]]) -> Any:
    """``body(store, database, player)`` on a fresh store with a player holding 1,000."""

    async def scenario() -> Any:
        async with opened(kind) as (store, database):
            async with database.transaction() as connection:
                player = (await create_player(connection, starting_balance=1_000, at=AT)).player_id
            return await body(store, database, player)

    return asyncio.run(scenario())


@asynccontextmanager
async def opened(kind: Kind) -> AsyncIterator[tuple[RoundStore, Database]]:
    store, database, _wallet = await _open(kind)
    try:
        yield store, database
    finally:
        await store.close()
        await database.dispose()


async def _open(kind: Kind) -> tuple[RoundStore, Database, Wallet]:
    name, url, operators = kind
    database = Database(url)
    await database.migrate()
    if name.startswith("seamless"):
        wallet: Wallet
        wallet, _outbox = seamless_wallet(database, operators, system_clock)
        assert isinstance(wallet, SeamlessWallet)
        store: RoundStore = SeamlessPostgresRoundStore(database, wallet) if name == "seamless-postgres" \
            else SqlRoundStore(database, wallet)
        return store, database, wallet
    wallet = LedgerWallet(database)
    store = PostgresRoundStore(database) if name == "postgres" else SqlRoundStore(database, wallet)
    return store, database, wallet


def opening(read: PlayerRead, *, ante: int = 100, bonus: int = 0, key: str | None = None,
            round_id: str | None = None) -> plan.Planned:
    game = get_game("texas-bonus")
    bets = {"ante": ante, **({"bonus": bonus} if bonus else {})}
    return plan.opening(
        game, round_id=round_id or f"r_{random.getrandbits(40):010x}", player_id=read.player_id,
        currency=read.currency, bets=bets,
        deal=committed_deal(SEED, read.client_seed, read.nonce), client_seed=read.client_seed,
        nonce=read.nonce, idempotency_key=key, rules_fingerprint=game.rules.fingerprint(), at=AT)


def step(row: Any, action: str) -> plan.Planned:
    return plan.next_step(get_game("texas-bonus"), row, action, source="player", at=LATER)


async def ledger_of(database: Database, round_id: str) -> list[tuple[str, str, int]]:
    async with database.transaction() as connection:
        rows = await connection.execute(
            select(ledger_entries.c.txid, ledger_entries.c.account_id, ledger_entries.c.amount)
            .where(ledger_entries.c.round_id == round_id).order_by(ledger_entries.c.id))
        return [(str(t), str(a), int(m)) for t, a, m in rows]


async def balance(database: Database, player: str) -> int | None:
    async with database.transaction() as connection:
        return await ledger.balance_of(connection, player)


def test_an_opening_writes_the_round_its_money_and_the_players_next_seed(kind: Kind) -> None:
    async def body(store: RoundStore, database: Database, player: str) -> None:
        assert await store.player("p_nobody") is None
        read = await store.player(player, "k1")
        assert read is not None and (read.balance, read.nonce, read.key_round) == (1_000, 0, None)
        planned = opening(read, bonus=100, key="k1")
        view = await store.open(read, planned, "cd" * 32, TAKEN)
        assert view is not None and json.loads(view)["balance"] == 800 + planned.money.transfers[1].amount
        stored = await store.round(planned.round_id)
        assert stored is not None and stored.row["view"] == view
        assert stored.balance == json.loads(view)["balance"]
        again = await store.player(player, "k1")
        assert again is not None
        assert (again.nonce, again.next_server_seed, again.key_round) == (1, "cd" * 32, planned.round_id)
        entries = await ledger_of(database, planned.round_id)
        assert entries[:2] == [(f"{planned.round_id}:{player}:bets", player, -200),
                               (f"{planned.round_id}:{player}:bets", HOUSE, 200)]
        assert sum(amount for _, account, amount in entries if account == player) \
            == stored.balance - 1_000
        assert await balance(database, player) == stored.balance

    run(kind, body)


def test_a_write_from_stale_reads_writes_nothing(kind: Kind) -> None:
    """(Moved from test_server_steps: "a statement on stale rows writes nothing".)"""

    async def body(store: RoundStore, database: Database, player: str) -> None:
        read = await store.player(player)
        assert read is not None
        first = opening(read)
        assert await store.open(read, first, "cd" * 32, TAKEN) is not None

        async def state() -> tuple[Any, ...]:
            async with database.transaction() as connection:
                return (await ledger.balance_of(connection, player),
                        (await connection.execute(select(players).where(players.c.id == player))).one(),
                        (await connection.execute(select(rounds).order_by(rounds.c.seq))).all(),
                        await connection.scalar(select(func.count()).select_from(ledger_entries)))

        before = await state()
        # The player's nonce moved on since ``read``: a second opening from it writes nothing,
        # whatever else it carries (a round id already taken included).
        assert await store.open(read, opening(read), "ef" * 32, TAKEN) is None
        assert await store.open(read, opening(read, round_id=first.round_id), "ef" * 32, TAKEN) is None
        # The round moved on since this read: the step from it writes nothing.
        stale = await store.round(first.round_id)
        assert stale is not None
        assert await store.step(stale, step(stale.row, "bet"), TAKEN) is not None
        after_bet = await state()
        assert await store.step(stale, step(stale.row, "fold"), TAKEN) is None
        assert await state() == after_bet != before

    run(kind, body)


def test_a_used_idempotency_key_opens_nothing_more(kind: Kind) -> None:
    async def body(store: RoundStore, database: Database, player: str) -> None:
        read = await store.player(player, "same")
        assert read is not None
        first, second = opening(read, key="same"), opening(read, key="same")
        assert await store.open(read, first, "cd" * 32, TAKEN) is not None
        fresh = await store.player(player, "same")
        assert fresh is not None and fresh.key_round == first.round_id
        # A concurrent request read before the key was used: its opening writes nothing.
        assert await store.open(fresh, opening(fresh, key="same"), "ef" * 32, TAKEN) is None
        assert await store.round(second.round_id) is None
        assert await balance(database, player) == 900

    run(kind, body)


def test_steps_move_money_once_and_settle_with_the_returns(kind: Kind) -> None:
    async def body(store: RoundStore, database: Database, player: str) -> None:
        read = await store.player(player)
        assert read is not None
        opened_round = opening(read)
        await store.open(read, opened_round, "cd" * 32, TAKEN)
        for action in ("bet", "check", "check"):
            current = await store.round_to_step(opened_round.round_id)
            assert current is not None
            planned = step(current.row, action)
            view = await store.step(current, planned, TAKEN)
            assert view is not None
        final = json.loads(view)
        assert final["status"] == "settled"
        stored = await store.round(opened_round.round_id)
        assert stored is not None and stored.row["status"] == "settled"
        entries = await ledger_of(database, opened_round.round_id)
        mine = {txid: amount for txid, account, amount in entries if account == player}
        txid = f"{opened_round.round_id}:{player}:"
        assert mine.pop(txid + "bets") == -100 and mine.pop(txid + "preflop") == -200
        assert mine == ({txid + "settle": final["total_returned"]} if final["total_returned"] else {})
        assert final["balance"] == await balance(database, player) \
            == 1_000 - final["total_stake"] + final["total_returned"]

    run(kind, body)


def test_a_stake_the_balance_does_not_cover_writes_nothing(kind: Kind) -> None:
    async def body(store: RoundStore, database: Database, player: str) -> None:
        read = await store.player(player)
        assert read is not None
        planned = opening(read, ante=400)  # 600 left: the preflop bet (800) is not covered
        await store.open(read, planned, "cd" * 32, TAKEN)
        current = await store.round(planned.round_id)
        assert current is not None
        with pytest.raises(InsufficientFundsError) as refused:
            await store.step(current, step(current.row, "bet"), TAKEN)
        assert (refused.value.balance, refused.value.needed) == (600, 800)
        assert await store.round(planned.round_id) == current
        assert await balance(database, player) == 600
        assert len(await ledger_of(database, planned.round_id)) == 2

    run(kind, body)


def test_a_balance_changed_elsewhere_is_never_overwritten(kind: Kind) -> None:
    async def body(store: RoundStore, database: Database, player: str) -> None:
        read = await store.player(player)
        assert read is not None
        planned = opening(read)
        await store.open(read, planned, "cd" * 32, TAKEN)
        current = await store.round_to_step(planned.round_id)
        assert current is not None
        async with database.transaction() as connection:  # money moved by something else
            assert await ledger.post_transfer(connection, f"grant:{player}", HOUSE, player, 5, at=AT)
        view = await store.step(current, step(current.row, "bet"), TAKEN)
        # A store that checks the balance read writes nothing; one that posts against the stored
        # balance shows it. Either way the view and the ledger agree.
        if view is not None:
            assert json.loads(view)["balance"] == await balance(database, player) == 1_000 - 300 + 5
        else:
            assert await balance(database, player) == 1_000 - 100 + 5

    run(kind, body)


def test_history_and_stale_rounds(kind: Kind) -> None:
    async def body(store: RoundStore, database: Database, player: str) -> None:
        ids = []
        for _round in range(3):
            read = await store.player(player)
            assert read is not None
            planned = opening(read)
            assert await store.open(read, planned, f"{len(ids):064x}", TAKEN) is not None
            ids.append(planned.round_id)
        current = await store.round(ids[0])
        assert current is not None
        await store.step(current, step(current.row, "fold"), TAKEN)
        views = [json.loads(v) for v in await store.history(player, limit=10)]
        assert [v["id"] for v in views] == ids[::-1]
        second = await store.round(ids[1])
        assert second is not None
        older = await store.history(player, limit=10, before_seq=int(second.row["seq"]))
        assert [json.loads(v)["id"] for v in older] == [ids[0]]
        assert [json.loads(v)["id"] for v in await store.history(player, limit=10, status="open")] \
            == ids[:0:-1]
        assert await store.history(player, limit=1) == [await_view(await store.round(ids[2]))]
        stale = await store.stale("2026-01-01T00:00:00.5Z", 500)  # other tests share PostgreSQL
        assert [r for r, p in stale if p == player] == ids[1:]
        assert await store.stale(AT, 10) == []

    run(kind, body)


def await_view(read: Any) -> str:
    return str(read.row["view"])


async def _until(check: Callable[[], bool], what: str, timeout: float = 60.0) -> None:
    """Poll ``check`` (in a thread: it may call the operator) until true, else fail naming ``what``."""
    await until_async(lambda: asyncio.to_thread(check), what, timeout=timeout)


async def _wallet_rows(database: Database, round_id: str) -> list[tuple[str, str, int]]:
    async with database.reading() as connection:
        found = await connection.execute(
            select(wallet_transactions.c.kind, wallet_transactions.c.status, wallet_transactions.c.amount)
            .where(wallet_transactions.c.round_id == round_id))
        return [(str(k), str(s), int(a)) for k, s, a in found]


def test_an_operators_players_money_goes_with_the_round_or_back_to_the_operator(
    seamless_kind: Kind, operators: tuple[OperatorDemo, Sequence[Operator]],
) -> None:
    """An operator's real-money player (their money in the operator's wallet, a real process):
    the bets the wallet took are confirmed with the round; an opening from a stale read writes
    nothing, and its bet goes back to the operator (a rollback the outbox delivers); the steps'
    stakes are taken the same way and the round's return is paid through the outbox."""
    demo, _ = operators
    name = f"store-{random.getrandbits(40):010x}"
    token = demo.create_player(name, "EUR", 1_000)

    async def scenario() -> None:
        kind_name, url, configured = seamless_kind
        database = Database(url)
        await database.migrate()
        wallet, outbox = seamless_wallet(database, configured, system_clock)
        store: RoundStore = SeamlessPostgresRoundStore(database, wallet) if kind_name == "seamless-postgres" \
            else SqlRoundStore(database, wallet)
        await outbox.start()
        try:
            launch = Launch(configured[0].id, name, "EUR", "real", token=token, game="texas-bonus")
            key, _ = await create_launch_token(database, launch, now=system_clock())
            player = (await redeem(database, key, now=system_clock(), starting_balance=lambda _: 0,
                                   new_client_seed=lambda: "0" * 32)).player_id
            read = await store.player(player)
            assert read is not None and read.currency == "EUR"
            first = opening(read)
            debit = await wallet.debit(first.money, {player: read.balance})
            assert not debit.refused and demo.balance(name) == 900  # taken by the operator
            view = await store.open(read, first, "cd" * 32, debit)
            assert view is not None and json.loads(view)["balance"] == 900
            await wallet.committed(first.money)
            assert await _wallet_rows(database, first.round_id) == [("bet", "confirmed", 100)]

            second = opening(read)  # from the same read: the player's nonce has moved on
            stale = await wallet.debit(second.money, {player: read.balance})
            assert not stale.refused and demo.balance(name) == 800
            assert await store.open(read, second, "ef" * 32, stale) is None
            assert await store.round(second.round_id) is None
            await wallet.rollback(stale)
            await _until(lambda: demo.balance(name) == 900, "the stale opening's bet rolled back")

            for action in ("bet", "check", "check"):
                current = await store.round_to_step(first.round_id)
                assert current is not None
                planned = step(current.row, action)
                debit = await wallet.debit(planned.money, {player: current.balance})
                assert not debit.refused
                view = await store.step(current, planned, debit)
                assert view is not None
                await wallet.committed(planned.money)
            final = json.loads(view)
            assert final["status"] == "settled" and final["total_stake"] == 300
            await _until(lambda: demo.balance(name) == 700 + final["total_returned"],
                         "the round's return paid to the operator's wallet")
            # The win that closes the round at the operator (0 when nothing returns) goes out once.
            rows: list[tuple[str, str, int]] = []

            async def win_delivered() -> bool:
                rows[:] = await _wallet_rows(database, first.round_id)
                return ("win", "done") in {row[:2] for row in rows}

            await until_async(win_delivered, "the win delivered to the operator")
            assert sorted(rows) == [("bet", "confirmed", 100), ("bet", "confirmed", 200),
                                    ("win", "done", final["total_returned"])]
        finally:
            await outbox.stop()
            await store.close()
            await database.dispose()

    asyncio.run(scenario())
