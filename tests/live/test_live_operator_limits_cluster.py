"""An operator's per-currency limits at a live table of two `dealerpoker serve` processes (one
PostgreSQL database, one Redis), with real-money launches against the reference operator (a real
process): a bet outside the operator's limits is refused (``bet_limit``, the 422 error, naming the
field) whichever process the player is on, the table's owner or the one forwarding to it, and
nothing moves in either ledger; a bet inside is debited once, at the close of betting (issue 14).

Needs DEALERPOKER_TEST_POSTGRES_URL and DEALERPOKER_TEST_REDIS_URL.
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
from tests.live.cluster_support import CLUSTER_MARKS, two_processes
from tests.live.conftest import FAST_TABLES, WAIT, LivePlayer, bet_together, is_table
from tests.support.databases import audit as audit_database
from tests.support.operator import OperatorDemo, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from dealerpoker.errors import BetLimitError

pytestmark = CLUSTER_MARKS

SECRET = "live-limits-cluster-secret-0123456789"
START = 10_000
LIMITS = {"EUR": {"ante": {"min": 200, "max": 1000}}}


def launched(base: str, operator: OperatorDemo, name: str, table: str) -> LivePlayer:
    """A new player of the operator (``START`` in EUR there), launched for real money at ``table``
    through the process at ``base``."""
    token = operator.create_player(name, "EUR", START)
    launch = {"player": name, "currency": "EUR", "table": table, "token": token, "mode": "real"}
    raw = json.dumps(launch).encode()
    answer = httpx.post(f"{base}/operator/v1/launch", content=raw, timeout=WAIT, headers=operator_headers(
        SECRET, "POST", "/operator/v1/launch", raw, operator=operator.operator_id))
    assert answer.status_code == 200, answer.text
    session = httpx.post(f"{base}/api/session", json={"launch": answer.json()["launch_token"]}, timeout=WAIT)
    assert session.status_code == 200, session.text
    body = session.json()
    player = LivePlayer(base, table, same_as=SimpleNamespace(token=body["token"], id=body["player_id"]))  # type: ignore[arg-type]
    player.name = name  # type: ignore[attr-defined]
    return player


def test_operator_limits_hold_on_both_processes_with_real_money(tmp_path: Path) -> None:
    with OperatorDemo(tmp_path, secret=SECRET) as operator:
        operators = tmp_path / "operators.toml"
        operators.write_text(demo_entry(operator, limits=LIMITS))
        # The test waits out two or three betting windows; 5 s (not 8) still holds the four
        # refusals (replies in milliseconds, forwarded or not) in one open window on a loaded
        # machine, and bet_together moves to the next window if one closes first.
        tables = FAST_TABLES.format(betting=5, decision=1, pause=1)
        serve = ("--operators", str(operators))
        with two_processes(tmp_path, tables, label="oplimits", extra=serve) as cluster:
            stamp = time.monotonic_ns()
            players = [launched(cluster.first.base, operator, f"first-{stamp}", "casino-fast"),
                       launched(cluster.second.base, operator, f"second-{stamp}", "casino-fast")]
            cluster.clients.extend(players)
            processes = {player.next()["process"] for player in players}  # each one's welcome
            assert len(processes) == 2  # one player on the table's owner, one forwarded to it
            # Both in one betting window: the forwarded player may join after the owner's next
            # window opened, so whoever saw the earlier window waits for the later one.
            windows = [player.until(is_table("betting_open")) for player in players]
            latest = max(windows, key=lambda m: int(m["round"].rsplit("/", 1)[1]))["round"]
            for player, window in zip(players, windows, strict=True):
                if window["round"] != latest:
                    player.until(lambda m: is_table("betting_open")(m) and m["round"] == latest)
            for player in players:
                for amount, named in ((100, "min 200"), (2000, "max 1000")):
                    refused = player.reply({"type": "bet", "bets": {"ante": amount}})
                    assert (refused["type"], refused["error"]) == ("error", "bet_limit"), refused
                    assert refused["field"] == "ante"
                    assert named in refused["message"], refused
            assert BetLimitError.status == 422
            for player in players:  # nothing moved in either ledger, nobody seated
                assert operator.transactions(player.name) == []  # type: ignore[attr-defined]
                assert operator.balance(player.name) == START  # type: ignore[attr-defined]
                assert player.balance() == START
                assert not any(m["type"] == "you" and m.get("seat") for m in player.received)
            assert _wallet_rows(cluster.database) == []
            bet_together(players, {"ante": 500})  # the next window (the one above may have closed)
            for player in players:  # the debits went out at "no more bets"; the timer folds
                player.until(lambda m: m["type"] == "table" and m.get("event") == "settled")
            for player in players:
                bets = [t for t in operator.transactions(player.name) if t["kind"] == "bet"]  # type: ignore[attr-defined]
                assert [(t["amount"], bool(t["applied"])) for t in bets] == [(500, True)], bets
            rows = _wallet_rows(cluster.database)
            for player in players:
                assert [(r["amount"], r["status"]) for r in rows
                        if r["player_id"] == player.id and r["kind"] == "bet"] == [(500, "confirmed")]
            until(lambda: all(operator.balance(p.name) == START - 500 for p in players),  # type: ignore[attr-defined]
                  "the operator's wallet holds every player's bet", interval=0.2)
            assert audit_database(cluster.database).ok


def _wallet_rows(database: str) -> list[dict[str, Any]]:
    """Every ``wallet_transactions`` row of dealerpoker's database."""
    from sqlalchemy import select

    from dealerpoker.server.db import Database
    from dealerpoker.server.schema import wallet_transactions

    async def run() -> list[dict[str, Any]]:
        connected = Database(database)
        try:
            async with connected.reading() as connection:
                found = await connection.execute(
                    select(wallet_transactions).order_by(wallet_transactions.c.created_at))
                return [dict(row) for row in found.mappings()]
        finally:
            await connected.dispose()

    return asyncio.run(run())
