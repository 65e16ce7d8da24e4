"""The result says what happened in one glance (issue 28, item 9): a large "WIN €30.00" /
"LOSS €10.00" / "PUSH" in three distinct colours, the winning five cards lit on the felt, the
deciding kicker named when both hands have the same name, and the panel moves nothing (its room is
kept on the felt). Each round deals the cards it needs (tests/support/dealing.py)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import laptop_page
from tests.support.dealing import Dealer, Deck
from tests.support.servers import ThreadServer

from dealerpoker.evaluator import HandCategory
from dealerpoker.evaluator.api import HandValue, evaluate
from dealerpoker.server import Settings, create_app

pytestmark = pytest.mark.browser

RANK_WORDS = dict(zip("23456789TJQKA", ["Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine",
                                        "Ten", "Jack", "Queen", "King", "Ace"], strict=True))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Dealer]]:
    dealer = Dealer()
    database: Path = tmp_path_factory.mktemp("glance") / "web.db"
    server = ThreadServer(create_app(Settings(database_url=f"sqlite:///{database}"), rng=dealer)).start()
    yield server.url, dealer
    server.stop()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    with laptop_page(browser, timeout_ms=30_000) as opened:
        yield opened


def hands(deck: Deck) -> tuple[HandValue, HandValue]:
    board = list(deck[4:9])
    return evaluate([*deck[0:2], *board]), evaluate([*deck[2:4], *board])


def play(page: Any, served: tuple[str, Dealer], game: str, decisions: list[str],
         **cards: Any) -> dict[str, Any]:
    """One round at the solo table with the chosen cards, an Ante of €10; the settled round."""
    base, dealer = served
    page.goto(f"{base}/?lang=en#/play/{game}")
    idle = ("window.dealerpokerTable && !window.dealerpokerTable.busy"
            " && window.dealerpokerTable.balance !== null")
    page.wait_for_function(idle)
    if page.locator("#new-game").count():  # the last round still on the felt
        page.locator("#new-game").click()
        page.wait_for_function(idle)
    dealer.solo(base, page.evaluate("window.dealerpokerTable.api.token"), **cards)
    page.locator("#chip-tray .chip[data-chip='1000']").click()
    page.locator(".spot[data-field='ante']").click(position={"x": 20, "y": 40})
    page.locator("#deal").click()
    page.wait_for_function(idle)
    for action in decisions:
        page.locator(f"#controls [data-action='{action}']").click()
        page.wait_for_function(idle)
    page.locator("#result").wait_for()
    round_: dict[str, Any] = page.evaluate("window.dealerpokerTable.round")
    return round_


def euros(minor: int) -> str:
    return f"€{minor // 100:,}.{minor % 100:02d}"


def colour(page: Any) -> str:
    border: str = page.locator("#result").evaluate("r => getComputedStyle(r).borderTopColor")
    return border


def test_a_win_reads_win_and_its_amount_with_the_winning_cards_lit_and_moves_nothing(
        page: Any, served: tuple[str, Dealer]) -> None:
    def aces_beat_kings(deck: Deck) -> bool:
        player, dealer = hands(deck)
        return player > dealer and dealer.category >= HandCategory.ONE_PAIR

    page.goto(f"{served[0]}/?lang=en#/play/casino-holdem")
    page.wait_for_function("window.dealerpokerTable && !window.dealerpokerTable.busy")
    rail = page.locator(".rail").bounding_box()
    settled = play(page, served, "casino-holdem", ["raise"], player="A? A?", dealer="K? K?",
                   where=aces_beat_kings)
    settlement = settled["settlement"]
    assert settlement["outcome"] == "win" and settlement["net"] > 0
    verdict = page.locator("#result-verdict")
    assert verdict.inner_text() == f"WIN {euros(settlement['net'])}"
    assert verdict.get_attribute("data-kind") == "win"
    font = "e => parseFloat(getComputedStyle(e).fontSize)"
    assert verdict.evaluate(font) >= 1.5 * page.locator("#result-amount").evaluate(font), "large type"
    lit = page.locator(".felt .card.is-best").evaluate_all("cs => cs.map(c => c.dataset.card)")
    assert sorted(lit) == sorted(settlement["player_hand"]["best_five"]), "the five cards that won, lit"
    assert page.locator(".rail").bounding_box() == rail, "the result moved the rail"


def test_a_tie_on_the_hand_name_names_the_deciding_kicker(page: Any, served: tuple[str, Dealer]) -> None:
    def same_pair_won_on_a_kicker(deck: Deck) -> bool:
        player, dealer = hands(deck)
        return player.category == HandCategory.ONE_PAIR and player.name == dealer.name and player > dealer

    settled = play(page, served, "texas-bonus", ["bet", "check", "check"], where=same_pair_won_on_a_kicker)
    settlement = settled["settlement"]
    player, dealer = settlement["player_hand"], settlement["dealer_hand"]

    def kickers(hand: dict[str, Any]) -> list[str]:
        ranks = [card[0] for card in hand["best_five"]]
        return sorted((r for r in ranks if ranks.count(r) == 1), key="23456789TJQKA".index, reverse=True)

    pairs = zip(kickers(player), kickers(dealer), strict=True)
    decider = next(ours for ours, theirs in pairs if ours != theirs)
    expected = f"You: {player['name']}, {RANK_WORDS[decider]} kicker · Dealer: {dealer['name']}"
    assert page.locator("#result-hands").inner_text() == expected
    assert re.fullmatch(r"WIN €[\d,]+\.\d\d", page.locator("#result-verdict").inner_text())


def test_win_loss_and_push_each_have_their_own_colour(page: Any, served: tuple[str, Dealer]) -> None:
    def a_tie(deck: Deck) -> bool:
        player, dealer = hands(deck)
        return player == dealer

    colours = {}
    settled = play(page, served, "texas-bonus", ["bet", "check", "check"], where=a_tie)
    assert settled["settlement"]["net"] == 0
    assert page.locator("#result-verdict").inner_text() == "PUSH"
    assert page.locator(".felt .card.is-best").count() == 0, "nothing is lit on a push"
    colours["push"] = colour(page)
    play(page, served, "texas-bonus", ["fold"])
    assert page.locator("#result-verdict").inner_text() == "LOSS €10.00"
    # (item 12) a fold takes the Ante's chips off the felt, as at the live table
    assert page.locator(".spot[data-field='ante'] .stack").get_attribute("data-amount") == "0"
    assert page.locator("#result").get_attribute("data-kind") == "loss"
    colours["loss"] = colour(page)
    play(page, served, "casino-holdem", ["raise"], player="A? A?", dealer="2? 7?",
         where=lambda deck: hands(deck)[0] > hands(deck)[1])
    colours["win"] = colour(page)
    assert len(set(colours.values())) == 3, colours
