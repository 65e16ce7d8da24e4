"""Back-office sign-in against guessing, on SQLite and PostgreSQL: wrong passwords sent at once all
count (one atomic statement), so thirty of them lock the name and the right password is then
refused; an unknown name is counted and locked exactly like a known one (the answers tell nothing);
a lock holds for the address that caused it only, so a stranger cannot lock a member out; and a
password change ends the member's other sessions."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import httpx
import pytest
from tests.server.conftest import FakeClock, TestClient

from dealerpoker.server.backoffice import staff

from .support import PASSWORD, StaffMember, sign_in

WRONG = "not the password at all"


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"  # the PostgreSQL database outlives one test


def from_address(client: TestClient, address: str, bodies: list[dict[str, Any]]) -> list[httpx.Response]:
    """``POST /admin/api/session`` with each body, all at once, from client ``address``."""

    async def send() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=client.app, client=(address, 40_000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            sent = [http.post("/admin/api/session", json=body) for body in bodies]
            return list(await asyncio.gather(*sent))

    assert client.portal is not None
    return client.portal.call(send)


@pytest.mark.slow
def test_wrong_passwords_sent_at_once_all_count_and_lock_the_name(client: TestClient) -> None:
    dee = unique("guess-dee")
    StaffMember(client, dee, "auditor")
    answers = from_address(client, "10.0.0.7", [{"name": dee, "password": WRONG}] * 30)
    assert {answer.status_code for answer in answers} <= {401, 429}
    right = from_address(client, "10.0.0.7", [{"name": dee, "password": PASSWORD}])[0]
    assert right.status_code == 429 and right.json()["error"] == "account_locked", right.text


@pytest.mark.slow
def test_an_unknown_name_is_counted_and_locked_like_a_known_one(client: TestClient) -> None:
    eve = unique("guess-eve")
    StaffMember(client, eve, "support")
    for name in (eve, unique("nobody-here")):
        answers = [from_address(client, "10.0.0.8", [{"name": name, "password": WRONG}])[0]
                   for _ in range(staff.LOCK_AFTER + 1)]
        assert [answer.status_code for answer in answers] == [401] * staff.LOCK_AFTER + [429], name
        assert answers[-1].json()["error"] == "account_locked"


@pytest.mark.slow
def test_a_lock_holds_only_for_the_address_that_caused_it(client: TestClient, clock: FakeClock) -> None:
    fay = unique("guess-fay")
    StaffMember(client, fay, "admin")
    from_address(client, "10.0.0.9", [{"name": fay, "password": WRONG}] * staff.LOCK_AFTER)
    assert from_address(client, "10.0.0.9", [{"name": fay, "password": PASSWORD}])[0].status_code == 429
    assert from_address(client, "10.0.1.1", [{"name": fay, "password": PASSWORD}])[0].status_code == 200
    clock.advance(staff.LOCK_MINUTES * 60 + 1)
    assert from_address(client, "10.0.0.9", [{"name": fay, "password": PASSWORD}])[0].status_code == 200


def test_a_password_change_ends_the_members_other_sessions(client: TestClient) -> None:
    member = StaffMember(client, gus := unique("guess-gus"), "admin")
    other_cookie, _csrf = sign_in(client, gus, PASSWORD)
    other = {"Cookie": f"dp_staff={other_cookie}"}
    assert client.get("/admin/api/session", headers=other).status_code == 200
    changed = member.post("/admin/api/password", {"current": PASSWORD, "new": "a new long password"})
    assert changed.status_code == 200 and changed.json()["other_sessions_ended"] >= 1, changed.text
    assert client.get("/admin/api/session", headers=other).status_code == 401
    assert member.get("/admin/api/session").status_code == 200  # the session that changed it goes on
