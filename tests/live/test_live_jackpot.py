"""The jackpot side bet at a live table (issue 30): the players of one table share the hand, so
two players with jackpot bets win the pool in the same round and share it as the jackpot file
says (``sharing = "equal"``: each gets the pool divided by two, rounded down to a minor unit; the
remainder stays in the pool, which is then seeded again). Each bet's stake and award are
transfers of their own in the round's ledger and its seat's record, and the pool equals its
seeds plus contributions less awards, to the cent. The cards are dealt as chosen
(``tests.support.dealing``). Both databases."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tests.jackpot.support import jackpot_file, pool_audit, pool_events
from tests.live.conftest import (
    CASINO_ALONE,
    WAIT,
    LivePlayer,
    ManualClock,
    is_table,
    live_server,
    table_entry,
)
from tests.live.studio_support import STUDIO_TABLES
from tests.live.test_live_free_rounds import SECRET, START, seated
from tests.support.dealing import Dealer
from tests.support.operator import OperatorDemo, ledger_net
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from dealerpoker.evaluator.categories import HandCategory
from dealerpoker.fairness.verify import verify_record
from dealerpoker.games.jackpot import first_five, first_five_result, load_jackpot
from dealerpoker.server.operators.config import parse_operators

ODD_SEED = """
[jackpot]
stake = 100
currency = "EUR"
pool_category = "four-of-a-kind"
contribution = "1/5"
seed = 100001
sharing = "equal"
[jackpot.awards]
full-house = 5000
"""
"""A pool a four of a kind wins, seeded at an odd amount: two winners leave a remainder of 1 cent."""


@pytest.mark.slow
def test_two_players_share_the_pool_in_one_round(served_database: str, tmp_path: Path) -> None:
    clock, dealer = ManualClock(), Dealer()
    with live_server(served_database, clock=clock, rng=dealer, tables=CASINO_ALONE,
                     jackpot_file=jackpot_file(tmp_path, ODD_SEED)) as (base, _app):
        ann = LivePlayer(base, "casino-fast")
        ben = LivePlayer(base, "casino-fast", currency="EUR")
        try:
            empty = ann.until(is_table("betting_open"))
            clock.reach(empty)  # round 1: nobody bets, the pause
            pause = ann.until(lambda m: m["type"] == "table" and m.get("round") == empty["round"]
                              and m.get("event") == "no_bets")
            bets = {"ante": 100}
            dealer.live("casino-fast", empty["number"] + 1, {ann.id: bets, ben.id: bets},
                        player="A? A?", board="A? A?")  # the first five: four aces, for both
            start = {player.id: player.balance() for player in (ann, ben)}
            clock.reach(pause)
            window = ann.until(lambda m: m["type"] == "table" and m.get("event") == "betting_open"
                               and m.get("round") != empty["round"])
            for player in (ann, ben):
                placed = player.reply({"type": "bet", "bets": bets, "jackpot": True})
                assert placed["type"] == "you" and placed["seat"]["jackpot"]["stake"] == 100, placed
                assert placed["seat"]["jackpot"]["status"] == "open"
            seeded = pool_audit(served_database).amount
            clock.reach(window)
            decision = ann.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                                 and m.get("event") == "decision")
            clock.reach(decision)  # the timer folds both: the jackpot bets stand on the first five
            ann.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                      and m.get("event") == "settled")
            headers = {"Authorization": f"Bearer {ann.token}"}
            record = httpx.get(f"{base}/api/tables/casino-fast/rounds/{window['number']}/record",
                               headers=headers, timeout=WAIT).json()
            end = {player.id: player.balance() for player in (ann, ben)}
        finally:
            ann.close()
            ben.close()
    pool = seeded + 2 * 20  # both contributions (1/5 of each stake) before the cards won it
    share, remainder = divmod(pool, 2)
    assert remainder == 1  # the odd cent stays in the pool
    for player in (ann, ben):
        assert end[player.id] - start[player.id] == -100 - 100 + share, player.id  # ante, stake, share
    (seat,) = record["seats"]  # ann's part of the round
    assert seat["jackpot"]["status"] == "won" and seat["jackpot"]["pool_award"] is True
    assert seat["jackpot"]["hand"] == "four-of-a-kind" and seat["jackpot"]["award"] == share
    assert sorted((e["txid"].rsplit(":", 1)[-1], e["amount"]) for e in seat["jackpot"]["ledger"]
                  if e["account"] == ann.id) == [("jackpot", -100), ("jackpot-award", share)]
    assert not [e for e in record["ledger"] if "jackpot" in e["txid"]]  # apart from the game's
    findings = verify_record(record)
    assert all(f.ok for f in findings), [str(f) for f in findings if not f.ok]
    events = [e for e in pool_events(served_database) if e["round_id"] == window["round"]]
    assert sorted((e["kind"], e["amount"]) for e in events) == sorted(
        [("contribution", 20), ("contribution", 20), ("award", share), ("award", share), ("seed", 100001)])
    audit = pool_audit(served_database)
    assert audit.ok and audit.amount == 100001 + remainder
    assert audit.amount == audit.seeds + audit.contributions - audit.awards


def test_a_live_jackpot_award_is_a_wallet_transaction_of_its_own(served_database: str,
                                                                  tmp_path: Path) -> None:
    """At an operator's player's seat the jackpot bet is a ``bet`` call of its own and its award a
    ``win`` call of its own (txids ``{round}:{player}:jackpot`` and ``...:jackpot-award``), against
    the reference operator as a process; the casino's balance follows both to the cent."""
    clock, dealer, path = ManualClock(), Dealer(), jackpot_file(tmp_path, ODD_SEED)
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo") as operator, \
            live_server(served_database, clock=clock, rng=dealer, tables=CASINO_ALONE, jackpot_file=path,
                        operators=parse_operators(demo_entry(operator))) as (base, app):
        cleo = seated(base, app, operator, "cleo", "casino-fast")
        try:
            empty = cleo.until(is_table("betting_open"))
            clock.reach(empty)
            pause = cleo.until(lambda m: m["type"] == "table" and m.get("round") == empty["round"]
                               and m.get("event") == "no_bets")
            rules = load_jackpot(path)  # the first five: a full house (a fixed award of 5000)
            dealer.live("casino-fast", empty["number"] + 1, {cleo.id: {"ante": 100}}, where=lambda deck:
                        first_five_result(rules, first_five(deck)).category is HandCategory.FULL_HOUSE)
            clock.reach(pause)
            window = cleo.until(lambda m: m["type"] == "table" and m.get("event") == "betting_open"
                                and m.get("round") != empty["round"])
            assert cleo.reply({"type": "bet", "bets": {"ante": 100}, "jackpot": True})["type"] == "you"
            clock.reach(window)
            clock.reach(cleo.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                                   and m.get("event") == "decision"))  # the timer folds
            cleo.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                       and m.get("event") == "settled")
        finally:
            cleo.close()
        mine = f"{window['round']}:{cleo.id}:"
        calls = until(lambda: (lambda found: found if any(t["transaction_id"] == mine + "jackpot-award"
                                                          for t in found) else None)(
            operator.transactions("cleo")), "the award reaches the operator")
        balance = operator.balance("cleo")
    by_id = {t["transaction_id"]: t for t in calls if t["applied"]}
    assert (by_id[mine + "jackpot"]["kind"], by_id[mine + "jackpot"]["amount"]) == ("bet", 100)
    assert (by_id[mine + "jackpot-award"]["kind"], by_id[mine + "jackpot-award"]["amount"]) == ("win", 5000)
    assert not by_id[mine + "jackpot-award"].get("promo_campaign")
    net = ledger_net(list(by_id.values()))
    assert net == -100 - 100 + 5000  # the ante (folded), the stake, the award
    assert balance == START + net


def test_the_welcome_says_which_tables_offer_the_jackpot_bet(tmp_path: Path) -> None:
    """The page's JACKPOT switch follows the welcome's ``jackpot``: an RNG table in a currency of
    the jackpot offers it (its stake there); a studio table does not (the server refuses the bet
    there: a misdeal would have to take its contribution back out of the shared pool), nor a
    table in a currency without a rate."""
    kronor = table_entry("sek-casino", "casino-holdem", 'currency = "SEK"')  # no rate for SEK
    euro = {"stake": 100, "currency": "EUR", "pool_category": "four-of-a-kind"}
    path = jackpot_file(tmp_path)
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=ManualClock(), jackpot_file=path,
                     extra_tables=STUDIO_TABLES + kronor) as (base, _app):
        for table, offer in (("casino-fast", euro), ("studio-casino", None), ("sek-casino", None)):
            player = LivePlayer(base, table, currency="SEK" if table == "sek-casino" else "EUR")
            try:
                welcome = player.until(lambda m: m["type"] == "welcome")
                assert welcome["jackpot"] == offer, table
                if table == "studio-casino":
                    player.until(is_table("betting_open"))
                    refused = player.reply({"type": "bet", "bets": {"ante": 100}, "jackpot": True})
                    assert (refused["type"], refused["error"]) == ("error", "jackpot_not_offered"), refused
            finally:
                player.close()
