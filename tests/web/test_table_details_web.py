"""Issue 16 on the solo table, in Chromium at 1280 px and 375 px: each test is named after the
issue's item it shows (the live page's items are in tests/live/test_live_table_details_web.py).

Every page here also fails its test on a console error, not only on an uncaught exception.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.conftest import ManualClock
from tests.live.conftest import live_server as serving_live_tables
from tests.support.browser import open_lobby
from tests.support.dealing import Dealer, Deck, dealer_has_no_pair, dealer_wins, player_wins

from dealerpoker.cards import parse_cards
from dealerpoker.evaluator.api import evaluate
from dealerpoker.evaluator.categories import HandCategory

from .test_web_table import Table
from .web_support import LiveServer

pytestmark = pytest.mark.browser

WIDTHS = [1280, 375]


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """The server as `serve` runs it: solo games and live tables (whose clock stands still here),
    so the lobby lists both kinds."""
    database = tmp_path_factory.mktemp("table-details") / "web.db"
    dealer = Dealer()
    with serving_live_tables(f"sqlite:///{database}", clock=ManualClock(), rng=dealer) as (base, _app):
        yield LiveServer(base, server=None, dealer=dealer)  # type: ignore[arg-type]  # stopped by the context


@pytest.fixture(params=WIDTHS, ids=lambda w: f"{w}px")
def page(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A page at the given width whose console errors and page errors fail the test."""
    errors: list[str] = []
    context = browser.new_context(viewport={"width": request.param, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda message: errors.append(f"{message.text} ({message.location.get('url')})")
            if message.type == "error" else None)
    page.set_default_timeout(int(os.environ.get("DEALERPOKER_BROWSER_TIMEOUT_MS", "15000")))
    yield page
    context.close()
    assert not errors, f"errors on the page: {errors}"


def _settled_round(server: LiveServer, table: Table) -> dict[str, Any]:
    rounds: list[dict[str, Any]] = server.api("GET", "/api/rounds", table.token,
                                              params={"status": "settled", "limit": 1})["rounds"]
    return rounds[0]


def _expected_headline(settlement: dict[str, Any], sides: set[str]) -> str:
    """The headline from the money, written out again here (a second implementation)."""
    side = [line for line in settlement["lines"] if line["field"] in sides and line["stake"] > 0]
    title = {"aa": "AA", "bonus": "Bonus"}
    if not side:
        return {"win": "You win", "lose": "Dealer wins", "tie": "Push — bets returned",
                "fold": "You folded"}[settlement["outcome"]]
    parts = [{"win": "You win the hand", "lose": "You lose the hand", "tie": "Push on the main bets",
              "fold": "You folded"}[settlement["outcome"]]]
    for line in side:
        net = line["net"]
        parts.append(f"{title[line['field']]} wins €{net // 100:,}.{net % 100:02d}" if net > 0
                     else f"{title[line['field']]} lost" if net < 0 else f"{title[line['field']]} returned")
    return "; ".join(parts)


def test_stack_pickup_follows_the_pointer_and_right_click_removes_it(page: Any,
                                                                            live_server: LiveServer) -> None:
    table = Table(page, live_server).open("texas-bonus")
    help_text = page.locator("#table-help").inner_text()
    assert "lift" in help_text and "empty area" in help_text, "the on-page help tells adding from lifting"
    table.select(500)
    table.place("ante", 2)
    table.select(100)
    table.place("ante")
    table.place("bonus")
    assert table.amount("ante") == 1100 and table.amount("bonus") == 100

    # A click on the stack's chips lifts it: it follows the pointer, no chip is added.
    page.locator("[data-spot='ante'] .stack .chip").last.click()
    lifted = page.locator(".lifted-stack")
    assert lifted.is_visible() and lifted.get_attribute("data-field") == "ante"
    assert table.amount("ante") == 1100
    page.mouse.move(60, 40)
    page.wait_for_function("document.querySelector('.lifted-stack').dataset.x === '60'")
    assert lifted.get_attribute("data-y") == "40"
    assert lifted.locator(".chip").count() == 2, "the lifted stack is the field's: 10.00 and 1.00"

    # Esc puts it back; a left click on its own field puts it back without adding a chip.
    page.keyboard.press("Escape")
    assert lifted.is_hidden() and table.amount("ante") == 1100
    page.locator("[data-spot='ante'] .stack .chip").first.click()
    assert lifted.is_visible()
    table.place("ante")
    assert lifted.is_hidden() and table.amount("ante") == 1100, "the click on its field put it back"
    assert "put back" in table.message()

    # The field's empty area still adds a chip.
    table.place("ante")
    assert table.amount("ante") == 1200

    # Lifted, then a right click off the table: every chip of the field goes (and the Bonus,
    # which needs the Ante).
    page.locator("[data-spot='ante'] .stack .chip").first.click()
    page.locator("#lobby-link").click(button="right")
    assert lifted.is_hidden()
    assert table.amount("ante") == 0 and table.amount("bonus") == 0
    assert table.shown("total-bet") == 0
    assert page.url.endswith("#/play/texas-bonus"), "the right click did nothing else"

    # Casino Hold'em's rule page: every click on a field adds a chip, on its chips too.
    casino = Table(page, live_server).open("casino-holdem")
    casino.select(100)
    casino.place("ante")
    page.locator("[data-spot='ante'] .stack .chip").first.click(force=True)
    assert casino.amount("ante") == 200 and page.locator(".lifted-stack").is_hidden()
    assert "Ctrl" in page.locator("#table-help").inner_text()


def test_selected_chip_follows_the_mouse_over_the_felt(page: Any, live_server: LiveServer) -> None:
    table = Table(page, live_server).open("casino-holdem")
    follower = page.locator(".pointer-chip")
    table.select(500)
    felt = page.locator(".felt").bounding_box()
    # Whole pixels: the page rounds the pointer's position as JavaScript does (158.5 -> 159), Python
    # as a banker would (158.5 -> 158); a layout with a half-pixel felt must not make them differ.
    x, y = round(felt["x"] + felt["width"] * 0.3), round(felt["y"] + 30)
    page.mouse.move(x, y)
    follower.wait_for(state="visible")
    assert follower.locator(".chip").get_attribute("data-chip") == "500"
    at = (int(follower.get_attribute("data-x")), int(follower.get_attribute("data-y")))
    assert at == (x, y)
    page.keyboard.press("1")
    page.mouse.move(x + 10, y + 5)
    page.wait_for_function("document.querySelector('.pointer-chip .chip')?.dataset.chip === '100'")
    # Off the felt (the rail) it is not drawn; nor while the round is in play.
    rail = page.locator(".rail").bounding_box()
    page.mouse.move(rail["x"] + 5, rail["y"] + 5)
    assert follower.is_hidden()
    table.place("ante")
    table.deal()
    page.mouse.move(x, y)
    page.mouse.move(x + 3, y + 3)
    assert follower.is_hidden()


def test_dealer_qualification_is_stated_either_way(page: Any, live_server: LiveServer) -> None:
    table = Table(page, live_server).open("casino-holdem")
    table.select(100)
    table.place("ante")
    for index, (deal, qualifies) in enumerate([({"dealer": "A? A?"}, True),  # a pair of Aces at least
                                                 ({"where": dealer_has_no_pair}, False)]):
        live_server.dealer.solo(live_server.url, table.token, **deal)  # type: ignore[arg-type]
        if index:
            page.locator("#rebet").click()
            table.idle()
        else:
            table.deal()
        table.act("raise")
        settlement = _settled_round(live_server, table)["settlement"]
        assert settlement["dealer_qualifies"] is qualifies
        shown = page.locator("#dealer-qualification").inner_text()
        if qualifies:
            assert shown == f"Dealer qualifies with {settlement['dealer_hand']['name']}"
        else:
            assert shown == "Dealer does not qualify"
    table.assert_balance_matches_ledger()
    # A fold ends the round before the reveal: nothing is said about the dealer.
    page.locator("#rebet").click()
    table.idle()
    table.act("fold")
    assert page.locator("#dealer-qualification").count() == 0


def test_hand_ranking_in_the_rules_panel(page: Any, live_server: LiveServer) -> None:
    for game in ("texas-bonus", "casino-holdem"):
        Table(page, live_server).open(game)
        page.locator("#rules-button").click()
        ranking = page.locator("#rules-panel #hand-ranking")
        ranking.wait_for()
        rows = ranking.locator("tbody tr")
        slugs = rows.evaluate_all("rows => rows.map(r => r.dataset.category)")
        assert slugs == ["royal-flush", "straight-flush", "four-of-a-kind", "full-house", "flush", "straight",
                         "three-of-a-kind", "two-pair", "one-pair", "high-card"]
        names = rows.locator("th").evaluate_all("cells => cells.map(c => c.textContent)")
        assert names[0] == "Royal Flush" and names[-1] == "High Card"
        # Every sample is the hand it illustrates, by the server's own evaluator.
        samples = ranking.locator("[data-sample]").evaluate_all("els => els.map(e => e.dataset.sample)")
        for slug, sample in zip(slugs, samples, strict=True):
            assert evaluate(parse_cards(sample)).category.slug == slug, sample
        assert ranking.locator(".card").count() == 50
        assert page.evaluate("document.documentElement.scrollWidth") <= page.viewport_size["width"]
        page.keyboard.press("Escape")


def _no_aa(deck: Deck) -> bool:
    """The AA bet loses: the player's first five cards (hole cards and flop) make no pair."""
    return evaluate([*deck[:2], *deck[4:7]]).category is HandCategory.HIGH_CARD


def test_headline_agrees_with_the_money(page: Any, live_server: LiveServer) -> None:
    table = Table(page, live_server).open("casino-holdem")
    table.select(100)
    table.place("ante")
    table.place("aa")
    deals: list[tuple[str, dict[str, Any], tuple[str, int]]] = [
        ("fold", {}, ("fold", -1)),                                        # a fold loses the AA too
        ("raise", {"player": "A? A?", "where": player_wins}, ("win", 1)),  # Aces win the AA
        ("raise", {"dealer": "K? K?", "where": lambda d: dealer_wins(d) and _no_aa(d)}, ("lose", -1)),
    ]
    for index, (action, deal, expected) in enumerate(deals):
        live_server.dealer.solo(live_server.url, table.token, **deal)
        if index:
            page.locator("#rebet").click()
            table.idle()
        else:
            table.deal()
        table.act(action)
        settlement = _settled_round(live_server, table)["settlement"]
        headline = page.locator("#result-headline").inner_text()
        assert headline == _expected_headline(settlement, {"aa"})
        aa = next(line for line in settlement["lines"] if line["field"] == "aa")
        assert (settlement["outcome"], (aa["net"] > 0) - (aa["net"] < 0)) == expected
    # Without a side bet the short headlines stay.
    page.locator("#new-game").click()
    table.place("ante")
    table.deal()
    table.act("fold")
    assert page.locator("#result-headline").inner_text() == "You folded"
    table.assert_balance_matches_ledger()


def test_last_win_counts_the_bonus_paid_at_the_deal(page: Any, live_server: LiveServer) -> None:
    table = Table(page, live_server).open("texas-bonus")
    table.select(100)
    table.place("ante")
    table.place("bonus")
    live_server.dealer.solo(live_server.url, table.token, player="A? A?")  # the Bonus pays on Aces
    table.deal()
    round_id = page.evaluate("window.dealerpokerTable.round.id")
    view = live_server.api("GET", f"/api/rounds/{round_id}", table.token)
    assert view["bonus"]["returned"] > 0
    assert table.shown("last-win") == view["bonus"]["returned"], "the Bonus paid at the deal counts"
    table.act("fold")
    settled = _settled_round(live_server, table)["settlement"]
    assert table.shown("last-win") == settled["total_returned"] == view["bonus"]["returned"]
    table.assert_balance_matches_ledger()


def test_refused_border_clears_once_fixed(page: Any, live_server: LiveServer) -> None:
    table = Table(page, live_server).open("texas-bonus")

    def refused(field: str) -> bool:
        return bool(table.spot(field).evaluate("s => s.classList.contains('is-refused')"))

    table.select(100)
    table.place("bonus")                                   # closed: no Ante yet
    assert refused("bonus") and "Bonus is closed: place Ante first" in table.message()
    table.place("ante")
    assert not refused("bonus"), "the Bonus opened: its red border goes"
    page.locator("#clear").click()
    page.locator("#deal").click()                          # no Ante
    assert refused("ante")
    table.place("ante")
    assert not refused("ante")
    # A chip over the maximum: the border stays until the bets change.
    games = live_server.api("GET", "/api/games", table.token)["games"]
    bonus_max = next(f for f in next(g for g in games if g["id"] == "texas-bonus")["fields"]
                     if f["name"] == "bonus")["max"]
    page.evaluate("top => { const t = window.dealerpokerTable; t.pending.bonus = top; t.render(); }",
                  bonus_max)
    table.place("bonus")
    assert refused("bonus")
    table.spot("bonus").click(button="right")
    assert not refused("bonus")


def test_solo_and_live_titles_and_the_lobby_says_which_is_which(page: Any,
                                                                       live_server: LiveServer) -> None:
    open_lobby(page, live_server.url + "/")
    solo = page.locator(".lobby__table[data-kind='solo']")
    assert solo.count() == 2
    assert solo.locator(".lobby__kind").all_inner_texts() == ["SOLO", "SOLO"]
    names = solo.locator(".lobby__name").all_inner_texts()
    assert names == ["Texas Hold'em Bonus", "Casino Hold'em"]
    assert not any("Live" in name or "(live)" in name for name in names)
    live = page.locator(".lobby__table[data-kind='live']")
    assert live.count() == 2
    assert set(live.locator(".lobby__kind").all_inner_texts()) == {"LIVE"}
    Table(page, live_server).open("texas-bonus")
    assert page.locator(".hud__title").inner_text() == "Texas Hold'em Bonus"
    assert page.title() == "Texas Hold'em Bonus — dealerpoker"
