"""``dealerpoker serve --workers 2`` restarted with SIGHUP (docs/operations.md, "Restarting: nobody
notices"): uvicorn's parent replaces its workers one at a time, each new one serving before the old
one gets SIGTERM, which drains it (its live table finishes the round and goes to another worker,
its WebSockets close with 1012). While a live table plays, a player betting and deciding every
round (reconnecting after 1012, as the page does) and solo rounds are played over HTTP; afterwards
every live bet and decision acknowledged is in a settled round as the player's own, every live
round opened is settled once, the table still opens rounds, every solo round is settled or still
playable, no request was answered 5xx, and the ledger audit passes."""

from __future__ import annotations

import os
import secrets
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import pytest
from tests.live.conftest import FAST_TABLES
from tests.support.databases import audit, fresh_database_beside_redis, run_apart
from tests.support.playing import LIVE_TABLE, LiveSeat, Players
from tests.support.servers import DRAIN_SECONDS, ServeProcess, worker_pids
from tests.support.waiting import until

pytestmark = [pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow]


def live_rounds(database_url: str) -> dict[str, tuple[str, str | None, int]]:
    """``{"table/number": (phase, settled_at, seats)}`` of the live table's rounds, read by URL."""
    from sqlalchemy import func, select

    from dealerpoker.server.db import Database
    from dealerpoker.server.schema import live_rounds as table
    from dealerpoker.server.schema import live_seats

    seats = (select(func.count()).where(live_seats.c.table_id == table.c.table_id,
                                        live_seats.c.number == table.c.number).scalar_subquery())

    async def run() -> dict[str, tuple[str, str | None, int]]:
        database = Database(database_url)
        try:
            async with database.reading() as connection:
                rows = await connection.execute(
                    select(table.c.number, table.c.phase, table.c.settled_at, seats)
                    .where(table.c.table_id == LIVE_TABLE))
                return {f"{LIVE_TABLE}/{number}": (phase, settled, taken)
                        for number, phase, settled, taken in rows}
        finally:
            await database.dispose()

    return run_apart(run())


def number(round_id: str) -> int:
    return int(round_id.rpartition("/")[2])


def test_sighup_replaces_both_workers_and_nobody_notices(tmp_path: Path) -> None:
    from tests.support.databases import REDIS_URL

    with fresh_database_beside_redis("sighup") as database:
        tables = tmp_path / "tables.toml"
        # The player decides at once; a timer decides only for a player who is away (reconnecting,
        # half a second) or gone (the stop at the end, which drains the round in play first).
        tables.write_text(FAST_TABLES.format(betting=3, decision=8, pause=1))
        environment = {**os.environ, "DEALERPOKER_REDIS_PREFIX": f"dptest:{secrets.token_hex(6)}:",
                       DRAIN_SECONDS: "90"}  # the workers replaced drain
        server = ServeProcess(database, log=tmp_path / "serve.log", env=environment, extra=[
            "--workers", "2", "--redis", str(REDIS_URL), "--no-rtp", "--tables", str(tables),
            "--rate-limit-exempt", "127.0.0.1", "--log-level", "info"])
        # Behind one port there is no proxy to answer 502 while a worker restarts: any 5xx is a problem.
        players = Players(server.url, retried=())
        seat = LiveSeat(server.url)
        try:
            players.start()
            seat.start()

            until(lambda: players.settled >= 3 and seat.decided, "solo rounds and a live decision before "
                  "the restart", timeout=90)
            old = set(until(lambda: len(found := worker_pids(server.process.pid)) == 2 and found,
                            "two workers"))
            server.process.send_signal(signal.SIGHUP)

            def replaced() -> list[int] | None:
                assert server.process.poll() is None, server.output()
                now = worker_pids(server.process.pid)
                return now if len(now) == 2 and not old & set(now) else None

            until(replaced, f"both workers replaced (old: {sorted(old)})", timeout=120, interval=0.1)
            # The table goes on after the restart: new rounds opened, the seat's bet in one of them.
            last_before = max((number(r) for r in seat.opened), default=0)
            solo = players.settled
            until(lambda: sum(number(r) > last_before + 1 for r in seat.seated) >= 1
                  and players.settled >= solo + 3, "rounds after the restart", timeout=60)
            for runner in (players, seat):
                runner.stop.set()
            for runner in (players, seat):
                runner.join(60)
                assert not runner.is_alive()

            assert players.problems == []
            assert seat.problems == []
            assert [status for status in seat.refused if status >= 500] == []
            # Each old worker drained (our SIGTERM handler ran): its WebSocket closed with 1012,
            # never cut (1006, no close frame) as a worker killed outright would leave it.
            assert seat.closes and set(seat.closes) == {1012}, seat.closes
            assert server.log_path.read_text().count("drained: stopping") == 2, server.output()
            # Every live round that took a bet is settled, once; the newest may still be in play. A
            # round whose betting window closed without a bet (the seat away, reconnecting after
            # 1012, as the window closed) deals nothing and goes to the pause unsettled
            # (live/runner.py): it holds nobody's money.
            rounds = live_rounds(database)
            newest = max(rounds, key=number)
            unsettled = {r: v for r, v in rounds.items() if r != newest and v[1] is None}
            assert all(phase == "pause" and not seats for phase, _, seats in unsettled.values()), unsettled
            assert set(seat.opened) <= set(rounds)
            twice = {r: n for r, n in Counter(r for _c, r in seat.settled_seen).items() if n > 1}
            assert not twice, (twice, seat.settled_seen)  # (connection, round) of each settled seen
            # Every bet and decision acknowledged is in a settled round, as the player's own.
            headers = {"Authorization": f"Bearer {seat.token}"}
            history = httpx.get(f"{server.url}/api/live-rounds", params={"limit": 100}, headers=headers,
                                timeout=30).json()
            settled = {item["round_id"]: item for item in history["rounds"]}
            assert seat.seated - {newest} <= set(settled), "a round with a seat is not settled"
            checked = [d for d in seat.decided if d[0] in settled]
            assert len(checked) >= 3, seat.decided
            for round_id, point, action in checked:
                assert {"point": point, "action": action, "source": "player"}.items() <= next(
                    a for a in settled[round_id]["actions"] if a["point"] == point).items()
            # Every solo round opened is settled, or still playable: played to its end now.
            with httpx.Client(base_url=server.url, timeout=30) as http:
                for round_id, token in players.rounds:
                    mine = {"Authorization": f"Bearer {token}"}
                    view: Any = http.get(f"/api/rounds/{round_id}", headers=mine).json()
                    if view["status"] == "open":
                        answer = http.post(f"/api/rounds/{round_id}/actions", headers=mine,
                                           json={"action": "raise", "step": len(view["steps"])})
                        assert answer.status_code == 200, answer.text
                        view = answer.json()
                    assert view["status"] == "settled", view
        finally:
            players.stop.set()
            seat.stop.set()
            server.stop()
        found = audit(database)
        assert found.ok, found.findings()
