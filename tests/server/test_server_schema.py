"""Schemathesis against /openapi.json of a real server on loopback: no 5xx, every response as
documented (status codes, content type, body schema), with a bounded number of examples."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_schema_conformance,
    status_code_conformance,
)
from tests.support.servers import serving

from dealerpoker.server import Settings, create_app

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance, negative_data_rejection]


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    database = Path(tmp_path_factory.mktemp("schema")) / "casino.db"
    app = create_app(Settings(database_url=f"sqlite:///{database}"), rng=random.Random(5))
    with serving(app) as server:
        yield server.url


@pytest.fixture(scope="module")
def token(server_url: str) -> str:
    found: str = httpx.post(f"{server_url}/api/session").json()["token"]
    return found


@pytest.fixture(scope="module")
def api_schema(server_url: str) -> Any:
    return schemathesis.openapi.from_url(f"{server_url}/openapi.json")


def run_cases(api_schema: Any, checks: list[Any], max_examples: int, headers: dict[str, str]) -> None:
    """Generated cases for every operation (schemathesis' pytest plugin does not load on pytest 9)."""
    from schemathesis import GenerationMode

    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 7
    strategy = st.one_of(*(operation.as_strategy(generation_mode=mode)
                           for operation in operations
                           for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)))

    # Derandomized: the same examples on every run (other helpers share this suite); set
    # DEALERPOKER_FUZZ_RANDOM=1 to explore new ones.
    @settings(max_examples=max_examples, deadline=None, suppress_health_check=list(HealthCheck),
              derandomize=not os.environ.get("DEALERPOKER_FUZZ_RANDOM"), database=None)
    @given(strategy)
    def check(case: Any) -> None:
        case.call_and_validate(headers=headers, checks=checks)

    check()


@pytest.mark.slow
def test_api_conforms_to_its_schema(api_schema: Any, token: str) -> None:
    run_cases(api_schema, CHECKS, 300, {"Authorization": f"Bearer {token}"})


def test_api_without_a_token_conforms_too(api_schema: Any) -> None:
    run_cases(api_schema, CHECKS[:4], 60, {})
