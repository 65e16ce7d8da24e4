"""Issue 16, item 15: the tables at 375 px (a phone) and 1280 px, both games, solo and live, mid-round
and settled. Geometry is asserted from the elements' boxes (a chip stack never covers a field's
name, the result box never covers a label such as FLOP/TURN/RIVER, nothing overflows sideways),
and each state is saved as a screenshot (test-artifacts/layout-*.png) for a person to look at.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from tests.live.studio_pages import Studio, studio_tables
from tests.live.studio_pages import pages as pages  # the test's pages, no console error
from tests.support.browser import ARTIFACTS

pytestmark = pytest.mark.browser

WIDTHS = [375, 1280]

# Every overlap that would hide a word: a label's text (its own box, not the field's) against
# each chip drawn on the felt and against the result box; and the page's width.
PROBLEMS = """() => {
  const problems = [];
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const text = (el) => { const range = document.createRange(); range.selectNodeContents(el);
    return range.getBoundingClientRect(); };
  const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
    && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;
  const doc = document.scrollingElement;
  if (doc.scrollWidth > window.innerWidth) problems.push(`page ${doc.scrollWidth} px wide`);
  for (const el of document.querySelectorAll('.table *')) {
    const right = el.getBoundingClientRect().right;
    if (shown(el) && right > window.innerWidth + 1 && !el.closest('[hidden], .minmax__pop, .spot__tip'))
      problems.push(`${el.className || el.tagName} ends at ${Math.round(right)}`);
  }
  const labels = [...document.querySelectorAll('.spot__name, .zone__title')].filter(shown);
  const chips = [...document.querySelectorAll('.spot .stack .chip')].filter(shown);
  for (const label of labels) {
    const words = text(label);
    for (const chip of chips) if (overlap(words, chip.getBoundingClientRect()))
      problems.push(`a ${chip.dataset.chip} chip covers ${label.textContent}`);
    const result = document.querySelector('#result');
    if (result && !result.hidden && shown(result) && !result.contains(label)
        && overlap(words, result.getBoundingClientRect()))
      problems.push(`the result covers ${label.textContent}`);
  }
  return problems;
}"""


@pytest.fixture(scope="module")
def studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Studio]:
    with studio_tables(tmp_path_factory) as tables:
        yield tables


def _check(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"layout-{name}.png"), full_page=True)
    problems = page.evaluate(PROBLEMS)
    assert not problems, (name, problems)
    assert "null" not in page.locator(".table").inner_text(), name


def _solo_bets(page: Any, bets: dict[str, list[int]]) -> None:
    chips = page.locator("#chip-tray .chip").evaluate_all("cs => cs.map(c => Number(c.dataset.chip))")
    for field, amounts in bets.items():
        for amount in amounts:
            page.locator("#chip-tray .chip").nth(chips.index(amount)).click()
            page.locator(f'[data-spot="{field}"] .spot').click(position={"x": 20, "y": 40})


# Tall stacks (five chips of different values): the worst case for the field's name.
TALL = [10000, 2500, 1000, 500, 100]


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("game", ["texas-bonus", "casino-holdem"])
def test_solo_layout_mid_round_and_settled(studio: Studio, pages: Any, game: str, width: int) -> None:
    (page,) = pages(1, width)
    page.goto(f"{studio.base}/#/play/{game}")
    page.locator("#deal").wait_for()
    side = "bonus" if game == "texas-bonus" else "aa"
    _solo_bets(page, {"ante": TALL, side: TALL[1:]})
    _check(page, f"solo-{game}-{width}-betting")
    page.locator("#deal").click()
    page.locator("#controls [data-action]").first.wait_for()
    _check(page, f"solo-{game}-{width}-mid-round")
    while page.locator("#controls [data-action]").count():
        actions = page.locator("#controls [data-action]").evaluate_all("bs => bs.map(b => b.dataset.action)")
        action = next(a for a in ("raise", "call", "check", "bet") if a in actions)
        steps = page.evaluate("window.dealerpokerTable.round.steps.length")
        page.locator(f'#controls [data-action="{action}"]').click()
        page.wait_for_function("n => window.dealerpokerTable.round.steps.length > n"
                               " && !document.querySelector('#controls button[disabled]')", arg=steps)
    page.locator("#result").wait_for(state="visible")
    _check(page, f"solo-{game}-{width}-settled")


# Each table's round: the cards the studio deals street by street, and the decision taken before each.
ROUNDS = {
    "studio-texas": ("bonus", [("Ah Ad Kc 2d", "bet"), ("Ac 9s 9d", "check"), ("9h", "check"), ("3c", None)]),
    "studio-casino": ("aa", [("Ah Ad Kc 2d Ac 9s 9d", "raise"), ("9h 3c", None)]),
}


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("table", sorted(ROUNDS))
def test_live_layout_mid_round_and_settled(studio: Studio, pages: Any, table: str,
                                                   width: int) -> None:
    (page,) = pages(1, width)
    side, streets = ROUNDS[table]
    studio.open(page, table)
    studio.bet(page, {"ante": 500})
    studio.bet(page, {side: 100})
    studio.end_timer(page)
    for index, (cards, decision) in enumerate(streets):
        studio.deal(table, cards)
        if decision is None:
            break
        button = page.locator(f'#decisions [data-action="{decision}"]')
        button.wait_for()
        if index == 0:
            _check(page, f"live-{table}-{width}-mid-round")
        button.click()
    page.locator("#result").wait_for(state="visible")
    _check(page, f"live-{table}-{width}-settled")
