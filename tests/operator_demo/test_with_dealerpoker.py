"""The reference operator and a real ``dealerpoker serve --operators`` side by side over loopback:
the casino's launch reaches dealerpoker, whose one-time address opens a session of the
operator's player in a page the casino may frame."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.browser import _wait_for_function
from tests.support.operator import OperatorDemo, ledger_net
from tests.support.operators_file import demo_entry
from tests.support.servers import ServeProcess, free_port
from tests.support.waiting import until

SECRET = "operator-demo-secret-0123456789"


class Both:
    def __init__(self, operator: OperatorDemo, game: ServeProcess) -> None:
        self.operator, self.game = operator, game

    def post_game(self, path: str, body: Any, token: str | None = None) -> tuple[int, Any]:
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        raw = json.dumps(body).encode()
        request = urllib.request.Request(self.game.url + path, raw, headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as refused:
            return refused.code, json.loads(refused.read() or b"null")


def start_both(directory: Path, database: str, operator_extra: tuple[str, ...] = (),
               **entry: Any) -> tuple[OperatorDemo, ServeProcess]:
    """The operator first (on any port, told dealerpoker's), then dealerpoker with the operators file
    (``entry``: more settings of the operator's entry, e.g. ``responsible_gaming``)."""
    game_port = free_port()
    operator = OperatorDemo(directory, secret=SECRET, operator_id="demo",
                            game_url=f"http://127.0.0.1:{game_port}", extra=operator_extra)
    (directory / "operators.toml").write_text(demo_entry(
        operator, secret=None, secret_env="DEMO_OPERATOR_SECRET", currencies=["EUR", "JPY"],
        chips={"EUR": [100, 200, 500, 2500]}, limits={"EUR": {"ante": {"min": 200, "max": 5000}}}, **entry))
    try:
        game = ServeProcess(database, log=directory / "serve.log", port=game_port,
                            extra=["--operators", str(directory / "operators.toml"), "--no-rtp"],
                            env=os.environ | {"DEMO_OPERATOR_SECRET": SECRET})
    except BaseException:
        operator.stop()
        raise
    return operator, game


@pytest.fixture(scope="module")
def both(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Both]:
    directory = tmp_path_factory.mktemp("both")
    operator, game = start_both(directory, f"sqlite:///{directory}/casino.db")
    try:
        yield Both(operator, game)
    finally:
        game.stop()
        operator.stop()


@pytest.mark.slow
@pytest.mark.parametrize("target", [{"game": "texas-bonus"}, {"game": "casino-holdem"}, {"table": "live"}])
def test_a_launch_from_the_casino_opens_a_session_of_its_player(both: Both, target: dict[str, str]) -> None:
    operator = both.operator
    if "alice" not in operator.balances():
        operator.create_player("alice", "EUR", 10_000)
    if target.get("table") == "live":  # the first live table dealerpoker lists, through the casino
        target = {"table": operator.admin("GET", "/tables")[1]["tables"][0]["id"]}
    status, launched = operator.admin("POST", "/launch", {"player": "alice", "currency": "EUR",
                                                          "language": "de", "mode": "real", **target})
    assert status == 200, launched
    assert launched["url"].startswith(both.game.url + "/") and "launch=" in launched["url"]
    with urllib.request.urlopen(launched["url"], timeout=30) as page:
        assert page.status == 200
        policy = page.headers.get("Content-Security-Policy") or ""
        assert "frame-ancestors" not in policy or operator.url in policy  # the casino may frame it
        assert page.headers.get("X-Frame-Options") is None
    status, session = both.post_game("/api/session", {"launch": launched["launch_token"]})
    assert status == 200 and session["token"], session


def test_the_casino_reconciles_its_ledger_with_dealerpokers_list(both: Both) -> None:
    """Rounds played through a launch; then the casino's GET /admin/reconcile fetches dealerpoker's
    signed transaction list and finds every transaction as dealerpoker counts it, and the same net;
    a ledger row changed behind dealerpoker's back is found."""
    operator = both.operator
    operator.create_player("counted", "EUR", 50_000)
    status, launched = operator.admin("POST", "/launch", {"player": "counted", "currency": "EUR",
                                                          "game": "casino-holdem", "mode": "real"})
    assert status == 200, launched
    token = both.post_game("/api/session", {"launch": launched["launch_token"]})[1]["token"]
    for _round in range(3):
        opening = {"game": "casino-holdem", "bets": {"ante": 200}}
        status, view = both.post_game("/api/rounds", opening, token)
        assert status == 200, view
        raised = {"action": "raise", "step": 1}
        status, view = both.post_game(f"/api/rounds/{view['id']}/actions", raised, token)
        assert status == 200 and view["status"] == "settled", view

    def reconciled() -> dict[str, Any] | None:
        status, found = operator.admin("GET", "/admin/reconcile")
        assert status == 200, found
        return found if found["pending"] == 0 else None

    found = until(reconciled, "the outbox delivers the wins", interval=0.2)
    assert found["agree"] and found["differences"] == [], found
    assert found["net"]["dealerpoker"] == found["net"]["operator"]
    counted = [row for row in operator.transactions("counted")]
    net = ledger_net(counted)
    assert operator.balance("counted") == 50_000 + net
    bet = next(row for row in counted if row["kind"] == "bet")
    with sqlite3.connect(operator.db) as ledger:  # a stake returned behind dealerpoker's back
        ledger.execute("UPDATE transactions SET rolled_back_by = 'by-hand' WHERE transaction_id = ?",
                       (bet["transaction_id"],))
    found = operator.admin("GET", "/admin/reconcile")[1]
    assert not found["agree"]
    assert [(row["transaction_id"], row["operator"]) for row in found["differences"]] == [
        (bet["transaction_id"], "applied, rolled back by by-hand")]
    with sqlite3.connect(operator.db) as ledger:
        ledger.execute("UPDATE transactions SET rolled_back_by = NULL WHERE transaction_id = ?",
                       (bet["transaction_id"],))
    assert operator.admin("GET", "/admin/reconcile")[1]["agree"]
    assert operator.admin("GET", "/admin/reconcile?since=2026-13-01")[0] == 422


def shown_money(text: str) -> int:
    """'€1,234.50' (as the table shows amounts, with or without a symbol) -> 123450 minor units."""
    found = re.search(r"([\d,]+)\.(\d\d)", text)
    assert found, f"not an amount: {text!r}"
    return int(found.group(1).replace(",", "")) * 100 + int(found.group(2))


@pytest.mark.browser
def test_a_round_played_in_the_casinos_iframe_moves_the_casinos_ledger(
        browser: Any, both: Both) -> None:
    """The README's walkthrough in Chromium: the casino's page, Play, a Casino Hold'em round dealt and
    raised inside its iframe; the table's balance, the casino page's and the casino's ledger agree."""
    operator = both.operator
    operator.create_player("walker", "EUR", 100_000)
    page = browser.new_page(viewport={"width": 1600, "height": 1000})
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(operator.url + "/")
        page.wait_for_selector("#player option[value=walker]", state="attached")
        page.select_option("#player", "walker")
        page.select_option("#target", "game:casino-holdem")
        page.click("#play")
        page.wait_for_function("document.querySelector('#game').src.includes('launch=')")
        game = page.locator("#game").element_handle().content_frame()
        assert game is not None

        def idle() -> None:
            ready = ("window.dealerpokerTable && !window.dealerpokerTable.busy "
                     "&& document.querySelector('#balance').textContent !== '—'")
            # polled through evaluate: the table's CSP refuses Playwright's own (eval) predicates
            _wait_for_function(game, ready, timeout=60_000)

        game.wait_for_selector(".chip-tray .chip", timeout=60_000)
        idle()
        assert shown_money(game.locator("#balance").inner_text()) == 100_000
        # the casino's chips and ante limits (its operators file), not the server's EUR ones
        chips = game.locator(".chip-tray .chip").evaluate_all("(all) => all.map((c) => c.dataset.chip)")
        assert chips == ["100", "200", "500", "2500"]
        signs = game.locator("[data-minmax='ante'] .minmax__row").all_inner_texts()
        assert [shown_money(sign) for sign in signs] == [200, 5000]
        game.locator(".chip-tray .chip[data-chip='500']").click()
        spot = game.locator(".spot[data-field='ante']")
        box = spot.bounding_box()
        assert box
        spot.click(position={"x": box["width"] / 2, "y": box["height"] * 0.12})
        game.locator("#deal").click()
        idle()
        game.locator("#controls [data-action='raise']").click()
        idle()
        settled = operator.transactions("walker")
        assert [(row["kind"], row["amount"]) for row in settled][:2] == [("bet", 500), ("bet", 1_000)]
        until(lambda: any(row["kind"] == "win" for row in operator.transactions("walker")),
              "the round's win (or the zero win closing it) reaches the casino", interval=0.1)
        ledger = operator.balance("walker")
        won = sum(row["amount"] for row in operator.transactions("walker") if row["kind"] == "win")
        assert ledger == 100_000 - 1_500 + won
        euros = f"{ledger // 100:,}.{ledger % 100:02d} EUR"  # the casino's page writes euros, not cents
        page.wait_for_function(f"document.querySelector('#balances').textContent.includes('{euros}')")
        calls = len(operator.transactions("walker"))  # the page lists them once its own refresh comes
        page.wait_for_function("n => document.querySelectorAll('#transactions tr').length >= n", arg=calls)
        assert page.locator("#transactions tr").count() == calls  # every call
        game.locator("#new-game").click()  # the next round's table shows the casino's balance
        idle()
        assert shown_money(game.locator("#balance").inner_text()) == ledger
        page.click("#reconcile")  # the casino's check of its ledger against dealerpoker's list
        page.wait_for_function(
            "document.querySelector('#reconciled').textContent.startsWith('The ledgers agree')")
    finally:
        page.close()
    assert errors == []
