"""The reference operator's launch side: its casino page, and ``POST /launch`` calling a stand-in
for dealerpoker's ``POST /operator/v1/launch`` (signed, ``X-Operator-Id``) server to server;
its command line; its administration answering loopback clients only."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from tests.support.operator import OperatorDemo
from tests.support.servers import DEALERPOKER, ThreadServer

from dealerpoker.operator_signature import RequestSignatureError, verify_request


class FakeDealerpoker:
    """dealerpoker's launch endpoint as the issue describes it, recording each request; it checks
    the signature with the operator's secret and answers a relative one-time address."""

    def __init__(self, secret: str) -> None:
        self.secret, self.refuse, self.sessions = secret, False, 0
        self.requests: list[dict[str, Any]] = []

        async def launch(request: Request) -> JSONResponse:
            raw = await request.body()
            self.requests.append({"headers": dict(request.headers), "raw": raw})
            try:
                verify_request(self.secret, "POST", "/operator/v1/launch", raw, request.headers)
                refused = self.refuse
            except RequestSignatureError:
                refused = True
            if refused:
                return JSONResponse({"error": "unauthorized", "message": "missing or wrong X-Signature"}, 401)
            return JSONResponse({"url": "/?launch=one-time", "launch_token": "one-time", "expires_at": 1.0e9})

        async def session(request: Request) -> JSONResponse:
            self.sessions += 1
            return JSONResponse({"token": "viewer", "player_id": "p", "balance": 0, "currency": "EUR"})

        async def tables(request: Request) -> JSONResponse:
            if request.headers.get("authorization") != "Bearer viewer":
                return JSONResponse({"error": "unauthorized"}, 401)
            return JSONResponse({"tables": [{"id": "casino-1", "title": "Casino Hold'em (live)",
                                             "game": "casino-holdem", "players": 0}]})

        self.app = Starlette(routes=[Route("/operator/v1/launch", launch, methods=["POST"]),
                                     Route("/api/session", session, methods=["POST"]),
                                     Route("/api/tables", tables)])


Casino = tuple[OperatorDemo, FakeDealerpoker, str]


@pytest.fixture(scope="module")
def casino(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Casino]:
    fake = FakeDealerpoker("shared")
    server = ThreadServer(fake.app).start()
    try:
        with OperatorDemo(tmp_path_factory.mktemp("casino"), secret="shared", operator_id="casino-7",
                          game_url=server.url) as operator:
            operator.create_player("alice", "EUR", 10_000)
            yield operator, fake, server.url
    finally:
        server.stop()


def test_a_launch_is_signed_and_its_address_made_absolute(casino: Casino) -> None:
    operator, fake, game_url = casino
    fake.requests.clear()
    status, answer = operator.admin("POST", "/launch", {
        "player": "alice", "currency": "EUR", "language": "de", "game": "texas-bonus", "mode": "real"})
    assert status == 200, answer
    assert answer["url"] == f"{game_url}/?launch=one-time" and answer["launch_token"] == "one-time"
    [sent] = fake.requests
    assert sent["headers"]["x-operator-id"] == "casino-7"
    verify_request("shared", "POST", "/operator/v1/launch", sent["raw"], sent["headers"])
    body = json.loads(sent["raw"])
    assert body == {"player": "alice", "currency": "EUR", "language": "de", "game": "texas-bonus",
                    "token": answer["token"], "mode": "real", "lobby_url": f"{operator.url}/",
                    "cashier_url": f"{operator.url}/cashier"}
    # the token sent is the player's live session at the operator: the wallet accepts it
    assert operator.wallet("balance", {"player": "alice", "token": body["token"], "currency": "EUR"}) == (
        200, {"status": "OK", "balance": 10_000})


def test_a_live_table_is_launched_by_its_id(casino: Casino) -> None:
    operator, fake, _ = casino
    fake.requests.clear()
    assert operator.admin("GET", "/tables") == (200, {"tables": [
        {"id": "casino-1", "title": "Casino Hold'em (live)", "game": "casino-holdem"}]})
    operator.admin("GET", "/tables")
    assert fake.sessions == 1  # one session of its own to list the tables, kept
    status, _ = operator.admin("POST", "/launch", {"player": "alice", "currency": "EUR", "table": "casino-1",
                                                    "mode": "demo"})
    assert status == 200
    body = json.loads(fake.requests[0]["raw"])
    assert body["table"] == "casino-1" and "game" not in body and body["mode"] == "demo"


def test_a_refused_launch_shows_dealerpokers_answer(casino: Casino) -> None:
    operator, fake, _ = casino
    fake.refuse = True
    try:
        status, answer = operator.admin("POST", "/launch", {"player": "alice", "currency": "EUR",
                                                             "game": "casino-holdem"})
    finally:
        fake.refuse = False
    assert status == 502 and "refused the launch (401)" in answer["error"]


@pytest.mark.parametrize(("body", "status", "named"), [
    ({"player": "alice", "currency": "EUR"}, 422, "either a game or a live table"),
    ({"player": "alice", "currency": "EUR", "game": "poker", "table": "t"}, 422, "either a game"),
    ({"player": "alice", "currency": "EUR", "game": "poker"}, 422, "game must be one of"),
    ({"player": "alice", "currency": "EUR", "game": "texas-bonus", "mode": "free"}, 422, "mode"),
    ({"player": "nobody", "currency": "EUR", "game": "texas-bonus"}, 404, "no player 'nobody'"),
])
def test_a_bad_launch_is_refused_before_dealerpoker_is_asked(
        casino: Casino, body: dict[str, Any], status: int, named: str) -> None:
    operator, fake, _ = casino
    fake.requests.clear()
    answer = operator.admin("POST", "/launch", body)
    assert answer[0] == status and named in answer[1]["error"]
    assert fake.requests == []


def test_the_casino_page_offers_players_games_and_an_iframe(
        casino: Casino) -> None:
    operator, _, game_url = casino
    status, _, headers = operator.request("GET", "/")
    assert status == 200 and headers["content-type"].startswith("text/html")
    connection_free = operator.request("GET", "/")  # the page is the same on each request
    assert connection_free[0] == 200
    page = operator.page()
    for needed in ('id="player"', 'value="game:texas-bonus"', 'value="game:casino-holdem"', "<iframe",
                   'fetch(url', '"/launch"', "casino-7", game_url):
        assert needed in page, needed


def test_the_administration_answers_loopback_clients_only(tmp_path: Path) -> None:
    import httpx

    from dealerpoker.operator_demo.app import create_app
    from dealerpoker.operator_demo.faults import Faults
    from dealerpoker.operator_demo.launch import Launcher
    from dealerpoker.operator_demo.ledger import Ledger

    app = create_app(Ledger(tmp_path / "l.db"), secret="s", faults=Faults(),
                     launcher=Launcher("http://127.0.0.1:1", "x", "s"))

    administration = (("GET", "/admin/players"), ("GET", "/"), ("GET", "/admin/transactions"),
                      ("PUT", "/admin/faults"), ("POST", "/launch"))

    async def statuses(host: str) -> list[int]:
        transport = httpx.ASGITransport(app=app, client=(host, 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://operator") as client:
            found = [(await client.request(method, path, content=b"{}")).status_code
                     for method, path in administration]
            # the wallet is for dealerpoker, from anywhere, and needs the signature instead
            assert (await client.post("/balance", content=b"{}")).status_code == 401
            return found

    for host in ("203.0.113.9", "10.0.0.2"):
        assert asyncio.run(statuses(host)) == [403] * 5
    for host in ("127.0.0.1", "::1"):
        assert 403 not in asyncio.run(statuses(host))


@pytest.mark.parametrize(("options", "named"), [
    (["--fail-rate", "2"], "fail-rate must be between 0 and 1"),
    (["--fail-rate", "0.6", "--drop-after-commit-rate", "0.6"], "must not exceed 1"),
    (["--timeout-seconds", "-1"], "timeout-seconds"),
    (["--port", "70000"], "--port 70000"),
    (["--secret", ""], "--secret or $DEALERPOKER_OPERATOR_SECRET"),
])
def test_bad_options_exit_2_naming_the_problem(tmp_path: Path, options: list[str], named: str) -> None:
    done = subprocess.run([DEALERPOKER, "operator-demo", "--db", str(tmp_path / "o.db"), "--secret", "s",
                           *options], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2 and named in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1  # one line, no traceback


@pytest.mark.browser
def test_play_in_the_casino_page_opens_the_game_in_its_iframe(
        browser: Any, casino: Casino) -> None:
    operator, fake, game_url = casino
    fake.requests.clear()
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(operator.url + "/")
        page.wait_for_selector("#player option[value=alice]", state="attached")
        page.wait_for_selector("#target option[value='table:casino-1']", state="attached")
        page.fill("#new-id", "bob")
        page.fill("#new-currency", "JPY")
        page.fill("#new-balance", "5000")
        page.click("#new-player button")
        page.wait_for_function("document.querySelector('#player').value === 'bob'")
        assert page.input_value("#currency") == "JPY"
        page.select_option("#language", "es")
        page.select_option("#target", "table:casino-1")
        page.click("#play")
        page.wait_for_function(f"document.querySelector('#game').src.startsWith({game_url!r})")
        assert page.get_attribute("#game", "src") == f"{game_url}/?launch=one-time"
        # Written as the casino page writes amounts.
        page.wait_for_function("document.querySelector('#balances').textContent.includes('5,000 JPY')")
    finally:
        page.close()
    body = json.loads(fake.requests[-1]["raw"])
    chosen = (body["player"], body["currency"], body["language"], body["table"])
    assert chosen == ("bob", "JPY", "es", "casino-1")
    assert errors == []
