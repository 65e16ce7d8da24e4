"""The seamless wallet against the reference operator (``dealerpoker operator-demo``, a real process
over loopback HTTP): bets before the stake is placed, INSUFFICIENT_FUNDS with the operator's
balance, unknown bets refused and rolled back, wins owed in the outbox until delivered, every call
kept in the round's record (issue 14)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY
from tests.support.operator import OperatorDemo, client_now, ledger_net, operator_headers
from tests.support.operators_file import demo_entry
from tests.support.waiting import until

from conftest import TestClient, make_client
from dealerpoker.cli import main
from dealerpoker.fairness.verify import verify_record
from dealerpoker.server.operators.config import parse_operators
from dealerpoker.server.rounds.postgres import SeamlessPostgresRoundStore
from dealerpoker.server.rounds.sql import SqlRoundStore

SECRET = "operator-secret-for-the-tests"


@pytest.fixture(scope="module")
def operator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OperatorDemo]:
    with OperatorDemo(
        tmp_path_factory.mktemp("operator"), secret=SECRET, extra=("--timeout-seconds", "2", "--seed", "14")
    ) as demo:
        yield demo


def operators_of(operator: OperatorDemo) -> Any:
    return parse_operators(demo_entry(operator, wallet_timeout_seconds=1.0))


@pytest.fixture(autouse=True)
def no_faults(operator: OperatorDemo) -> None:
    """Every test starts with a faultless operator, whatever the one before it left set."""
    operator.set_faults(fail_rate=0, timeout_rate=0, drop_after_commit_rate=0)


@pytest.fixture
def client(database_url: str, operator: OperatorDemo) -> Iterator[TestClient]:
    with make_client(database_url, None, operators=operators_of(operator)) as test_client:
        yield test_client


class Launched:
    """An operator's player launched into dealerpoker (real money)."""

    def __init__(self, client: TestClient, operator: OperatorDemo, name: str, balance: int = 10_000) -> None:
        self.client, self.operator, self.name = client, operator, name
        token = operator.create_player(name, "EUR", balance)
        raw = json.dumps(
            {"player": name, "currency": "EUR", "game": "casino-holdem", "token": token, "mode": "real"}
        ).encode()
        answer = client.post(
            "/operator/v1/launch",
            content=raw,
            headers=operator_headers(SECRET, "POST", "/operator/v1/launch", raw, now=client_now(client)),
        )
        assert answer.status_code == 200, answer.text
        session = client.post("/api/session", json={"launch": answer.json()["launch_token"]})
        assert session.status_code == 200, session.text
        self.session = session.json()
        self.headers = {"Authorization": f"Bearer {self.session['token']}"}

    def post(self, path: str, body: Any) -> Any:
        return self.client.post(path, json=body, headers=self.headers)

    def get(self, path: str) -> Any:
        return self.client.get(path, headers=self.headers)


def drained(client: TestClient, round_ids: list[str], launched: Launched, timeout: float = 60.0) -> None:
    """Wait until no round owes its player anything (the outbox delivered it)."""
    until(lambda: not any(launched.get(f"/api/rounds/{r}/wallet").json()["pending"] for r in round_ids),
          "the outbox drains", timeout=timeout, interval=0.2)


def test_rounds_move_the_players_money_in_the_operators_ledger(
    client: TestClient, operator: OperatorDemo
) -> None:
    player = Launched(client, operator, "alice-" + str(time.monotonic_ns()))
    assert player.session["balance"] == 10_000  # the operator's balance, asked at launch
    assert player.session["player_id"].startswith("o_")
    rounds = []
    for number in range(6):
        opened = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}})
        assert opened.status_code == 200, opened.text
        view = opened.json()
        action = "call" if number % 2 else "fold"
        view = player.post(f"/api/rounds/{view['id']}/actions", {"action": action, "step": 1}).json()
        assert view["status"] == "settled"
        rounds.append(view["id"])
    drained(client, rounds, player)
    for round_id in rounds:
        shown = player.get(f"/api/rounds/{round_id}").json()
        assert shown["wallet"] == {"credit_pending": False, "pending": []}
        record = player.get(f"/api/rounds/{round_id}/wallet").json()
        kinds = [t["kind"] for t in record["transactions"]]
        assert kinds.count("win") == 1 and "bet" in kinds  # every round closes with a win (0 after a fold)
        assert all(call["http_status"] == 200 and "answer" not in call and "token" not in call["request"]
                   for call in record["calls"])  # the wallet's answers are for staff, not the player
        audit = player.get(f"/api/rounds/{round_id}/record").json()  # the signed audit record
        assert audit["wallet"]["calls"] == record["calls"] and not audit["wallet"]["credit_pending"]
        assert not [finding for finding in verify_record(audit) if not finding.ok]
    applied = [t for t in operator.transactions(player.name) if t.get("applied")]
    ids = [t["transaction_id"] for t in applied]
    assert len(ids) == len(set(ids))
    moved = sum(-t["amount"] if t["kind"] == "bet" else t["amount"] for t in applied)
    assert operator.balance(player.name) == 10_000 + _net(client, rounds) == 10_000 + moved
    assert player.get("/api/balance").json()["balance"] == operator.balance(player.name)


def test_insufficient_funds_refuses_with_the_operators_balance(
    client: TestClient, operator: OperatorDemo
) -> None:
    player = Launched(client, operator, "bob-" + str(time.monotonic_ns()), balance=150)
    counted = {"operator": "demo", "operation": "bet", "outcome": "insufficient_funds"}
    before = REGISTRY.get_sample_value("dealerpoker_wallet_calls_total", counted) or 0
    refused = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 200}})
    assert refused.status_code == 409, refused.text
    assert refused.json()["error"] == "insufficient_funds" and refused.json()["balance"] == 150
    assert operator.balance(player.name) == 150
    assert REGISTRY.get_sample_value("dealerpoker_wallet_calls_total", counted) == before + 1  # /metrics


def test_an_unknown_bet_is_refused_and_rolled_back(client: TestClient, operator: OperatorDemo) -> None:
    player = Launched(client, operator, "carol-" + str(time.monotonic_ns()))
    operator.set_faults(drop_after_commit_rate=1.0)  # the operator applies the bet; its answer is lost
    refused = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}})
    assert refused.status_code == 503 and refused.json()["error"] == "wallet_unavailable", refused.text
    operator.set_faults(drop_after_commit_rate=0)
    until(lambda: operator.balance(player.name) == 10_000, "the rollback gives the bet back", timeout=30)
    kinds = [t["kind"] for t in operator.transactions(player.name)]
    assert kinds == ["bet", "rollback"]
    assert player.get("/api/rounds").json()["rounds"] == []  # no round was opened


def test_a_bet_rolled_back_before_its_step_committed_refuses_the_step(
    client: TestClient, operator: OperatorDemo, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bet the outbox's sweep took for rollback (its process looked dead) before the step that
    took it committed: the step writes nothing and is refused, so the bet is rolled back and never
    also placed, at the opening and at a later step (docs/operators.md, rule 2; on PostgreSQL the
    one-statement store's check, on SQLite the general store's)."""
    player = Launched(client, operator, "late-" + str(time.monotonic_ns()))
    wallet = client.app.state.services.rounds.wallet
    debit = wallet.debit

    async def swept(*args: Any, **kwargs: Any) -> Any:
        taken = await debit(*args, **kwargs)
        for bet in taken.receipt.bets:
            assert await wallet.roll_back_orphan(bet.transaction_id)
        return taken

    monkeypatch.setattr(wallet, "debit", swept)
    refused = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}})
    assert refused.status_code == 503 and refused.json()["error"] == "wallet_unavailable", refused.text
    assert player.get("/api/rounds").json()["rounds"] == []  # no round was opened
    monkeypatch.setattr(wallet, "debit", debit)
    view = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}}).json()
    monkeypatch.setattr(wallet, "debit", swept)
    refused = player.post(f"/api/rounds/{view['id']}/actions", {"action": "call", "step": 1})
    assert refused.status_code == 503 and refused.json()["error"] == "wallet_unavailable", refused.text
    monkeypatch.setattr(wallet, "debit", debit)
    assert player.get(f"/api/rounds/{view['id']}").json()["status"] == "open"  # the call not written
    # Wait for the ledger the test checks (every swept bet given back), not for the balance alone:
    # a run on the loaded CI machine found the balance as expected and the list not yet complete.
    # What stands is the one ante of the round that opened: on PostgreSQL the tests share a
    # database and their servers draw round ids from the same seed, so an opening can meet an id
    # taken and open again with a new one (a further bet, swept and given back like the rest).
    seen: list[Any] = []  # the last ledger read, for the failure message

    def only_the_ante_stands() -> bool:
        ledger = operator.transactions(player.name)
        given_back = {t["reference_transaction_id"] for t in ledger if t["kind"] == "rollback"}
        bets = [t for t in ledger if t["kind"] == "bet"]
        standing = [(t["round_id"], t["amount"]) for t in bets if t["transaction_id"] not in given_back]
        the_call = [t for t in bets if t["round_id"] == view["id"] and t["amount"] == 200]
        seen[:] = [(t["kind"], t["round_id"], t["amount"]) for t in ledger]
        return standing == [(view["id"], 100)] and len(the_call) == 1 and len(bets) >= 3

    try:
        until(only_the_ante_stands, "every swept bet given back", timeout=30)
    except AssertionError as failed:
        raise AssertionError(f"{failed}; the operator's transactions: {seen}") from None
    assert operator.balance(player.name) == 10_000 - 100  # the ante taken
    settled = player.post(f"/api/rounds/{view['id']}/actions", {"action": "call", "step": 1}).json()
    assert settled["status"] == "settled"
    drained(client, [view["id"]], player)
    assert operator.balance(player.name) == 10_000 + _net(client, [view["id"]])


def test_a_win_owed_is_pending_until_the_operator_takes_it(
    client: TestClient, operator: OperatorDemo
) -> None:
    player = Launched(client, operator, "dan-" + str(time.monotonic_ns()))
    view = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}}).json()
    operator.set_faults(fail_rate=1.0)
    settled = player.post(f"/api/rounds/{view['id']}/actions", {"action": "fold", "step": 1})
    assert settled.status_code == 200, settled.text  # a fold stakes nothing: no bet to refuse
    # The win is sent once the step committed; wait for its refused call rather than a fixed time.

    def win_calls() -> list[dict[str, Any]]:
        record = player.get(f"/api/rounds/{view['id']}/wallet").json()
        return [c for c in record["calls"] if c["call"] == "win"]

    wins = until(win_calls, "the win is sent", timeout=30)
    assert wins[0]["http_status"] == 200, wins
    shown = player.get(f"/api/rounds/{view['id']}").json()
    assert shown["wallet"]["credit_pending"] is True
    operator.set_faults(fail_rate=0)
    drained(client, [view["id"]], player)
    closing = [t for t in operator.transactions(player.name) if t["kind"] == "win"]
    assert len(closing) == 1 and closing[0]["amount"] == 0


def _net(client: TestClient, rounds: list[str]) -> int:
    from sqlalchemy import select

    from dealerpoker.server.schema import rounds as rounds_table

    services = client.app.state.services

    async def run() -> int:
        async with services.database.transaction() as connection:
            found = await connection.execute(
                select(rounds_table.c.total_returned - rounds_table.c.total_stake).where(
                    rounds_table.c.id.in_(rounds)
                )
            )
            return sum(int(value) for (value,) in found)

    assert client.portal is not None
    return client.portal.call(run)


def signed_get(client: TestClient, query: str, secret: str = SECRET) -> Any:
    return client.get(
        f"/operator/v1/transactions?{query}",
        headers=operator_headers(secret, "GET", f"/operator/v1/transactions?{query}", now=client_now(client)),
    )


def play(player: Launched, rounds: int) -> list[str]:
    played = []
    for number in range(rounds):
        opened = player.post("/api/rounds", {"game": "casino-holdem", "bets": {"ante": 100}})
        assert opened.status_code == 200, opened.text
        view = opened.json()
        action = "call" if number % 2 else "fold"
        player.post(f"/api/rounds/{view['id']}/actions", {"action": action, "step": 1})
        played.append(view["id"])
    return played


def test_reconciliation_lists_every_transaction_and_agrees_with_the_operator(
    tmp_path: Path, operator: OperatorDemo, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite:///{tmp_path}/dealerpoker.db"
    with make_client(url, None, operators=operators_of(operator)) as client:
        player = Launched(client, operator, "erin-" + str(time.monotonic_ns()))
        played = play(player, 4)
        drained(client, played, player)
        day = time.strftime("%Y-%m-%d", time.gmtime())
        query = f"since={day}&until=2100-01-01"
        answer = signed_get(client, query)
        assert answer.status_code == 200, answer.text
        report = answer.json()
        mine = [t for t in report["transactions"] if t["player"] == player.name]
        assert {t["round_id"] for t in mine} == set(played)
        assert all({"round_id", "amount", "status", "attempts"} <= set(t) for t in mine)
        eur = report["summary"]["EUR"]
        assert eur["pending"]["count"] == 0 and eur["bets"]["count"] >= 4 + 2  # antes, and two calls
        assert operator.balance(player.name) == 10_000 + eur["net"]["amount"]
        assert signed_get(client, query, secret="not-the-operators-secret").status_code == 401
        tampered = client.get(
            "/operator/v1/transactions?since=2000-01-01&until=2100-01-01",
            headers=operator_headers(SECRET, "GET", f"/operator/v1/transactions?{query}",
                                     now=client_now(client)),
        )
        assert tampered.status_code == 401
        assert signed_get(client, "since=yesterday&until=2100-01-01").status_code == 422
    assert main(["reconcile", "--operator", "demo", "--date", day, "--database", url]) == 0
    printed = capsys.readouterr().out
    assert all(round_id in printed for round_id in played)
    assert f"net to players {eur['net']['amount']}" in printed
    assert main(["reconcile", "--operator", "demo", "--date", day, "--database", url, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"] == report["summary"]


def test_on_postgresql_the_one_statement_store_serves_every_player(
    client: TestClient, operator: OperatorDemo, database_url: str
) -> None:
    """With operators, PostgreSQL's one-statement round store serves the server's own players and
    an operator's real-money players alike (their money in the operator's wallet, written in the
    same statement as the round); the general store only an opening with a responsible-gaming
    check (SQLite has the general store only)."""
    store = client.app.state.services.rounds.store
    if database_url.startswith("sqlite"):
        assert type(store) is SqlRoundStore
        return
    assert isinstance(store, SeamlessPostgresRoundStore)
    through: list[str] = []
    for name in ("open", "step"):
        method = getattr(store.seamless, name)

        async def counted(*args: Any, _method: Any = method, _name: str = name) -> Any:
            through.append(_name)
            return await _method(*args)

        setattr(store.seamless, name, counted)
    demo = client.post("/api/session", json={}).json()
    headers = {"Authorization": f"Bearer {demo['token']}"}
    opening = {"game": "casino-holdem", "bets": {"ante": 100}}
    view = client.post("/api/rounds", json=opening, headers=headers).json()
    settled = client.post(f"/api/rounds/{view['id']}/actions", json={"action": "call", "step": 1},
                          headers=headers)
    assert settled.json()["status"] == "settled" and through == []  # the fast store's
    assert client.get("/api/balance", headers=headers).json()["balance"] == (
        demo["balance"] - 300 + settled.json()["settlement"]["total_returned"])
    player = Launched(client, operator, "fast-" + str(time.monotonic_ns()))
    played = play(player, 2)
    assert through == []
    drained(client, played, player)
    # Rollbacks count: on PostgreSQL the server tests share a database and draw round ids from one
    # seed, so an opening can meet a taken id, give its bet back and open again with a new one.
    net = ledger_net(operator.transactions(player.name))
    assert operator.balance(player.name) == 10_000 + net and net > -10_000


def test_the_operator_reads_a_rounds_wallet_calls_with_a_signed_request(
        client: TestClient, operator: OperatorDemo) -> None:
    """The casino never holds its player's session token: it reads a round's calls signed
    (issue 33), the same transactions and calls the player's own view gives."""
    player = Launched(client, operator, f"reader-{time.monotonic_ns()}")
    played = play(player, 1)
    drained(client, played, player)
    target = f"/operator/v1/rounds/wallet?round={played[0]}"
    answer = client.get(target, headers=operator_headers(SECRET, "GET", target, now=client_now(client)))
    assert answer.status_code == 200, answer.text
    theirs, mine = answer.json(), player.get(f"/api/rounds/{played[0]}/wallet").json()
    assert theirs["transactions"] == mine["transactions"]  # the operator sees its wallet's answers too
    assert [{k: v for k, v in call.items() if k != "answer"} for call in theirs["calls"]] == mine["calls"]
    assert {row["kind"] for row in answer.json()["transactions"]} >= {"bet", "win"}
    assert client.get(target).status_code == 401  # unsigned
    forged = operator_headers("not-the-operators-secret", "GET", target, now=client_now(client))
    assert client.get(target, headers=forged).status_code == 401
    unknown = "/operator/v1/rounds/wallet?round=r_0000000000000000"
    missing = client.get(unknown, headers=operator_headers(SECRET, "GET", unknown, now=client_now(client)))
    assert missing.status_code == 404
