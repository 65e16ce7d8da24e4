"""The back office and the operators in the browser (issue 18 on top of issue 14): the rounds
search by operator and by the operator's own player id, a round's page with its wallet calls, a
player found by operator, and the report grouped and filtered by operator. The operator's player
plays real money against the reference operator (``dealerpoker operator-demo``, a real process
over loopback HTTP), as in tests/server/test_operators_wallet.py; a support member reads the
rounds and the player (with the restriction history the operator wrote) but gets no report, no
adjustment and never the operator's session token."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from tests.support.operator import OperatorDemo, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.server.operators.config import parse_operators

from .web_support import BackOffice, back_office, fetch, signed_in

pytestmark = pytest.mark.browser

SECRET = "operator-secret-of-the-back-office-tests"
EXTERNAL = "carol-18"  # the operator's own id of its player


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OperatorDemo]:
    with OperatorDemo(tmp_path_factory.mktemp("operator"), secret=SECRET, extra=("--seed", "18")) as demo:
        yield demo


@dataclass
class Played:
    """The office, its operator's player (our id, their rounds, the operator's session token) and
    an embedded demo player's rounds."""

    office: BackOffice
    player: str
    rounds: list[str]
    token: str
    demo_rounds: list[str]


def as_operator(office: BackOffice, method: str, path: str, body: Any) -> Any:
    """A request of the operator's to ``/operator/v1{path}``, signed; its JSON answer."""
    raw = json.dumps(body).encode()
    answer = httpx.request(method, f"{office.url}/operator/v1{path}", content=raw, timeout=60,
                           headers=operator_headers(SECRET, method, f"/operator/v1{path}", raw))
    answer.raise_for_status()
    return answer.json()


def launch_token(office: BackOffice, operator: OperatorDemo) -> tuple[str, str]:
    """(the one-time launch token of the operator's player ``EXTERNAL``, the operator's session token)."""
    token = operator.create_player(EXTERNAL, "EUR", 10_000)
    launch = {"player": EXTERNAL, "currency": "EUR", "game": "casino-holdem", "token": token, "mode": "real"}
    answer = as_operator(office, "POST", "/launch", launch)
    return str(answer["launch_token"]), token


def settled_in_the_wallet(office: BackOffice, rounds: list[str], timeout: float = 60.0) -> None:
    """Wait until the outbox has paid every round's win (no credit pending)."""
    with office.api("op-auditor") as http:
        def paid() -> bool:
            return not any(http.get("/admin/api/round", params={"id": r}).json()["wallet"]["credit_pending"]
                           for r in rounds)

        until(paid, "the outbox pays every round's win", timeout=timeout, interval=0.2)


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory, operator: OperatorDemo) -> Iterator[Played]:
    operators = parse_operators(demo_entry(operator))
    members = {"op-admin": "admin", "op-support": "support", "op-auditor": "auditor"}
    # the report's exact RTPs as `analyze` cached them
    with back_office(tmp_path_factory, members, operators=operators, analysis_cache=DiskCache()) as office:
        launch, token = launch_token(office, operator)
        player, rounds = office.play(2, game="casino-holdem", launch=launch)
        _, demo_rounds = office.play(1, game="casino-holdem")
        settled_in_the_wallet(office, rounds)
        yield Played(office, player, rounds, token, demo_rounds)


def search(page: Any, operator: str, operator_player: str = "") -> None:
    page.click("nav a[href='#rounds']")
    page.wait_for_selector("#page-rounds form.filters")
    page.fill("#page-rounds input[name=operator]", operator)
    page.fill("#page-rounds input[name=operator_player]", operator_player)
    page.click("#page-rounds form.filters button[type=submit]")


def shown_rounds(page: Any) -> set[str]:
    return set(page.locator("#page-rounds tbody tr td:first-child a").all_inner_texts())


def test_support_finds_the_operators_rounds_and_reads_a_rounds_wallet_calls(browser: Any,
                                                                            played: Played) -> None:
    with signed_in(browser, played.office, "op-support") as page:
        search(page, "demo", EXTERNAL)
        page.wait_for_function("document.querySelectorAll('#page-rounds tbody tr').length === 2")
        assert shown_rounds(page) == set(played.rounds)
        operators = page.locator("#page-rounds tbody td.operator").all_inner_texts()
        assert operators == ["demo", "demo"]
        assert page.locator("#page-rounds tbody td.operator-player").all_inner_texts() == [EXTERNAL, EXTERNAL]
        search(page, "embedded")
        page.wait_for_function("document.querySelectorAll('#page-rounds tbody tr').length === 1")
        assert shown_rounds(page) == set(played.demo_rounds)
        assert page.locator("#page-rounds tbody td.operator").all_inner_texts() == ["embedded"]
        search(page, "demo", "nobody")
        page.wait_for_selector("#page-rounds .results p:has-text('No rounds.')")
        search(page, "", EXTERNAL)  # an operator's player id alone means nothing: the server says why
        page.wait_for_selector("#page-rounds .results p.message:has-text('operator')")
        page.goto(f"{played.office.url}/admin/#round/{played.rounds[0]}")
        page.wait_for_selector("#page-round h3:has-text('Wallet calls')")
        wallet = page.locator("#page-round table.wallet-calls")
        calls = wallet.locator("tbody tr td:nth-child(2)").all_inner_texts()
        assert "bet" in calls and "win" in calls
        assert all(status == "200" for status in wallet.locator("tbody tr td:nth-child(4)").all_inner_texts())
        assert set(wallet.locator("tbody tr td:nth-child(5)").all_inner_texts()) == {"OK"}
        assert page.locator("#page-round p.message").count() == 0  # no credit pending
        assert played.token not in page.content()  # the operator's session token never reaches staff
        page.goto(f"{played.office.url}/admin/#round/{played.demo_rounds[0]}")
        page.wait_for_selector("#page-round h3:has-text('Ledger')")
        assert page.locator("#page-round h3:has-text('Wallet calls')").count() == 0  # an embedded player's


def test_support_finds_a_player_by_operator_but_neither_adjusts_nor_reads_reports(browser: Any,
                                                                                 played: Played) -> None:
    with signed_in(browser, played.office, "op-support") as page:
        page.click("nav a[href='#players']")
        page.fill("form.by-operator input[name=operator]", "demo")
        page.fill("form.by-operator input[name=operator_player]", "nobody")
        page.click("form.by-operator button[type=submit]")
        page.wait_for_selector("#page-players .results p.message")
        page.fill("form.by-operator input[name=operator_player]", EXTERNAL)
        page.click("form.by-operator button[type=submit]")
        page.wait_for_selector(f"#page-player h2:has-text('{played.player}')")
        shown = page.locator("#page-player p.operator").inner_text()
        assert f"Operator: demo, its player {EXTERNAL} (real)" in shown
        assert "operator's wallet" in page.locator("#page-player p.balance").inner_text()
        assert page.locator("form.adjust").count() == 0
        assert page.locator("nav a[href='#reports']").count() == 0
        adjustment = {"amount": 100, "reason": "sneaky"}
        assert fetch(page, "POST", f"/admin/api/players/{played.player}/adjustments", adjustment)[0] == 403
        assert fetch(page, "GET", "/admin/api/reports?operator=demo")[0] == 403
        assert fetch(page, "GET", "/admin/api/reports?operator=demo&format=csv")[0] == 403


def test_an_admin_cannot_adjust_an_operators_players_balance(browser: Any, played: Played) -> None:
    with signed_in(browser, played.office, "op-admin") as page:
        page.goto(f"{played.office.url}/admin/#player/{played.player}")
        page.wait_for_selector("#page-player p.balance")
        assert page.locator("form.adjust").count() == 0  # the money is in the operator's wallet
        status, answer = fetch(page, "POST", f"/admin/api/players/{played.player}/adjustments",
                               {"amount": 100, "reason": "goodwill"})
        assert status == 422 and "operator's wallet" in answer["message"]


def test_an_auditor_reads_the_report_by_operator(browser: Any, played: Played) -> None:
    with signed_in(browser, played.office, "op-auditor") as page:
        page.click("nav a[href='#reports']")
        # the first report works out each rules version's bets' moments (seconds, longer under load)
        page.wait_for_selector("#page-reports table.grid tbody tr", timeout=60_000)
        operator_column = "#page-reports tbody tr td:nth-child(5)"
        assert sorted(page.locator(operator_column).all_inner_texts()) == ["demo", "embedded"]
        counts = page.locator("#page-reports tbody tr td:nth-child(7)").all_inner_texts()  # 6: jurisdiction
        rounds = dict(zip(page.locator(operator_column).all_inner_texts(), counts, strict=True))
        assert rounds == {"demo": "2", "embedded": "1"}
        page.fill("#page-reports input[name=operator]", "demo")
        page.click("#page-reports form.filters button[type=submit]")
        page.wait_for_function("document.querySelectorAll('#page-reports tbody tr').length === 1")
        assert page.locator(operator_column).all_inner_texts() == ["demo"]
        href = page.locator("#page-reports a.csv").get_attribute("href")
        lines = page.evaluate("(url) => fetch(url).then((r) => r.text())", href).splitlines()
        assert len(lines) == 3 and lines[1].split(",")[4] == "demo"  # the row, then the EUR total
        assert lines[2].startswith("total,,,EUR,,2,")
        page.fill("#page-reports input[name=operator]", "nobody")
        page.click("#page-reports form.filters button[type=submit]")
        page.wait_for_selector("#page-reports .results p:has-text('No settled rounds')")


def test_support_reads_the_restriction_history_the_operator_wrote(browser: Any, played: Played) -> None:
    as_operator(played.office, "PUT", f"/players/{EXTERNAL}/limits", {"loss_day": 3_000})
    as_operator(played.office, "POST", f"/players/{EXTERNAL}/restrictions",
                {"kind": "cool_off", "hours": 2, "reason": "asked on the phone"})
    with signed_in(browser, played.office, "op-support") as page:
        page.goto(f"{played.office.url}/admin/#player/{played.player}")
        page.wait_for_selector("#page-player .history tbody tr")
        cool_off, limit = page.locator("#page-player .history tbody tr").all()  # newest first
        assert cool_off.get_attribute("class") == "restriction" and limit.get_attribute("class") == "limit"
        cells = cool_off.locator("td").all_inner_texts()
        assert cells[1] == "operator:demo" and cells[2] == "cool_off: asked on the phone"
        assert cells[3] == "none" and cells[4].startswith("cool_off until ")
        cells = limit.locator("td").all_inner_texts()
        assert cells[1] == "operator:demo" and cells[2] == "operator: loss_day"
        assert cells[3] == "Loss limit per 24 hours: none"  # limits by their names, not loss_day
        assert cells[4] == "Loss limit per 24 hours: 30.00 EUR"


def test_support_reads_the_operators_health_page(browser: Any, played: Played) -> None:
    """The operator's settings (its wallet, timeout, chips; never its secret) and its wallet's
    calls of the last day by outcome, with the rollback rate, as the server counted them."""
    with signed_in(browser, played.office, "op-support") as page:
        page.click("nav a[href='#operators']")
        section = page.locator("section.operator[data-operator='demo']")
        page.wait_for_selector("section.operator[data-operator='demo'] table.grid tfoot tr.total")
        _, found = fetch(page, "GET", "/admin/api/operators")
        health = found["operators"][0]["health"]
        text = section.inner_text()
        assert SECRET not in text and SECRET not in json.dumps(found)
        assert found["operators"][0]["settings"]["wallet_url"] in text
        bets = health["calls"]["by_kind"]["bet"]
        row = section.locator("tr[data-call='bet']").inner_text().split("\t")
        outcomes = ("calls", "ok", "refused", "error", "timeout")
        assert row[:6] == ["bet", *(str(bets[name]) for name in outcomes)]
        assert bets["calls"] >= 2 and health["transactions"]["bets"] >= 2  # the two rounds' antes at least
        assert "Rollback rate" in section.locator("li.rollback-rate").inner_text()
        assert "null" not in text and "undefined" not in text
