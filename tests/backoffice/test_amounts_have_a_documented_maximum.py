"""Every amount the back office takes has a maximum (``MAX_AMOUNT``, 2**53 - 1 minor units),
checked at the edge with an error naming it, on SQLite and PostgreSQL alike: an admin credit of
2**62 (stored as a float on SQLite, a 500 on PostgreSQL before), a credit that would carry the
balance past the maximum, 64-bit-overflowing numbers in queries and in a paytable draft. Nothing
changes. (A wallet's balance out of range: ``tests/server/test_hostile_wallet_answers_are_contained.py``.)"""

from __future__ import annotations

import uuid

from tests.server.conftest import Player, TestClient

from dealerpoker.games.money import MAX_AMOUNT

from .support import StaffMember


def unique(name: str) -> str:
    return f"{name}-{uuid.uuid4().hex[:8]}"  # the PostgreSQL database outlives one test


def test_a_credit_beyond_the_maximum_is_refused_naming_it_and_moves_nothing(client: TestClient) -> None:
    admin = StaffMember(client, unique("adm"), "admin")
    player = Player(client)
    path = f"/admin/api/players/{player.id}/adjustments"
    for amount in (2**62, -(2**62), 2**64 + 1, MAX_AMOUNT + 1):
        body = {"amount": amount, "reason": "a very large credit", "key": f"k{amount}"[:32]}
        refused = admin.post(path, body)
        assert refused.status_code == 422, refused.text
    room = MAX_AMOUNT - player.balance()
    filled = admin.post(path, {"amount": room, "reason": "up to the maximum", "key": "fill"})
    assert filled.status_code == 200 and filled.json()["balance"] == MAX_AMOUNT, filled.text
    over = admin.post(path, {"amount": 1, "reason": "one more than the maximum", "key": "over"})
    assert over.status_code == 422 and "maximum" in over.json()["message"], over.text
    assert player.balance() == MAX_AMOUNT
    audited = admin.get("/admin/api/audit", action="player.adjust").json()["entries"]
    assert [entry["after"]["amount"] for entry in audited if entry["target"] == player.id] == [room]


def test_query_numbers_beyond_64_bits_are_a_422_not_a_500(client: TestClient) -> None:
    admin = StaffMember(client, unique("adm"), "admin")
    queries = (("/admin/api/rounds", {"min_stake": 2**64}), ("/admin/api/rounds", {"max_stake": 2**63}),
               ("/admin/api/audit", {"before": 2**64}))
    for path, params in queries:
        answer = admin.get(path, **params)
        assert answer.status_code == 422, (path, params, answer.text)
    assert admin.get("/admin/api/rounds", max_stake=MAX_AMOUNT).status_code == 200


def test_a_paytable_draft_with_a_number_beyond_the_maximum_is_refused_naming_it(client: TestClient) -> None:
    admin = StaffMember(client, unique("adm"), "admin")
    for value in (2**64, 2**53, -(2**70)):
        draft = admin.post("/admin/api/games/casino-holdem/draft",
                           {"changes": {"ante_paytable": {"straight-flush": value}}})
        assert draft.status_code == 422, draft.text
        assert "ante_paytable.straight-flush" in draft.json()["message"]
