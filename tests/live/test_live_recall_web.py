"""The recall a jurisdiction requires, at a live table (issue 27): an Ontario player's strip recalls
their last 10 live rounds, each step by step from the player's part of its record -- the bets, the
cards each street revealed, each decision and who made it (the player, or the timer and why),
what the round staked and paid -- at laptop and phone sizes.

The rounds are played over the WebSocket on the table's clock (a ``ManualClock``: the timer's
folds are the clock reaching the decision's deadline), then the page opens as that player."""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from tests.live.conftest import WAIT, LivePlayer, ManualClock, is_table, live_server, table_entry
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.server.operators.config import parse_operators

pytestmark = pytest.mark.browser

SECRET = "live-recall-secret-0123456789abcdef"
OPERATORS = operator_entry(
    "casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet", currencies=["CAD"],
    jurisdictions=["CA-ON"],
)
TABLE = table_entry("ontario", "casino-holdem", 'currency = "CAD"\njurisdictions = ["CA-ON"]')
ROUNDS = 11  # one more than Ontario's recall shows


def ontario_player(base: str, app: Any) -> SimpleNamespace:
    raw = json.dumps({"player": "on-1", "mode": "demo", "currency": "CAD", "table": "ontario",
                      "jurisdiction": "CA-ON"}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-a",
                               now=client_now(SimpleNamespace(app=app)))
    launched = httpx.post(f"{base}/operator/v1/launch", content=raw, timeout=WAIT, headers=headers)
    assert launched.status_code == 200, launched.text
    token = launched.json()["launch_token"]
    session = httpx.post(f"{base}/api/session", json={"launch": token}, timeout=WAIT)
    assert session.status_code == 200, session.text
    return SimpleNamespace(token=session.json()["token"], id=session.json()["player_id"])


def play_rounds(base: str, clock: ManualClock, found: SimpleNamespace) -> None:
    """``ROUNDS`` rounds of an Ante: the timer folds each but the last, where the player raises."""
    player = LivePlayer(base, "ontario", same_as=found)  # type: ignore[arg-type]
    try:
        for number in range(ROUNDS):
            window = player.until(is_table("betting_open"))
            assert player.reply({"type": "bet", "bets": {"ante": 100}})["type"] == "you"
            clock.reach(window)
            decision = player.until(is_table("decision"))
            if number == ROUNDS - 1:
                assert player.reply({"type": "decide", "action": "raise"})["type"] == "you"
            else:
                clock.reach(decision)  # the timer folds
            clock.reach(player.until(lambda m, r=window["round"]: m["type"] == "table"
                                     and m.get("event") == "settled" and m.get("round") == r))
    finally:
        player.close()


@pytest.fixture(scope="module")
def ontario(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, SimpleNamespace]]:
    clock = ManualClock()
    url = f"sqlite:///{tmp_path_factory.mktemp('recall')}/live.db"
    operators = parse_operators(OPERATORS)
    with live_server(url, clock=clock, extra_tables=TABLE, operators=operators) as (base, app):
        found = ontario_player(base, app)
        play_rounds(base, clock, found)
        yield base, found


def inside(page: Any, selector: str) -> None:
    box = page.locator(selector).bounding_box()
    viewport = page.viewport_size
    assert box and box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert box["x"] + box["width"] <= viewport["width"] + 1, (selector, box, viewport)
    assert box["y"] + box["height"] <= viewport["height"] + 1, (selector, box, viewport)


def expected_steps(record: dict[str, Any]) -> list[str]:
    """The recall's steps of a round, from its record: bets, each reveal and its decisions, paid."""
    actions = record["seats"][0]["actions"]
    steps = ["bets"]
    for reveal in record["reveals"]:
        steps.append(f"reveal:{reveal['event']}")
        steps += [f"action:{a['point']}" for a in actions if a["point"] == reveal["event"]]
    return [*steps, "paid"]


@pytest.mark.parametrize("size", [(1366, 768), (390, 844)], ids=["laptop", "phone"])
def test_ontario_recalls_the_last_ten_live_rounds_step_by_step(
    browser: Any, ontario: tuple[str, SimpleNamespace], size: tuple[int, int]
) -> None:
    base, player = ontario
    headers = {"Authorization": f"Bearer {player.token}"}
    newest = httpx.get(f"{base}/api/live-rounds?limit=10", headers=headers, timeout=WAIT).json()["rounds"]
    assert len(newest) == 10 and all(r["jurisdiction"] == "CA-ON" for r in newest)
    records = [httpx.get(f"{base}{r['record']}", headers=headers, timeout=WAIT).json() for r in newest[:2]]
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, has_touch=width < 600)
    context.add_init_script(f"sessionStorage.setItem('dealerpoker.token', '{player.token}')")
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(30_000)
    page.goto(f"{base}/live.html#/ontario")
    button = page.locator("#juris-recall-button")
    button.wait_for()
    # Ontario's page shows the session's net position: the live rounds count in it.
    net = httpx.get(f"{base}/api/responsible-gaming", headers=headers, timeout=WAIT).json()["session"]["net"]
    assert net != 0 and f"{abs(net) / 100:.2f}" in page.locator("#juris-net").inner_text()
    assert button.inner_text() == "Last 10 rounds"
    inside(page, "#juris-recall-button")
    button.click()
    page.wait_for_selector("#juris-rounds .juris-round")
    rounds = page.locator("#juris-rounds .juris-round")
    assert rounds.evaluate_all("items => items.map(i => i.dataset.round)") == [r["round_id"] for r in newest]
    for index, record in enumerate(records):  # the raise, then a fold by the timer
        shown = rounds.nth(index)
        shown.locator("summary").click()
        steps = shown.locator(".juris-step")
        assert steps.evaluate_all("items => items.map(i => i.dataset.step)") == expected_steps(record)
        texts = dict(zip(expected_steps(record), steps.all_inner_texts(), strict=True))
        first = f"reveal:{record['reveals'][0]['event']}"  # Casino Hold'em: the hole cards with the flop
        assert all(card in texts[first] for card in record["dealt"]["player"]), texts
        assert "Ante" in texts["bets"]
        seat = record["seats"][0]
        decision = seat["actions"][0]
        said = texts[f"action:{decision['point']}"]
        if index == 0:
            assert decision["source"] == "player" and "RAISE" in said.upper() and "(you, " in said, said
            assert all(card in texts["reveal:showdown"] for card in record["dealt"]["dealer"]), texts
        else:
            assert (decision["source"], decision["reason"]) == ("timer", "timeout")
            assert "FOLD" in said.upper() and "(timer: timeout, " in said, said
        assert shown.locator("[data-step='paid'] table.lines").count() == 1, "the payouts, line by line"
        shown.locator("summary").click()
    inside(page, "#juris-recall-close")
    page.locator("#juris-recall-close").click()
    context.close()
    assert errors == []
