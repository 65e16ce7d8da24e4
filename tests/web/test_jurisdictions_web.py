"""What a jurisdiction requires, on the table page (issue 27): a GB launch shows the session clock
and the net position and refuses a second round inside the profile's interval; an Ontario launch
recalls the last 10 rounds step by step; a Swedish launch shows Spelpaus, Spelgränser and
Självtest at the operator's addresses, in Swedish; a paytable version a jurisdiction has not
approved cannot be played there; a launch into a jurisdiction the operator may not serve is
refused (the reference operator's casino page shows dealerpoker's answer).

The server's clock stands still (``FakeClock``), so "inside the interval" does not depend on how
fast the browser plays: a second round is always inside GB's 2.5 s, refused by the page or the
server (both say the same)."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

import httpx
import pytest
from tests.server.conftest import FakeClock
from tests.support.operator import OperatorDemo, operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.jurisdictions import shipped
from dealerpoker.messages import catalogue
from dealerpoker.server.operators.config import parse_operators

from .test_web_table import Table
from .web_support import LiveServer, start_server

pytestmark = pytest.mark.browser

SECRET = "jurisdiction-web-secret-0123456789"
LINKS = {
    "spelpaus": "https://www.spelpaus.se/",
    "spelgranser": "https://casino-a.example/limits",
    "sjalvtest": "https://www.stodlinjen.se/",
}


def operators(operator_id: str = "casino-a", wallet_url: str = "http://127.0.0.1:9/wallet") -> str:
    return (
        operator_entry(
            operator_id,
            secret=SECRET,
            wallet_url=wallet_url,
            currencies=["GBP", "CAD", "SEK", "DKK", "EUR"],
            jurisdictions=["GB", "CA-ON", "SE", "DK"],
            complaint_contact="support@casino-a.example",
        )
        + "[operators.links]\n"
        + "".join(f'{k} = "{v}"\n' for k, v in LINKS.items())
        + """
rofus = "https://www.rofus.nu/"
stopspillet = "https://www.stopspillet.dk/"
selvtest = "https://www.stopspillet.dk/selvtest"

[[operators.profiles]]
id = "DK"
[operators.profiles.settings]
paytables = { value = ["00000000000000000000"], clause = "casino-a: DK approvals" }
"""
    )


CLOCK = FakeClock()
"""The table server's clock: it stands still (the launches are signed at its time)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    started = start_server(
        Path(tmp_path_factory.mktemp("juris")), clock=FakeClock(), operators=parse_operators(operators())
    )
    yield started
    started.stop()


def launch(server: LiveServer, **body: Any) -> httpx.Response:
    raw = json.dumps({"player": f"w-{uuid.uuid4().hex[:10]}", "mode": "demo", **body}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-a",
                               now=CLOCK.now.timestamp())
    return httpx.post(f"{server.url}/operator/v1/launch", content=raw, timeout=60, headers=headers)


def opened(page: Any, server: LiveServer, **body: Any) -> Table:
    answer = launch(server, **body)
    assert answer.status_code == 200, answer.text
    # A launch's url is relative when the server has no --public-url.
    page.goto(urljoin(server.url + "/", answer.json()["url"]))
    page.wait_for_selector(".chip-tray .chip")
    table = Table(page, server)
    table.idle()
    page.wait_for_selector("#juris-strip")
    return table


@pytest.fixture(params=[(1366, 768), (390, 844)], ids=["laptop", "phone"])
def sized_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    width, height = request.param
    context = browser.new_context(
        viewport={"width": width, "height": height}, has_touch=width < 600, reduced_motion="reduce"
    )
    page = context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page
    context.close()
    assert not errors, errors


def inside(page: Any, selector: str) -> dict[str, float]:
    box: dict[str, float] = page.locator(selector).bounding_box()
    viewport = page.viewport_size
    assert box and box["x"] >= 0 and box["y"] >= 0, (selector, box)
    assert (
        box["x"] + box["width"] <= viewport["width"] + 1
        and box["y"] + box["height"] <= viewport["height"] + 1
    ), (selector, box, viewport)
    return box


def test_gb_shows_session_clock_and_net_and_refuses_a_round_inside_its_interval(
    sized_page: Any, server: LiveServer
) -> None:
    page = sized_page
    table = opened(page, server, currency="GBP", game="texas-bonus", jurisdiction="GB")
    assert page.locator("#juris-strip").get_attribute("data-jurisdiction") == "GB"
    assert re.fullmatch(r"\d+:\d\d", page.locator("#juris-session-time").inner_text()), "the session clock"
    assert re.fullmatch(r"\d\d:\d\d.*", page.locator("#juris-clock").inner_text()), "the time of day"
    strip = inside(page, "#juris-strip")
    deal = inside(page, "#deal")
    assert deal["y"] >= strip["y"] + strip["height"] - 1, "the strip covers nothing a player presses"
    table.select(100)
    table.place("ante")
    table.deal()
    table.act("fold")
    page.wait_for_function("document.querySelector('#juris-net').textContent.includes('-')")
    assert (
        "1.00" in page.locator("#juris-net").inner_text() or "1,00" in page.locator("#juris-net").inner_text()
    )
    rounds = len(server.api("GET", "/api/rounds", table.token)["rounds"])
    page.locator("#rebet").click()
    table.idle()
    text = catalogue("en")
    waiting = re.escape(text["error.rg.too_fast"]).replace(re.escape("{seconds}"), r"\d+")
    assert re.search(waiting, table.message()), table.message()
    assert len(server.api("GET", "/api/rounds", table.token)["rounds"]) == rounds, "no second round"


def test_ontario_recalls_the_last_ten_rounds_step_by_step(sized_page: Any, server: LiveServer) -> None:
    page = sized_page
    table = opened(page, server, currency="CAD", game="casino-holdem", jurisdiction="CA-ON")
    for _round in range(11):  # one more than the recall shows
        round_id = server.api(
            "POST", "/api/rounds", table.token, json={"game": "casino-holdem", "bets": {"ante": 100}}
        )["id"]
        server.api("POST", f"/api/rounds/{round_id}/actions", table.token, json={"action": "fold", "step": 1})
    button = page.locator("#juris-recall-button")
    assert button.inner_text() == "Last 10 rounds"
    inside(page, "#juris-recall-button")
    button.click()
    page.wait_for_selector("#juris-rounds .juris-round")
    rounds = page.locator("#juris-rounds .juris-round")
    assert rounds.count() == 10
    newest = server.api("GET", "/api/rounds?limit=10", table.token)["rounds"]
    assert rounds.evaluate_all("items => items.map(i => i.dataset.round)") == [r["id"] for r in newest]
    first = rounds.first
    first.locator("summary").click()
    steps = first.locator(".juris-step")
    assert steps.count() == 2  # the deal, then the fold
    deal_text, fold_text = steps.nth(0).inner_text(), steps.nth(1).inner_text()
    player_cards = newest[0]["player_cards"]
    assert all(card in deal_text for card in player_cards), deal_text
    assert "Step 0" in deal_text and "(you)" in fold_text and "FOLD" in fold_text.upper(), fold_text
    assert all(card in fold_text for card in newest[0]["dealer_cards"]), "the fold shows the dealer's hand"
    inside(page, "#juris-recall-close")
    page.locator("#juris-recall-close").click()
    page.locator("#rules-button, [data-panel='rules'], button:has-text('RULES')").first.click()
    page.wait_for_selector("#juris-complaints")
    complaints = page.locator("#juris-complaints").inner_text()
    assert "support@casino-a.example" in complaints
    assert shipped()["CA-ON"].value("complaints")["text"] in complaints


def test_a_swedish_launch_shows_the_three_links_in_swedish(sized_page: Any, server: LiveServer) -> None:
    page = sized_page
    opened(page, server, currency="SEK", game="texas-bonus", jurisdiction="SE", language="en")
    assert page.evaluate("document.documentElement.lang") == "sv"
    links = page.locator("#juris-strip a.juris__link")
    assert links.evaluate_all("links => links.map(a => [a.textContent, a.href])") == [
        ["Spelpaus", LINKS["spelpaus"]],
        ["Spelgränser", LINKS["spelgranser"]],
        ["Självtest", LINKS["sjalvtest"]],
    ]
    for index in range(3):
        inside(page, f"#juris-strip a.juris__link >> nth={index}")
    swedish = json.loads((Path(__file__).parents[2] / "src/dealerpoker/web/i18n/sv.json").read_text("utf-8"))
    assert page.locator("#deal").inner_text().strip() == swedish["btn.deal"]
    assert swedish["juris.session_time"] in page.locator("#juris-strip").inner_text()


def test_a_paytable_a_jurisdiction_has_not_approved_cannot_be_played_there(
    sized_page: Any, server: LiveServer
) -> None:
    page = sized_page
    table = opened(page, server, currency="DKK", game="texas-bonus", jurisdiction="DK")
    balance = server.balance(table.token)
    table.select(1000)
    table.place("ante")
    table.deal()
    expected = catalogue("da")["error.juris.paytables"].replace("{jurisdiction}", "DK")  # opens in Danish
    assert expected in table.message(), table.message()
    assert server.api("GET", "/api/rounds", table.token)["rounds"] == []
    assert server.balance(table.token) == balance


def test_a_launch_into_a_jurisdiction_the_operator_may_not_serve_is_refused(
    browser: Any, tmp_path: Path
) -> None:
    """Through the reference operator's casino page: dealerpoker's refusal is shown there."""
    game = start_server(tmp_path, operators=parse_operators(operators("demo")))  # the real clock: the
    # reference operator signs its requests at the time it is
    try:
        with OperatorDemo(tmp_path, secret=SECRET, operator_id="demo", game_url=game.url) as casino:
            casino.create_player("alice", "EUR", 10_000)
            page = browser.new_page()
            page.goto(casino.url + "/")
            page.wait_for_selector("#player option[value='alice']", state="attached")
            page.select_option("#mode", "demo")
            page.fill("#jurisdiction", "MT")
            page.locator("#play").click()
            page.wait_for_function("document.querySelector('#launch-error').textContent.length > 0")
            shown = page.locator("#launch-error").inner_text()
            assert "MT" in shown and "may not launch players there" in shown, shown
            assert page.locator("#game").get_attribute("src") in (None, "", "about:blank")
            page.close()
    finally:
        game.stop()
