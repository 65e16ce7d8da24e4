"""A studio table's runner with a fake clock, the in-memory store and a recording publisher:
money at each step, the dealer's stream, misdeals, and resuming from the store."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from tests.live.conftest import FakeClock
from tests.live.test_runner import Recorder

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.games import get_game
from dealerpoker.server.live.dealer import DEALER
from dealerpoker.server.live.ports import MemoryStore
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.tables.config import parse_tables
from dealerpoker.tables.table import LiveTableError, Phase

KEY = "studio-runner-dealer-key"


def make(game: str, balances: dict[str, int], store: MemoryStore | None = None,
         clock: FakeClock | None = None) -> tuple[TableRunner, FakeClock, MemoryStore, Recorder]:
    table = parse_tables(f'[[tables]]\nid = "s"\ngame = "{game}"\ndealing = "studio"\nbetting_seconds = 15\n'
                         f'decision_seconds = 10\npause_seconds = 4\n[tables.studio]\ndealer_key = "{KEY}"\n'
                         'deal_seconds = 20')[0]
    clock, store, recorder = clock or FakeClock(), store or MemoryStore(balances), Recorder()
    runner = TableRunner(table, get_game(game, table.rules), store, recorder, clock=clock,
                         watchers=lambda: 1, flush_delay=0.0)
    return runner, clock, store, recorder


def dealer_messages(rec: Recorder, kind: str) -> list[dict[str, Any]]:
    return [batch[DEALER] for batch in rec.players if DEALER in batch and batch[DEALER]["type"] == kind]


async def to_dealing(runner: TableRunner, clock: FakeClock, bets: dict[str, dict[str, int]]) -> None:
    await runner.resume()
    await runner.advance()
    for player, placed in bets.items():
        await runner.bet(player, placed)
    clock.now += 15
    await runner.advance()


def test_a_studio_round_debits_at_the_close_credits_the_bonus_with_the_hole_cards_and_settles() -> None:
    async def scenario() -> None:
        runner, clock, store, rec = make("texas-bonus", {"alice": 10_000, "bob": 10_000})
        await to_dealing(runner, clock, {"alice": {"ante": 100, "bonus": 100}, "bob": {"ante": 500}})
        assert runner.round is not None and runner.round.phase is Phase.DEALING
        assert store.balances == {"alice": 9_800, "bob": 9_500}
        assert rec.table[-1]["event"] == "dealing" and "fairness" not in rec.table[-1]
        assert dealer_messages(rec, "expect")[-1]["cards"] == 2
        for card in ("As", "Ks"):
            reply = await runner.report_card(card, "test")
            assert reply["type"] == "accepted" and reply["card"] == card
        assert runner.round.phase is Phase.DEALING and store.balances["alice"] == 9_800
        await runner.report_card("Qh", "test")
        await runner.report_card("Qc", "test")  # hole cards in: A-K suited pays 25 to 1 at once
        assert store.balances["alice"] == 9_800 + 2_600 and runner.round.phase is Phase.DECISION
        assert runner.round.deadline == clock.now + 10
        assert rec.table[-1]["player_cards"] == ["As", "Ks"] and rec.table[-1]["dealer_cards"] == []
        await runner.decide("alice", "bet")
        await runner.decide("bob", "fold")
        await runner.advance()  # everyone decided: stakes debited, then the flop is expected
        assert store.balances["alice"] == 12_200 and runner.round.phase is Phase.DEALING
        for card in ("2c", "7d", "9h"):
            await runner.report_card(card, "test")
        clock.now += 10
        await runner.advance()  # alice checks (timer), the turn is expected
        await runner.report_card("Js", "test")
        clock.now += 10
        await runner.advance()
        await runner.report_card("3s", "test")
        await runner.advance()  # the river is in: reveal and settle
        assert runner.round.phase is Phase.PAUSE and rec.table[-1]["event"] == "settled"
        game = get_game("texas-bonus")
        deck = indices_from_text("As Ks Qh Qc 2c 7d 9h Js 3s")
        alice = game.replay({"ante": 100, "bonus": 100}, deck, ["bet", "check", "check"])[0].settlement
        assert store.balances["alice"] == 10_000 + alice.net and store.balances["bob"] == 9_500
        assert sum(store.balances.values()) + store.house == 20_000
        assert dealer_messages(rec, "dealer")[-1]["last_rounds"][0]["status"] == "settled"
    asyncio.run(scenario())


def test_a_misdeal_by_the_dealer_returns_every_stake() -> None:
    async def scenario() -> None:
        runner, clock, store, rec = make("casino-holdem", {"alice": 10_000, "bob": 10_000})
        await to_dealing(runner, clock, {"alice": {"ante": 100, "aa": 100}, "bob": {"ante": 300}})
        await runner.report_card("Ah", "test")
        reply = await runner.misdeal("card face up")
        assert reply == {"type": "accepted", "what": "misdeal", "round": "s/1"}
        assert store.balances == {"alice": 10_000, "bob": 10_000} and store.house == 0
        assert runner.round is not None and runner.round.phase is Phase.PAUSE
        assert rec.table[-1]["event"] == "misdeal" and rec.table[-1]["misdeal"]["reason"] == "card face up"
        seat = next(batch for batch in reversed(rec.players) if "alice" in batch)["alice"]["seat"]
        assert seat["cancelled"] and seat["settlement"]["outcome"] == "misdeal"
        with pytest.raises(LiveTableError) as refused:
            await runner.misdeal("again")
        assert refused.value.code == "no_round"
    asyncio.run(scenario())


def test_the_deal_timer_cancels_a_round_whose_cards_are_late() -> None:
    async def scenario() -> None:
        runner, clock, store, _rec = make("texas-bonus", {"alice": 10_000})
        await to_dealing(runner, clock, {"alice": {"ante": 100}})
        for card in ("As", "Ks", "Qh", "Qc"):
            await runner.report_card(card, "test")
        await runner.decide("alice", "bet")
        await runner.advance()
        assert store.balances["alice"] == 9_700
        await runner.report_card("2c", "test")
        clock.now += 19.9
        assert await runner.advance() == pytest.approx(clock.now + 0.1)  # still the deal deadline
        clock.now += 0.1
        await runner.advance()
        assert runner.round is not None and runner.round.misdeal is not None
        assert runner.round.misdeal.by == "timer" and "within 20 s" in runner.round.misdeal.reason
        assert store.balances["alice"] == 10_000
    asyncio.run(scenario())


def test_a_restart_resumes_with_the_cards_reported_and_the_same_deadline() -> None:
    async def scenario() -> None:
        runner, clock, store, _rec = make("casino-holdem", {"alice": 10_000})
        await to_dealing(runner, clock, {"alice": {"ante": 100}})
        await runner.report_card("Ah", "test")
        await runner.report_card("Kd", "test")
        await runner.void_card()
        await runner.report_card("Kh", "test")
        before = runner.round
        assert before is not None
        # A new process: the same store, a fresh runner.
        again, _clock, _store, _rec2 = make("casino-holdem", {}, store=store, clock=clock)
        await again.resume()
        assert again.round is not None
        assert again.round.deck == before.deck and again.round.reports == before.reports
        assert again.round.deadline == before.deadline and again.round.phase is Phase.DEALING
        assert again.expect_message() == runner.expect_message()
        for card in ("7h", "7s", "2c", "2d", "2h"):
            await again.report_card(card, "test")
        assert again.round.phase is Phase.DECISION and store.balances["alice"] == 9_900
    asyncio.run(scenario())
