"""Live tables with operators' players (issue 14): 20 live rounds against the reference operator
with 10% of wallet calls failed, 5% timed out and 5% committed but lost. The debits of a betting
window go out together; a player whose bet is refused or unknown sits the round out; afterwards
(the outbox drained) each player's balance at the operator is its start plus the net of its
settled seats, no transaction was applied twice, and every bet the operator applied was either
placed or rolled back."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from tests.support.operator import FAULT_MIX, OperatorDemo, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.servers import serving
from tests.support.waiting import until

from dealerpoker.fairness.verify import verify_record
from dealerpoker.server import Settings, create_app
from dealerpoker.server.live.extension import live_extension
from dealerpoker.server.live.service import LiveSettings
from dealerpoker.server.operators.config import parse_operators
from dealerpoker.tables.config import parse_tables

from .conftest import WAIT, LivePlayer, TableSocket, bet_together, is_seat, is_table, table_entry

SECRET = "live-operator-secret-0123456789"
START = 100_000
ROUNDS = 20


def launch(base: str, operator: OperatorDemo, name: str, table: str) -> TableSocket:
    token = operator.create_player(name, "EUR", START)
    raw = json.dumps(
        {"player": name, "currency": "EUR", "table": table, "token": token, "mode": "real"}
    ).encode()
    launched = httpx.post(
        f"{base}/operator/v1/launch",
        content=raw,
        timeout=WAIT,
        headers=operator_headers(SECRET, "POST", "/operator/v1/launch", raw),
    )
    assert launched.status_code == 200, launched.text
    session = httpx.post(
        f"{base}/api/session", json={"launch": launched.json()["launch_token"]}, timeout=WAIT
    )
    assert session.status_code == 200, session.text
    body = session.json()
    socket = TableSocket(f"ws{base[4:]}/ws/tables/{table}", {"Authorization": f"Bearer {body['token']}"})
    socket.name, socket.player_id = name, body["player_id"]  # type: ignore[attr-defined]
    socket.token = body["token"]  # type: ignore[attr-defined]
    return socket


@pytest.mark.slow
def test_live_rounds_survive_wallet_faults(tmp_path: Path) -> None:
    with OperatorDemo(
        tmp_path,
        secret=SECRET,
        operator_id="demo",
        extra=(*FAULT_MIX, "--timeout-seconds", "1", "--seed", "20"),
    ) as operator:
        operators = parse_operators(demo_entry(operator, wallet_timeout_seconds=0.5))
        tables = parse_tables(
            # Short timers: the players bet as the window opens and never decide (the timer folds
            # them), so a round is its timers; 1 s still lets four local bets in, and the wallet's
            # 0.5 s timeout (the operator's timed-out calls take 1 s) still fits the window.
            table_entry("casino-live", "casino-holdem").format(betting=1, decision=0.5, pause=0.25)
        )
        database = tmp_path / "live.db"
        app = create_app(
            Settings(database_url=f"sqlite:///{database}", operators=operators),
            extensions=[live_extension(LiveSettings(tables))],
        )
        with serving(app) as server:
            players = [
                launch(server.url, operator, f"live-{n}-{time.monotonic_ns()}", "casino-live")
                for n in range(4)
            ]
            played = 0
            while played < ROUNDS:
                window = players[0].until(is_table("betting_open"))
                for player in players:
                    player.send({"type": "bet", "bets": {"ante": 100}})
                ended = deadline = time.monotonic() + 120
                while ended >= deadline:  # every socket reads its messages (a full queue stops its pings)
                    assert time.monotonic() < deadline, "the round did not end"
                    for player in players:
                        _drain(player)
                    if any(_ended(m, window["round"]) for m in players[0].received):
                        ended = time.monotonic()
                played += 1
            for player in players:
                player.close()
            until(lambda: not _pending(database), "the outbox drains", timeout=120, interval=0.5)
            for player in players:  # each seat's signed record verifies, its money from the wallet
                token = player.token  # type: ignore[attr-defined]
                numbers = [
                    row["number"]
                    for row in _rows(
                        database,
                        "SELECT number FROM live_seats WHERE player_id = ? AND total_returned IS NOT NULL "
                        "ORDER BY number LIMIT 2",
                        player.player_id,
                    )
                ]  # type: ignore[attr-defined]
                for number in numbers:
                    record = httpx.get(
                        f"{server.url}/api/tables/casino-live/rounds/{number}/record",
                        headers={"Authorization": f"Bearer {token}"},
                        timeout=WAIT,
                    ).json()
                    assert any(e["account"] == player.player_id for e in record["ledger"])  # type: ignore[attr-defined]
                    assert not [f for f in verify_record(record) if not f.ok], record["round_id"]
        ours = _transactions(database)
        assert not [t for t in ours.values() if t["kind"] == "bet" and t["status"] in ("sending", "unknown")]
        for player in players:
            applied = [t for t in operator.transactions(player.name) if t["applied"]]  # type: ignore[attr-defined]
            ids = [t["transaction_id"] for t in applied]
            assert len(ids) == len(set(ids)), "a transaction applied twice"
            for bet in (t for t in applied if t["kind"] == "bet"):
                assert ours[bet["transaction_id"]]["status"] == "confirmed" or bet["rolled_back_by"], bet
            net, _seats = _settled_net(database, player.player_id)  # type: ignore[attr-defined]
            assert operator.balance(player.name) == START + net, player.name  # type: ignore[attr-defined]
        faults = operator.admin("GET", "/admin/faults")[1]["counts"]
        assert faults["fail"] + faults["timeout"] + faults["drop"] > 0, faults


@pytest.mark.slow
def test_a_seat_that_returns_nothing_closes_its_round_with_a_zero_win(tmp_path: Path) -> None:
    """The protocol's ``round_closed`` is true on the last call of a round: a seated player whose
    round returns nothing (a fold here) gets a ``win`` of 0 with it, through the outbox, as a solo
    round ends; reconciliation counts it and still agrees with the operator's ledger."""
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo", extra=("--seed", "21")) as operator:
        operators = parse_operators(demo_entry(operator))
        table = table_entry("casino-live", "casino-holdem")
        tables = parse_tables(table.format(betting=2, decision=2, pause=1))
        database = tmp_path / "live.db"
        app = create_app(Settings(database_url=f"sqlite:///{database}", operators=operators),
                         extensions=[live_extension(LiveSettings(tables))])
        with serving(app) as server:
            stamp = time.monotonic_ns()
            sockets = [launch(server.url, operator, f"{who}-{stamp}", "casino-live")
                       for who in ("folder", "caller")]
            folder, caller = (_live_player(server.url, socket) for socket in sockets)
            bet_together([folder, caller], {"ante": 100})  # the next window, if load made one close early
            round_id = [m for m in folder.received if is_table("betting_open")(m)][-1]["round"]
            for player in (folder, caller):
                legal = player.until(is_seat(lambda seat: seat["legal_actions"]))["seat"]["legal_actions"]
                action = "fold" if player is folder else next(a for a in legal if a != "fold")
                player.send({"type": "decide", "action": action})  # late, the timer folds: 0 too
            folder.until(lambda m: _ended(m, round_id))
            until(lambda: not _pending(database), "the outbox drains", timeout=30, interval=0.2)
            number = int(str(round_id).rsplit("/", 1)[-1])
            for player in (folder, caller):
                calls = [t for t in operator.transactions(player.name) if t["round_id"] == round_id]
                assert [t["round_closed"] for t in calls] == [False] * (len(calls) - 1) + [True], calls
                assert calls[-1]["kind"] == "win" and calls[-1]["status"] == "OK", calls
                (returned,) = _rows(database, "SELECT total_returned FROM live_seats WHERE player_id = ? "
                                    "AND number = ?", player.id, number)
                assert calls[-1]["amount"] == returned[0]
                if player is folder:
                    assert calls[-1]["amount"] == 0
            query = "since=2000-01-01&until=2100-01-01"
            target = f"/operator/v1/transactions?{query}"
            listed = httpx.get(f"{server.url}{target}", timeout=WAIT,
                               headers=operator_headers(SECRET, "GET", target)).json()
            eur = listed["summary"]["EUR"]
            seats = _rows(database, "SELECT player_id FROM live_seats WHERE total_returned IS NOT NULL")
            assert (eur["wins"]["count"], eur["pending"]["count"]) == (len(seats), 0), eur
            moved = sum(operator.balance(p.name) - START for p in (folder, caller))
            assert eur["net"]["amount"] == moved
            for player in (folder, caller):
                player.close()


def _live_player(base: str, socket: TableSocket) -> LivePlayer:
    """The launched player as a ``LivePlayer`` (its own socket; the launch's is closed)."""
    socket.close()
    player = LivePlayer(base, "casino-live", same_as=SimpleNamespace(  # type: ignore[arg-type]
        token=socket.token, id=socket.player_id))  # type: ignore[attr-defined]
    player.name = socket.name  # type: ignore[attr-defined]
    return player


def _ended(message: dict[str, Any], number: Any) -> bool:
    return (
        message["type"] == "table"
        and message.get("round") == number
        and message.get("event") in {"settled", "no_bets"}
    )


def _drain(socket: TableSocket) -> None:
    """Take in whatever the socket has received."""
    try:
        while True:
            socket.next(timeout=0.05)
    except TimeoutError:
        return


def _rows(database: Path, query: str, *values: Any) -> list[sqlite3.Row]:
    connection = sqlite3.connect(database)
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(query, values).fetchall()
    finally:
        connection.close()


def _pending(database: Path) -> int:
    return int(
        _rows(database, "SELECT count(*) FROM wallet_transactions WHERE status IN ('pending', 'sending')")[0][
            0
        ]
    )


def _transactions(database: Path) -> dict[str, dict[str, Any]]:
    return {row["transaction_id"]: dict(row) for row in _rows(database, "SELECT * FROM wallet_transactions")}


def _settled_net(database: Path, player_id: str) -> tuple[int, int]:
    rows = _rows(
        database,
        "SELECT total_stake, total_returned FROM live_seats WHERE player_id = ? "
        "AND total_returned IS NOT NULL",
        player_id,
    )
    return sum(row["total_returned"] - row["total_stake"] for row in rows), len(rows)
