"""Nothing a player needs is ever off-screen (issue 28, the "must show"): both games, solo and live,
at each phase (betting, each decision, the result), in English, German and Spanish, at every common
screen size (tests/web/layout_support.py: 1920x1080 down to a 375x667 phone and a phone on its side).
At each size the timer and every decision button are inside the viewport without scrolling, no two
controls overlap and no text is cut or runs out of its box (element boxes, not pixels).

One server (studio tables on a clock the test moves: the live timers never run out by themselves)
and one Chromium for the module; each round is played once and checked at every size in its page.
The pages ask for reduced motion: the checks look at settled phases, never at a card or a chip on its
way, and each animation frame drawn costs Chromium's CPU (tests/web/test_chip_motion_web.py tests
the motion).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.studio_pages import LIVE_ROUNDS, SOLO_DECISIONS, Studio, studio_tables
from tests.live.studio_pages import pages as pages  # the test's pages, no console error
from tests.web.layout_support import problems_at_every_size

pytestmark = pytest.mark.browser

LANGUAGES = ["en", "de", "es", "sv", "fr", "da"]
SIDE = {"texas-bonus": "bonus", "casino-holdem": "aa"}


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    with studio_tables(tmp_path_factory) as tables:
        yield tables


def still(pages: Any) -> Any:
    """A player's page that asks for reduced motion."""
    (page,) = pages(1)
    page.emulate_media(reduced_motion="reduce")
    return page


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", sorted(SIDE))
def test_solo_table_controls_fit_every_screen(studio: Studio, pages: Any, game: str, language: str) -> None:
    page = still(pages)
    shots = f"solo-{game}-{language}"
    page.goto(f"{studio.base}/?lang={language}#/play/{game}")
    page.locator("#deal").wait_for()
    idle = "window.dealerpokerTable && !window.dealerpokerTable.busy"
    page.wait_for_function(idle)
    problems = problems_at_every_size(page, shots, "empty table")
    for field in ("ante", SIDE[game]):
        page.locator(f'.spot[data-field="{field}"]').click(position={"x": 20, "y": 40})
    problems += problems_at_every_size(page, shots, "bets placed")
    page.locator("#deal").click()
    for number, action in enumerate(SOLO_DECISIONS[game], start=1):
        page.locator(f'#controls [data-action="{action}"]').wait_for()
        page.wait_for_function(idle)
        problems += problems_at_every_size(page, shots, f"decision {number}")
        page.locator(f'#controls [data-action="{action}"]').click()
        page.wait_for_function(idle)
    page.locator("#result").wait_for(state="visible")
    problems += problems_at_every_size(page, shots, "result")
    page.locator("#result-details").click()  # the bets' lines open over the felt
    problems += problems_at_every_size(page, shots, "result with its lines")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("game", sorted(LIVE_ROUNDS))
def test_live_table_timer_and_decisions_fit_every_screen(studio: Studio, pages: Any, game: str,
                                                         language: str) -> None:
    page = still(pages)
    table, streets = LIVE_ROUNDS[game]
    shots = f"live-{game}-{language}"
    studio.open(page, table, language)
    problems = problems_at_every_size(page, shots, "betting window")
    studio.bet(page, {"ante": 500})
    studio.bet(page, {SIDE[game]: 100})
    problems += problems_at_every_size(page, shots, "bets placed")
    studio.end_timer(page)
    page.locator("#no-more-bets").wait_for(state="visible")  # until the hand's first decision
    for decision in studio.decisions(page, table, streets):
        page.locator("#no-more-bets").wait_for(state="hidden")  # NO MORE BETS is not up over a decision
        problems += problems_at_every_size(page, shots, decision)
    page.locator("#result").wait_for(state="visible")
    problems += problems_at_every_size(page, shots, "result")
    assert not problems, "\n".join(problems)
