"""At a live table an operator's player bets under the table's limits narrowed by their
operator's, with their operator's chips: the welcome and ``GET /api/tables`` show them, and a
bet outside them is refused naming the limit, nothing seated (issue 14). An operator whose
limits cannot meet a table's stops the server at start, both named."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from tests.live.conftest import WAIT, LivePlayer, ManualClock, is_table, live_server, table_entry
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.server import Settings, create_app
from dealerpoker.server.live.extension import live_extension
from dealerpoker.server.live.service import LiveSettings
from dealerpoker.server.operators.config import InvalidOperatorsError, parse_operators
from dealerpoker.tables.config import parse_tables

SECRET = "live-limits-secret-0123456789"
CASINO_A = {"secret": SECRET, "wallet_url": "http://127.0.0.1:9299/wallet", "currencies": ["EUR"],
            "chips": {"EUR": [100, 200, 1000]}, "limits": {"EUR": {"ante": {"min": 200, "max": 1000}}}}
OPERATORS = operator_entry("casino-a", **CASINO_A)


def launched(base: str, table: str, app: Any) -> LivePlayer:
    """An operator's player (a demo launch: play money, no wallet) at ``table`` (signed at the
    time of ``app``'s clock)."""
    raw = json.dumps({"player": "p-1", "currency": "EUR", "table": table, "mode": "demo"}).encode()
    now = client_now(SimpleNamespace(app=app))
    answer = httpx.post(f"{base}/operator/v1/launch", content=raw, timeout=WAIT,
                        headers=operator_headers(SECRET, "POST", "/operator/v1/launch", raw,
                                                 operator="casino-a", now=now))
    assert answer.status_code == 200, answer.text
    session = httpx.post(f"{base}/api/session", json={"launch": answer.json()["launch_token"]}, timeout=WAIT)
    assert session.status_code == 200, session.text
    return LivePlayer(base, table, same_as=SimpleNamespace(token=session.json()["token"],  # type: ignore[arg-type]
                                                           id=session.json()["player_id"]))


def test_an_operators_player_bets_under_the_operators_limits_and_chips(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock(),
                     operators=parse_operators(OPERATORS)) as (base, app):
        player, demo = launched(base, "casino-fast", app), LivePlayer(base, "casino-fast")
        try:
            welcome = player.until(lambda m: m["type"] == "welcome")
            assert welcome["table"]["chips"] == [100, 200, 1000]
            assert welcome["table"]["limits"]["ante"] == {"min": 200, "max": 1000}
            ante = next(f for f in welcome["game"]["fields"] if f["name"] == "ante")
            assert (ante["min"], ante["max"]) == (200, 1000)
            theirs = demo.until(lambda m: m["type"] == "welcome")["table"]  # the server's own player
            assert theirs["chips"] != [100, 200, 1000] and theirs["limits"]["ante"]["min"] == 100
            assert welcome["table"]["rules_fingerprint"] == theirs["rules_fingerprint"]  # one table's rules
            listed = httpx.get(f"{base}/api/tables", headers=player.headers, timeout=WAIT).json()["tables"]
            assert next(t for t in listed if t["id"] == "casino-fast")["limits"]["ante"]["max"] == 1000
            player.until(is_table("betting_open"))
            for amount, named in ((100, "min 200"), (2000, "max 1000")):
                refused = player.reply({"type": "bet", "bets": {"ante": amount}})
                assert (refused["type"], refused["error"]) == ("error", "bet_limit"), refused
                assert named in refused["message"] and "ante" in refused["message"]
            assert not any(m["type"] == "you" and m.get("seat") for m in player.received)
            assert demo.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
            seated = player.reply({"type": "bet", "bets": {"ante": 1000}})
            assert seated["type"] == "you" and seated["seat"]["bets"] == {"ante": 1000}
        finally:
            player.close()
            demo.close()


def test_operator_limits_that_cannot_meet_a_tables_stop_the_server() -> None:
    high = table_entry("high", "casino-holdem", "[tables.limits]\nante = {{ min = 5000, max = 50000 }}")
    tables = parse_tables(high.format(betting=5, decision=5, pause=1))
    with pytest.raises(InvalidOperatorsError) as refused:
        create_app(Settings(database_url="sqlite://", operators=parse_operators(OPERATORS)),
                   extensions=[live_extension(LiveSettings(tables))])
    assert str(refused.value) == (
        "operators: casino-a: table 'high': limits.ante: 200-1000 does not overlap 5000-50000")


def test_an_operators_player_bets_live_under_the_operators_profile(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 17: casino-a's pace (an hour between rounds) holds its player's live bets after a
    solo round; the server's own player, under the deployment's profile (no pace), is seated."""
    paced = operator_entry("casino-a", **CASINO_A, responsible_gaming={"min_round_seconds": 3600})
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock(),
                     operators=parse_operators(paced)) as (base, app):
        player, demo = launched(base, "casino-fast", app), LivePlayer(base, "casino-fast")
        try:
            for someone in (player, demo):  # a solo round each, folded
                opened = httpx.post(f"{base}/api/rounds", headers=someone.headers, timeout=WAIT,
                                    json={"game": "casino-holdem", "bets": {"ante": 200}})
                assert opened.status_code == 200, opened.text
                steps = len(opened.json()["steps"])
                actions = f"{base}/api/rounds/{opened.json()['id']}/actions"
                folded = httpx.post(actions, headers=someone.headers, json={"action": "fold", "step": steps},
                                    timeout=WAIT)
                assert folded.status_code == 200, folded.text
            shown = httpx.get(f"{base}/api/responsible-gaming", headers=player.headers, timeout=WAIT).json()
            assert shown["profile"]["min_round_seconds"] == 3600
            player.until(is_table("betting_open"))
            refused = player.reply({"type": "bet", "bets": {"ante": 200}})
            assert (refused["type"], refused["reason"]) == ("error", "too_fast"), refused
            assert demo.reply({"type": "bet", "bets": {"ante": 200}})["type"] == "you"
            assert not any(m["type"] == "you" and m.get("seat") for m in player.received)
        finally:
            player.close()
            demo.close()
