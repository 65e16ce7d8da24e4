"""The suite's httpx clients share one TLS context (tests/support/tls.py): a new one for each
``httpx.post`` cost 30-50 ms of CPU (benchmarks/suite_costs.py), in thousands of helper calls and polls."""

from __future__ import annotations

import ssl

import httpx


def context_of(client: httpx.Client | httpx.AsyncClient) -> ssl.SSLContext:
    pool = client._transport._pool  # type: ignore[attr-defined]
    context: ssl.SSLContext = pool._ssl_context
    return context


def test_clients_with_the_default_verification_share_the_processes_context() -> None:
    with httpx.Client() as first, httpx.Client(timeout=5) as second:
        shared = context_of(first)
        assert context_of(second) is shared and context_of(httpx.AsyncClient()) is shared
        assert shared.verify_mode == ssl.CERT_REQUIRED and shared.check_hostname
    with httpx.Client(verify=False) as unverified:  # any other verification: httpx's own, as asked
        assert context_of(unverified) is not shared and context_of(unverified).verify_mode == ssl.CERT_NONE
