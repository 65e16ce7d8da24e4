"""Defect 10: the OpenAPI schema was looser than the server (``bets: {}``, a non-ASCII
``client_seed`` and ``step: 67.0`` passed the schema but got 422; ``OPTIONS`` answers failed the
Allow-header check). The schema now says what is accepted, and schemathesis with every check
finds no failure on SQLite and PostgreSQL (bounded: ``MAX_EXAMPLES`` per operation, a fixed seed),
NUL characters generated too, against a server with an operators file whose ``/operator/v1``
requests schemathesis signs (``schemathesis_credentials``), each of them answered 2xx at least
once (the free-bet campaigns' too), the back office's sign-in refused without a staff session; and
a second run over the back office with an admin's session finds none either. The first run leaves
out the back office's other operations: without a session each is a 401 whatever is sent, which
``tests/backoffice/test_access.py`` checks of every one (28 of the run's 69 operations). The
server and its admin hash staff passwords at argon2's floor (tests/support/passwords.py:
``in_processes``): the runs sign in and re-password with wrong passwords by the dozen."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import jsonschema_rs
import pytest
from tests.support import passwords
from tests.support.operator import OperatorDemo, operator_headers
from tests.support.operators_file import demo_entry, operators_file
from tests.support.servers import DEALERPOKER, ServeProcess

from dealerpoker.server import Settings, create_app
from dealerpoker.server.backoffice.deps import COOKIE, CSRF_HEADER

MAX_EXAMPLES = 30
SECRET = "schemathesis-operator-secret"
ROOT = Path(__file__).resolve().parents[2]
PLAYER = "schemathesis-player"
STAFF = "schemathesis-admin"
STAFF_PASSWORD = "schemathesis staff password"
STAFF_SESSION = "/admin/api/session"
WITH_A_STAFF_SESSION_ONLY = "^/admin/api/(?!session$)"  # the back office but its sign-in
SIGN_HERE = "sign-here"  # the X-Signature the hooks replace with the operator's signature
SCHEMATHESIS = str(Path(DEALERPOKER).parent / "schemathesis")
# Schemathesis's random walk (its fuzzing phase) runs on SQLite; on PostgreSQL the deterministic phases
# run: the schema's examples, its coverage cases (each bound and one past it: the longest strings,
# the largest integers, NUL characters, which is where the databases differ: PostgreSQL refuses
# NUL in text and overflowing integers, SQLite takes both) and the stateful links. What the random
# walk finds past validation reaches the same services on both databases; every store passes one
# contract suite on both (tests/server/test_round_stores.py).
ON_POSTGRESQL = ("--phases", "examples,coverage,stateful")
NO_RATE_LIMITS = ",".join(f"{name}=off" for name in
                          ("session", "auth_failure", "request", "account", "websocket", "websocket_account"))


def test_the_schema_is_as_strict_as_the_server() -> None:
    app = create_app(Settings(database_url="sqlite://"))

    async def scenario() -> None:
        async with app.router.lifespan_context(app):
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
                document: dict[str, Any] = (await http.get("/openapi.json")).json()
                schemas = document["components"]["schemas"]
                shapes = schemas["RoundIn"]["oneOf"]
                assert sorted(shape["properties"]["game"]["enum"][0] for shape in shapes) == \
                    ["casino-holdem", "texas-bonus"]
                for shape in shapes:
                    bets = shape["properties"]["bets"]
                    assert bets["minProperties"] == 1 and bets["additionalProperties"] is False
                    assert bets["required"] == ["ante"]
                assert schemas["ClientSeedIn"]["properties"]["client_seed"]["pattern"] == "^[ -~]+$"
                assert schemas["ActionIn"]["required"] == ["action", "step"]
                assert schemas["ActionIn"]["properties"]["step"]["type"] == "integer"
                # 67.0 is the integer 67 in JSON Schema: the server reads it so.
                token = (await http.post("/api/session", json={})).json()["token"]
                auth = {"Authorization": f"Bearer {token}"}
                opening = {"game": "casino-holdem", "bets": {"ante": 100.0}}
                view = (await http.post("/api/rounds", json=opening, headers=auth)).json()
                acted = await http.post(f"/api/rounds/{view['id']}/actions",
                                        json={"action": "fold", "step": 1.0}, headers=auth)
                assert acted.status_code == 200 and acted.json()["status"] == "settled", acted.text
                # Every pattern compiles in a UTF-8 validator (schemathesis's): one naming lone
                # surrogates was dropped, and NUL, refused by the server, was generated as valid.
                for pattern in set(patterns(document)):
                    jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
                # OPTIONS and a method a path does not take name exactly the path's methods.
                options = await http.options("/api/fairness/client-seed")
                assert options.status_code == 204 and options.headers["allow"] == "OPTIONS, PUT"
                wrong = await http.get("/api/session/logout")
                assert wrong.status_code == 405 and wrong.headers["allow"] == "OPTIONS, POST", wrong.text
                assert wrong.json()["error"] == "method_not_allowed"

    asyncio.run(scenario())


@pytest.mark.slow  # a served process and a long generated run
def test_schemathesis_with_every_check_finds_nothing(served_database: str, tmp_path: Path) -> None:
    with served_with_an_operator(served_database, tmp_path) as (server, wallet):
        token = httpx.post(f"{server.url}/api/session", json={}, timeout=60).json()["token"]
        # The operators' player endpoints are about this player, their campaign endpoints
        # about a campaign (else each answer is a 404), cancelled: a campaign of its own.
        granted, cancelled = (created_campaign(server.url, wallet.operator_id, name)
                              for name in ("granted", "cancelled"))
        (tmp_path / "schemathesis.toml").write_text(
            f'[parameters]\n"path.player" = "{PLAYER}"\n"path.campaign_id" = "{granted}"\n\n'
            '[[operations]]\ninclude-name = "POST /operator/v1/campaigns/{campaign_id}/cancel"\n'
            f'parameters = {{ "path.campaign_id" = "{cancelled}" }}\n\n' + BODY_OVER_THE_LIMIT)
        answers = tmp_path / "answers.txt"
        done = schemathesis(server.url, tmp_path, credentials(wallet.operator_id, answers),
                            "-H", f"Authorization: Bearer {token}", "-H", f"X-Signature: {SIGN_HERE}",
                            "--exclude-path-regex", WITH_A_STAFF_SESSION_ONLY, *phases_for(served_database))
        assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
        recorded = answered(answers)
        reached = {operation for operation, status, _ in recorded if status.startswith("2")}
        operator_operations = {f"{method} {path}" for path, item in server_openapi(server.url).items()
                               if path.startswith("/operator/")
                               for method in map(str.upper, item)}
        missed = sorted(operator_operations - reached)
        assert operator_operations and not missed, f"operator endpoints never answered 2xx: {missed}"
        assert {operation for operation, _, _ in recorded if " /admin/api/" in operation} == {
            f"{method} {STAFF_SESSION}" for method in ("GET", "POST", "DELETE")}
        # The back office's session, without a staff session: refused (401, or 403 for a change), or its
        # request refused as malformed before the session is read (400, 422) or its method
        # not the path's (405, and OPTIONS' 204): nothing served.
        served = sorted({f"{operation} {status} {sent}" for operation, status, sent in recorded
                         if " /admin/api/" in operation and operation != f"POST {STAFF_SESSION}"
                         and status not in ("401", "403", "400", "422", "405")
                         and not (status == "204" and sent == "OPTIONS")})
        assert not served, f"back-office endpoints answered without a staff session: {served}"


@pytest.mark.slow  # a served process and a long generated run
def test_schemathesis_finds_nothing_in_the_back_office_with_a_staff_session(
        served_database: str, tmp_path: Path) -> None:
    """Every back-office endpoint (``/admin/api/...``) with an admin's session and its CSRF token:
    0 server errors and 0 failed checks, and each reading endpoint answered 2xx at least once."""
    with served_with_an_operator(served_database, tmp_path) as (server, wallet):
        password = staff_admin(served_database, server.url)
        signed_in = httpx.post(f"{server.url}{STAFF_SESSION}", timeout=60,
                               json={"name": STAFF, "password": password})
        assert signed_in.status_code == 200, signed_in.text
        # The pages computed once per process (the games' exact RTPs, the jackpot's figures), so
        # that no request of the run waits for them.
        session = {"Cookie": f"{COOKIE}={signed_in.cookies[COOKIE]}"}
        for page in ("/admin/api/games", "/admin/api/jackpot"):
            assert httpx.get(f"{server.url}{page}", headers=session, timeout=600).status_code == 200
        answers = tmp_path / "answers.txt"
        staff = {"DEALERPOKER_STAFF_NAME": STAFF, "DEALERPOKER_STAFF_PASSWORD": password}
        done = schemathesis(server.url, tmp_path, {**credentials(wallet.operator_id, answers), **staff},
                            "-H", f"Cookie: {COOKIE}={signed_in.cookies[COOKIE]}",
                            "-H", f"{CSRF_HEADER}: {signed_in.json()['csrf']}",
                            "--include-path-regex", "^/admin/api/", *phases_for(served_database))
        assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]
        reached = {operation for operation, status, _ in answered(answers) if status.startswith("2")}
        readings = {f"GET {path}" for path, item in server_openapi(server.url).items()
                    if path.startswith("/admin/api/") and "get" in item and "{" not in path}
        missed = sorted(readings - reached)
        assert readings and not missed, f"back-office readings never answered 2xx: {missed}"




@contextmanager
def served_with_an_operator(database: str, tmp_path: Path) -> Iterator[tuple[ServeProcess, OperatorDemo]]:
    """A ``dealerpoker serve`` process whose operators file names the reference operator's wallet
    (rate limits off: they have tests of their own), ``PLAYER`` launched by that operator."""
    env = passwords.in_processes({**os.environ, "DEALERPOKER_RATE_LIMITS": NO_RATE_LIMITS})
    with OperatorDemo(tmp_path, secret=SECRET) as wallet:
        operators = tmp_path / "operators.toml"
        operators.write_text(operators_file(demo_entry(wallet)))
        server = ServeProcess(database, log=tmp_path / "server.log", env=env,
                              extra=["--no-rtp", "--operators", str(operators)])
        try:
            launched_player(server.url, wallet.operator_id)
            yield server, wallet
        finally:
            server.stop()


BODY_OVER_THE_LIMIT = """[checks.negative_data_rejection]
expected-statuses = ["400", "401", "403", "404", "405", "406", "409", "413", "415", "422", "428", "429"]

[checks.positive_data_acceptance]
expected-statuses = ["2xx", "401", "403", "404", "409", "413", "429"]
"""
"""A body over the server's limit (64 KiB by default) is refused with 413 whatever it holds: a
byte count no JSON Schema states (1,000 grants' player ids of 64 characters each can pass it).
Otherwise schemathesis's defaults, less the 5xx and 3xx these two checks take by default."""


def schemathesis(url: str, tmp_path: Path, hooks: dict[str, str],
                 *options: str) -> subprocess.CompletedProcess[str]:
    """``schemathesis run`` with every check against ``url``'s schema (bounded: ``MAX_EXAMPLES`` per
    operation, a fixed seed), its hooks (``schemathesis_credentials``) set by ``hooks``."""
    done = subprocess.run(
        [SCHEMATHESIS, "run", f"{url}/openapi.json", "--checks", "all", *options,
         "--max-examples", str(MAX_EXAMPLES), "--seed", "1", "--workers", "1", "--request-timeout", "30",
         "--max-response-time", "30"],  # no timing of its own (benchmarks/ has them): answered at all
        capture_output=True, text=True, timeout=900, cwd=tmp_path, env={**os.environ, **hooks})
    (tmp_path / "schemathesis.txt").write_text(done.stdout + done.stderr)  # the whole report
    return done


def phases_for(database: str) -> tuple[str, ...]:
    """Every phase on SQLite, the deterministic ones on PostgreSQL (``ON_POSTGRESQL``)."""
    return ON_POSTGRESQL if database.startswith("postgresql") else ()


def credentials(operator: str, answers: Path) -> dict[str, str]:
    """The environment of ``schemathesis_credentials``: the operator who signs, where answers go."""
    return {"SCHEMATHESIS_HOOKS": "tests.hardening.schemathesis_credentials",
            "PYTHONPATH": str(ROOT), "DEALERPOKER_SIGNING_OPERATOR": operator,
            "DEALERPOKER_SIGNING_SECRET": SECRET, "DEALERPOKER_SIGN_HERE": SIGN_HERE,
            "DEALERPOKER_SCHEMATHESIS_ANSWERS": str(answers)}


def answered(answers: Path) -> list[tuple[str, str, str]]:
    """Each recorded answer: (operation, status, method sent)."""
    found = []
    for line in answers.read_text().splitlines():
        operation, status, sent = line.rsplit(" ", 2)
        found.append((operation, status, sent))
    return found


def staff_admin(database: str, url: str) -> str:
    """The password of ``STAFF``, an admin created as ``dealerpoker admin create-user`` does, its
    one-time password replaced."""
    made = subprocess.run([DEALERPOKER, "admin", "create-user", STAFF, "--role", "admin",
                           "--database", database], capture_output=True, text=True, timeout=120, check=True,
                          env=passwords.in_processes(os.environ))
    once = next(line.split(": ", 1)[1] for line in made.stdout.splitlines()
                if line.startswith("one-time password"))
    first = httpx.post(f"{url}{STAFF_SESSION}", json={"name": STAFF, "password": once}, timeout=60)
    assert first.status_code == 200, first.text
    session = {"Cookie": f"{COOKIE}={first.cookies[COOKIE]}", CSRF_HEADER: first.json()["csrf"]}
    changed = httpx.post(f"{url}/admin/api/password", json={"current": once, "new": STAFF_PASSWORD},
                         headers=session, timeout=60)
    assert changed.status_code == 200, changed.text
    return STAFF_PASSWORD


def patterns(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from patterns(value)
    elif isinstance(node, list):
        for item in node:
            yield from patterns(item)


def launched_player(url: str, operator: str) -> None:
    """The operator launches ``PLAYER`` (play money) and the player opens a session."""
    raw = json.dumps({"player": PLAYER, "currency": "EUR", "game": "texas-bonus", "mode": "demo"}).encode()
    signed = operator_headers(SECRET, "POST", "/operator/v1/launch", raw, operator=operator)
    launch = httpx.post(f"{url}/operator/v1/launch", content=raw, timeout=60, headers=signed)
    assert launch.status_code == 200, launch.text
    opened = httpx.post(f"{url}/api/session", json={"launch": launch.json()["launch_token"]}, timeout=60)
    assert opened.status_code == 200, opened.text


def created_campaign(url: str, operator: str, name: str) -> str:
    """The id of a free-bet campaign the operator creates for ``PLAYER``'s currency, valid now."""
    now = datetime.now(UTC)
    raw = json.dumps({"campaign_id": name, "games": ["texas-bonus"], "ante": {"EUR": 200}, "rounds": 2,
                      "valid_from": (now - timedelta(days=1)).isoformat(),
                      "valid_until": (now + timedelta(days=30)).isoformat()}).encode()
    signed = operator_headers(SECRET, "POST", "/operator/v1/campaigns", raw, operator=operator)
    created = httpx.post(f"{url}/operator/v1/campaigns", content=raw, timeout=60, headers=signed)
    assert created.status_code == 201, created.text
    return str(created.json()["id"])


def server_openapi(url: str) -> dict[str, Any]:
    paths: dict[str, Any] = httpx.get(f"{url}/openapi.json", timeout=60).json()["paths"]
    return paths
