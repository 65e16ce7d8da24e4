"""Back-office test support: staff accounts created as ``admin create-user`` does, signed in
through the API, each request carrying its own session cookie and CSRF token."""

from __future__ import annotations

from typing import Any

import httpx
from tests.server.conftest import TestClient

from dealerpoker.server.backoffice import staff
from dealerpoker.server.backoffice.deps import COOKIE, CSRF_HEADER

PASSWORD = "correct horse battery staple"


def create_staff(client: TestClient, name: str, role: str, *, totp: bool = False) -> staff.NewStaff:
    services = client.app.state.services

    async def run() -> staff.NewStaff:
        async with services.database.transaction() as connection:
            return await staff.create_user(connection, name, role, at=services.now(), totp=totp)

    assert client.portal is not None
    return client.portal.call(run)


class StaffMember:
    """A signed-in staff member (the one-time password already replaced by ``PASSWORD``)."""

    def __init__(self, client: TestClient, name: str, role: str, *, change_password: bool = True) -> None:
        self.client = client
        self.name = name
        made = create_staff(client, name, role)
        self.password = made.password
        self.cookie, self.csrf = sign_in(client, name, made.password)
        if change_password:
            answer = self.post("/admin/api/password", {"current": made.password, "new": PASSWORD})
            assert answer.status_code == 200, answer.text
            self.password = PASSWORD

    def headers(self, csrf: bool = True) -> dict[str, str]:
        found = {"Cookie": f"{COOKIE}={self.cookie}"}
        if csrf:
            found[CSRF_HEADER] = self.csrf
        return found

    def get(self, path: str, **params: Any) -> httpx.Response:
        return self.client.get(path, params=params, headers=self.headers(False))

    def post(self, path: str, body: Any, *, csrf: bool = True) -> httpx.Response:
        return self.client.post(path, json=body, headers=self.headers(csrf))

    def delete(self, path: str, *, csrf: bool = True) -> httpx.Response:
        return self.client.delete(path, headers=self.headers(csrf))


def sign_in(client: TestClient, name: str, password: str, code: str | None = None) -> tuple[str, str]:
    """(session cookie, CSRF token) of a sign-in that must succeed."""
    answer = client.post("/admin/api/session", json={"name": name, "password": password, "code": code})
    assert answer.status_code == 200, answer.text
    cookie = answer.cookies[COOKIE]
    jar = client._client.cookies if client._client is not None else None
    if jar is not None:
        jar.clear()  # each member's requests carry their own cookie
    return cookie, str(answer.json()["csrf"])
