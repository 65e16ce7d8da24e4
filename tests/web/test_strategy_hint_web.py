"""Issue 16, item 16 in Chromium: the optional strategy hint. Off by default (nothing shown, nothing
asked); on a server that offers it (``serve --strategy-hint``) the solo table shows, after the deal
and at each decision, the best decision and its EV as the server's exact analysis gives them, with a
"why" tooltip giving each choice's EV, in the player's language; nothing once the round is settled."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.analyses import counted
from tests.support.dealing import Dealer
from tests.support.hint import open_why
from tests.support.servers import serving

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.messages import catalogue
from dealerpoker.server import Settings, create_app

from .test_table_details_web import page as page  # the 1280 px and 375 px pages, no console error
from .test_web_table import Table
from .web_support import ARTIFACTS, LiveServer

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def hinting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    database = tmp_path_factory.mktemp("hint") / "web.db"
    dealer = Dealer(16)
    counted(cache := DiskCache())
    app = create_app(Settings(database_url=f"sqlite:///{database}", strategy_hint=True),
                     rng=dealer, analysis_cache=cache)
    with serving(app) as server:
        yield LiveServer(server.url, server, dealer)


def _advice(server: LiveServer, table: Table) -> dict[str, Any]:
    round_id = table.page.evaluate("window.dealerpokerTable.round.id")
    answer: dict[str, Any] = server.api("GET", f"/api/rounds/{round_id}/advice", table.token)
    return answer


def _shows(table: Table, server: LiveServer) -> dict[str, Any]:
    """The hint shown for the open decision: the server's best choice and every choice's EV."""
    page = table.page
    hint = page.locator("#strategy-hint")
    hint.wait_for(state="visible")
    advice = _advice(server, table)
    rows = open_why(page, advice)
    page.wait_for_function("getComputedStyle(document.querySelector('#strategy-hint-why')).opacity === '1'")
    width = page.viewport_size["width"]
    page.screenshot(path=str(ARTIFACTS / f"hint-{advice['game']}-{advice['phase']}-{width}.png"))
    assert set(rows) == set(advice["actions"]) <= set(table.decisions()) | {"raise"}
    page.mouse.move(1, 1)
    return advice


def test_strategy_hint_shows_the_best_decision_and_why(page: Any, hinting: LiveServer) -> None:
    table = Table(page, hinting).open("texas-bonus")
    assert page.locator("#strategy-hint").is_hidden(), "nothing before the deal"
    table.select(100)
    table.place("ante")
    table.deal()
    phases = [_shows(table, hinting)["phase"]]
    table.act("bet")
    page.wait_for_function("window.dealerpokerTable.round.board.length === 3")
    phases.append(_shows(table, hinting)["phase"])
    table.act("check")
    phases.append(_shows(table, hinting)["phase"])
    assert phases == ["preflop", "flop", "turn"]
    table.act("check")
    page.locator("#result").wait_for(state="visible")
    assert page.locator("#strategy-hint").is_hidden(), "nothing once the round is settled"


def test_strategy_hint_in_the_players_language(page: Any, hinting: LiveServer) -> None:
    page.goto(f"{hinting.url}/?lang=de#/play/casino-holdem")
    table = Table(page, hinting)
    page.wait_for_selector(".chip-tray .chip")
    table.idle()
    table.select(100)
    table.place("ante")
    table.deal()
    page.locator("#strategy-hint").wait_for(state="visible")
    de = catalogue("de")
    assert de["hint.why"] in page.locator("#strategy-hint .hint__why").inner_text()
    assert de["hint.best"].split("{")[0].strip() in page.locator("#strategy-hint .hint__best").inner_text()
    table.act("fold")


def test_strategy_hint_is_off_by_default(page: Any, live_server: LiveServer) -> None:
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/advice" in request.url else None)
    table = Table(page, live_server).open("casino-holdem")
    table.select(100)
    table.place("ante")
    table.deal()
    assert page.locator("#strategy-hint").count() == 0
    table.act("fold")
    assert asked == [], "the page does not ask for a hint the server does not offer"
