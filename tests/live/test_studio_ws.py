"""Studio tables over the real WebSockets: the simulated shoe deals at the dealer socket while
several players play (both games); refusals; misdeals by the dealer and by the deal timer.

The table clock is a ``ManualClock``: a timer ends only when the test moves the clock; the shoe
deals as fast as the table asks (no delay). Settlements are checked against the rules engine
replayed on the cards the shoe reported, balances against the ledger, and every message each
player received against what had been revealed when it was sent.
"""

from __future__ import annotations

import os
import random
import subprocess
from typing import Any

import pytest
from tests.live.conftest import LivePlayer, ManualClock, is_table, live_server
from tests.live.studio_support import (
    KEY,
    STUDIO_TABLES,
    Dealer,
    ShoeThread,
    assert_nothing_shown_early,
    dealt_by,
    ws_base,
)
from tests.support.databases import audit
from tests.support.servers import DEALERPOKER

from dealerpoker.cards import parse_card
from dealerpoker.cards.encoding import card_to_index
from dealerpoker.games import get_game
from dealerpoker.games.base import padded_deck
from dealerpoker.tables.shoe import Shoe, ShoeRates

# Each player's own decision at each point (a point missing: the timer's default).
SCRIPTS = {
    "studio-texas": ("texas-bonus",
                     [{"ante": 100, "bonus": 100}, {"ante": 200}, {"ante": 100, "bonus": 100}],
                     [{"preflop": "bet", "flop": "bet", "turn": "check"}, {"preflop": "fold"},
                      {"preflop": "bet"}]),
    "studio-casino": ("casino-holdem", [{"ante": 100, "aa": 100}, {"ante": 300}, {"ante": 100}],
                      [{"flop": "raise"}, {"flop": "fold"}, {}]),
}
DEFAULTS = {"texas-bonus": {"preflop": "fold", "flop": "check", "turn": "check"},
            "casino-holdem": {"flop": "fold"}}


def indices(cards: list[str]) -> tuple[int, ...]:
    return tuple(card_to_index(parse_card(card)) for card in cards)


@pytest.mark.slow
@pytest.mark.parametrize("table", ["studio-texas", "studio-casino"])
def test_a_simulated_shoe_deals_a_round_to_several_players(tmp_path, table: str) -> None:  # type: ignore[no-untyped-def]
    game_name, bets, scripts = SCRIPTS[table]
    game = get_game(game_name)
    clock = ManualClock()
    database = f"sqlite:///{tmp_path}/studio.db"
    with live_server(database, clock=clock, extra_tables=STUDIO_TABLES) as (base, _app):
        players = [LivePlayer(base, table) for _ in bets]
        # Misreads now and then (voided, then the right card), from a fixed seed.
        shoe = ShoeThread(base, table, Shoe(random.Random(20), ShoeRates(misread=0.4)))
        try:
            start = {p.id: p.balance() for p in players}
            window = players[0].until(is_table("betting_open"))
            for player, placed in zip(players, bets, strict=True):
                assert player.reply({"type": "bet", "bets": placed})["type"] == "you"
            clock.reach(window)
            assert players[0].until(is_table("dealing"))["dealing"] == "studio"
            while True:
                event = players[0].until(lambda m: is_table("decision")(m) or is_table("reveal")(m))
                if event["event"] == "reveal":
                    break
                for player, script in zip(players, scripts, strict=True):
                    if event["point"] in script:
                        decided = player.reply({"type": "decide", "action": script[event["point"]]})
                        assert decided["type"] == "you", decided
                clock.reach(event)  # whoever is left: the timer decides
            run = shoe.join()
            dealt = dealt_by(run.sent)
            assert shoe.shoe.misreads > 0 and any(m["type"] == "void" for m in run.sent)
            deck = shoe.shoe.deck(event["round"])
            assert dealt == deck[:len(dealt)] and len(dealt) == 9
            for player, placed, script in zip(players, bets, scripts, strict=True):
                settled = player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")["seat"]
                actions = [script.get(step["point"], DEFAULTS[game_name][step["point"]])
                           for step in settled["steps"]]
                assert [s["action"] for s in settled["steps"]] == actions
                expected = game.replay(placed, padded_deck(indices(dealt)), actions)[0].settlement
                assert settled["settlement"] == expected.to_dict()
                assert player.balance() == start[player.id] + expected.net
                assert_nothing_shown_early(player, event["round"], dealt)
        finally:
            for player in players:
                player.close()
    report = audit(database)
    assert report.ok, report


def test_the_dealer_socket_refuses_wrong_keys_and_tables(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    database = f"sqlite:///{tmp_path}/studio.db"
    with live_server(database, clock=clock, extra_tables=STUDIO_TABLES) as (base, _app):
        for table, key, header, code in (("studio-texas", "not-the-dealer-key-at-all", True, "unauthorized"),
                                         ("studio-texas", "not-the-dealer-key-at-all", False, "unauthorized"),
                                         ("texas-fast", "whatever-key-it-may-be", True, "not_studio"),
                                         ("no-such-table", "whatever-key-it-may-be", True, "not_found")):
            dealer = Dealer(base, table, key, header=header)
            refusal = dealer.next()
            assert (refusal["type"], refusal["error"]) == ("error", code), refusal
            with pytest.raises(Exception, match=r"4401|4404"):
                dealer.next()
        dealer = Dealer(base, "studio-texas", header=False)  # a browser: the key as the first message
        welcome = dealer.next()
        assert welcome["type"] == "welcome" and dealer.next()["type"] == "dealer"
        # The console writes amounts with the currency as GET /api/games gives it (issue 17).
        assert welcome["currency_format"] == {"code": "EUR", "exponent": 2, "symbol": None}
        dealer.close()


def test_duplicate_invalid_and_unexpected_cards_are_refused_and_change_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    clock = ManualClock()
    database = f"sqlite:///{tmp_path}/studio.db"
    with live_server(database, clock=clock, extra_tables=STUDIO_TABLES) as (base, _app):
        player = LivePlayer(base, "studio-casino")
        dealer = Dealer(base, "studio-casino")
        try:
            window = player.until(is_table("betting_open"))
            refused = dealer.reply({"type": "card", "card": "Ah"})  # betting: nothing expected yet
            assert (refused["error"], refused["type"]) == ("not_expected", "error")
            assert player.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
            clock.reach(window)
            expect = dealer.until(lambda m: m["type"] == "expect")
            assert (expect["cards"], expect["to"], expect["position"]) == (2, "player", 0)
            assert dealer.reply({"type": "card", "card": "Ah"})["type"] == "accepted"
            before = dealer.state()
            for card, code in (("Ah", "duplicate_card"), ("ah", "duplicate_card"), ("1x", "invalid_card"),
                               (7, "invalid_card"), (None, "invalid_card")):
                refused = dealer.reply({"type": "card", "card": card})
                assert (refused["type"], refused["error"]) == ("error", code), refused
            refused = dealer.reply({"type": "card", "card": "Kd", "source": "Not A Source"})
            assert refused["error"] == "bad_request"
            assert dealer.reply({"type": "shuffle"})["error"] == "bad_request"
            after = dealer.state()
            assert after["reports"] == before["reports"] and after["expect"] == before["expect"]
            assert after["deadline"] == before["deadline"]
            for card in ("Kd", "7h", "7s", "As", "7c"):
                assert dealer.reply({"type": "card", "card": card})["type"] == "accepted"
            assert dealer.reply({"type": "card", "card": "7d"})["type"] == "accepted"
            decision = player.until(lambda m: is_table("decision")(m) and len(m["board"]) == 3)
            assert decision["board"] == ["As", "7c", "7d"] and decision["dealer_cards"] == []
            refused = dealer.reply({"type": "card", "card": "Kh"})  # the players decide: nothing expected
            assert refused["error"] == "not_expected"
            assert dealer.reply({"type": "void"})["error"] == "nothing_to_void"  # shown: final
        finally:
            player.close()
            dealer.close()


def _stakes_back(tmp_path: Any, *, by_timer: bool) -> None:
    """The dealer calls a misdeal during the hole cards (every stake back, the Bonus too), or the
    deal timer runs out on the flop (every stake back, a Bonus lost on the hole cards too)."""
    clock = ManualClock()
    database = f"sqlite:///{tmp_path}/studio.db"
    with live_server(database, clock=clock, extra_tables=STUDIO_TABLES) as (base, _app):
        players = [LivePlayer(base, "studio-texas") for _ in range(2)]
        dealer = Dealer(base, "studio-texas")
        try:
            start = {p.id: p.balance() for p in players}
            window = players[0].until(is_table("betting_open"))
            players[0].reply({"type": "bet", "bets": {"ante": 100, "bonus": 100}})
            players[1].reply({"type": "bet", "bets": {"ante": 300}})
            clock.reach(window)
            for card in ("9c", "4d", "Qh") if by_timer else ("9c",):
                dealer.until(lambda m: m["type"] == "expect")
                assert dealer.reply({"type": "card", "card": card})["type"] == "accepted"
            if by_timer:
                assert dealer.reply({"type": "card", "card": "Qc"})["type"] == "accepted"
                players[0].until(is_table("decision"))
                for player in players:
                    assert player.reply({"type": "decide", "action": "bet"})["type"] == "you"
                dealing = players[0].until(is_table("dealing"))
                assert players[0].balance() == start[players[0].id] - 400  # the Bonus lost at the deal
                assert dealer.reply({"type": "card", "card": "2s"})["type"] == "accepted"
                clock.reach(dealing)  # the dealer is too slow with the flop
            else:
                assert dealer.reply({"type": "misdeal", "reason": "card exposed"})["type"] == "accepted"
            cancelled = players[0].until(is_table("misdeal"))
            assert cancelled["misdeal"]["by"] == ("timer" if by_timer else "dealer")
            assert cancelled["board"] == [] and cancelled["dealer_cards"] == []
            for player in players:
                seat = player.until(lambda m: m["type"] == "you" and m["phase"] == "pause")["seat"]
                lines = {line["field"]: line for line in seat["settlement"]["lines"]}
                assert seat["settlement"]["outcome"] == "misdeal"
                for line in lines.values():   # the Bonus lost on the hole cards 9c 4d comes back too
                    assert line["returned"] == line["stake"], line
                assert player.balance() == start[player.id]
            state = dealer.until(lambda m: m["type"] == "dealer" and m["event"] == "misdeal")
            assert state["last_rounds"][0]["status"] == "misdeal"
        finally:
            for player in players:
                player.close()
            dealer.close()
    assert audit(database).ok


def test_a_misdeal_called_by_the_dealer_returns_every_stake(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _stakes_back(tmp_path, by_timer=False)


def test_a_dealer_too_slow_for_the_deal_timer_cancels_the_round(tmp_path) -> None:  # type: ignore[no-untyped-def]
    _stakes_back(tmp_path, by_timer=True)


def test_the_shoe_command_deals_at_a_studio_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """``dealerpoker shoe`` as a user runs it: bad options exit 2; a round dealt, then it exits 0."""
    shoe_at = [DEALERPOKER, "shoe", "--table", "studio-texas", "--url"]
    bad = subprocess.run([*shoe_at, "http://x", "--key", KEY], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--url: expected ws://HOST[:PORT]" in bad.stderr
    clock = ManualClock()
    database = f"sqlite:///{tmp_path}/studio.db"
    with live_server(database, clock=clock, extra_tables=STUDIO_TABLES) as (base, _app):
        wrong = subprocess.run([*shoe_at, ws_base(base), "--key", "not-the-key-of-this-table"],
                               capture_output=True, text=True, timeout=60)
        assert wrong.returncode == 1 and "not the dealer key" in wrong.stderr
        player = LivePlayer(base, "studio-texas")
        shoe = subprocess.Popen([*shoe_at, ws_base(base), "--delay", "0", "--rounds", "1", "--seed", "3"],
                                env={**os.environ, "DEALERPOKER_DEALER_KEY": KEY},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            window = player.until(is_table("betting_open"))
            assert player.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
            clock.reach(window)
            decision = player.until(is_table("decision"))
            assert player.reply({"type": "decide", "action": "fold"})["type"] == "you"
            out, err = shoe.communicate(timeout=60)
        finally:
            player.close()
            if shoe.poll() is None:
                shoe.kill()
    assert shoe.returncode == 0, err
    dealt = [line.split("card=")[1].split()[0] for line in out.splitlines() if "card=" in line]
    assert dealt[:2] == decision["player_cards"] and len(dealt) == 4  # everyone folded: no board
    assert "studio-texas/1: settled" in out and "shoe: 1 round(s)" in out
