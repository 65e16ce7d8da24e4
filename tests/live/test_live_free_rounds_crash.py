"""A live free round (issue 30) across a kill -9: `dealerpoker serve` as a process, the reference
operator as another. The server is killed after the deal (the free round claimed, the player's
own bet debited at the operator) and before the settlement; restarted on the same database, it
resumes the round and settles it once: the reward's ``rounds_used`` moved on once, the
operator's ledger holds the player's own bets and one closing win flagged promotional (campaign
and reward), no transaction twice, and the seat's signed record verifies. Both databases.

The server runs on the real clock with a long decision timer, so nothing waits for a timer to
run out under load; the cards are whatever the shuffle deals (every outcome is checked alike).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from tests.live.conftest import FAST_TABLES, WAIT, LivePlayer, ServeProcess, bet_in_a_window, is_seat
from tests.live.test_live_free_rounds import ANTE, SECRET, START, campaign, free_seats, seated, signed
from tests.support.databases import audit
from tests.support.operator import OperatorDemo, ledger_net
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from dealerpoker.fairness.signature import public_key_from_text
from dealerpoker.fairness.verify import verify_record

pytestmark = pytest.mark.slow

OWN = {"aa": 100}  # the player's own bet beside the free ante


def test_a_free_round_killed_between_its_deal_and_its_settlement_settles_once(
        tmp_path: Path, served_database: str) -> None:
    database = served_database
    tables = tmp_path / "tables.toml"
    tables.write_text(FAST_TABLES.format(betting=4, decision=60, pause=1))
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo") as operator:
        operators = tmp_path / "operators.toml"
        operators.write_text(demo_entry(operator))
        serve = ("--operators", str(operators))
        server = ServeProcess(tmp_path, database, tables, "before", extra=serve)
        player = None
        try:
            found, reward = campaign(server.base, None, "crash-free", 1, ["dora"])
            player = seated(server.base, None, operator, "dora", "casino-fast")
            window = bet_in_a_window(player, OWN, free_round=reward)
            dealt = player.until(lambda m: is_seat(lambda seat: seat["legal_actions"])(m)
                                 and m["round"] == window["round"])
            assert dealt["seat"]["free_round"]["reward"] == reward
            assert dealt["seat"]["bets"] == {"ante": ANTE, **OWN}
            # The deal's commit is behind us: the reward claimed, the player's own bet debited.
            shown = signed(server.base, None, "GET", f"/operator/v1/campaigns/{found['id']}").json()
            assert shown["rounds_used"] == 1
            before = operator.transactions("dora")
            assert [(t["kind"], t["amount"]) for t in before if t["applied"]] == [("bet", 100)]
            player.close()
            server.kill()  # in the middle of the decision (its timer has a minute to run)
            server.stop()

            server = ServeProcess(tmp_path, database, tables, "after", extra=serve)
            player = LivePlayer(server.base, "casino-fast", same_as=player)
            resumed = player.until(lambda m: is_seat(lambda seat: seat["legal_actions"])(m)
                                   and m["round"] == window["round"])
            assert resumed["seat"]["free_round"] == dealt["seat"]["free_round"]
            assert player.reply({"type": "decide", "action": "call"})["type"] == "you"  # 2 x ante, own money
            mine = player.until(lambda m: m["type"] == "you" and m.get("round") == window["round"]
                                and m["phase"] == "pause")
            shown = signed(server.base, None, "GET", f"/operator/v1/campaigns/{found['id']}").json()
            record = httpx.get(f"{server.base}/api/tables/casino-fast/rounds/{window['number']}/record",
                               headers=player.headers, timeout=WAIT).json()  # the seat's, signed
            key = public_key_from_text(httpx.get(f"{server.base}/api/fairness/public-key", timeout=WAIT).text)
        finally:
            if player is not None:
                player.close()
            server.stop()
        assert shown["rounds_used"] == 1 and shown["rewards"][0]["rounds_left"] == 0  # moved on once
        round_id = window["round"]
        # The settlement's win reaches the operator through the outbox, once.
        calls = until(lambda: (lambda found: found if any(
            t["kind"] == "win" and t["round_closed"] and t["round_id"] == round_id for t in found) else None)(
            operator.transactions("dora")), "the free round's win reaches the operator")
        balance = operator.balance("dora")
    applied = [t for t in calls if t["applied"]]
    assert len({t["transaction_id"] for t in applied}) == len(applied)  # nothing moved twice
    bets = [t for t in applied if t["kind"] == "bet"]
    assert sorted(t["amount"] for t in bets) == [100, 2 * ANTE]  # the AA, the call: never the free ante
    wins = [t for t in applied if t["kind"] == "win"]
    assert all(t["round_id"] == round_id for t in applied)
    assert [t["round_closed"] for t in wins].count(True) == 1, wins
    assert all(t["promo_campaign"] == found["id"] and t["promo_reward"] == reward for t in wins), wins
    assert sum(t["amount"] for t in wins) == mine["seat"]["credited"]
    assert balance == START + ledger_net(calls)
    assert len(asyncio.run(free_seats(database, reward))) == 1  # one seat played the reward
    (seat,) = record["seats"]
    assert seat["promo"] == {"campaign": found["id"], "reward": reward, "free_ante": ANTE, "forfeited": 0}
    assert seat["total_stake"] == 100 + 2 * ANTE and seat["total_returned"] == mine["seat"]["credited"]
    findings = verify_record(record, public_key=key)  # written across the restart, signed after it
    assert all(f.ok for f in findings), [str(f) for f in findings if not f.ok]
    assert any(f.subject == f"seats[{player.id}].promo" and f.ok for f in findings)
    report = audit(database)
    assert report.ok, report
