"""Jurisdiction profiles say whether free bets and the jackpot are allowed (issue 30): where a
player's profile says ``free_bets = false`` (the shipped Swedish profile) a free round bet at a live
table is refused, naming the rule, and nothing is seated; where it says ``jackpots = false`` (here
an operator's own profile for Malta) the jackpot bet is refused, solo and live, naming the rule,
and nothing is debited or seated, while the same operator's players elsewhere place it. Both databases."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import httpx
from tests.live.conftest import WAIT, LivePlayer, ManualClock, is_table, live_server, table_entry
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, swedish_links

from dealerpoker.server.operators.config import parse_operators

SECRET = "promotions-jurisdiction-secret-0123456789"
OPERATORS = operator_entry(
    "casino-x", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet", currencies=["SEK", "EUR", "GBP"],
    jurisdictions=["SE", "MT", "GB"],
    links=swedish_links("casino-x"),
) + """

[[operators.profiles]]
id = "MT"
[operators.profiles.settings]
jackpots = { value = false, clause = "casino-x's Malta policy: no progressive jackpots" }
"""
SE_TABLE = table_entry("se-casino", "casino-holdem", 'currency = "SEK"\njurisdictions = ["SE"]')


def signed(base: str, app: Any, target: str, body: Any) -> httpx.Response:
    raw = json.dumps(body).encode()
    headers = operator_headers(SECRET, "POST", target, raw, operator="casino-x",
                               now=client_now(SimpleNamespace(app=app)))
    return httpx.post(f"{base}{target}", content=raw, headers=headers, timeout=WAIT)


def session(base: str, app: Any, name: str, **launch: Any) -> SimpleNamespace:
    """A demo launch of casino-x's player ``name``: their session token and id."""
    launched = signed(base, app, "/operator/v1/launch", {"player": name, "mode": "demo", **launch})
    assert launched.status_code == 200, launched.text
    opened = httpx.post(f"{base}/api/session", json={"launch": launched.json()["launch_token"]}, timeout=WAIT)
    assert opened.status_code == 200, opened.text
    return SimpleNamespace(token=opened.json()["token"], id=opened.json()["player_id"])


def test_a_market_without_free_bets_refuses_a_live_free_round(served_database: str) -> None:
    clock = ManualClock()
    with live_server(served_database, clock=clock, extra_tables=SE_TABLE,
                     operators=parse_operators(OPERATORS)) as (base, app):
        created = signed(base, app, "/operator/v1/campaigns", {
            "campaign_id": "se-live", "games": ["casino-holdem"], "ante": {"SEK": 1000}, "rounds": 2,
            "valid_from": "2020-01-01T00:00:00Z", "valid_until": "2100-01-01T00:00:00Z"})
        assert created.status_code == 201, created.text
        granted = signed(base, app, f"/operator/v1/campaigns/{created.json()['id']}/grants",
                         {"players": ["sven"]})
        reward = granted.json()["rewards"][0]["id"]
        found = session(base, app, "sven", currency="SEK", table="se-casino", jurisdiction="SE")
        sven = LivePlayer(base, "se-casino", same_as=found)  # type: ignore[arg-type]
        try:
            welcome = sven.until(lambda m: m["type"] == "welcome")
            assert welcome["free_rounds"] == []  # none shown in Sweden
            sven.until(is_table("betting_open"))
            refused = sven.reply({"type": "bet", "bets": {"ante": 1000}, "free_round": reward})
            assert (refused["type"], refused["error"]) == ("error", "jurisdiction")
            assert refused["rule"] == "free_bets"
            assert "SE" in refused["message"] and "free_bets" in refused["message"]
            assert sven.reply({"type": "hello"})["seat"] is None  # nothing placed
        finally:
            sven.close()
        shown = httpx.get(f"{base}/api/free-rounds", headers={"Authorization": f"Bearer {found.token}"},
                          timeout=WAIT).json()
        assert shown["free_rounds"] == []


def test_a_market_without_jackpots_refuses_the_jackpot_bet(served_database: str) -> None:
    operators = parse_operators(OPERATORS)
    with live_server(served_database, clock=ManualClock(), operators=operators) as (base, app):
        for market, currency, allowed in (("MT", "EUR", False), ("GB", "GBP", True)):
            found = session(base, app, f"player-{market}", currency=currency, game="casino-holdem",
                            jurisdiction=market)
            headers = {"Authorization": f"Bearer {found.token}"}
            before = httpx.get(f"{base}/api/balance", headers=headers, timeout=WAIT).json()["balance"]
            opened = httpx.post(f"{base}/api/rounds", headers=headers, timeout=WAIT, json={
                "game": "casino-holdem", "bets": {"ante": 200}, "jackpot": True})
            after = httpx.get(f"{base}/api/balance", headers=headers, timeout=WAIT).json()["balance"]
            if allowed:
                assert opened.status_code == 200, opened.text
                assert opened.json()["jackpot"]["stake"] == 85  # 1.00 EUR at the shipped 0.85 GBP
            else:
                assert opened.status_code == 403, opened.text
                assert (opened.json()["error"], opened.json()["rule"]) == ("jurisdiction", "jackpots")
                assert "MT" in opened.json()["message"] and "jackpots" in opened.json()["message"]
                assert after == before  # nothing debited, no round
                at_table = LivePlayer(base, "casino-fast", same_as=found)  # type: ignore[arg-type]
                try:
                    at_table.until(is_table("betting_open"))
                    refused = at_table.reply({"type": "bet", "bets": {"ante": 100}, "jackpot": True})
                    assert (refused["type"], refused["error"], refused["rule"]) == \
                        ("error", "jurisdiction", "jackpots"), refused
                    assert at_table.reply({"type": "hello"})["seat"] is None  # nothing placed
                finally:
                    at_table.close()
