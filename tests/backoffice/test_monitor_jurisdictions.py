"""The live monitor by jurisdiction (issue 27): each table names the markets it serves and its
seated players by jurisdiction, and the monitor is filtered by one."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest
from tests.live.conftest import LivePlayer, bet_in_a_window
from tests.support.operator import operator_headers
from tests.support.operators_file import operator_entry

from dealerpoker.server.operators.config import parse_operators

from .web_support import BackOffice, back_office

SECRET = "monitor-juris-secret-0123456789abc"


@pytest.fixture(scope="module")
def office(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BackOffice]:
    operators = parse_operators(operator_entry(
        "casino-m", secret=SECRET, wallet_url="http://127.0.0.1:9/wallet", currencies=["EUR"],
        jurisdictions=["MT"]))
    with back_office(tmp_path_factory, {"mo-ann": "admin"}, live=True, operators=tuple(operators)) as started:
        yield started


def maltese(office: BackOffice) -> SimpleNamespace:
    raw = json.dumps({"player": "mt-1", "mode": "demo", "currency": "EUR", "table": "texas-fast",
                      "jurisdiction": "MT"}).encode()
    headers = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator="casino-m",
                               now=time.time())
    launched = httpx.post(f"{office.url}/operator/v1/launch", content=raw, headers=headers, timeout=60)
    assert launched.status_code == 200, launched.text
    token = launched.json()["launch_token"]
    session = httpx.post(f"{office.url}/api/session", json={"launch": token}, timeout=60).json()
    return SimpleNamespace(token=session["token"], id=session["player_id"])


def test_the_monitor_shows_and_filters_tables_by_jurisdiction(office: BackOffice) -> None:
    player = LivePlayer(office.url, "texas-fast", same_as=maltese(office))  # type: ignore[arg-type]
    try:
        bet_in_a_window(player, {"ante": 100})
        with office.api("mo-ann") as http:
            shown = {t["id"]: t for t in http.get("/admin/api/tables").json()["tables"]}
            maltese_tables = [t["id"] for t in http.get("/admin/api/tables?jurisdiction=MT").json()["tables"]]
    finally:
        player.close()
    assert shown["texas-fast"]["jurisdictions"] == []  # it serves every market
    assert shown["texas-fast"]["seated_by_jurisdiction"] == {"MT": 1}
    assert shown["casino-fast"]["seated_by_jurisdiction"] == {}
    assert "texas-fast" in maltese_tables
