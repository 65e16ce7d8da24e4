"""A studio table served by two `dealerpoker serve` processes on one PostgreSQL database and one
Redis: the dealer connected to the process that does not own the table's clock deals a round
(its reports forwarded to the owner, the owner's expect and dealer messages fanned out back).

Needs DEALERPOKER_TEST_POSTGRES_URL and DEALERPOKER_TEST_REDIS_URL (own database and key prefix).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.live.conftest import LivePlayer, ServeProcess, bet_in_a_window, is_table, table_entry
from tests.live.studio_support import KEY, Dealer
from tests.live.test_cluster import REDIS_URL, _cleanup, _lease_owner
from tests.support.databases import NO_POSTGRES, POSTGRES_URL, fresh_database
from tests.support.databases import audit as audit_database

pytestmark = [
    pytest.mark.postgres, pytest.mark.redis, pytest.mark.slow,
    pytest.mark.skipif(not POSTGRES_URL, reason=NO_POSTGRES),
    pytest.mark.skipif(not REDIS_URL, reason="Redis: DEALERPOKER_TEST_REDIS_URL is not set"),
]

TABLE = table_entry("studio-shared", "casino-holdem",
                    f'dealing = "studio"\n[tables.studio]\ndealer_key = "{KEY}"\ndeal_seconds = 300')


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database("studio") as url:
        yield url


def test_a_dealer_on_the_other_process_deals_the_round(tmp_path: Path, database: str) -> None:
    prefix = f"dptest:{secrets.token_hex(6)}:"
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLE.format(betting=4, decision=300, pause=1))
    first = ServeProcess(tmp_path, database, tables, "first", redis=REDIS_URL, prefix=prefix)
    second = ServeProcess(tmp_path, database, tables, "second", redis=REDIS_URL, prefix=prefix)
    player: LivePlayer | None = None
    dealer: Dealer | None = None
    try:
        player = LivePlayer(first.base, "studio-shared")
        player.next()  # welcome
        deadline = time.monotonic() + 30
        while not (owner := _lease_owner(prefix, "studio-shared")):  # a process takes the clock at start
            assert time.monotonic() < deadline, "no process took the table's clock"
            time.sleep(0.1)
        probe = Dealer(first.base, "studio-shared")
        away = second if probe.next()["process"] == owner else first
        probe.close()
        dealer = Dealer(away.base, "studio-shared")
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
        audit = audit_database(database)
        assert audit.ok, audit
    finally:
        for client in (player, dealer):
            if client is not None:
                client.close()
        first.stop()
        second.stop()
        _cleanup(prefix)
