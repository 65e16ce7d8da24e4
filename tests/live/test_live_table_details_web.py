"""Issue 16 on the live page, in Chromium: each test is named after the issue's item it shows (the
solo table's are in tests/web/test_table_details_web.py). The tables are studio tables whose cards the
test deals as the studio's dealer, on a clock that moves only when the test moves it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.studio_pages import Studio, studio_tables
from tests.live.studio_pages import pages as pages  # the test's pages, no console error
from tests.web.test_chip_motion_web import COUNT_FLIGHTS
from tests.web.test_table_details_web import _expected_headline

from dealerpoker.cards import parse_cards
from dealerpoker.evaluator.api import evaluate

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    with studio_tables(tmp_path_factory) as tables:
        yield tables


def _seat(page: Any) -> dict[str, Any]:
    seat: dict[str, Any] = page.evaluate("window.dealerpokerLive.seat")
    return seat


def _settled(page: Any) -> dict[str, Any]:
    page.locator("#result").wait_for(state="visible")
    settlement: dict[str, Any] = _seat(page)["settlement"]
    return settlement


def _decided(page: Any, action: str) -> None:
    """The page's decision was taken: pending, or already the step (the point closed at once)."""
    page.wait_for_function("a => { const s = window.dealerpokerLive.seat;"
                           " return s?.pending === a || (s?.steps ?? []).some((x) => x.action === a); }",
                           arg=action)


def _shown(page: Any, meter: str) -> int:
    return int(re.sub(r"\D", "", page.locator(f"#{meter}").inner_text()))


def test_live_dealer_qualification_is_stated(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-casino")
    studio.bet(page, {"ante": 100})
    studio.end_timer(page)
    studio.deal("studio-casino", "Ah Kh 5c 5d Qh Jh 2s")  # the dealer holds a pair of Fives
    page.locator('#decisions [data-action="raise"]').click()
    _decided(page, "raise")
    studio.deal("studio-casino", "Th 3c")
    settlement = _settled(page)
    assert settlement["dealer_qualifies"] is True
    assert page.locator("#dealer-qualification").inner_text() == "Dealer qualifies with Pair of Fives"


def test_live_rules_panel_has_the_hand_ranking(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-texas")
    page.locator("#rules-button").click()
    ranking = page.locator("#rules-panel #hand-ranking")
    ranking.wait_for()
    slugs = ranking.locator("tbody tr").evaluate_all("rows => rows.map(r => r.dataset.category)")
    assert slugs[0] == "royal-flush" and slugs[-1] == "high-card" and len(slugs) == 10
    samples = ranking.locator("[data-sample]").evaluate_all("els => els.map(e => e.dataset.sample)")
    for slug, sample in zip(slugs, samples, strict=True):
        assert evaluate(parse_cards(sample)).category.slug == slug, sample


def test_live_current_hand_named_after_the_deal_and_each_street(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-texas")
    studio.bet(page, {"ante": 100})
    studio.end_timer(page)
    hand = page.locator("#player-hand")
    assert hand.inner_text() == ""
    studio.deal("studio-texas", "7c 7d Kc 2d")
    page.wait_for_function("document.querySelector('#player-hand').textContent === 'Pair of Sevens'")
    page.locator('#decisions [data-action="bet"]').click()
    _decided(page, "bet")
    studio.deal("studio-texas", "7h 9s 9d")
    page.wait_for_function("n => document.querySelector('#player-hand').textContent === n",
                           arg="Full House, Sevens over Nines")
    studio.end_timer(page)  # the timer checks on the flop
    studio.deal("studio-texas", "7s")
    page.wait_for_function("document.querySelector('#player-hand').textContent === 'Four of a Kind, Sevens'")
    studio.end_timer(page)
    studio.deal("studio-texas", "2c")
    _settled(page)
    assert hand.inner_text() == "Four of a Kind, Sevens"


def test_live_limit_signs_show_paytables_and_the_rules_panel(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-texas")
    sign = page.locator('[data-minmax="bonus"]')
    pop = sign.locator(".minmax__pop")
    assert pop.is_hidden()
    sign.hover()
    pop.wait_for(state="visible")
    assert "Bonus paytable" in pop.inner_text() and "Ace - Ace" in pop.inner_text()
    page.mouse.move(1, 1)
    pop.wait_for(state="hidden")
    sign.focus()
    pop.wait_for(state="visible")
    ante = page.locator('[data-minmax="ante"] .minmax__pop').text_content() or ""
    assert ante.startswith("Ante paytable")
    page.locator("#rules-button").click()
    panel = page.locator("#rules-panel")
    panel.wait_for(state="visible")
    assert panel.locator('[data-paytable="bonus"]').count() == 1
    assert panel.locator('tr[data-rtp="ante"]').count() == 1
    page.locator("#rules-panel .panel__close").click()
    assert panel.is_hidden()


def test_live_timer_decision_is_announced_and_folded_chips_leave(studio: Studio, pages: Any) -> None:
    folder, checker = pages(2)
    for page in (folder, checker):
        studio.open(page, "studio-texas")
        studio.bet(page, {"ante": 100})
    studio.end_timer(folder)
    studio.deal("studio-texas", "Ac Kd 5h 6h")
    assert folder.locator('[data-spot="ante"] .stack .chip').count() == 1
    checker.locator('#decisions [data-action="bet"]').click()
    _decided(checker, "bet")
    studio.end_timer(folder)  # folder let the timer decide: fold
    folder.locator("#timeout-note").wait_for(state="visible")
    assert folder.locator("#timeout-note").inner_text() == "Time ran out: folded"
    assert folder.locator("#message").inner_text() == "Time ran out: folded"
    folder.wait_for_function("document.querySelectorAll('[data-spot=\"ante\"] .stack .chip').length === 0")
    assert checker.locator("#timeout-note").is_hidden(), "the player who decided is told nothing"
    studio.deal("studio-texas", "2c 8d Js")
    studio.end_timer(checker)  # checker let the timer decide on the flop: check
    checker.locator("#timeout-note").filter(has_text="Time ran out: checked").wait_for()
    assert checker.locator('[data-spot="ante"] .stack .chip').count() == 1, "a check leaves the chips"
    studio.deal("studio-texas", "3s")
    studio.end_timer(checker)
    studio.deal("studio-texas", "4s")
    assert _settled(folder)["outcome"] == "fold"
    _settled(checker)


def test_live_error_texts_use_field_titles(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-casino")
    page.locator('.spot[data-field="aa"]').click()
    message = page.locator("#message")
    assert message.inner_text() == "AA is closed: place Ante first."
    # The server's own refusals too (as when another page of the player bet meanwhile).
    page.evaluate("window.dealerpokerLive.sendBets({ aa: 100 })")
    page.wait_for_function("document.querySelector('#message').dataset.kind === 'error'"
                           " && !document.querySelector('#message').textContent.includes('closed')")
    text = message.inner_text()
    assert "AA" in text and "Ante" in text and "aa" not in text and "ante" not in text, text
    page.evaluate("window.dealerpokerLive.sendBets({ ante: 7 })")
    page.wait_for_function("document.querySelector('#message').textContent.includes('0.07')")
    assert "Ante" in message.inner_text() and "ante" not in message.inner_text()


def test_live_headline_agrees_with_the_money(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-casino")
    studio.bet(page, {"ante": 100, "aa": 100})
    studio.end_timer(page)
    # The dealer does not qualify (no pair); the AA bet loses (no pair of Aces on the flop).
    studio.deal("studio-casino", "Ah Kh 7c 2d Qh Jh 3s")
    page.locator('#decisions [data-action="raise"]').click()
    _decided(page, "raise")
    studio.deal("studio-casino", "9c 4d")
    settlement = _settled(page)
    headline = page.locator("#result-headline").inner_text()
    assert headline == _expected_headline(settlement, {"aa"}) == "You win the hand; AA lost"
    assert page.locator("#dealer-qualification").inner_text() == "Dealer does not qualify"
    assert _shown(page, "last-win") == settlement["total_returned"]


def test_live_last_win_counts_the_bonus_paid_at_the_deal(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    studio.open(page, "studio-texas")
    studio.bet(page, {"ante": 100, "bonus": 100})
    studio.end_timer(page)
    studio.deal("studio-texas", "Ah Ad Kc 2d")  # Ace - Ace: the Bonus wins at the deal
    page.locator("#bonus-result").wait_for(state="visible")
    bonus = _seat(page)["bonus"]
    assert bonus["returned"] > 100
    page.wait_for_function("n => document.querySelector('#last-win').textContent.replace(/\\D/g, '') == n",
                           arg=str(bonus["returned"]))
    page.locator('#decisions [data-action="fold"]').click()
    _decided(page, "fold")
    studio.finish("studio-texas", "5c 8d Js 3s 4s")
    settlement = _settled(page)
    assert _shown(page, "last-win") == settlement["total_returned"] == bonus["returned"]


def _flights(page: Any) -> dict[str, int]:
    flights: dict[str, int] = page.evaluate("window.flights")
    return flights


def _casino_round(studio: Studio, page: Any, action: str) -> dict[str, Any]:
    """One Casino Hold'em round with an Ante of 1.00: the player holds AK and the board makes them a
    straight (the dealer's pair of Fives qualifies and loses); ``action``: raise or fold."""
    studio.open(page, "studio-casino")
    studio.bet(page, {"ante": 100})
    studio.end_timer(page)
    studio.deal("studio-casino", "Ah Kh 5c 5d Qh Jh 2s")
    page.locator(f'#decisions [data-action="{action}"]').click()
    _decided(page, action)
    studio.finish("studio-casino", "Th 3c")
    return _settled(page)


def test_live_chips_fly_to_the_field_the_player_and_the_dealer(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    page.context.add_init_script(COUNT_FLIGHTS)
    won = _casino_round(studio, page, "raise")
    assert won["net"] > 0
    page.wait_for_function("(window.flights['to-player'] ?? 0) > 0")
    flights = _flights(page)
    assert flights.get("to-field") == 1 and "to-dealer" not in flights, flights
    page.evaluate("window.flights = {}")
    lost = _casino_round(studio, page, "fold")
    assert lost["net"] < 0
    page.wait_for_function("(window.flights['to-dealer'] ?? 0) > 0")
    flights = _flights(page)
    assert flights.get("to-field") == 1 and "to-player" not in flights, flights


def test_live_reduced_motion_sends_nothing_flying(studio: Studio, pages: Any) -> None:
    (page,) = pages()
    page.context.add_init_script(COUNT_FLIGHTS)
    page.emulate_media(reduced_motion="reduce")
    won = _casino_round(studio, page, "raise")
    assert won["net"] > 0
    page.locator("#result").wait_for(state="visible")
    # The settlement's flight would start at once (setTimeout 0): a task queued now runs after it.
    page.evaluate("() => new Promise((done) => setTimeout(() => requestAnimationFrame(done), 0))")
    assert _flights(page) == {}
