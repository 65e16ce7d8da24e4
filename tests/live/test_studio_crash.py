"""A `dealerpoker serve` with a studio table killed with SIGKILL while the dealer reports the hole
cards: after the restart the round resumes with the cards reported so far (the voided one too,
as voided) and the same deal deadline, and the dealer finishes it. On SQLite, and on a PostgreSQL
database of its own when ``DEALERPOKER_TEST_POSTGRES_URL`` is set.

The server runs on the real clock with long timers: nothing here waits for a timer to run out.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from tests.live.conftest import LivePlayer, ServeProcess, bet_in_a_window, is_table, table_entry
from tests.live.studio_support import KEY, Dealer
from tests.support.databases import audit

from dealerpoker.cards import parse_cards
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.games import get_game

pytestmark = pytest.mark.slow

TABLE = table_entry("studio-crash", "texas-bonus",
                    'dealing = "studio"\n[tables.studio]\n'
                    'dealer_key_env = "STUDIO_CRASH_KEY"\ndeal_seconds = 300')


def _expect(dealer: Dealer, position: int) -> dict[str, object]:
    return dealer.until(lambda m: m["type"] == "expect" and m["position"] == position)


def test_a_killed_server_resumes_the_studio_round_with_the_cards_reported(
        tmp_path: Path, served_database: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUDIO_CRASH_KEY", KEY)
    database = served_database
    tables = tmp_path / "tables.toml"
    tables.write_text(TABLE.format(betting=4, decision=300, pause=1))
    server = ServeProcess(tmp_path, database, tables, "before")
    player = LivePlayer(server.base, "studio-crash")
    dealer = Dealer(server.base, "studio-crash")
    try:
        start = player.balance()
        window = bet_in_a_window(player, {"ante": 100, "bonus": 100})
        _expect(dealer, 0)
        for card in ("As", "Kd"):
            assert dealer.reply({"type": "card", "card": card})["type"] == "accepted"
        assert dealer.reply({"type": "void"})["type"] == "accepted"  # Kd was a misread
        assert dealer.reply({"type": "card", "card": "Kh"})["type"] == "accepted"
        assert dealer.reply({"type": "card", "card": "Qs"})["type"] == "accepted"
        before = dealer.state()
        assert [(r["card"], r["voided"]) for r in before["reports"]] == [
            ("As", False), ("Kd", True), ("Kh", False), ("Qs", False)]
        server.kill()  # three cards in, one voided; the dealer's fourth card has not come
        server.stop()
        dealer.close()
        player.close()

        server = ServeProcess(tmp_path, database, tables, "after")
        dealer = Dealer(server.base, "studio-crash")
        assert dealer.next()["type"] == "welcome"
        # The state on connecting, or (while the restarted server still resumes the table) the
        # dealer message of its resumption.
        resumed = dealer.until(lambda m: m["type"] == "dealer" and m["round"] == window["round"])
        assert resumed["reports"] == before["reports"] and resumed["deadline"] == before["deadline"]
        assert resumed["expect"] == {"cards": 1, "to": "dealer", "street": "hole", "position": 3}
        player = LivePlayer(server.base, "studio-crash", same_as=player)
        state = player.until(lambda m: m["type"] == "table" and m.get("round") == window["round"])
        assert state["phase"] == "dealing" and state["deadline"] == before["deadline"]
        assert state["player_cards"] == [] and state["dealer_cards"] == []
        assert player.balance() == start - 200  # debited once, before the first card
        assert dealer.reply({"type": "card", "card": "Qd"})["type"] == "accepted"
        decision = player.until(is_table("decision"))
        assert decision["player_cards"] == ["As", "Kh"] and decision["dealer_cards"] == []
        assert player.balance() == start - 200 + 1600  # A-K offsuit: the Bonus pays 15 to 1 at once
        assert player.reply({"type": "decide", "action": "bet"})["type"] == "you"
        for position, cards in ((4, "2c 7d 9h"), (7, "Js"), (8, "3s")):
            _expect(dealer, position)
            for card in cards.split():
                assert dealer.reply({"type": "card", "card": card})["type"] == "accepted"
            if position < 8:
                point = "flop" if position == 4 else "turn"
                player.until(lambda m, p=point: is_table("decision")(m) and m["point"] == p)
                assert player.reply({"type": "decide", "action": "check"})["type"] == "you"
        settled = player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")["seat"]
        deck = [card_to_index(c) for c in parse_cards("As Kh Qs Qd 2c 7d 9h Js 3s")]
        expected = get_game("texas-bonus").replay({"ante": 100, "bonus": 100}, deck,
                                                  ["bet", "check", "check"])[0].settlement
        assert settled["settlement"] == expected.to_dict()
        assert player.balance() == start + expected.net
    finally:
        player.close()
        dealer.close()
        server.stop()
    assert audit(database).ok
    from dealerpoker.fairness.verify import verify_record
    from dealerpoker.server.live.audit import settled_live_records

    (record,) = [r for r in asyncio.run(settled_live_records(database, "2000-01-01"))
                 if r["round_id"] == window["round"]]
    assert [f for f in verify_record(record) if not f.ok] == []
    assert [(c["card"], c["voided_at"] is not None) for c in record["cards"]] == [
        ("As", False), ("Kd", True), ("Kh", False), ("Qs", False), ("Qd", False), ("2c", False),
        ("7d", False), ("9h", False), ("Js", False), ("3s", False)]
