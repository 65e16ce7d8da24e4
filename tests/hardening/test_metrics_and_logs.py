"""Item 12: ``/metrics`` in the Prometheus format (requests and latencies by route template, rounds
by game and outcome, live players per table, ledger postings, rate-limit refusals, errors, the
wallet calls' counter) and structured logs: one JSON object per line, with the request id also
answered in ``X-Request-Id``."""

from __future__ import annotations

import asyncio
import json
import logging

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from tests.hardening.edge_support import client, edge_app, live_edge_server, session
from tests.support.operators_file import operator_entry, operators_file
from tests.support.servers import ServeProcess
from websockets.sync.client import connect

from dealerpoker.server import Settings, create_app, edge
from dealerpoker.server.edge import documented_paths
from dealerpoker.server.observability.logs import REQUEST_ID, JsonFormatter
from dealerpoker.server.operators.config import parse_operators

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def _samples(text: str) -> Samples:
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


def _value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_rounds_postings_and_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    """... and the route templates are read off the routes only when a request refused before
    routing needs one (~0.15 s of CPU that no routed request, the fast path's included, waits for)."""
    read: list[int] = []
    monkeypatch.setattr(edge, "documented_paths", lambda app: read.append(1) or documented_paths(app))

    async def run() -> None:
        app = edge_app(rate_limits={"session": "2/minute"})
        async with client(app) as http:
            before = _samples((await http.get("/metrics")).text)
            auth = {"authorization": f"Bearer {(await session(http))['token']}"}
            view = (await http.post("/api/rounds", json={"game": "texas-bonus", "bets": {"ante": 100}},
                                    headers=auth)).json()
            fold = {"action": "fold", "step": 1}
            settled = (await http.post(f"/api/rounds/{view['id']}/actions", json=fold, headers=auth)).json()
            assert settled["status"] == "settled"
            await session(http)
            assert read == []
            assert (await http.post("/api/session", json={})).status_code == 429
            assert (await http.post("/api/session", json={})).status_code == 429
            assert read == [1]  # once
            scraped = await http.get("/metrics")
            assert scraped.status_code == 200 and scraped.headers["content-type"].startswith("text/plain")
            after = _samples(scraped.text)

        def grew(name: str, **labels: str) -> float:
            return _value(after, name, **labels) - _value(before, name, **labels)

        requests = "dealerpoker_http_requests_total"
        assert grew(requests, method="POST", route="/api/rounds", status="200") == 1  # the fast path
        assert grew(requests, method="POST", route="/api/rounds/{round_id}/actions", status="200") == 1
        assert grew(requests, method="POST", route="/api/session", status="429") == 2
        latency = "dealerpoker_http_request_duration_seconds_count"
        assert grew(latency, method="POST", route="/api/rounds") == 1
        assert grew("dealerpoker_rounds_total", game="texas-bonus", outcome="fold", kind="solo") == 1
        assert grew("dealerpoker_ledger_postings_total", memo="starting balance") == 2
        assert grew("dealerpoker_ledger_postings_total", memo="bets") == 1
        assert grew("dealerpoker_rate_limit_refusals_total", limit="session") == 2
        names = {family.name for family in text_string_to_metric_families(scraped.text)}
        assert {"dealerpoker_errors", "dealerpoker_wallet_calls", "dealerpoker_live_players"} <= names

    asyncio.run(run())


def test_metrics_route_templates_are_the_openapi_documents_paths() -> None:
    """A request refused before routing is counted under its path's template: the templates are read
    off the routes (building the OpenAPI document would hold up the first request), and they are
    exactly the document's paths, the operators' included."""
    entry = operator_entry("casino-a", secret="s3cret-for-casino-a-0123456789", currencies=["EUR"],
                           wallet_url="http://127.0.0.1:9/wallet")
    app = create_app(Settings(database_url="sqlite://", operators=parse_operators(operators_file(entry))))

    async def run() -> None:
        async with client(app) as http:
            assert (await http.get("/healthz")).status_code == 200  # the middleware stack is built
            paths = documented_paths(app)
            assert len(paths) == len(set(paths))
            assert "/operator/v1/launch" in paths and "/api/rounds/{round_id}/actions" in paths
            assert set(paths) == set(app.openapi()["paths"])

    asyncio.run(run())


def test_metrics_live_players_per_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with live_edge_server(f"sqlite:///{tmp_path}/live.db") as (base, _app):
        token = httpx.post(f"{base}/api/session", json={}, timeout=60).json()["token"]
        before = _value(_samples(httpx.get(f"{base}/metrics", timeout=60).text),
                        "dealerpoker_live_players", table="casino-fast")
        with connect(f"ws{base[4:]}/ws/tables/casino-fast", open_timeout=60,
                     additional_headers={"Authorization": f"Bearer {token}"}) as socket:
            assert '"welcome"' in socket.recv(timeout=60)
            during = _value(_samples(httpx.get(f"{base}/metrics", timeout=60).text),
                            "dealerpoker_live_players", table="casino-fast")
            assert during == before + 1


def test_metrics_request_id_is_answered() -> None:
    async def run() -> None:
        async with client(edge_app()) as http:
            first, second = await http.get("/api/games"), await http.get("/nowhere")
            assert len(first.headers["x-request-id"]) == 16
            assert first.headers["x-request-id"] != second.headers["x-request-id"]
            echoed = await http.get("/api/games", headers={"x-request-id": "client-42.a_b"})
            assert echoed.headers["x-request-id"] == "client-42.a_b"
            replaced = await http.get("/api/games", headers={"x-request-id": "no spaces or {braces}"})
            assert replaced.headers["x-request-id"] != "no spaces or {braces}"

    asyncio.run(run())


def test_metrics_logs_are_json_lines_with_the_request_id() -> None:
    record = logging.LogRecord("dealerpoker.server", logging.ERROR, "x.py", 1, "failed %s", ("x",), None)
    token = REQUEST_ID.set("abc123")
    try:
        line = JsonFormatter().format(record)
    finally:
        REQUEST_ID.reset(token)
    document = json.loads(line)
    assert "\n" not in line and document["message"] == "failed x" and document["request_id"] == "abc123"
    assert document["level"] == "error" and document["logger"] == "dealerpoker.server"


@pytest.mark.slow
def test_metrics_and_logs_of_serve(tmp_path) -> None:  # type: ignore[no-untyped-def]
    log = tmp_path / "serve.log"
    server = ServeProcess(f"sqlite:///{tmp_path}/serve.db", log=log, extra=["--no-rtp", "--access-log"])
    try:
        answered = httpx.get(f"{server.url}/api/games", timeout=60)
        ident = answered.headers["x-request-id"]
        assert "dealerpoker_http_requests_total" in httpx.get(f"{server.url}/metrics", timeout=60).text
    finally:
        server.stop()
    lines = [line for line in log.read_text().splitlines() if line.strip()]
    # serve says where it serves in plain words on stdout; every log line (stderr) is one JSON object
    assert [line for line in lines if line.startswith("dealerpoker serve: serving the casino at http")]
    documents = [json.loads(line) for line in lines if not line.startswith("dealerpoker serve: ")]
    mine = [d for d in documents if d.get("request_id") == ident]
    assert mine and mine[0]["route"] == "/api/games" and mine[0]["status"] == 200
