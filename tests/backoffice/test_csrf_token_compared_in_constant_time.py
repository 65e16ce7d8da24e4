"""The staff CSRF token is compared in constant time: every change a member asks for goes through
``hmac.compare_digest`` with the token sent and the session's (an ``!=`` would stop at the first
differing character, telling an attacker how much of a guess was right). Timing itself is not
measured (that would depend on the machine's luck); the test sees which comparison decides."""

from __future__ import annotations

import hmac
import uuid
from typing import Any

import pytest

from dealerpoker.server.backoffice.deps import CSRF_HEADER

from .support import StaffMember


def test_a_changes_csrf_token_is_compared_with_compare_digest(client: Any, monkeypatch: pytest.MonkeyPatch
                                                              ) -> None:
    member = StaffMember(client, f"constant-{uuid.uuid4().hex[:8]}", "admin")
    compared: list[tuple[bytes, bytes]] = []
    original = hmac.compare_digest

    def recording(given: Any, expected: Any) -> bool:
        compared.append((given, expected))
        return original(given, expected)

    monkeypatch.setattr(hmac, "compare_digest", recording)
    refused = client.delete("/admin/api/session", headers={**member.headers(csrf=False),
                                                           CSRF_HEADER: "not-the-token"})
    assert refused.status_code == 403 and refused.json()["error"] == "csrf_failed", refused.text
    assert (b"not-the-token", member.csrf.encode()) in compared
    assert member.delete("/admin/api/session").status_code == 200
    assert (member.csrf.encode(), member.csrf.encode()) in compared
