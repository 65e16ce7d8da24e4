"""One TLS context for every httpx client of a test process.

``httpx.post(...)``, ``httpx.get(...)`` and ``httpx.Client()`` each build a new TLS context and load
certifi's CA bundle into it, 30-50 ms of CPU per client (benchmarks/suite_costs.py), though the
suite's servers all answer on http://127.0.0.1: the helpers and polls of the suite make thousands.
Here a client asking for the default verification (``verify=True``, no ``cert``) gets the one
context of the process, built the same way on first use; any other asks httpx as usual. The
context is only read once built, so clients in several threads may share it.
"""

from __future__ import annotations

import functools
import ssl
from typing import Any

import httpx._transports.default as transports

BUILD = transports.create_ssl_context  # httpx's own: the transports call it by this name


@functools.cache
def shared_context() -> ssl.SSLContext:
    return BUILD()


def create_ssl_context(verify: Any = True, cert: Any = None, trust_env: bool = True) -> ssl.SSLContext:
    if verify is True and cert is None and trust_env:
        return shared_context()
    return BUILD(verify=verify, cert=cert, trust_env=trust_env)


def install() -> None:
    """Shared by every httpx client of this process built from now on (tests/conftest.py)."""
    transports.create_ssl_context = create_ssl_context
