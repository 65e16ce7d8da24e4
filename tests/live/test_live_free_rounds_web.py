"""Free rounds at a live table in the browser (issue 30): a player granted a campaign sees "2 free
rounds of €1.00 ante" above the felt, on screen at laptop and phone sizes, presses **Use a free
round** in the betting window, and the table says the ante is the casino's; when betting closes the
round is dealt with the operator's ante (the reference operator, a real process, is debited
nothing) and one free round is left. At the five player screens, a finger on the phones."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.live.conftest import ManualClock, is_table, live_server
from tests.live.test_live_free_rounds import ANTE, SECRET, campaign, seated, signed
from tests.live.test_live_recall_web import inside
from tests.support.browser import PLAYER_SCREEN_IDS, PLAYER_SCREENS, press
from tests.support.operator import OperatorDemo
from tests.support.operators_file import demo_entry

from dealerpoker.server.operators.config import parse_operators

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("size", "touch"), PLAYER_SCREENS, ids=PLAYER_SCREEN_IDS)
def test_a_player_uses_a_free_round_at_a_live_table(browser: Any, tmp_path: Path,
                                                    size: tuple[int, int], touch: bool) -> None:
    clock = ManualClock()
    with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo") as operator, \
            live_server(f"sqlite:///{tmp_path}/live.db", clock=clock,
                        operators=parse_operators(demo_entry(operator))) as (base, app):
        found, _reward = campaign(base, app, f"web-{size[0]}", 2, ["carol"])
        watcher = seated(base, app, operator, "carol", "casino-fast")  # the test's eye on the table
        width, height = size
        context = browser.new_context(viewport={"width": width, "height": height}, has_touch=touch,
                                      is_mobile=touch)
        context.add_init_script(f"sessionStorage.setItem('dealerpoker.token', '{watcher.token}')")
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(30_000)
        try:
            page.goto(f"{base}/live.html#/casino-fast")
            text = page.locator("#free-rounds-text")
            text.wait_for()
            assert text.inner_text() == "2 free rounds of €1.00 ante"
            window = watcher.until(is_table("betting_open"))
            page.wait_for_function("document.querySelector('.table')?.dataset.phase === 'betting'")
            inside(page, "#free-round-button")
            press(page.locator("#free-round-button"), touch)
            page.wait_for_function(
                "document.querySelector('#free-rounds-text')?.textContent.includes(\"casino's\")")
            assert text.inner_text() == "Free round this round: the €1.00 ante is the casino's"
            assert page.locator("#free-round-button").is_hidden()
            clock.reach(window)
            watcher.until(lambda m: m["type"] == "table" and m.get("round") == window["round"]
                          and m.get("event") == "decision")
            shown = signed(base, app, "GET", f"/operator/v1/campaigns/{found['id']}").json()
            assert shown["rounds_used"] == 1  # claimed at the deal
            assert shown["ante"]["EUR"] == ANTE
            assert [t for t in operator.transactions("carol") if t["kind"] == "bet"] == []  # no ante debited
        finally:
            context.close()
            watcher.close()
        assert errors == []
