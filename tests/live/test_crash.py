"""A single `dealerpoker serve` (SQLite) killed with SIGKILL in the middle of a live round: after
the restart the table resumes the round from its last commit and finishes it; nothing is lost or
paid twice."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from tests.live.conftest import FAST_TABLES, LivePlayer, ServeProcess, is_table

pytestmark = pytest.mark.slow


def _ledger(url: str) -> tuple[Any, list[str]]:
    from dealerpoker.server import ledger
    from dealerpoker.server.db import Database
    from dealerpoker.server.schema import ledger_entries

    async def run() -> tuple[Any, list[str]]:
        database = Database(url)
        try:
            async with database.transaction() as connection:
                audit = await ledger.audit(connection)
                rows = await connection.execute(select(ledger_entries.c.txid).where(
                    ledger_entries.c.round_id.like("texas-fast/%"), ledger_entries.c.account_id != "house"))
                return audit, [str(row[0]) for row in rows]
        finally:
            await database.dispose()

    return asyncio.run(run())


def test_a_killed_server_finishes_the_live_round_after_its_restart(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path}/crash.db"
    tables = tmp_path / "tables.toml"
    tables.write_text(FAST_TABLES.format(betting=4, decision=5, pause=1))
    server = ServeProcess(tmp_path, database, tables, "before")
    player = LivePlayer(server.base, "texas-fast")
    try:
        start = player.balance()
        player.until(lambda m: is_table("betting_open")(m) and m["deadline"] - time.time() > 2.5)
        player.send({"type": "bet", "bets": {"ante": 100}})
        player.until(lambda m: m["type"] == "you" and m["seat"])
        player.until(lambda m: m["type"] == "you" and m["seat"] and m["seat"]["legal_actions"])
        player.send({"type": "decide", "action": "bet"})  # pre-flop: the flop bet (200), committed
        flop = player.until(lambda m: m["type"] == "table" and m.get("point") == "flop")
        player.close()
        server.kill()  # in the middle of the flop decision
        server.stop()

        server = ServeProcess(tmp_path, database, tables, "after")
        back = LivePlayer(server.base, "texas-fast", same_as=player)
        player = back
        # The flop timer kept its deadline: the round may be past the flop by the time we are back.
        resumed = back.until(lambda m: m["type"] == "table" and m.get("round") == flop["round"])
        assert resumed["player_cards"] == flop["player_cards"] and resumed["board"][:3] == flop["board"]
        mine = back.until(lambda m: m["type"] == "you" and m.get("round") == flop["round"]
                          and m["phase"] == "pause", timeout=30)
        steps = mine["seat"]["steps"]
        assert [(s["point"], s["action"], s["source"]) for s in steps] == [
            ("preflop", "bet", "player"), ("flop", "check", "timeout"), ("turn", "check", "timeout")]
        assert back.balance() == start + mine["seat"]["settlement"]["net"]
    finally:
        player.close()
        server.stop()
    audit, txids = _ledger(database)
    assert audit.ok, audit
    number = flop["round"]
    steps_posted = sorted(t.rsplit(":", 1)[1] for t in txids if t.startswith(f"{number}:{player.id}:"))
    assert steps_posted == ["bets", "preflop", "settle"] or steps_posted == ["bets", "preflop"]  # a loss


def test_bets_and_decisions_acknowledged_before_a_kill_survive_it(tmp_path: Path) -> None:
    """Killed once with bets placed in the betting window, once with a decision sent (and another
    player's still missing) while the pre-flop timer runs: after each restart the same window or
    timer goes on with its original deadline and everything acknowledged is kept, debited once."""
    database = f"sqlite:///{tmp_path}/crash.db"
    tables = tmp_path / "tables.toml"
    tables.write_text(FAST_TABLES.format(betting=8, decision=8, pause=1))
    server = ServeProcess(tmp_path, database, tables, "first")
    alice, bob = LivePlayer(server.base, "texas-fast"), LivePlayer(server.base, "texas-fast")
    players = [alice, bob]
    try:
        start = {p.id: p.balance() for p in players}
        window = alice.until(lambda m: is_table("betting_open")(m) and m["deadline"] - time.time() > 5,
                             timeout=30)
        round_id = window["round"]
        for player, bets in ((alice, {"ante": 100, "bonus": 25}), (bob, {"ante": 100})):
            player.send({"type": "bet", "bets": bets})
            ack = player.until(lambda m: m["type"] == "error" or (m["type"] == "you" and bool(m["seat"])))
            assert ack["type"] == "you" and ack["seat"]["bets"] == bets, ack  # acknowledged = written
        assert time.time() < window["deadline"]
        server.kill()  # in the middle of the betting window
        server.stop()

        server = ServeProcess(tmp_path, database, tables, "second")
        alice, bob = players[:] = [LivePlayer(server.base, "texas-fast", same_as=p) for p in players]
        # No bet sent again: both are in the same round's deal.
        dealt = {p.id: p.until(lambda m: m["type"] == "you" and m.get("round") == round_id
                               and bool(m["seat"]) and bool(m["seat"]["legal_actions"]), timeout=40)
                 for p in players}
        assert dealt[alice.id]["seat"]["bets"] == {"ante": 100, "bonus": 25}
        assert dealt[alice.id]["seat"]["bonus"]["status"] in ("won", "lost")  # told at the deal
        _same_deadline(players, round_id, "betting", None, window["deadline"])
        alice.send({"type": "decide", "action": "bet"})  # bob says nothing
        ack = alice.until(lambda m: m["type"] == "error" or (m["type"] == "you" and bool(m["seat"])
                                                             and m["seat"]["pending"] is not None))
        assert ack["type"] == "you" and ack["seat"]["pending"] == "bet", ack
        timer = alice.until(lambda m: m["type"] == "table" and m.get("round") == round_id
                            and m.get("point") == "preflop")
        server.kill()  # in the middle of the pre-flop decision
        server.stop()

        server = ServeProcess(tmp_path, database, tables, "third")
        alice, bob = players[:] = [LivePlayer(server.base, "texas-fast", same_as=p) for p in players]
        mine = {p.id: p.until(lambda m: m["type"] == "you" and m.get("round") == round_id
                              and m["phase"] == "pause", timeout=60) for p in players}
        _same_deadline(players, round_id, "decision", "preflop", timer["deadline"])
        steps = {pid: [(s["point"], s["action"], s["source"]) for s in m["seat"]["steps"]]
                 for pid, m in mine.items()}
        assert steps[alice.id] == [("preflop", "bet", "player"), ("flop", "check", "timeout"),
                                   ("turn", "check", "timeout")]
        assert steps[bob.id] == [("preflop", "fold", "timeout")]
        for player in players:
            assert player.balance() == start[player.id] + mine[player.id]["seat"]["settlement"]["net"]
    finally:
        for player in players:
            player.close()
        server.stop()
    audit, txids = _ledger(database)
    assert audit.ok, audit
    mine_posted = sorted(t.rsplit(":", 1)[1] for t in txids if t.startswith(f"{round_id}:{alice.id}:"))
    assert mine_posted[0] == "bets" and "preflop" in mine_posted and len(set(mine_posted)) == len(mine_posted)
    assert sorted(t.rsplit(":", 1)[1] for t in txids if t.startswith(f"{round_id}:{bob.id}:")) == ["bets"]


def _same_deadline(players: list[LivePlayer], round_id: str, phase: str, point: str | None,
                   deadline: float) -> None:
    """Every state of ``phase``/``point`` the players saw of the round after a restart kept its deadline."""
    seen = [m for p in players for m in p.received if m["type"] == "table" and m.get("round") == round_id
            and m.get("phase") == phase and m.get("point") == point]
    assert all(m["deadline"] == deadline for m in seen), (deadline, seen)
