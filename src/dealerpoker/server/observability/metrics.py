"""The server's metrics in the Prometheus format (``prometheus-client``), served at ``/metrics``.

Per process by default; with ``PROMETHEUS_MULTIPROC_DIR`` set (``serve --workers N`` sets it to
a fresh directory of its own) every worker writes its values there and ``/metrics`` answers the
sum over all workers (the client library's multiprocess mode; gauges sum the live processes).
"""

from __future__ import annotations

import collections
import os
from collections.abc import Iterable
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

HTTP_REQUESTS = Counter("dealerpoker_http_requests", "HTTP requests answered, by route template and status",
                        ["method", "route", "status"])
HTTP_LATENCY = Histogram("dealerpoker_http_request_duration_seconds",
                         "Time to answer an HTTP request, by route template", ["method", "route"],
                         buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0))
ROUNDS = Counter("dealerpoker_rounds", "Rounds settled (a live round: each seat), by game and outcome",
                 ["game", "outcome", "kind"])
LIVE_PLAYERS = Gauge("dealerpoker_live_players", "Players connected to a live table (this process's "
                     "WebSockets; summed over the workers)", ["table"], multiprocess_mode="livesum")
LEDGER_POSTINGS = Counter("dealerpoker_ledger_postings", "Ledger transfers written (txids), by memo",
                          ["memo"])
RATE_LIMIT_REFUSALS = Counter("dealerpoker_rate_limit_refusals", "Requests and connections refused by a "
                              "rate limit", ["limit"])
ERRORS = Counter("dealerpoker_errors", "Server errors: HTTP answers 5xx and faults logged", ["kind"])
WALLET_CALLS = Counter("dealerpoker_wallet_calls", "Calls to an operator's wallet, by operation and outcome",
                       ["operator", "operation", "outcome"])
"""Counted by the operator wallet client (``operators/client.py``): outcome is the operator's status
in lower case, or ``unknown`` (a timeout, a dropped or unreadable answer)."""
SOFTWARE_VERIFIED = Gauge("dealerpoker_software_verified", "1 while the installed critical files match the "
                          "software manifest, 0 after a mismatch (play halted)", multiprocess_mode="min")


def count_round(game: str, outcome: object, kind: str, rounds: int = 1) -> None:
    """Settled rounds (solo) or seats (live), by game and outcome (``win``, ``fold``, ...)."""
    ROUNDS.labels(game=game, outcome=str(getattr(outcome, "value", outcome)), kind=kind).inc(rounds)


def count_postings(transfers: Iterable[Any]) -> None:
    """Transfers written by ``ledger.post`` (in a unit of work that may still roll back). Counted
    by memo first: a live settlement posts 10,000, and each ``inc`` of a worker's metric is a
    write to its shared file."""
    counted = collections.Counter(str(getattr(transfer, "memo", "") or "") for transfer in transfers)
    for memo, count in counted.items():
        LEDGER_POSTINGS.labels(memo=memo).inc(count)


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def exposition() -> bytes:
    """Every metric in the text format: this process's, or every worker's in multiprocess mode."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return bytes(generate_latest(registry))
    return bytes(generate_latest())
