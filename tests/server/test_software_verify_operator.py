"""POST /operator/v1/software/verify: a signed operator request answers the seeded HMAC of each
critical file and of the whole manifest, equal to a second implementation's; unsigned, 401."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from tests.certify.test_software import hmac_sha256
from tests.server.conftest import FakeClock, TestClient, make_client
from tests.support.operator import client_now, operator_headers
from tests.support.operators_file import operator_entry, operators_file

from dealerpoker.certify.manifest import critical_files, package_root
from dealerpoker.server.operators.config import parse_operators

SECRET = "software-verify-secret-0123456789"
OPERATORS = operators_file(operator_entry("casino-a", secret=SECRET, wallet_url="http://127.0.0.1:9399/wallet",
                                          currencies=["EUR"]))
PATH = "/operator/v1/software/verify"


@pytest.fixture
def client(database_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with make_client(database_url, clock, operators=parse_operators(OPERATORS)) as test_client:
        yield test_client


def test_signed_request_answers_the_seeded_hmacs(client: TestClient) -> None:
    raw = json.dumps({"seed": "C0FFEE00"}).encode()
    headers = operator_headers(SECRET, "POST", PATH, raw, operator="casino-a", now=client_now(client))
    answer = client.post(PATH, content=raw, headers=headers)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    root, key = package_root(), bytes.fromhex("c0ffee00")
    names = critical_files(root)  # a development checkout: no manifest, the files found
    expected = {name: hmac_sha256(key, (root / name).read_bytes()) for name in names}
    assert {f["path"]: f["hmac"] for f in body["files"]} == expected
    listing = "".join(f"{name}\t{value}\n" for name, value in sorted(expected.items()))
    assert body["manifest_hmac"] == hmac_sha256(key, listing.encode())
    assert body["operator"] == "casino-a" and body["manifest"] == "unverified"


def test_unsigned_or_bad_seed_is_refused(client: TestClient) -> None:
    raw = json.dumps({"seed": "c0ffee"}).encode()
    assert client.post(PATH, content=raw, headers={"Content-Type": "application/json"}).status_code == 401
    bad = json.dumps({"seed": "xyz"}).encode()
    headers = operator_headers(SECRET, "POST", PATH, bad, operator="casino-a", now=client_now(client))
    answer = client.post(PATH, content=bad, headers=headers)
    assert answer.status_code == 422 and "seed" in answer.text
