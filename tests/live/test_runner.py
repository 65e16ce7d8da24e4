"""The table runner with a fake clock, the in-memory store and a recording publisher."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import pytest
from tests.live.conftest import FakeClock
from tests.support import dealing

from dealerpoker.errors import InsufficientFundsError
from dealerpoker.fairness import commitment, deck_order, table_client_seed
from dealerpoker.games import get_game
from dealerpoker.server.live.ports import MemoryStore, StaleLeaseError
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.tables import table as core
from dealerpoker.tables.config import TableConfig, parse_tables
from dealerpoker.tables.table import LiveTableError, Phase, Step

SEED = "ab" * 32


class Recorder:
    def __init__(self) -> None:
        self.table: list[dict[str, Any]] = []
        self.players: list[dict[str, dict[str, Any]]] = []

    async def to_table(self, table_id: str, message: dict[str, Any]) -> None:
        self.table.append(message)

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        # As each player reads it: their message with their balance (messages may be shared).
        own = {player: {"balance": balance} for player, balance in (balances or {}).items()}
        self.players.append({p: {**message, **own.get(p, {})} for p, message in messages.items()})

    def events(self) -> list[str]:
        return [m["event"] for m in self.table]


Rig = tuple[TableRunner, FakeClock, MemoryStore, Recorder]


def make(game: str, balances: dict[str, int], watchers: int = 1) -> Rig:
    table: TableConfig = parse_tables(f'[[tables]]\nid = "t"\ngame = "{game}"\nbetting_seconds = 15\n'
                                      'decision_seconds = 10\npause_seconds = 4')[0]
    clock, store, recorder = FakeClock(), MemoryStore(balances), Recorder()
    runner = TableRunner(table, get_game(game, table.rules), store, recorder, clock=clock,
                         watchers=lambda: watchers, new_seed=lambda: SEED, flush_delay=0.0)
    return runner, clock, store, recorder


async def casino_round_dealt() -> Rig:
    """A Casino Hold'em round at table "t" whose one player, p, bet 100 and waits to decide."""
    runner, clock, store, rec = make("casino-holdem", {"p": 5_000})
    await runner.resume()
    await runner.advance()
    await runner.bet("p", {"ante": 100})
    clock.now = 1015.0
    await runner.advance()
    return runner, clock, store, rec


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def test_a_texas_round_on_the_clock_with_defaults_and_settlement() -> None:
    async def scenario() -> None:
        runner, clock, store, rec = make("texas-bonus", {"alice": 10_000, "bob": 10_000})
        await runner.resume()
        assert await runner.advance() == 1015.0
        first = rec.table[-1]
        assert first["event"] == "betting_open" and first["fairness"]["commitment"] == commitment(SEED)
        assert "server_seed" not in first["fairness"]
        await runner.bet("alice", {"ante": 100, "bonus": 100})
        await runner.bet("bob", {"ante": 500})
        clock.now = 1015.0
        assert await runner.advance() == 1025.0  # no more bets, deal, pre-flop timer
        assert rec.events()[-2:] == ["no_more_bets", "decision"]
        assert store.balances == {"alice": 9_800, "bob": 9_500}
        with pytest.raises(LiveTableError):
            await runner.bet("carol", {"ante": 100})
        # The deck comes from the committed seed and the accepted bets (fixed at the close).
        client_seed = table_client_seed("t/1", {"alice": {"ante": 100, "bonus": 100}, "bob": {"ante": 500}})
        deck = deck_order(SEED, client_seed, 1)
        assert runner.round is not None and runner.round.deck == deck
        await runner.decide("alice", "bet")  # bob says nothing: folds when the timer ends
        clock.now = 1025.0
        await runner.advance()
        assert store.balances["alice"] == 9_600 and store.balances["bob"] == 9_500
        assert runner.round.point == "flop"
        # The seat messages after a commit carry the balances it left (no client has to ask).
        assert {p: m["balance"] for p, m in rec.players[-1].items()} == {"alice": 9_600, "bob": 9_500}
        assert runner.round.seats["bob"].steps[0].source == "timeout"
        clock.now = 1035.0
        await runner.advance()  # alice checks by default on the flop
        clock.now = 1045.0
        wake = await runner.advance()  # ... and on the turn: reveal, settle, pause
        assert rec.events()[-2:] == ["reveal", "settled"]
        assert wake == 1049.0 and runner.round.phase is Phase.PAUSE
        assert [s.action for s in runner.round.seats["alice"].steps] == ["bet", "check", "check"]
        settled = rec.players[-1]
        assert settled["bob"]["seat"]["settlement"]["outcome"] == "fold"
        alice = settled["alice"]["seat"]["settlement"]
        assert store.balances["alice"] == 10_000 + alice["net"]
        assert {p: m["balance"] for p, m in settled.items()} == store.balances  # bob's from the deal
        assert sum(store.balances.values()) + store.house == 20_000
        assert rec.table[-1]["fairness"]["server_seed"] == SEED  # revealed after the round
        clock.now = 1049.0
        await runner.advance()
        assert runner.round.number == 2 and runner.round.phase is Phase.BETTING

    run(scenario())


def test_settlement_is_idempotent_when_a_round_is_settled_again_after_a_restart() -> None:
    async def scenario() -> None:
        runner, clock, store, rec = await casino_round_dealt()
        await runner.decide("p", "raise")
        await runner.advance()  # everyone decided: the point closes at once
        assert runner.round is not None and runner.round.phase is Phase.PAUSE
        balance, posted = store.balances["p"], dict(store.posted)
        # A crash after the settlement's commit but before anything else: resume from the
        # showdown record and settle again; the txids are already posted, nothing moves.
        showdown = dict(store.records[("t", 1)], phase="showdown", deadline=None)
        store.records[("t", 1)] = showdown
        again = TableRunner(runner.table, runner.game, store, rec, clock=clock, watchers=lambda: 1)
        await again.resume()
        await again.advance()
        assert store.balances["p"] == balance and store.posted == posted
        # Nothing moved in this process's commits: the settled message has no balance to tell.
        assert "balance" not in rec.players[-1]["p"]
        assert again.round is not None and again.round.phase is Phase.PAUSE

    run(scenario())


def test_a_restart_in_the_betting_window_keeps_the_bets_and_the_deadline() -> None:
    async def scenario() -> None:
        runner, clock, store, _rec = make("texas-bonus", {"p": 5_000, "q": 5_000, "r": 5_000})
        await runner.resume()
        await runner.advance()
        await runner.bet("p", {"ante": 100})
        await runner.bet("p", {"ante": 200, "bonus": 100})  # changed: the newest bets count
        await runner.bet("q", {"ante": 100})
        await runner.bet("r", {"ante": 100})
        await runner.bet("r", {})  # withdrawn
        clock.now = 1010.0  # the process dies here, 5 s before "no more bets"
        again = TableRunner(runner.table, runner.game, store, Recorder(), clock=clock, watchers=lambda: 1)
        await again.resume()
        assert again.round is not None and again.round.phase is Phase.BETTING
        assert again.round.deadline == 1015.0  # the same window, not a new one
        assert {p: dict(s.bets) for p, s in again.round.seats.items()} == {
            "p": {"ante": 200, "bonus": 100}, "q": {"ante": 100}}
        await again.bet("q", {"ante": 300})  # the window is still open after the restart
        clock.now = 1015.0
        await again.advance()
        assert again.round.phase is Phase.DECISION and again.round.number == 1
        assert store.balances == {"p": 4_700 + again.round.seats["p"].bonus_paid, "q": 4_700, "r": 5_000}
        assert [t for t in store.posted if t.endswith(":bets")] == ["t/1:p:bets", "t/1:q:bets"]

    run(scenario())


def test_a_restart_after_the_window_ended_deals_with_the_bets_at_once() -> None:
    async def scenario() -> None:
        runner, clock, store, _rec = make("casino-holdem", {"p": 5_000})
        await runner.resume()
        await runner.advance()
        await runner.bet("p", {"ante": 100})
        clock.now = 1040.0  # down through the end of the window
        again = TableRunner(runner.table, runner.game, store, Recorder(), clock=clock, watchers=lambda: 1)
        await again.resume()
        await again.advance()
        assert again.round is not None and again.round.number == 1 and again.round.phase is Phase.DECISION
        assert again.round.deadline == 1050.0 and store.balances["p"] == 4_900

    run(scenario())


def test_a_restart_in_a_decision_keeps_the_decisions_sent_and_the_timer() -> None:
    async def scenario() -> None:
        runner, clock, store, _rec = make("texas-bonus", {"p": 5_000, "q": 5_000})
        await runner.resume()
        await runner.advance()
        await runner.bet("p", {"ante": 100})
        await runner.bet("q", {"ante": 100})
        clock.now = 1015.0
        await runner.advance()
        assert runner.round is not None
        cards = runner.round.deck
        await runner.decide("p", "bet")  # q has not decided: the point stays open
        clock.now = 1020.0  # the process dies here, 5 s before the pre-flop timer ends
        again = TableRunner(runner.table, runner.game, store, Recorder(), clock=clock, watchers=lambda: 1)
        await again.resume()
        assert again.round is not None and again.round.deck == cards
        assert again.round.point == "preflop" and again.round.deadline == 1025.0
        assert again.round.seats["p"].pending == "bet" and again.round.undecided == 1
        with pytest.raises(LiveTableError, match="already chose bet"):
            await again.decide("p", "fold")  # still final after the restart
        assert store.balances == {"p": 4_900, "q": 4_900}  # the antes were debited once
        clock.now = 1025.0
        await again.advance()
        assert again.round.point == "flop"
        # The player's decision keeps the time it was accepted (before the restart).
        assert again.round.seats["p"].steps[0] == Step("preflop", "bet", "player", 200, 1015.0)
        assert again.round.seats["q"].steps[0] == Step("preflop", "fold", "timeout", 0, 1025.0)
        assert store.balances == {"p": 4_700, "q": 4_900}

    run(scenario())


def test_once_everyone_had_decided_a_restart_closes_the_point_at_once() -> None:
    async def scenario() -> None:
        runner, clock, store, _rec = await casino_round_dealt()
        await runner.decide("p", "raise")  # the process dies before the point closes
        again = TableRunner(runner.table, runner.game, store, Recorder(), clock=clock, watchers=lambda: 1)
        await again.resume()
        await again.advance()
        assert again.round is not None and again.round.phase is Phase.PAUSE
        assert again.round.seats["p"].steps == (Step("flop", "raise", "player", 200, 1015.0),)

    run(scenario())


def test_an_owner_whose_lease_was_taken_over_commits_nothing_and_the_round_finishes_once() -> None:
    async def scenario() -> None:
        old, clock, store, _rec = make("texas-bonus", {"p": 5_000})
        await old.resume(lease=7)
        await old.advance()
        await old.bet("p", {"ante": 100})
        clock.now = 1015.0
        await old.advance()  # dealt: the pre-flop timer runs
        # The owner pauses; its lease expires and another process takes the table (token 8).
        new = TableRunner(old.table, old.game, store, Recorder(), clock=clock, watchers=lambda: 1,
                          new_seed=lambda: SEED)
        await new.resume(lease=8)
        records, posted = dict(store.records), dict(store.posted)
        await new.decide("p", "bet")
        clock.now = 1025.0
        with pytest.raises(StaleLeaseError) as refused:
            await old.advance()  # the old owner wakes up and closes the point: refused
        assert (refused.value.token, refused.value.epoch) == (7, 8)
        assert store.records == records and store.posted == posted
        assert old.stale and old.round is None
        with pytest.raises(LiveTableError) as gone:
            await old.bet("p", {"ante": 100})
        assert gone.value.code == "table_unavailable"
        assert await old.advance() is None  # stopped for good
        with pytest.raises(StaleLeaseError):
            await store.claim("t", 7)
        for now in (1025.0, 1035.0, 1045.0):
            clock.now = now
            await new.advance()
        assert new.round is not None and new.round.phase is Phase.PAUSE
        steps = [step.source for step in new.round.seats["p"].steps]
        assert steps == ["player", "timeout", "timeout"]
        net = core.settlements(new.round)["p"].net
        assert store.balances["p"] == 5_000 + net
        assert sorted(t for t in store.posted if t.startswith("t/1:p:")) == sorted(
            ["t/1:p:bets", "t/1:p:preflop"] + (["t/1:p:settle"] if net > -300 else []))

    run(scenario())


def test_bets_and_decisions_beyond_the_balance_are_refused() -> None:
    async def scenario() -> None:
        runner, clock, _store, _rec = make("texas-bonus", {"p": 150})
        await runner.resume()
        await runner.advance()
        with pytest.raises(InsufficientFundsError):
            await runner.bet("p", {"ante": 200})
        await runner.bet("p", {"ante": 100})
        clock.now = 1015.0
        await runner.advance()
        with pytest.raises(InsufficientFundsError):
            await runner.decide("p", "bet")  # the flop bet is 2x ante = 200 > 50
        await runner.decide("p", "fold")

    run(scenario())


def test_a_player_who_cannot_cover_the_bets_at_the_close_sits_out() -> None:
    async def scenario() -> None:
        runner, clock, store, rec = make("casino-holdem", {"rich": 1_000, "poor": 1_000})
        await runner.resume()
        await runner.advance()
        await runner.bet("rich", {"ante": 100})
        await runner.bet("poor", {"ante": 500})
        store.balances["poor"] = 100  # spent elsewhere meanwhile
        clock.now = 1015.0
        await runner.advance()
        assert runner.round is not None and set(runner.round.seats) == {"rich"}
        assert store.balances == {"rich": 900, "poor": 100}
        assert rec.players[0]["poor"]["error"] == "insufficient_funds"

    run(scenario())


def test_with_nobody_watching_the_table_idles_and_a_round_without_bets_pauses() -> None:
    async def scenario() -> None:
        runner, clock, _store, rec = make("texas-bonus", {}, watchers=0)
        await runner.resume()
        assert await runner.advance() is None and runner.round is None and rec.table == []
        runner.watchers = lambda: 3
        assert await runner.advance() == 1015.0
        assert rec.table[-1]["players"] == 3
        clock.now = 1015.0
        assert await runner.advance() == 1019.0  # nobody bet: no deal, pause
        assert rec.events() == ["betting_open", "no_more_bets", "no_bets"]
        runner.watchers = lambda: 0
        clock.now = 1019.0
        assert await runner.advance() is None  # idles again after the pause

    run(scenario())


def _seed_dealing(bets: dict[str, dict[str, int]], wanted: Any) -> str:
    """A server seed whose round-1 deal at table "t" satisfies ``wanted(state of p)``."""
    game = get_game("texas-bonus")
    wish = dealing.wanted(where=lambda deck: bool(wanted(game.start(bets["p"], list(deck)))))
    return dealing.find_server_seed(table_client_seed("t/1", bets), 1, wish).server_seed


def test_a_won_bonus_is_credited_in_the_deal_commit_and_told_to_its_player_at_once() -> None:
    async def scenario() -> None:
        bets = {"p": {"ante": 100, "bonus": 100}, "q": {"ante": 100}}
        seed = _seed_dealing(bets, lambda state: state.bonus.status == "won")
        runner, clock, store, rec = make("texas-bonus", {"p": 10_000, "q": 10_000})
        await runner.resume()
        runner.new_seed = lambda: seed
        await runner.advance()
        for player, b in bets.items():
            await runner.bet(player, b)
        clock.now = 1015.0
        await runner.advance()  # no more bets, deal
        assert runner.round is not None and runner.round.phase is Phase.DECISION
        bonus = runner.round.seats["p"].state.bonus
        assert bonus.returned > 50
        assert store.posted["t/1:p:bonus"] == bonus.returned  # in the deal's own commit
        assert store.balances["p"] == 10_000 - 200 + bonus.returned
        told = rec.players[-1]
        assert told["p"]["seat"]["bonus"]["status"] == "won" and told["q"]["seat"]["bonus"] is None
        clock.now = 1025.0
        await runner.advance()  # both fold by the timer: the round is settled
        assert runner.round.phase is Phase.PAUSE
        settlement = rec.players[-1]["p"]["seat"]["settlement"]
        bonus_lines = [line for line in settlement["lines"] if line["field"] == "bonus"]
        assert [line["returned"] for line in bonus_lines] == [bonus.returned]
        assert store.balances["p"] == 10_000 + settlement["net"]  # the Bonus counted once
        assert "t/1:p:settle" not in store.posted  # a fold: nothing left to credit
        # Settling again after a restart moves nothing.
        store.records[("t", 1)] = dict(store.records[("t", 1)], phase="showdown", deadline=None)
        again = TableRunner(runner.table, runner.game, store, rec, clock=clock, watchers=lambda: 1)
        await again.resume()
        await again.advance()
        assert store.balances["p"] == 10_000 + settlement["net"]

    run(scenario())


class HeldRecorder(Recorder):
    """Holds the players' messages until the test lets them go: a publisher that is slow to tell."""

    def __init__(self) -> None:
        super().__init__()
        self.telling, self.gate = asyncio.Event(), asyncio.Event()

    async def to_players(self, table_id: str, messages: Mapping[str, dict[str, Any]],
                         balances: Mapping[str, int] | None = None) -> None:
        self.telling.set()
        await self.gate.wait()
        await super().to_players(table_id, messages, balances)


def test_a_settled_round_is_between_rounds_only_once_its_players_were_told() -> None:
    """A draining process hands its table over (and stops this loop) once ``between_rounds``:
    were that true between the settlement's commit and the players' messages, the players
    connected there would never hear how their round ended (CI saw it: closed with 1012 first)."""
    async def scenario() -> None:
        runner, _clock, _store, _rec = await casino_round_dealt()
        held = HeldRecorder()
        runner.publisher = held
        await runner.decide("p", "raise")
        settling = asyncio.create_task(runner.advance())  # everyone decided: settles at once
        await held.telling.wait()
        assert held.events() == ["reveal", "settled"] and runner.round is not None
        assert runner.round.phase is Phase.PAUSE  # committed, its players not yet told
        asking = asyncio.create_task(runner.between_rounds())
        # Without the lock the answer takes one turn of the loop; 50 ms is thousands of turns.
        _, pending = await asyncio.wait({asking}, timeout=0.05)
        assert asking in pending, "between rounds before the players were told of the settlement"
        held.gate.set()
        await settling
        assert await asking
        assert held.players[-1]["p"]["phase"] == "pause"

    run(scenario())


def test_a_decision_timer_runs_from_when_the_players_are_told_not_from_before_the_commit() -> None:
    """At thousands of seats the deal's commit takes up to a second: the players still get the
    whole decision time from the message that tells them, and the round notes when it began."""
    async def scenario() -> None:
        runner, clock, store, rec = make("casino-holdem", {"p": 5_000, "q": 5_000})
        commit = store.commit

        async def slow_commit(record: dict[str, Any], **kwargs: Any) -> frozenset[str]:
            if record["phase"] == "decision":
                clock.now += 3.0  # the deal's commit takes 3 s of the clock
            return await commit(record, **kwargs)

        store.commit = slow_commit  # type: ignore[method-assign]
        await runner.resume()
        await runner.advance()
        await runner.bet("p", {"ante": 100})
        await runner.bet("q", {"ante": 100})
        clock.now = 1015.0
        assert await runner.advance() == 1028.0  # told at 1018: ten seconds from then
        told = rec.table[-1]
        assert told["event"] == "decision" and told["deadline"] == 1028.0
        assert runner.round is not None and runner.round.times[-1] == ("timer:flop", 1018.0)
        clock.now = 1026.0  # past the 1025 the deal computed, within the time the players were given
        await runner.decide("p", "raise")
        # A restart now (the same store, a new runner) keeps the timer the players were shown.
        again = TableRunner(runner.table, runner.game, store, Recorder(), clock=clock, watchers=lambda: 1,
                            flush_delay=0.0)
        await again.resume()
        assert again.round is not None and again.round.deadline == 1028.0
        assert again.round.times == runner.round.times
        assert await again.advance() == 1028.0  # q still has until 1028
        clock.now = 1028.0
        await again.advance()
        assert again.round.phase is Phase.PAUSE
        steps = {player: seat.steps[-1] for player, seat in again.round.seats.items()}
        assert (steps["p"].action, steps["p"].source) == ("raise", "player")
        assert (steps["q"].action, steps["q"].source) == ("fold", "timeout")
        # The record committed at the close keeps the timer's start.
        assert ["timer:flop", 1018.0] in [list(entry) for entry in store.records[("t", 1)]["times"]]

    run(scenario())
