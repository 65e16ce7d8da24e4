"""A single `dealerpoker serve` killed with SIGKILL in the middle of a live round: after the
restart the table resumes the round from its last commit (and the bets and decisions acknowledged
since) and finishes it; nothing is lost or paid twice. On SQLite, and on a PostgreSQL database of its own when
``DEALERPOKER_TEST_POSTGRES_URL`` is set.

The server is a real process on the real clock, so nothing here depends on a timer running out
under load: a bet that misses its window goes into the next one, the decision timers are long
and every decision is sent (a point closes as soon as everyone at it has decided).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from sqlalchemy import select
from tests.live.conftest import FAST_TABLES, LivePlayer, ServeProcess, bet_in_a_window, is_seat, is_table
from tests.support.databases import audit

pytestmark = pytest.mark.slow


def _txids(url: str, player_id: str) -> list[str]:
    from dealerpoker.server.db import Database
    from dealerpoker.server.schema import ledger_entries

    async def run() -> list[str]:
        database = Database(url)
        try:
            async with database.transaction() as connection:
                rows = await connection.execute(select(ledger_entries.c.txid).where(
                    ledger_entries.c.round_id.like("texas-fast/%"), ledger_entries.c.account_id == player_id))
                return [str(row[0]) for row in rows]
        finally:
            await database.dispose()

    return asyncio.run(run())


def test_a_killed_server_finishes_the_live_round_after_its_restart(tmp_path: Path,
                                                                   served_database: str) -> None:
    database = served_database
    tables = tmp_path / "tables.toml"
    tables.write_text(FAST_TABLES.format(betting=4, decision=60, pause=1))
    server = ServeProcess(tmp_path, database, tables, "before")
    player = LivePlayer(server.base, "texas-fast")
    try:
        start = player.balance()
        bet_in_a_window(player, {"ante": 100})
        player.until(is_seat(lambda seat: seat["legal_actions"]))
        decided = player.reply({"type": "decide", "action": "bet"})  # pre-flop: the flop bet (200)
        assert decided["seat"]["pending"] == "bet", decided
        flop = player.until(lambda m: m["type"] == "table" and m.get("point") == "flop")
        player.close()
        server.kill()  # in the middle of the flop decision (its timer has a minute to run)
        server.stop()

        server = ServeProcess(tmp_path, database, tables, "after")
        back = LivePlayer(server.base, "texas-fast", same_as=player)
        player = back
        resumed = back.until(lambda m: m["type"] == "table" and m.get("round") == flop["round"]
                             and m.get("point") == "flop")
        assert resumed["player_cards"] == flop["player_cards"] and resumed["board"] == flop["board"]
        seat = back.until(is_seat(lambda seat: seat["legal_actions"]))["seat"]
        assert [(s["point"], s["action"]) for s in seat["steps"]] == [("preflop", "bet")]
        assert back.reply({"type": "decide", "action": "check"})["type"] == "you"  # the flop
        back.until(lambda m: is_table("decision")(m) and m["point"] == "turn")
        assert back.reply({"type": "decide", "action": "check"})["type"] == "you"
        mine = back.until(lambda m: m["type"] == "you" and m.get("round") == flop["round"]
                          and m["phase"] == "pause")
        steps = mine["seat"]["steps"]
        assert [(s["point"], s["action"], s["source"]) for s in steps] == [
            ("preflop", "bet", "player"), ("flop", "check", "player"), ("turn", "check", "player")]
        assert back.balance() == start + mine["seat"]["settlement"]["net"]
    finally:
        player.close()
        server.stop()
    report = audit(database)
    assert report.ok, report
    number = flop["round"]
    txids = _txids(database, player.id)
    steps_posted = sorted(t.rsplit(":", 1)[1] for t in txids if t.startswith(f"{number}:"))
    assert steps_posted == ["bets", "preflop", "settle"] or steps_posted == ["bets", "preflop"]  # a loss
    # The round's audit record, written across the restart, still verifies: seeds, deck, reveals,
    # the times of both processes in order, every decision replayed and every transfer.
    from dealerpoker.fairness.verify import verify_record
    from dealerpoker.server.live.audit import settled_live_records

    records = asyncio.run(settled_live_records(database, "2000-01-01"))
    (record,) = [r for r in records if r["round_id"] == number]
    assert [f for f in verify_record(record) if not f.ok] == []
    (seat,) = [s for s in record["seats"] if s["player_id"] == player.id]
    assert [(a["point"], a["source"]) for a in seat["actions"]] == [
        ("preflop", "player"), ("flop", "player"), ("turn", "player")]


def test_bets_and_decisions_acknowledged_before_a_kill_survive_it(tmp_path: Path,
                                                                  served_database: str) -> None:
    """Killed once with bets placed in the betting window, once with a decision sent (the other
    player's still missing) while the pre-flop timer runs: after each restart the same window or
    timer goes on with its original deadline, with everything acknowledged, debited once."""
    database = served_database
    tables = tmp_path / "tables.toml"
    tables.write_text(FAST_TABLES.format(betting=20, decision=60, pause=1))
    server = ServeProcess(tmp_path, database, tables, "first")
    alice, bob = LivePlayer(server.base, "texas-fast"), LivePlayer(server.base, "texas-fast")
    players = [alice, bob]
    try:
        start = {p.id: p.balance() for p in players}
        window = bet_in_a_window(alice, {"ante": 100, "bonus": 100})  # acknowledged = written
        acked = bob.reply({"type": "bet", "bets": {"ante": 100}})
        assert acked["type"] == "you" and acked["seat"]["bets"] == {"ante": 100}, acked
        assert time.time() < window["deadline"] - 1, "the window closed before the kill"
        server.kill()  # in the middle of the betting window
        server.stop()

        server = ServeProcess(tmp_path, database, tables, "second")
        alice, bob = players[:] = [LivePlayer(server.base, "texas-fast", same_as=p) for p in players]
        state = alice.until(lambda m: m["type"] == "table" and m.get("round") == window["round"])
        assert state["phase"] != "betting" or state["deadline"] == window["deadline"]  # the same window
        # No bet sent again: both are dealt in when the window ends.
        dealt = {p.id: p.until(lambda m: is_seat(lambda seat: seat["legal_actions"])(m)
                               and m["round"] == window["round"], timeout=60) for p in players}
        assert dealt[alice.id]["seat"]["bets"] == {"ante": 100, "bonus": 100}
        assert dealt[alice.id]["seat"]["bonus"]["status"] in ("won", "lost")  # told at the deal
        timer = alice.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                            and m.get("point") == "preflop")
        decided = alice.reply({"type": "decide", "action": "bet"})  # bob says nothing yet
        assert decided["type"] == "you" and decided["seat"]["pending"] == "bet", decided
        server.kill()  # in the middle of the pre-flop decision (its timer has a minute to run)
        server.stop()

        server = ServeProcess(tmp_path, database, tables, "third")
        alice, bob = players[:] = [LivePlayer(server.base, "texas-fast", same_as=p) for p in players]
        state = alice.until(lambda m: m["type"] == "table" and m.get("round") == window["round"])
        assert state["point"] == "preflop" and state["deadline"] == timer["deadline"]  # the same timer
        seat = alice.until(is_seat())["seat"]
        assert seat["pending"] == "bet" and seat["legal_actions"] == []  # kept: not asked again
        # bob decides now: everyone at the point has decided, so it closes at once.
        assert bob.reply({"type": "decide", "action": "fold"})["type"] == "you"
        for point in ("flop", "turn"):
            alice.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p)
            assert alice.reply({"type": "decide", "action": "check"})["type"] == "you"
        mine = {p.id: p.until(lambda m: m["type"] == "you" and m.get("round") == window["round"]
                              and m["phase"] == "pause") for p in players}
        steps = {pid: [(s["point"], s["action"], s["source"]) for s in m["seat"]["steps"]]
                 for pid, m in mine.items()}
        assert steps[alice.id] == [("preflop", "bet", "player"), ("flop", "check", "player"),
                                   ("turn", "check", "player")]
        assert steps[bob.id] == [("preflop", "fold", "player")]
        for player in players:
            assert player.balance() == start[player.id] + mine[player.id]["seat"]["settlement"]["net"]
    finally:
        for player in players:
            player.close()
        server.stop()
    report = audit(database)
    assert report.ok, report
    prefix = f"{window['round']}:"
    posted = {p.id: sorted(t.rsplit(":", 1)[1] for t in _txids(database, p.id) if t.startswith(prefix))
              for p in players}
    assert posted[bob.id] == ["bets"]
    assert posted[alice.id][0] == "bets" and "preflop" in posted[alice.id]
    assert len(set(posted[alice.id])) == len(posted[alice.id])  # each step's money moved once
    # The audit record, written across both restarts, verifies (decision times included).
    from dealerpoker.fairness.verify import verify_record
    from dealerpoker.server.live.audit import settled_live_records

    (record,) = [r for r in asyncio.run(settled_live_records(database, "2000-01-01"))
                 if r["round_id"] == window["round"]]
    assert [f for f in verify_record(record) if not f.ok] == []
