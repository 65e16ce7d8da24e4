"""The back office's free bets (issue 30): each operator's campaign with its exact cost (the
expected payout of a free ante under optimal play, from the exact analysis, times its rounds) and
its use; the reports keep free rounds apart from real money (``promotional``) and their real-money
figures still equal the ledger's."""

from __future__ import annotations

import json
import random
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from fractions import Fraction
from typing import Any

import pytest
from tests.server.conftest import LONG_SESSIONS, FakeClock, TestClient
from tests.support.databases import fresh_database
from tests.support.operator import client_now, demo_launch, operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.analysis.rtp import analysis_document
from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.games.rules import load_rules
from dealerpoker.server import Settings, create_app
from dealerpoker.server.backoffice import reports
from dealerpoker.server.operators.config import parse_operators

from .support import StaffMember

SECRET = "free-bets-back-office-secret-0123"
RUN = uuid.uuid4().hex[:8]
"""Ids of this run (a PostgreSQL test database outlives a run)."""


def operators() -> Any:
    return parse_operators(operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet",
                                          currencies=["EUR", "JPY"], frame_ancestors=["https://casino-a.example"]))


def send(client: TestClient, target: str, body: Any) -> Any:
    raw = json.dumps(body).encode()
    headers = operator_headers(SECRET, "POST", target, raw, operator="casino-a", now=client_now(client))
    answer = client.post(target, content=raw, headers=headers)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()


@pytest.fixture
def casino(database_url: str) -> Iterator[TestClient]:
    """A server with operators and the analysis cache (on PostgreSQL a database of its own: a report
    reads every round of the database)."""
    with ExitStack() as stack:
        sqlite = database_url.startswith("sqlite")
        url = database_url if sqlite else stack.enter_context(fresh_database("promo"))
        app = create_app(Settings(database_url=url, operators=operators(), **LONG_SESSIONS),
                         rng=random.Random(30), clock=FakeClock(), analysis_cache=DiskCache())
        yield stack.enter_context(TestClient(app))


def play(client: TestClient, headers: dict[str, str], bets: dict[str, int],
         free_round: str | None = None) -> Any:
    body: dict[str, Any] = {"game": "casino-holdem", "bets": bets}
    if free_round:
        body["free_round"] = free_round
    view = client.post("/api/rounds", headers=headers, json=body).json()
    raised = {"action": "raise", "step": 1}
    return client.post(f"/api/rounds/{view['id']}/actions", headers=headers, json=raised).json()


def test_campaigns_show_their_exact_cost_and_use_and_reports_keep_free_rounds_apart(
        casino: TestClient) -> None:
    campaign = send(casino, "/operator/v1/campaigns", {
        "campaign_id": f"bo-{RUN}", "games": ["casino-holdem"], "ante": {"EUR": 100, "JPY": 200}, "rounds": 2,
        "valid_from": "2025-01-01T00:00:00Z", "valid_until": "2027-01-01T00:00:00Z"})
    send(casino, f"/operator/v1/campaigns/{campaign['id']}/grants", {"players": [f"gus-{RUN}", f"hal-{RUN}"]})
    gus = demo_launch(casino, "casino-a", SECRET, player=f"gus-{RUN}", game="casino-holdem")
    reward = casino.get("/api/free-rounds", headers=gus).json()["free_rounds"][0]["reward"]
    free = [play(casino, gus, {}, reward) for _ in ("first", "second")]
    real = play(casino, gus, {"ante": 100})

    staff = StaffMember(casino, f"auditor-{RUN}", "auditor")
    answer = staff.get("/admin/api/campaigns")
    assert answer.status_code == 200, answer.text
    [shown] = [c for c in answer.json()["campaigns"] if c["id"] == campaign["id"]]
    edge = Fraction(analysis_document(load_rules("casino-holdem"), DiskCache(), DiskCache())
                    ["rules"]["exact"]["house_edge"])
    cost = shown["cost"]["casino-holdem"]
    assert Fraction(cost["house_edge"]["exact"]) == edge and 0 < edge < Fraction(1, 10)
    assert Fraction(cost["EUR"]["per_round"]["exact"]) == 100 * (1 - edge)
    assert Fraction(cost["EUR"]["granted"]["exact"]) == 2 * 2 * 100 * (1 - edge)  # two players, two rounds
    assert Fraction(cost["EUR"]["played"]["exact"]) == 2 * 100 * (1 - edge)
    assert Fraction(cost["JPY"]["per_round"]["exact"]) == 200 * (1 - edge)
    use = shown["use"]["EUR"]
    assert (use["rounds"], use["free_ante"]) == (2, 200)
    assert use["staked"] == sum(r["total_stake"] for r in free) == 400  # the raises: the players' own
    assert use["returned"] == sum(r["total_returned"] for r in free)
    assert use["net"] == use["returned"] - use["staked"]

    report = staff.get("/admin/api/reports", since="2025-01-01", until="2027-01-01").json()
    rows = [r for r in report["rows"] if r["operator"] == "casino-a"]
    assert sum(r["rounds"] for r in rows) == 1  # the real-money round alone
    assert sum(r["staked"] for r in rows) == real["total_stake"] == 300
    [promo] = [p for p in report["promotional"] if p["campaign"] == campaign["id"]]
    assert {k: promo[k] for k in ("operator", "currency", "rounds", "free_ante", "staked", "returned")} == {
        "operator": "casino-a", "currency": "EUR", "rounds": 2, "free_ante": 200, "staked": 400,
        "returned": use["returned"]}

    async def ledger() -> Any:
        async with casino.app.state.services.database.reading() as connection:
            return await reports.ledger_totals(connection, since="2025-01-01", until="2027-01-01")

    assert casino.portal is not None
    totals = casino.portal.call(ledger)
    staked = sum(paid for (_, currency), (paid, _) in totals.items() if currency == "EUR")
    assert staked == sum(t["staked"] for t in report["totals"] if t["currency"] == "EUR")  # to the cent


def test_support_staff_may_not_see_campaign_costs(casino: TestClient) -> None:
    staff = StaffMember(casino, f"support-{RUN}", "support")
    assert staff.get("/admin/api/campaigns").status_code == 403
