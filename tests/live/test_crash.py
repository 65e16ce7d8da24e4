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
        resumed = back.until(lambda m: m["type"] == "table" and m.get("round") == flop["round"]
                             and m.get("point") == "flop")
        assert resumed["player_cards"] == flop["player_cards"] and resumed["board"] == flop["board"]
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
