"""The back office's OpenAPI document states the choices its server takes (issue 31: schemathesis
with a staff session found each of these stated as free text, so a valid-looking request was
refused 422): a game among the games, a report's period, grouping, format and days (dates), a
round search's status and kind (empty: any, as the page sends it), a jackpot event's kind, a
table's status, an adjustment other than 0 with a reason not only blanks; and the currency
filters are the free text the server takes (an unknown currency matches no rows), not the
currencies offered."""

from __future__ import annotations

from typing import Any

import pytest
from tests.server.conftest import TestClient

from dealerpoker.games import GAMES
from dealerpoker.server.backoffice.search import KINDS, STATUSES

from .support import StaffMember


def parameter(document: dict[str, Any], path: str, name: str, method: str = "get") -> dict[str, Any]:
    operation = document["paths"][path][method]
    found: dict[str, Any] = next(p for p in operation["parameters"] if p["name"] == name)
    return found


def choices(schema: dict[str, Any]) -> list[Any]:
    """The enum of a schema, of its non-null branch when it may be null."""
    for branch in schema.get("anyOf", [schema]):
        if "enum" in branch:
            return list(branch["enum"])
    raise AssertionError(f"no enum in {schema}")


@pytest.mark.slow
def test_the_back_office_schema_states_the_choices_its_server_takes(client: TestClient) -> None:
    admin = StaffMember(client, "schema-admin", "admin")
    document = client.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    games_paths = [path for path in document["paths"] if path.startswith("/admin/api/games/{game}")]
    assert games_paths
    for path in games_paths:
        assert choices(parameter(document, path, "game", "post")["schema"]) == list(GAMES)
    reports = "/admin/api/reports"
    assert choices(parameter(document, reports, "period")["schema"]) == ["day", "week", "month"]
    assert choices(parameter(document, reports, "format")["schema"]) == ["json", "csv"]
    assert "jurisdiction" in choices(parameter(document, reports, "group")["schema"])
    rounds = "/admin/api/rounds"
    assert choices(parameter(document, rounds, "status")["schema"]) == ["", *STATUSES]
    assert choices(parameter(document, rounds, "kind")["schema"]) == ["", *KINDS]
    jackpot_kinds = choices(parameter(document, "/admin/api/jackpot", "kind")["schema"])
    assert jackpot_kinds == ["seed", "contribution", "award"]
    assert choices(schemas["StatusIn"]["properties"]["status"]) == ["open", "paused", "closed"]
    assert schemas["AdjustmentIn"]["properties"]["amount"]["not"] == {"const": 0}
    for path in (reports, rounds):
        assert "enum" not in str(parameter(document, path, "currency")["schema"])
    # What the schema states is what the server takes; the rest is refused naming it.
    for status in ["", *STATUSES]:
        assert admin.get(rounds, status=status).status_code == 200, status
    assert admin.get(rounds, currency="XYZ").json()["rounds"] == []
    refused = admin.get(rounds, status="sleeping")
    assert refused.status_code == 422 and "status" in refused.text
    assert admin.get(reports, period="year").status_code == 422
    unknown = admin.post("/admin/api/games/blackjack/draft", {"changes": {}})
    assert unknown.status_code == 422 and "game" in unknown.text
    # The refusals schemathesis sets aside (schemathesis_credentials.BEYOND_THE_SCHEMA) name their rule.
    crossed = admin.get(rounds, min_stake=5, max_stake=1)
    assert crossed.status_code == 422 and "is above max_stake" in crossed.text
    days = admin.get(reports, since="2026-02-02", until="2026-02-01")
    assert days.status_code == 422 and "is not after since" in days.text
    alone = admin.get(rounds, operator_player="ext-1")
    assert alone.status_code == 422 and "give the operator too" in alone.text
    # An empty day or live_from is the default, as the schema says.
    assert admin.get(reports, until="").status_code == 200
    assert {"type": "string", "enum": [""]} in parameter(document, reports, "until")["schema"]["anyOf"]
    assert {"type": "string", "enum": [""]} in schemas["RestoreIn"]["properties"]["live_from"]["anyOf"]
    extra = admin.post("/admin/api/games/texas-bonus/draft", {"changes": {}, "": 1})
    assert extra.status_code == 422, extra.text  # was ignored: the schema says it is not taken
    draft = admin.post("/admin/api/games/texas-bonus/draft", {"changes": {"colour": "red"}})
    assert draft.status_code == 422 and "(nothing was saved)" in draft.text, draft.text
    nowhere = admin.post("/admin/api/games/texas-bonus/jurisdictions", {"jurisdictions": ["XX"]})
    assert nowhere.status_code == 422 and "jurisdictions: no profile" in nowhere.text, nowhere.text
    assert admin.get(reports, since="2026-02-30").status_code == 422
    blank = admin.post(f"/admin/api/players/p_{'0' * 16}/adjustments", {"amount": 5, "reason": " \t\n "})
    assert blank.status_code == 422 and "reason" in blank.text
    assert parameter(document, reports, "since")["schema"]["anyOf"][0]["format"] == "date"
    assert schemas["AdjustmentIn"]["properties"]["reason"]["minLength"] == 3
    zero = admin.post(f"/admin/api/players/p_{'0' * 16}/adjustments", {"amount": 0, "reason": "a test"})
    assert zero.status_code == 422 and "amount" in zero.text
