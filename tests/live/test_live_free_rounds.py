"""Free rounds at live tables (issue 30), against the reference operator as a process: a player
granted a campaign sees "N free rounds of X ante" when they sit down, chooses one for the next
round with their bet (``"free_round": reward``); the ante is the operator's (never debited),
their own bets go through the wallet as usual, and the win is credited with ``promo`` set. A bet
sent again (a retry) keeps one seat, one claim; the same reward bet at two tables at once is
played at one of them only (the other seat sits out, told why); a reward used up is refused
naming it. The seat's signed record verifies (the free ante and the ledger). Both databases."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from tests.live.conftest import CASINO_ALONE, WAIT, LivePlayer, ManualClock, is_seat, is_table, live_server
from tests.live.studio_support import STUDIO_TABLES
from tests.live.studio_support import Dealer as StudioDealer
from tests.support.dealing import Dealer, player_wins
from tests.support.operator import OperatorDemo, client_now, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from dealerpoker.fairness.signature import public_key_from_text
from dealerpoker.fairness.verify import verify_record
from dealerpoker.server.db import Database
from dealerpoker.server.operators.config import parse_operators
from dealerpoker.server.promotions import use_of
from dealerpoker.server.schema import live_seats

SECRET = "live-free-rounds-secret-0123456789"
START = 100_000
ANTE = 100


def signed(base: str, app: Any, method: str, target: str, body: Any = None) -> httpx.Response:
    """A request of the operator's to dealerpoker, signed at the time of the app's clock (``app``
    None: a `dealerpoker serve` process, on the real clock)."""
    raw = b"" if body is None else json.dumps(body).encode()
    now = None if app is None else client_now(SimpleNamespace(app=app))
    headers = operator_headers(SECRET, method, target, raw, now=now)
    return httpx.request(method, f"{base}{target}", content=raw or None, headers=headers, timeout=WAIT)


def seated(base: str, app: Any, operator: OperatorDemo, name: str, table: str) -> LivePlayer:
    """The operator's player ``name`` (real money, START EUR at the operator) launched at ``table``."""
    token = operator.create_player(name, "EUR", START)
    launched = signed(base, app, "POST", "/operator/v1/launch",
                      {"player": name, "currency": "EUR", "table": table, "token": token, "mode": "real"})
    assert launched.status_code == 200, launched.text
    launch = {"launch": launched.json()["launch_token"]}
    session = httpx.post(f"{base}/api/session", json=launch, timeout=WAIT)
    assert session.status_code == 200, session.text
    found = SimpleNamespace(token=session.json()["token"], id=session.json()["player_id"])
    return LivePlayer(base, table, same_as=found)  # type: ignore[arg-type]


def campaign(base: str, app: Any, name: str, rounds: int, players: list[str],
             max_win: int | None = None) -> tuple[dict[str, Any], str]:
    """A campaign of ``rounds`` free rounds of ANTE at both games (winnings capped at ``max_win``),
    granted to ``players``: it and the first player's reward."""
    created = signed(base, app, "POST", "/operator/v1/campaigns", {
        "campaign_id": name, "games": ["texas-bonus", "casino-holdem"], "ante": {"EUR": ANTE},
        "rounds": rounds, "valid_from": "2020-01-01T00:00:00Z", "valid_until": "2100-01-01T00:00:00Z",
        **({} if max_win is None else {"max_win": {"EUR": max_win}})})
    assert created.status_code in (200, 201), created.text
    found = created.json()
    granted = signed(base, app, "POST", f"/operator/v1/campaigns/{found['id']}/grants", {"players": players})
    assert granted.status_code == 200, granted.text
    return found, granted.json()["rewards"][0]["id"]


def settled(player: LivePlayer, round_id: str) -> dict[str, Any]:
    return player.until(lambda m: m["type"] == "table" and m.get("event") == "settled"
                        and m.get("round") == round_id)


@pytest.mark.slow
def test_a_free_round_at_a_live_table(served_database: str, tmp_path: Path) -> None:
    clock, dealer = ManualClock(), Dealer()
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo") as operator, \
            live_server(served_database, clock=clock, rng=dealer, tables=CASINO_ALONE,
                        operators=parse_operators(demo_entry(operator))) as (base, app):
        found, reward = campaign(base, app, "live-xmas", 2, ["alice"])
        alice = seated(base, app, operator, "alice", "casino-fast")
        try:
            welcome = alice.until(lambda m: m["type"] == "welcome")
            assert [(f["reward"], f["ante"], f["rounds_left"]) for f in welcome["free_rounds"]] == \
                [(reward, ANTE, 2)]  # the table shows "2 free rounds of EUR 1.00 ante"
            first = alice.until(is_table("betting_open"))
            # Round 1 is dealt at random; round 2 deals the player a winning hand (queued before it opens).
            bet = {"type": "bet", "bets": {"aa": 100}, "free_round": reward}
            placed = alice.reply(bet)
            assert placed["type"] == "you", placed
            assert placed["seat"]["bets"] == {"ante": ANTE, "aa": 100}
            assert placed["seat"]["free_round"] == {"reward": reward, "campaign": found["id"],
                                                    "free_ante": ANTE}
            assert placed["seat"]["total_stake"] == 100  # the player's own: the ante is the operator's
            again = alice.reply(bet)  # the same bet sent again (a retry): one seat, one claim
            assert again["seat"] == placed["seat"]
            play_out(alice, clock, first, action="fold")
            pause = settled(alice, first["round"])
            dealer.live("casino-fast", first["number"] + 1, {alice.id: {"ante": ANTE}}, player="A? A?",
                        where=player_wins)
            clock.reach(pause)
            second = alice.until(lambda m: m["type"] == "table" and m.get("event") == "betting_open"
                                 and m.get("round") != first["round"])
            assert alice.reply({"type": "bet", "bets": {}, "free_round": reward})["seat"] is None  # withdrawn
            placed = alice.reply({"type": "bet", "bets": {"ante": ANTE}, "free_round": reward})
            assert placed["seat"]["free_round"]["free_ante"] == ANTE and placed["seat"]["total_stake"] == 0
            play_out(alice, clock, second, action="call")
            settled(alice, second["round"])
            mine = alice.until(lambda m: is_seat(lambda seat: seat.get("settlement") is not None)(m)
                               and m.get("round") == second["round"])
            # Both free rounds used: a third is refused, naming why.
            clock.reach(last_table(alice))
            alice.until(lambda m: m["type"] == "table" and m.get("event") == "betting_open"
                        and m.get("round") not in (first["round"], second["round"]))
            refused = alice.reply({"type": "bet", "bets": {"ante": ANTE}, "free_round": reward})
            assert refused["type"] == "error" and refused["error"] == "free_round", refused
            assert reward in refused["message"]
            record = httpx.get(f"{base}/api/tables/casino-fast/rounds/{second['number']}/record",
                               headers=alice.headers, timeout=WAIT).json()
            key = public_key_from_text(httpx.get(f"{base}/api/fairness/public-key", timeout=WAIT).text)
        finally:
            alice.close()
        # The outbox delivers the wins: each settlement's, flagged promotional, once.
        until(lambda: len([t for t in operator.transactions("alice") if t["kind"] == "win"
                           and t["round_closed"]]) == 2 or None, "both wins reach the operator")
        calls = operator.transactions("alice")
        closing = [t for t in calls if t["kind"] == "win" and t["round_closed"]]
        assert sorted(t["round_id"] for t in closing) == sorted([first["round"], second["round"]])
        assert all(t["promo_campaign"] == found["id"] and t["promo_reward"] == reward
                   for t in closing), closing
        bets = [t for t in calls if t["kind"] == "bet" and t["applied"]]
        assert sum(t["amount"] for t in bets) == 100 + 2 * ANTE  # the AA, then the call: never an ante
        (seat,) = record["seats"]
        assert seat["promo"] == {"campaign": found["id"], "reward": reward, "free_ante": ANTE, "forfeited": 0}
        assert seat["total_stake"] == 2 * ANTE and seat["total_returned"] == mine["seat"]["credited"]
        assert seat["total_returned"] > seat["total_stake"]  # the chosen cards win
        assert [t["amount"] for t in closing if t["round_id"] == second["round"]] == [seat["total_returned"]]
        findings = verify_record(record, public_key=key)
        assert all(f.ok for f in findings), [str(f) for f in findings if not f.ok]
        assert any(f.subject == f"seats[{alice.id}].promo" and f.ok for f in findings)
        net = sum(t["amount"] for t in calls if t["kind"] == "win" and t["applied"]) - sum(
            t["amount"] for t in bets)
        assert operator.balance("alice") == START + net
        shown = signed(base, app, "GET", f"/operator/v1/campaigns/{found['id']}").json()
        assert shown["rounds_used"] == 2 and shown["rewards"][0]["rounds_left"] == 0
        used = asyncio.run(campaign_use(served_database))[found["id"]]["EUR"]
        assert (used["rounds"], used["free_ante"], used["staked"]) == (2, 2 * ANTE, 100 + 2 * ANTE)


def last_table(player: LivePlayer) -> dict[str, Any]:
    """The newest table message the player has received."""
    return next(m for m in reversed(player.received) if m["type"] == "table")


def play_out(player: LivePlayer, clock: ManualClock, window: dict[str, Any], *, action: str) -> None:
    """Close the betting window and decide ``action`` at the flop. The table's only player has
    decided, so the point closes and the round settles at once: the clock is not moved past the
    decision's deadline, which could end the round's pause too and open the next round before
    the test chose its cards."""
    clock.reach(window)
    player.until(lambda m: m["type"] == "table" and m.get("event") == "decision"
                 and m.get("round") == window["round"])
    player.until(is_seat(lambda seat: seat["legal_actions"]))
    assert player.reply({"type": "decide", "action": action})["type"] == "you"


async def campaign_use(url: str) -> dict[str, dict[str, dict[str, int]]]:
    database = Database(url)
    try:
        return await use_of(database)
    finally:
        await database.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("rounds", [1, 2])
def test_one_free_round_bet_at_two_tables_is_played_at_one(served_database: str, tmp_path: Path,
                                                           rounds: int) -> None:
    """A reward bet at two tables in the same window: the deal that claims it first plays it; the
    other table's deal finds it claimed since its bet and seats nobody for it (told why). With
    its last round, because none is left; with rounds left too, because the cap on winnings the
    seat was given at its bet no longer holds (both seats were given the whole cap: playing both
    could win twice what the operator allowed)."""
    clock = ManualClock()
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo") as operator, \
            live_server(served_database, clock=clock, operators=parse_operators(demo_entry(operator))) \
            as (base, app):
        found, reward = campaign(base, app, f"live-once-{rounds}", rounds, ["bob"], max_win=10 * ANTE)
        casino = seated(base, app, operator, "bob", "casino-fast")
        texas = LivePlayer(base, "texas-fast", same_as=casino)
        try:
            windows = [player.until(is_table("betting_open")) for player in (casino, texas)]
            for player in (casino, texas):
                placed = player.reply({"type": "bet", "bets": {"ante": ANTE}, "free_round": reward})
                assert placed["type"] == "you" and placed["seat"]["free_round"]["reward"] == reward, placed
            for window in windows:
                clock.reach(window)
            outcomes = []
            for player, window in zip((casino, texas), windows, strict=True):
                outcomes.append(player.until(
                    lambda m, w=window: (m["type"] == "error" and m.get("error") == "free_round")
                    or (m["type"] == "table" and m.get("round") == w["round"]
                        and m.get("event") in {"decision", "no_bets"})))
        finally:
            casino.close()
            texas.close()
        refused = [m for m in outcomes if m["type"] == "error"]
        dealt = [m for m in outcomes if m["type"] == "table" and m["event"] == "decision"]
        assert len(refused) == 1 and len(dealt) == 1, outcomes
        assert refused[0]["key"] == "error.live.free_round_refused"
        shown = signed(base, app, "GET", f"/operator/v1/campaigns/{found['id']}").json()
        assert shown["rounds_used"] == 1
        assert sum(t["amount"] for t in operator.transactions("bob") if t["kind"] == "bet") == 0
        seats = asyncio.run(free_seats(served_database, reward))
        assert len(seats) == 1, seats


async def free_seats(url: str, reward: str) -> list[tuple[str, int]]:
    """The live seats played as free rounds of ``reward``."""
    database = Database(url)
    try:
        async with database.reading() as connection:
            rows = await connection.execute(select(live_seats.c.table_id, live_seats.c.number)
                                            .where(live_seats.c.promo_reward == reward))
            return [(str(table), int(number)) for table, number in rows]
    finally:
        await database.dispose()


def test_a_free_round_a_studio_misdeal_cancelled_is_given_back(served_database: str, tmp_path: Path) -> None:
    """A free round claimed at a studio table's deal, then cancelled by the dealer's misdeal (every
    stake returned): the player played nothing with it, so the reward has it back to play again."""
    clock = ManualClock()
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo") as operator, \
            live_server(served_database, clock=clock, operators=parse_operators(demo_entry(operator)),
                        extra_tables=STUDIO_TABLES) as (base, app):
        found, reward = campaign(base, app, "misdealt", 1, ["carol"])
        player = seated(base, app, operator, "carol", "studio-casino")
        dealer = StudioDealer(base, "studio-casino")
        try:
            window = player.until(is_table("betting_open"))
            placed = player.reply({"type": "bet", "bets": {"ante": ANTE}, "free_round": reward})
            assert placed["type"] == "you" and placed["seat"]["free_round"]["reward"] == reward, placed
            clock.reach(window)
            player.until(is_table("dealing"))
            shown = signed(base, app, "GET", f"/operator/v1/campaigns/{found['id']}").json()
            assert shown["rounds_used"] == 1
            assert dealer.reply({"type": "misdeal", "reason": "card exposed"})["type"] == "accepted"
            player.until(is_table("misdeal"))
            seat = player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")["seat"]
            assert seat["settlement"]["outcome"] == "misdeal"
        finally:
            player.close()
            dealer.close()
        assert signed(base, app, "GET", f"/operator/v1/campaigns/{found['id']}").json()["rounds_used"] == 0
        again = LivePlayer(base, "studio-casino", same_as=player)
        try:  # offered again when the player sits down
            offered = again.until(lambda m: m["type"] == "welcome")["free_rounds"]
        finally:
            again.close()
        assert [(o["reward"], o["rounds_left"]) for o in offered] == [(reward, 1)], offered
        assert sum(t["amount"] for t in operator.transactions("carol") if t["kind"] == "bet") == 0
