"""Jurisdictions at live tables (issue 27): a table that lists the markets it serves seats only
their players (the WebSocket is refused, naming the rule and the jurisdiction, and so is a launch
there); a market's stake limit and pace refuse live bets as they refuse solo rounds. Both
databases."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from tests.live.conftest import WAIT, LivePlayer, ManualClock, is_table, live_server, table_entry
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, swedish_links
from websockets.exceptions import ConnectionClosed

from dealerpoker.fairness.signature import public_key_from_text
from dealerpoker.fairness.verify import verify_record
from dealerpoker.server.backoffice.reports import collect
from dealerpoker.server.backoffice.search import RoundQuery, search
from dealerpoker.server.db import Database
from dealerpoker.server.operators.config import parse_operators

SECRET = "live-jurisdiction-secret-0123456789"
OPERATORS = operator_entry(
    "casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9299/wallet", currencies=["GBP", "SEK", "EUR"],
    jurisdictions=["GB", "SE"],
    links=swedish_links("casino-a"),
) + """

[[operators.profiles]]
id = "GB"
[operators.profiles.settings]
max_stake = { value = { GBP = 600 }, clause = "casino-a's GB stake policy" }
"""
GB_TABLE = table_entry("gb-casino", "casino-holdem", 'currency = "GBP"\njurisdictions = ["GB"]')


def launch(base: str, app: Any, body: dict[str, Any]) -> httpx.Response:
    """A signed launch (at the time of ``app``'s clock)."""
    raw = json.dumps({"player": "p-1", "mode": "demo", **body}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-a",
                               now=client_now(SimpleNamespace(app=app)))
    return httpx.post(f"{base}/operator/v1/launch", content=raw, timeout=WAIT, headers=headers)


def seated(base: str, app: Any, at: str, **body: Any) -> LivePlayer:
    """An operator's player (a demo launch) at table ``at``'s WebSocket."""
    answer = launch(base, app, body)
    assert answer.status_code == 200, answer.text
    session = httpx.post(f"{base}/api/session", json={"launch": answer.json()["launch_token"]}, timeout=WAIT)
    assert session.status_code == 200, session.text
    found = SimpleNamespace(token=session.json()["token"], id=session.json()["player_id"])
    return LivePlayer(base, at, same_as=found)  # type: ignore[arg-type]


def refused_at_door(player: LivePlayer) -> dict[str, Any]:
    """The error a refused WebSocket gets before it is closed."""
    message = player.next()
    assert message["type"] == "error", message
    with pytest.raises(ConnectionClosed):
        player.next(timeout=5)
    return message


def test_a_table_seats_only_the_markets_it_serves(served_database: str) -> None:
    with live_server(served_database, clock=ManualClock(), extra_tables=GB_TABLE,
                     operators=parse_operators(OPERATORS)) as (base, app):
        answer = launch(base, app, {"currency": "SEK", "table": "gb-casino", "jurisdiction": "SE"})
        assert answer.status_code == 403, answer.text
        assert (answer.json()["rule"], answer.json()["jurisdiction"]) == ("table_jurisdictions", "SE")
        swede = seated(base, app, "gb-casino", currency="SEK", game="casino-holdem", jurisdiction="SE")
        message = refused_at_door(swede)
        assert (message["error"], message["rule"], message["jurisdiction"]) == (
            "jurisdiction", "table_jurisdictions", "SE")
        assert "serves GB" in message["message"]
        demo = LivePlayer(base, "gb-casino", currency="GBP")  # the server's own player: default profile
        assert refused_at_door(demo)["jurisdiction"] == "default"
        briton = seated(base, app, "gb-casino", currency="GBP", table="gb-casino", jurisdiction="GB")
        try:
            assert briton.until(lambda m: m["type"] == "welcome")["table"]["jurisdictions"] == ["GB"]
            briton.until(is_table("betting_open"))
            # Casino Hold'em takes the ante and a raise of twice it: 300 can cost 900 > 600.
            refused = briton.reply({"type": "bet", "bets": {"ante": 300}})
            assert (refused["type"], refused["error"], refused["rule"], refused["jurisdiction"]) == (
                "error", "jurisdiction", "max_stake", "GB"), refused
            assert briton.reply({"type": "bet", "bets": {"ante": 200}})["type"] == "you"
        finally:
            briton.close()


def test_a_markets_pace_holds_live_bets(served_database: str) -> None:
    """GB's 2.5 s between the starts of two rounds: a live bet right after a solo round is refused,
    naming the rule and GB."""
    with live_server(served_database, clock=ManualClock(), extra_tables=GB_TABLE,
                     operators=parse_operators(OPERATORS)) as (base, app):
        briton = seated(base, app, "gb-casino", currency="GBP", table="gb-casino", jurisdiction="GB")
        try:
            opened = httpx.post(f"{base}/api/rounds", headers=briton.headers, timeout=WAIT,
                                json={"game": "casino-holdem", "bets": {"ante": 100}})
            assert opened.status_code == 200, opened.text
            briton.until(is_table("betting_open"))
            refused = briton.reply({"type": "bet", "bets": {"ante": 100}})
            assert (refused["type"], refused["reason"], refused["rule"], refused["jurisdiction"]) == (
                "error", "too_fast", "too_fast", "GB"), refused
        finally:
            briton.close()


def test_a_live_seat_keeps_its_jurisdiction_in_the_signed_record(served_database: str) -> None:
    """Each seat of a live round keeps the profile its player played under: the player's signed
    record carries it, verify checks the seat against it, and changing it breaks the digest and
    the signature; the player's live history names it."""
    clock = ManualClock()
    with live_server(served_database, clock=clock, extra_tables=GB_TABLE,
                     operators=parse_operators(OPERATORS)) as (base, app):
        briton = seated(base, app, "gb-casino", currency="GBP", table="gb-casino", jurisdiction="GB")
        try:
            window = briton.until(is_table("betting_open"))
            assert briton.reply({"type": "bet", "bets": {"ante": 200}})["type"] == "you"
            clock.reach(window)
            clock.reach(briton.until(is_table("decision")))  # the timer folds: the round ends
            briton.until(lambda m: m["type"] == "table" and m.get("event") == "settled"
                         and m.get("round") == window["round"])
            number = window["number"]
            answer = httpx.get(f"{base}/api/tables/gb-casino/rounds/{number}/record", headers=briton.headers,
                               timeout=WAIT)
            assert answer.status_code == 200, answer.text
            record = answer.json()
            history = httpx.get(f"{base}/api/live-rounds", headers=briton.headers, timeout=WAIT).json()
        finally:
            briton.close()
        key = public_key_from_text(httpx.get(f"{base}/api/fairness/public-key", timeout=WAIT).text)
    gb = app.state.services.jurisdictions.operators["casino-a"].profiles["GB"]
    (seat,) = record["seats"]
    assert seat["jurisdiction"] == gb.enforced() and seat["jurisdiction"]["max_stake"] == {"GBP": 600}
    findings = verify_record(record, public_key=key)
    assert all(f.ok for f in findings), [str(f) for f in findings if not f.ok]
    assert any(f.subject == f"seats[{briton.id}].jurisdiction" and f.ok for f in findings)
    assert [(r["round_id"], r["jurisdiction"]) for r in history["rounds"]] == [(window["round"], "GB")]
    moved = {**record, "seats": [{**seat, "jurisdiction": {**seat["jurisdiction"], "id": "SE"}}]}
    failed = {f.subject for f in verify_record(moved, public_key=key) if not f.ok}
    assert {"record_digest", "signature"} <= failed, failed
    # A seat outside the profile it names fails verification on that rule, digest or not.
    for setting, value in (("max_stake", {"GBP": 100}), ("modes", ["solo"])):
        narrower = {**seat, "jurisdiction": {**seat["jurisdiction"], setting: value}}
        failed = {f.subject for f in verify_record({**record, "seats": [narrower]}) if not f.ok}
        assert f"seats[{briton.id}].jurisdiction.{setting}" in failed, failed
    # The back office finds the seat by its jurisdiction, and its reports group it there.
    searched, grouped = asyncio.run(back_office_view(served_database))
    assert [(row["round_id"], row["jurisdiction"]) for row in searched["GB"]] == [(window["round"], "GB")]
    assert searched["SE"] == []
    assert [(key[2], key[5], sums.rounds) for key, sums in grouped.items()] == [("gb-casino", "GB", 1)]


async def back_office_view(url: str) -> tuple[dict[str, list[dict[str, Any]]], Any]:
    """The back office's round search by jurisdiction (GB, SE) and its report groups of the day."""
    database = Database(url)
    try:
        async with database.reading() as connection:
            searched = {code: await search(connection, RoundQuery(jurisdiction=code, kind="live"))
                        for code in ("GB", "SE")}
            grouped = await collect(connection, since="2026-11-29", until="2026-11-30", period="day")
        return searched, grouped
    finally:
        await database.dispose()


# Markets whose own profiles (the operator's) hold back what the shipped ones allow: GB no live
# play, SE only Texas Hold'em Bonus and no strategy hint, MT only a paytable version no table
# here plays.
NARROW_OPERATORS = operator_entry(
    "casino-n", secret=SECRET, wallet_url="http://127.0.0.1:9299/wallet", currencies=["GBP", "SEK", "EUR"],
    jurisdictions=["GB", "SE", "MT"],
    links=swedish_links("casino-n"),
) + f"""

[[operators.profiles]]
id = "GB"
[operators.profiles.settings]
modes = {{ value = ["solo"], clause = "casino-n's GB offer: no live tables" }}

[[operators.profiles]]
id = "SE"
[operators.profiles.settings]
games = {{ value = ["texas-bonus"], clause = "casino-n's SE offer" }}
strategy_hint = {{ value = false, clause = "casino-n's SE offer" }}

[[operators.profiles]]
id = "MT"
[operators.profiles.settings]
paytables = {{ value = ["{'0' * 64}"], clause = "casino-n's MT certificate" }}
"""
NARROW_TABLES = (table_entry("gb-texas", "texas-bonus", 'currency = "GBP"')
                 + table_entry("se-casino", "casino-holdem", 'currency = "SEK"')
                 + table_entry("se-texas", "texas-bonus", 'currency = "SEK"'))


def narrow_launch(base: str, app: Any, body: dict[str, Any]) -> httpx.Response:
    raw = json.dumps({"player": f"n-{body['jurisdiction']}", "mode": "demo", **body}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-n",
                               now=client_now(SimpleNamespace(app=app)))
    return httpx.post(f"{base}/operator/v1/launch", content=raw, timeout=WAIT, headers=headers)


@pytest.mark.parametrize(("jurisdiction", "currency", "table", "game", "rule"), [
    ("GB", "GBP", "gb-texas", "texas-bonus", "modes"),
    ("SE", "SEK", "se-casino", "texas-bonus", "games"),
    ("MT", "EUR", "texas-fast", "texas-bonus", "paytables"),
])
def test_a_live_table_the_profile_does_not_allow_is_refused_naming_the_rule(
        served_database: str, jurisdiction: str, currency: str, table: str, game: str, rule: str) -> None:
    """Over the WebSocket (at the table's door) and at a launch onto the table: the market's game,
    mode and paytable settings each refuse a table, naming the rule and the jurisdiction."""
    with live_server(served_database, clock=ManualClock(), extra_tables=NARROW_TABLES,
                     operators=parse_operators(NARROW_OPERATORS)) as (base, app):
        onto = narrow_launch(base, app, {"currency": currency, "table": table, "jurisdiction": jurisdiction})
        assert onto.status_code == 403, onto.text
        assert (onto.json()["rule"], onto.json()["jurisdiction"]) == (rule, jurisdiction), onto.text
        answer = narrow_launch(base, app, {"currency": currency, "game": game, "jurisdiction": jurisdiction})
        assert answer.status_code == 200, answer.text  # solo play of the game is allowed
        session = httpx.post(f"{base}/api/session", json={"launch": answer.json()["launch_token"]},
                             timeout=WAIT)
        found = SimpleNamespace(token=session.json()["token"], id=session.json()["player_id"])
        player = LivePlayer(base, table, same_as=found)  # type: ignore[arg-type]
        try:
            message = refused_at_door(player)
        finally:
            player.close()
        assert (message["error"], message["rule"], message["jurisdiction"]) == (
            "jurisdiction", rule, jurisdiction), message


def test_a_markets_mandatory_reality_check_holds_live_bets(served_database: str) -> None:
    """SE's reality check is mandatory every 60 minutes: once due, a live bet is refused naming
    the rule and SE (the player has played solo every ten minutes since the session began)."""
    clock = ManualClock()
    se_table = table_entry("se-texas", "texas-bonus", 'currency = "SEK"')
    with live_server(served_database, clock=clock, extra_tables=se_table,
                     operators=parse_operators(OPERATORS)) as (base, app):
        swede = seated(base, app, "se-texas", currency="SEK", table="se-texas", jurisdiction="SE")
        try:
            for minutes in (0, 10, 20, 30, 40, 50):  # solo rounds keep the session active
                opened = httpx.post(f"{base}/api/rounds", headers=swede.headers, timeout=WAIT,
                                    json={"game": "texas-bonus", "bets": {"ante": 1000}})
                assert opened.status_code == 200, (minutes, opened.text)
                folded = httpx.post(f"{base}/api/rounds/{opened.json()['id']}/actions", headers=swede.headers,
                                    timeout=WAIT, json={"action": "fold", "step": 1})
                assert folded.status_code == 200, (minutes, folded.text)
                clock.advance(10 * 60 if minutes < 50 else 10 * 60 + 1)
            due = clock.seconds()

            def window_opened_after(message: dict[str, Any]) -> bool:
                """A betting window opened once the check fell due. Each move of the clock ran out
                the table's timer of the moment (a window, or the pause after it), or two at once
                where the server took two wake-ups together: it may sit in a pause now. Its
                timers run out, one after the other, until a window opens."""
                if message["type"] != "table" or message.get("deadline") is None:
                    return False
                if message.get("event") == "betting_open" and float(message["deadline"]) > due:
                    return True
                clock.reach(message)
                return False

            swede.until(window_opened_after)
            refused = swede.reply({"type": "bet", "bets": {"ante": 1000}})
            assert (refused["type"], refused["reason"], refused["rule"], refused["jurisdiction"]) == (
                "error", "reality_check", "reality_check", "SE"), refused
        finally:
            swede.close()


def test_a_market_without_the_hint_refuses_it_at_a_live_table(served_database: str) -> None:
    """casino-n's SE profile offers no strategy hint: a Swede seated at a live table who asks for
    it (``GET /api/tables/{id}/advice``; the deployment offers it) is refused, naming the rule
    and SE."""
    with live_server(served_database, clock=ManualClock(), extra_tables=NARROW_TABLES, strategy_hint=True,
                     operators=parse_operators(NARROW_OPERATORS)) as (base, app):
        answer = narrow_launch(base, app, {"currency": "SEK", "table": "se-texas", "jurisdiction": "SE"})
        assert answer.status_code == 200, answer.text
        session = httpx.post(f"{base}/api/session", json={"launch": answer.json()["launch_token"]},
                             timeout=WAIT)
        found = SimpleNamespace(token=session.json()["token"], id=session.json()["player_id"])
        swede = LivePlayer(base, "se-texas", same_as=found)  # type: ignore[arg-type]
        try:
            swede.until(is_table("betting_open"))
            assert swede.reply({"type": "bet", "bets": {"ante": 1000}})["type"] == "you"
            refused = httpx.get(f"{base}/api/tables/se-texas/advice", headers=swede.headers, timeout=WAIT)
        finally:
            swede.close()
        assert refused.status_code == 403, refused.text
        body = refused.json()
        assert (body["error"], body["rule"], body["jurisdiction"]) == (
            "jurisdiction", "strategy_hint", "SE"), body
