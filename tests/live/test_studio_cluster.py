"""A studio table served by two `dealerpoker serve` processes on one PostgreSQL database and one
Redis: the dealer connected to the process that does not own the table's clock deals a round
(its reports forwarded to the owner, the owner's expect and dealer messages fanned out back).

Needs DEALERPOKER_TEST_POSTGRES_URL and DEALERPOKER_TEST_REDIS_URL (own database and key prefix).
"""

from __future__ import annotations

from pathlib import Path

from tests.live.cluster_support import CLUSTER_MARKS, two_processes
from tests.live.conftest import LivePlayer, bet_in_a_window, is_table, table_entry
from tests.live.studio_support import KEY, Dealer
from tests.support.databases import audit as audit_database
from tests.support.waiting import until

pytestmark = CLUSTER_MARKS

TABLE = table_entry("studio-shared", "casino-holdem",
                    f'dealing = "studio"\n[tables.studio]\ndealer_key = "{KEY}"\ndeal_seconds = 300')


def test_a_dealer_on_the_other_process_deals_the_round(tmp_path: Path) -> None:
    with two_processes(tmp_path, TABLE.format(betting=4, decision=300, pause=1), label="studio") as cluster:
        first, second = cluster.first, cluster.second
        cluster.clients.append(player := LivePlayer(first.base, "studio-shared"))
        player.next()  # welcome
        owner = until(lambda: cluster.lease_owner("studio-shared"),  # a process takes the clock at start
                      "a process takes the table's clock", timeout=30, interval=0.1)
        probe = Dealer(first.base, "studio-shared")
        away = second if probe.next()["process"] == owner else first
        probe.close()
        cluster.clients.append(dealer := Dealer(away.base, "studio-shared"))
        assert dealer.next()["process"] != owner  # the dealer is not on the clock's process
        start = player.balance()
        window = bet_in_a_window(player, {"ante": 100})
        for position, card in enumerate(("Ah", "Kh", "7c", "7d", "2s", "9h", "Jd")):
            expect = dealer.until(lambda m, p=position: m["type"] == "expect" and m["position"] == p)
            assert expect["round"] == window["round"]
            assert dealer.reply({"type": "card", "card": card})["type"] == "accepted"
        decision = player.until(is_table("decision"))
        assert decision["player_cards"] == ["Ah", "Kh"] and decision["board"] == ["2s", "9h", "Jd"]
        assert player.reply({"type": "decide", "action": "fold"})["type"] == "you"
        ended = dealer.until(lambda m: m["type"] == "dealer" and m["event"] == "settled")
        assert ended["last_rounds"][0]["round"] == window["round"]
        refused = dealer.reply({"type": "card", "card": "3c"})  # forwarded, refused by the owner
        assert refused["error"] == "not_expected"
        assert player.balance() == start - 100
        audit = audit_database(cluster.database)
        assert audit.ok, audit
