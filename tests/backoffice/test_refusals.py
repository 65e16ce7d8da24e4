"""Every back-office endpoint against every role (issue 18, "each role's refusals: 403 from the
server, not only a hidden button"): a role without the endpoint's permission is answered 403
``forbidden`` and changes nothing (no entry of theirs in the audit log, no money moved), a role
with it is not refused. The table below must name every endpoint the server has, so a new one
cannot go without its refusals."""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from typing import Any

import pytest
from tests.server.conftest import LONG_SESSIONS, FakeClock, Player, TestClient

from dealerpoker.cli._analysis_cache import DiskCache
from dealerpoker.server import Settings, create_app
from dealerpoker.server.backoffice.access import PERMISSIONS, ROLES

from .support import StaffMember
from .test_operators import of_operator, operator_id

# (method, path as routed, permission, a request's path with its parameters, body). The changes'
# bodies are ones the server refuses (422; no live tables, versions or requests here: 404) once it
# has let the role in: the check of the role comes first, and an admin's request changes nothing
# here either (the PostgreSQL database is shared: a saved rules version would be applied by every
# later app).
ENDPOINTS: list[tuple[str, str, str, str, Any]] = [
    ("GET", "/admin/api/tables", "monitor.view", "/admin/api/tables", None),
    ("POST", "/admin/api/tables/{table_id}/status", "tables.control", "/admin/api/tables/texas-fast/status",
     {"status": "paused"}),
    ("POST", "/admin/api/tables/{table_id}/timers", "tables.control", "/admin/api/tables/texas-fast/timers",
     {"betting_seconds": 7}),
    ("GET", "/admin/api/rounds", "rounds.view", "/admin/api/rounds?operator={operator}&operator_player=ext-1",
     None),
    ("GET", "/admin/api/round", "rounds.view", "/admin/api/round?id={round}", None),
    ("GET", "/admin/api/round/verification", "rounds.verify", "/admin/api/round/verification?id={round}",
     None),
    ("GET", "/admin/api/players", "players.view",
     "/admin/api/players?operator={operator}&operator_player=ext-1", None),
    ("GET", "/admin/api/players/{player_id}", "players.view", "/admin/api/players/{player}", None),
    ("POST", "/admin/api/players/{player_id}/adjustments", "players.adjust",
     "/admin/api/players/{player}/adjustments", {"amount": 0, "reason": "a refusal's test"}),
    ("GET", "/admin/api/reports", "reports.view",  # days without rounds: no bets' moments to work out
     "/admin/api/reports?operator={operator}&since=2020-01-01&until=2020-01-02", None),
    ("GET", "/admin/api/games", "games.view", "/admin/api/games", None),
    ("POST", "/admin/api/games/{game}/draft", "games.edit", "/admin/api/games/texas-bonus/draft",
     {"changes": {"limits": {}}}),
    ("POST", "/admin/api/games/{game}/versions", "games.edit", "/admin/api/games/texas-bonus/versions",
     {"changes": {"limits": {}}}),
    ("POST", "/admin/api/games/{game}/versions/{version}/restore", "games.edit",
     "/admin/api/games/texas-bonus/versions/999999/restore", {}),
    ("POST", "/admin/api/games/{game}/requests/{request_id}/approve", "games.edit",
     "/admin/api/games/texas-bonus/requests/999999/approve", {}),
    ("POST", "/admin/api/games/{game}/requests/{request_id}/reject", "games.edit",
     "/admin/api/games/texas-bonus/requests/999999/reject", {}),
    ("GET", "/admin/api/operators", "operators.view", "/admin/api/operators?hours=1", None),
    ("POST", "/admin/api/games/{game}/jurisdictions", "games.edit",
     "/admin/api/games/texas-bonus/jurisdictions", {"version": 999999, "jurisdictions": ["GB"]}),
    ("POST", "/admin/api/games/{game}/jurisdiction-requests/{request_id}/approve", "games.edit",
     "/admin/api/games/texas-bonus/jurisdiction-requests/999999/approve", {}),
    ("POST", "/admin/api/games/{game}/jurisdiction-requests/{request_id}/reject", "games.edit",
     "/admin/api/games/texas-bonus/jurisdiction-requests/999999/reject", {}),
    ("GET", "/admin/api/jackpot", "reports.view", "/admin/api/jackpot", None),
    ("GET", "/admin/api/campaigns", "reports.view", "/admin/api/campaigns", None),
    ("GET", "/admin/api/audit", "audit.view", "/admin/api/audit", None),
    ("GET", "/admin/api/audit/verify", "audit.view", "/admin/api/audit/verify", None),
]
# Every signed-in member may use these (their own session and password).
EVERYONE = {("POST", "/admin/api/session"), ("GET", "/admin/api/session"), ("DELETE", "/admin/api/session"),
            ("POST", "/admin/api/password")}


@pytest.fixture
def client(database_url: str, clock: FakeClock) -> Iterator[TestClient]:
    """The app with ``analyze``'s disk cache: the games page shows each game's exact RTPs."""
    app = create_app(Settings(database_url=database_url, **LONG_SESSIONS), rng=random.Random(7), clock=clock,
                     analysis_cache=DiskCache())
    with TestClient(app) as test_client:
        yield test_client


def routed(client: Any) -> set[tuple[str, str]]:
    """The server's back-office endpoints, as its OpenAPI document lists them."""
    paths = client.app.openapi()["paths"]
    return {(method.upper(), path) for path, operations in paths.items() if path.startswith("/admin/api")
            for method in operations}


def test_the_table_names_every_back_office_endpoint(client: Any) -> None:
    assert {(method, path) for method, path, *_ in ENDPOINTS} | EVERYONE == routed(client)
    named = {permission for _, _, permission, *_ in ENDPOINTS}
    assert named == set().union(*PERMISSIONS.values())  # every permission guards something


@pytest.mark.slow
def test_each_role_is_refused_what_it_may_not_do_and_nothing_changes(client: Any) -> None:
    player, acme = Player(client), operator_id()
    of_operator(client, player, acme, "ext-1")
    round_id = player.open("texas-bonus", ante=100)["id"]
    balance = player.balance()
    values = {"operator": acme, "player": player.id, "round": round_id}
    reader = StaffMember(client, f"ref-reader-{secrets.token_hex(3)}", "auditor")
    for role in ROLES:
        member = StaffMember(client, f"ref-{role}-{secrets.token_hex(3)}", role)
        for method, _, permission, path, body in ENDPOINTS:
            url = path.format(**values)
            answer = member.get(url) if method == "GET" else member.post(url, body)
            if permission in PERMISSIONS[role]:
                assert answer.status_code != 403, (role, method, url, answer.text)
            else:
                assert answer.status_code == 403, (role, method, url, answer.text)
                assert answer.json()["error"] == "forbidden" and permission in answer.json()["message"]
        assert player.balance() == balance
        entries = reader.get("/admin/api/audit", actor=member.name).json()["entries"]
        assert [entry["action"] for entry in entries] == ["staff.password"]  # their own password only
