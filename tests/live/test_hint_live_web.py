"""Issue 16 item 16 on the live page, in Chromium: the optional strategy hint. On a server that offers
it, the seat's open decision shows the best decision and its EV as ``advise`` gives them for the
cards the player sees (the studio's dealer deals known cards; the dealer's hidden pair would change
the answer were it used), with the "why" tooltip; gone once decided; in German and Spanish, every text
the catalogue's and the EVs with a decimal comma. Off: nothing shown, nothing asked."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.studio_pages import Studio, studio_tables
from tests.live.studio_pages import pages as pages  # the test's pages, no console error
from tests.support.hint import open_why, signed_ev, tip_rows

from dealerpoker.analysis.advise import advise
from dealerpoker.cards import parse_cards
from dealerpoker.games.rules import load_rules
from dealerpoker.messages import catalogue, render

pytestmark = pytest.mark.browser

CARDS = "Ah Kh 5c 5d Qh Jh 2s"  # the player's Ah Kh, the dealer's 5c 5d (hidden), the flop Qh Jh 2s


@pytest.fixture(scope="module")
def hinting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    with studio_tables(tmp_path_factory, strategy_hint=True) as tables:
        yield tables


def test_live_strategy_hint_shows_the_best_decision_and_why(hinting: Studio, pages: Any) -> None:
    (page,) = pages()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/advice" in request.url else None)
    hinting.open(page, "studio-casino")
    hint = page.locator("#strategy-hint")
    assert hint.is_hidden(), "nothing before a decision"
    hinting.bet(page, {"ante": 100})
    hinting.end_timer(page)
    hinting.deal("studio-casino", CARDS)
    # From the cards the player sees alone: the dealer's 5c 5d are not in it.
    expected = advise(load_rules("casino-holdem"), parse_cards("Ah Kh"), parse_cards("Qh Jh 2s")).to_json()
    hint.wait_for(state="visible")
    assert set(open_why(page, expected)) == set(expected["actions"])
    assert asked and all(url.endswith("/api/tables/studio-casino/advice") for url in asked), asked
    page.locator(f'#decisions [data-action="{expected["best"]}"]').click()
    hint.wait_for(state="hidden")
    hinting.finish("studio-casino", "Th 3c")
    page.locator("#result").wait_for(state="visible")
    assert hint.is_hidden(), "nothing once the round is settled"
    assert len(asked) == 1, "asked once for the one decision"


def _local_ev(value: float) -> str:
    """``signed_ev`` as German and Spanish write it (a decimal comma)."""
    return signed_ev(value).replace(".", ",")


@pytest.mark.parametrize("language", ["de", "es"])
def test_the_live_strategy_hint_speaks_the_players_language(hinting: Studio, pages: Any,
                                                           language: str) -> None:
    """The hint, its "why" and each choice's row in the page's language: the catalogue's texts,
    the decisions by their button names, the EVs with a decimal comma."""
    (page,) = pages()
    hinting.open(page, "studio-casino", language)
    assert page.evaluate("document.documentElement.lang") == language
    hinting.bet(page, {"ante": 100})
    hinting.end_timer(page)
    hinting.deal("studio-casino", CARDS)
    expected = advise(load_rules("casino-holdem"), parse_cards("Ah Kh"), parse_cards("Qh Jh 2s")).to_json()
    words = catalogue(language)

    def said(key: str, action: str) -> str:
        ev = _local_ev(expected["actions"][action]["ev"])
        return render(key, {"action": words[f"action.{action}"], "ev": ev}, language)

    best = page.locator("#strategy-hint .hint__best")
    best.filter(has_text=said("hint.best", expected["best"])).wait_for()
    assert best.inner_text() == said("hint.best", expected["best"])
    why = page.locator("#strategy-hint .hint__why")
    assert why.inner_text().startswith(words["hint.why"])
    why.hover()
    tip = page.locator("#strategy-hint-why")
    tip.wait_for(state="visible")
    assert tip.locator(".hint__tip-title").inner_text() == words["hint.why_title"]
    rows = tip_rows(page)
    assert rows == {action: said("hint.choice", action) for action in expected["actions"]}
    page.locator(f'#decisions [data-action="{expected["best"]}"]').click()
    page.locator("#strategy-hint").wait_for(state="hidden")
    hinting.finish("studio-casino", "Th 3c")
    page.locator("#result").wait_for(state="visible")


@pytest.fixture
def plain(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    """A server without the hint. A fixture (asked for before ``pages``) so that the test's page
    closes before the server stops: an open page would report its socket's refused reconnect."""
    with studio_tables(tmp_path_factory) as tables:
        yield tables


def test_live_strategy_hint_is_off_by_default(plain: Studio, pages: Any) -> None:
    (page,) = pages()
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/advice" in request.url else None)
    plain.open(page, "studio-casino")
    plain.bet(page, {"ante": 100})
    plain.end_timer(page)
    plain.deal("studio-casino", CARDS)
    page.locator('#decisions [data-action="fold"]').wait_for()
    assert page.locator("#strategy-hint").count() == 0
    page.locator('#decisions [data-action="fold"]').click()
    page.locator("#result").wait_for(state="visible")
    assert asked == [], "the page does not ask for a hint the server does not offer"
