"""The live jackpot bet (issue 30) across a kill -9: `dealerpoker serve` as a process, killed after
the deal (the ante, the jackpot stake and the pool's contribution committed) and before the
settlement; restarted on the same database, it settles the round once: the stake debited once,
the award credited once, and the pool exactly its seed plus the contribution less its awards, in
the database and at ``GET /api/jackpot``; the seat's signed record verifies. Both databases.

A served process deals at random (``serve`` offers no chosen cards), so the jackpot file pays
every first five a known amount: a fixed award for each hand below the pool's (a royal flush),
which the test reads off the hand and flop it is shown before the kill (a casino hold'em table
shows the first five at its decision). The settlement's award is therefore always paid across
the restart, and its amount known beforehand; a royal flush, should the shuffle deal one, is
checked as the pool it wins.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tests.jackpot.support import jackpot_file, pool_audit, pool_events
from tests.live.conftest import FAST_TABLES, WAIT, LivePlayer, ServeProcess, bet_in_a_window, is_seat
from tests.support.databases import audit, entries_of

from dealerpoker.cards import parse_cards
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.fairness.signature import public_key_from_text
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games.jackpot import first_five_result, load_jackpot

pytestmark = pytest.mark.slow

SEED, STAKE, CONTRIBUTION, ANTE = 100_000, 100, 20, 100
EVERY_HAND_PAID = f"""
[jackpot]
stake = {STAKE}
currency = "EUR"
pool_category = "royal-flush"
contribution = "1/5"
seed = {SEED}
sharing = "equal"
[jackpot.awards]
straight-flush = 9000
four-of-a-kind = 8000
full-house = 7000
flush = 6000
straight = 5000
three-of-a-kind = 4000
two-pair = 3000
one-pair = 2000
high-card = 1000
"""


def pool_shown(base: str) -> int:
    amount: int = httpx.get(f"{base}/api/jackpot", timeout=WAIT).json()["pool"]
    return amount


def test_a_jackpot_bet_killed_between_its_deal_and_its_settlement_settles_once(
        tmp_path: Path, served_database: str) -> None:
    database, path = served_database, jackpot_file(tmp_path, EVERY_HAND_PAID)
    rules = load_jackpot(path)
    tables = tmp_path / "tables.toml"
    tables.write_text(FAST_TABLES.format(betting=4, decision=60, pause=1))
    serve = ("--jackpot", path)
    server = ServeProcess(tmp_path, database, tables, "before", extra=serve)
    player = LivePlayer(server.base, "casino-fast", currency="EUR")
    try:
        start = player.balance()
        assert pool_shown(server.base) == SEED
        window = bet_in_a_window(player, {"ante": ANTE}, jackpot=True)
        decision = player.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                                and m.get("event") == "decision")
        player.until(lambda m: is_seat(lambda seat: seat["legal_actions"])(m)
                     and m["round"] == window["round"])
        five = [card_to_index(card) for card in parse_cards(" ".join(decision["player_cards"]
                                                                      + decision["board"][:3]))]
        known = first_five_result(rules, five)  # what the settlement must pay
        # The deal's commit: the ante and the stake debited, the contribution in the pool.
        assert player.balance() == start - ANTE - STAKE
        assert pool_shown(server.base) == SEED + CONTRIBUTION
        player.close()
        server.kill()  # in the middle of the decision (its timer has a minute to run)
        server.stop()
        assert pool_audit(database).amount == SEED + CONTRIBUTION  # nothing of the settlement yet

        server = ServeProcess(tmp_path, database, tables, "after", extra=serve)
        player = LivePlayer(server.base, "casino-fast", same_as=player)
        player.until(lambda m: is_seat(lambda seat: seat["legal_actions"])(m)
                     and m["round"] == window["round"])
        assert player.reply({"type": "decide", "action": "fold"})["type"] == "you"
        mine = player.until(lambda m: m["type"] == "you" and m.get("round") == window["round"]
                            and m["phase"] == "pause")
        end, pool_after = player.balance(), pool_shown(server.base)
        record = httpx.get(f"{server.base}/api/tables/casino-fast/rounds/{window['number']}/record",
                           headers=player.headers, timeout=WAIT).json()  # the seat's, signed
        key = public_key_from_text(httpx.get(f"{server.base}/api/fairness/public-key", timeout=WAIT).text)
    finally:
        player.close()
        server.stop()
    award = SEED + CONTRIBUTION if known.wins_pool else known.award
    jackpot = mine["seat"]["jackpot"]
    assert (jackpot["status"], jackpot["award"], jackpot["pool_award"]) == ("won", award, known.wins_pool)
    assert end == start - ANTE - STAKE + award  # the folded ante, the stake once, the award once
    pool = SEED + CONTRIBUTION - (award if known.wins_pool else 0) + (SEED if known.wins_pool else 0)
    found = pool_audit(database)
    assert found.ok and found.amount == pool == pool_after
    assert found.amount == found.seeds + found.contributions - found.awards
    assert found.contributions == CONTRIBUTION
    events = sorted((e["kind"], e["amount"]) for e in pool_events(database)
                    if e["round_id"] == window["round"])
    assert events == (sorted([("award", award), ("contribution", CONTRIBUTION), ("seed", SEED)])
                      if known.wins_pool else [("award", 0), ("contribution", CONTRIBUTION)])
    entries = entries_of(database, [player.id])[player.id]
    posted = [(txid.rsplit(":", 1)[1], amount) for txid, amount in entries
              if txid.startswith(f"{window['round']}:")]
    assert sorted(posted) == sorted([("bets", -ANTE), ("jackpot", -STAKE), ("jackpot-award", award)]), posted
    (seat,) = record["seats"]  # written across the restart, signed after it
    assert seat["jackpot"]["status"] == "won" and seat["jackpot"]["award"] == award
    assert sorted((e["txid"].rsplit(":", 1)[-1], e["amount"]) for e in seat["jackpot"]["ledger"]
                  if e["account"] == player.id) == [("jackpot", -STAKE), ("jackpot-award", award)]
    findings = verify_record(record, public_key=key)
    assert all(f.ok for f in findings), [str(f) for f in findings if not f.ok]
    report = audit(database)
    assert report.ok, report
