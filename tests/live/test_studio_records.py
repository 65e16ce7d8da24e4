"""Studio rounds' audit records: every card report (card, time, source, voids) stored by the
table's commits, read back, verified like any live record, and tampered with.

The table runs on a fake clock against the real SQL store (a SQLite file), as in test_records.py.
"""

from __future__ import annotations

import asyncio
import copy
from pathlib import Path
from typing import Any

import pytest
from tests.live.test_records import START, FakeClock, Quiet, _leaves, failures

from dealerpoker.fairness.verify import record_digest, verify_record
from dealerpoker.games import get_game
from dealerpoker.server.accounts import create_player
from dealerpoker.server.db import Database
from dealerpoker.server.live.audit import LiveRecords, live_records_between, store_table_rules
from dealerpoker.server.live.runner import TableRunner
from dealerpoker.server.live.sqlstore import SqlStore
from dealerpoker.tables.config import parse_tables

TABLE = parse_tables("""
[[tables]]
id = "studio-a"
game = "texas-bonus"
dealing = "studio"
betting_seconds = 15
decision_seconds = 10
pause_seconds = 4
[tables.studio]
dealer_key = "records-dealer-key-0123"
deal_seconds = 30
""")[0]


async def _rounds(url: str, clock: FakeClock) -> tuple[dict[str, str], list[dict[str, Any]]]:
    """Round 1 dealt to the end (one misread voided), round 2 cancelled by the dealer on the flop.
    Returns the players and both rounds' whole records."""
    from datetime import UTC, datetime

    from dealerpoker.server.clock import timestamp

    database = Database(url)
    await database.migrate()
    try:
        await store_table_rules(database, [TABLE], clock.iso(0))
        ids = {}
        async with database.transaction() as connection:
            for name in ("alice", "bob"):
                player = await create_player(connection, starting_balance=10_000, at=clock.iso(0),
                                             id_factory=lambda name=name: f"p_{name}")
                ids[name] = player.player_id
        store = SqlStore(database, lambda: timestamp(datetime.fromtimestamp(clock(), UTC)))
        runner = TableRunner(TABLE, get_game(TABLE.game, TABLE.rules), store, Quiet(), clock=clock,
                             watchers=lambda: 1)

        async def cards(text: str, source: str = "reader") -> None:
            for card in text.split():
                clock.now += 1
                await runner.report_card(card, source)

        for number, base in ((1, START), (2, START + 200)):
            clock.now = base
            await runner.advance()
            await runner.bet(ids["alice"], {"ante": 100, "bonus": 100})
            await runner.bet(ids["bob"], {"ante": 500})
            clock.now = base + 15
            await runner.advance()  # stakes debited; the hole cards are expected
            await cards("Ah Ks")
            clock.now += 1
            await runner.void_card()  # Ks was a misread
            await cards("Kh 2c", source="console")
            await cards("2d")        # the hole cards are in: A-K suited pays the Bonus at once
            clock.now += 2
            await runner.decide(ids["alice"], "bet")
            clock.now = base + 35 + 10
            await runner.advance()  # bob folds by the timer; the flop is expected
            await cards("Qh Jh")
            if number == 2:
                clock.now += 1
                await runner.misdeal("a flop card fell face up")
                break
            await cards("3c")
            clock.now += 10
            await runner.advance()
            await cards("Th")
            clock.now += 10
            await runner.advance()
            await cards("4s")
            await runner.advance()
            assert runner.round is not None and str(runner.round.phase) == "pause"
        async with database.transaction() as connection:
            records = [r async for r in live_records_between(connection, "2000-01-01")]
        return ids, records
    finally:
        await database.dispose()


@pytest.fixture
def played(tmp_path: Path) -> tuple[str, dict[str, str], list[dict[str, Any]]]:
    url = f"sqlite:///{tmp_path}/studio.db"
    ids, records = asyncio.run(_rounds(url, FakeClock()))
    return url, ids, records


def test_a_studio_record_lists_every_card_report_and_verifies(played: Any) -> None:
    url, ids, (record, _cancelled) = played
    assert record["dealing"] == "studio" and record["fairness"] is None and record["misdeal"] is None
    reports = [(c["card"], c["position"], c["to"], c["source"], c["voided_at"] is not None)
               for c in record["cards"]]
    assert reports == [
        ("Ah", 0, "player", "reader", False), ("Ks", 1, "player", "reader", True),
        ("Kh", 1, "player", "console", False), ("2c", 2, "dealer", "console", False),
        ("2d", 3, "dealer", "reader", False), ("Qh", 4, "board", "reader", False),
        ("Jh", 5, "board", "reader", False), ("3c", 6, "board", "reader", False),
        ("Th", 7, "board", "reader", False), ("4s", 8, "board", "reader", False)]
    assert record["dealt"] == {"player": ["Ah", "Kh"], "dealer": ["2c", "2d"],
                               "board": ["Qh", "Jh", "3c", "Th", "4s"]}
    assert failures(record) == []
    findings = {f.subject: f.message for f in verify_record(record)}
    assert "no seeds to check" in findings["cards"]
    alice = next(s for s in record["seats"] if s["player_id"] == ids["alice"])
    assert alice["settlement"]["outcome"] == "win"  # a royal flush
    # A player's own part verifies the same way.
    mine = asyncio.run(LiveRecords(Database(url)).player_record(ids["bob"], "studio-a", 1))
    assert mine["scope"] == "player" and mine["cards"] == record["cards"] and failures(mine) == []


def test_a_misdealt_round_records_why_and_what_came_back(played: Any) -> None:
    _url, ids, (_settled, record) = played
    assert record["misdeal"]["by"] == "dealer" and record["misdeal"]["reason"] == "a flop card fell face up"
    assert [r["event"] for r in record["reveals"]] == ["preflop"]  # no flop was shown
    assert record["dealt"] == {"player": ["Ah", "Kh"], "dealer": [], "board": []}
    assert failures(record) == []
    seats = {s["player_id"]: s for s in record["seats"]}
    alice = {line["field"]: line for line in seats[ids["alice"]]["settlement"]["lines"]}
    assert alice["ante"]["returned"] == 100 and alice["flop"]["returned"] == 200
    assert alice["bonus"]["returned"] == 100 * 26  # A-K suited, paid at the deal: it stands
    bob = seats[ids["bob"]]["settlement"]
    assert bob["outcome"] == "misdeal" and bob["total_returned"] == bob["total_stake"] == 500


def _tampered(record: dict[str, Any], change: Any) -> dict[str, Any]:
    """The record changed by ``change`` with its digest recomputed (a forger's copy)."""
    forged = copy.deepcopy(record)
    change(forged)
    forged["record_digest"] = record_digest(forged)
    return forged


@pytest.mark.parametrize(("what", "change", "named"), [
    ("another card", lambda r: r["cards"][7].update(card="9h"), "deck"),
    ("the misread kept", lambda r: r["cards"][1].update(voided_at=None), "cards"),
    ("a position skipped", lambda r: r["cards"][2].update(position=2), "cards["),
    ("a card twice", lambda r: r["cards"][7].update(card="Ah"), "cards[7].card"),
    ("a card reported after its reveal", lambda r: r["cards"][4].update(at=r["settled_at"]), "reveals[0].at"),
    ("dealt to the wrong place", lambda r: r["cards"][3].update(to="board"), "cards[3].to"),
    ("seeds where there are none", lambda r: r.update(fairness={"nonce": 1}), "fairness"),
    ("no reports", lambda r: r.update(cards=[]), "deck"),
])
def test_a_forged_studio_record_fails(played: Any, what: str, change: Any, named: str) -> None:
    record = played[2][0]
    failed = [f for f in verify_record(_tampered(record, change)) if not f.ok]
    assert failed and any(f.subject.startswith(named) for f in failed), (what, [str(f) for f in failed])


def test_a_forged_misdeal_fails(played: Any) -> None:
    record = played[2][1]
    everything_back = _tampered(record, lambda r: [line.update(returned=line["stake"], net=0)
                                                   for s in r["seats"] for line in s["settlement"]["lines"]])
    assert any(f.subject.endswith("settlement.lines[1].returned") for f in verify_record(everything_back)
               if not f.ok)
    not_cancelled = _tampered(record, lambda r: r.update(misdeal=None))
    assert [f.subject for f in verify_record(not_cancelled) if not f.ok][:1] == ["reveals"]
    by_nobody = _tampered(record, lambda r: r["misdeal"].update(by="player"))
    assert any(f.subject == "misdeal" for f in verify_record(by_nobody) if not f.ok)


#: What reported a card, why a round was cancelled: any such word is a valid record.
FREE_TEXT = ("source", "reason")


@pytest.mark.slow
def test_any_malformed_value_of_a_studio_record_is_reported_never_raised(played: Any) -> None:
    for record in played[2]:
        paths = [p for p in _leaves(record)
                 if p and p[0] not in ("rules", "record_digest") and p[-1] != "memo"]
        paths += [("cards",), ("cards", 0), ("misdeal",), ("dealing",)]
        unchecked = set()
        for path in paths:
            for odd in (None, "x", [], {}, -1):
                forged = copy.deepcopy(record)
                target = forged
                for key in path[:-1]:
                    target = target[key]
                if target[path[-1]] == odd or (path[-1] in FREE_TEXT and odd == "x"):
                    continue
                target[path[-1]] = odd
                forged["record_digest"] = record_digest(forged)
                if all(f.ok for f in verify_record(forged)):  # must not raise
                    unchecked.add((str(path), repr(odd)))
        assert unchecked == set(), sorted(unchecked)
