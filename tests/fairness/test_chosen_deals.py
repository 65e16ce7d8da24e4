"""The tests' way to deal chosen cards (``tests/support/dealing.py``) really deals them, through
the provably fair path: the decks it finds are ``deck_order`` of its seeds, and a solo round and
a live RNG round dealt with it carry those cards in records that ``dealerpoker verify`` accepts."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from tests.live.conftest import CASINO_ALONE, LivePlayer, ManualClock, is_table, live_server
from tests.server.conftest import Player, make_client
from tests.support.dealing import Dealer, find_client_seed, find_server_seed, wanted

from dealerpoker.cards.encoding import indices_from_text
from dealerpoker.fairness import deck_order
from dealerpoker.fairness.verify import verify_record

SEED = "5e" * 32


@pytest.mark.parametrize("wish", [
    {"player": "As Ad"},
    {"player": "A? K?", "dealer": "2c"},
    {"dealer": "5? 5?", "board": "?h ?h ?h"},
    {"board": "?? ?? ?? Kd"},
])
def test_the_chosen_cards_are_where_they_were_asked_for(wish: dict[str, str]) -> None:
    for deal in (find_client_seed(SEED, 7, wanted(**wish)), find_server_seed("my seed", 7, wanted(**wish))):
        assert deal.deck == deck_order(deal.server_seed, deal.client_seed, 7)
        for slot, text in wish.items():
            for token, card in zip(text.split(), deal.cards(slot).split(), strict=False):
                rank, suit = token[0], token[1]
                assert rank in {"?", card[0]} and suit in {"?", card[1]}, (slot, text, deal.cards(slot))


def test_where_holds_on_the_whole_deck() -> None:
    two_on_the_river = wanted(player="Kh", where=lambda deck: deck[8] < 4)
    deal = find_client_seed(SEED, 0, two_on_the_river)
    assert deal.deck[0] == indices_from_text("Kh")[0] and deal.cards("board").split()[-1][0] == "2"


@pytest.mark.parametrize(("wish", "message"), [
    ({"player": "As As"}, "asked for twice"),
    ({"player": "As Ad", "dealer": "5c 5d"}, "name fewer exact cards"),
    ({"dealer": "5c 5d 5h"}, "dealer has 2 cards"),
    ({"board": "Zz"}, "invalid card pattern 'Zz'"),
])
def test_impossible_or_too_rare_wishes_are_refused_at_once(wish: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        wanted(**wish)


def test_a_solo_round_deals_the_chosen_cards_and_its_record_verifies() -> None:
    dealer = Dealer()
    with make_client("sqlite://", rng=dealer) as client:
        player = Player(client)
        deal = dealer.solo(client, player.token, player="As Ad", dealer="5?")
        view = player.open("texas-bonus", ante=100, bonus=100)
        assert view["player_cards"] == ["As", "Ad"]
        view = player.act(view["id"], "fold")
        assert view["status"] == "settled"
        record = player.get(f"/api/rounds/{view['id']}/record").json()
    assert record["dealt"]["player"] == ["As", "Ad"]
    assert record["dealt"]["dealer"] == deal.cards("dealer").split()
    assert record["fairness"]["client_seed"] == deal.client_seed
    assert [str(f) for f in verify_record(record) if not f.ok] == []


def test_the_generator_chooses_a_whole_solo_round_its_id_and_seeds_included() -> None:
    def play(seed: int) -> tuple[str, dict[str, object], dict[str, object]]:
        with make_client("sqlite://", rng=Dealer(seed)) as client:
            player = Player(client)
            view = player.open("texas-bonus", ante=100)
            player.act(view["id"], "fold")
            record = player.get(f"/api/rounds/{view['id']}/record").json()
        return view["id"], record["fairness"], record["dealt"]

    first = play(11)
    assert play(11) == first  # the round id, client seed, server seed and cards all repeat
    again = play(12)
    assert again[0] != first[0] and again[1]["client_seed"] != first[1]["client_seed"]


@pytest.mark.slow
def test_a_live_rng_round_deals_the_chosen_cards_and_its_record_verifies(tmp_path: Path) -> None:
    dealer, clock = Dealer(), ManualClock()
    with live_server(f"sqlite:///{tmp_path}/live.db", clock=clock, rng=dealer,
                     tables=CASINO_ALONE) as (base, _app):
        player = LivePlayer(base, "casino-fast")
        first = player.until(is_table("betting_open"))  # drawn before the test could choose
        bets = {"ante": 100}
        deal = dealer.live("casino-fast", first["number"] + 1, {player.id: bets},
                           player="Qs Qd", board="Qh")
        clock.reach(first)                                    # no bets: nothing dealt
        pause = player.until(is_table("no_bets"))
        clock.reach(pause)
        window = player.until(is_table("betting_open"))
        assert window["number"] == first["number"] + 1
        assert player.reply({"type": "bet", "bets": bets})["seat"] is not None
        clock.reach(window)
        assert player.until(is_table("decision"))["player_cards"] == ["Qs", "Qd"]
        player.reply({"type": "decide", "action": "fold"})
        player.until(is_table("settled"))
        record = httpx.get(f"{base}/api/tables/casino-fast/rounds/{window['number']}/record",
                           headers=player.headers, timeout=60).json()
        player.close()
    assert record["deck"][:9] == list(deal.deck[:9])
    assert [str(f) for f in verify_record(record) if not f.ok] == []
